"""``lp``: certified designs for utilities linear in Q (expected loss, MAE) under LDP, graph-, metric-LDP and LIP.

The design min Σ P(x) Q[x, y] L[x, y] over private channels is an LP with n·m variables; written
whole it is slow at a few hundred locations (n = 100 on a grid: 10⁴ variables, 3.6·10⁴ pair rows).
Here it is solved by column generation (:mod:`~mechopt.solvers.lp.colgen`) with exact pricing per output
(:mod:`~mechopt.solvers.lp.cones`): a master LP with n rows, and per output a small LP over the notion's cone with
only its essential pairs, or a closed form. Every result carries a bound proven from the duals.

**Unit-free.** The LP is solved on the normalised cost C'' = (C − min_y C[x, y]) / s, with
C = P ∘ L and s = Σ_x max_y (C − min_y C)[x, y], so that the value is in [0, 1] whatever the unit
of the loss: a loss ×1e-9 or ×1e9 gives the same channel and the value and bound rescaled. The
relative gap that decides ``optimal`` is measured on that normalised problem (the part of the
value that depends on the mechanism): ``(value'' − bound'') / max(|value''|, |bound''|)``, reported
as ``extras["relative_gap"]``; the certificate's bound is mapped back to the problem's units.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.geo import GeoDesign
>>> prob = GeoDesign.from_params(coords="line:40", eps=0.1)   # metric-LDP on a line, loss |x − y|
>>> r = mechopt.solve(prob)
>>> r.solver, r.status.value, r.proof, r.violation <= 1e-7, r.extras["relative_gap"] <= 1e-7
('lp', 'optimal', 'certificate', True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.model.problem import value_gap
from mechopt.model.solver import Solver
from mechopt.notions import LDP, LIP, GraphLDP, MetricLDP, PosteriorBox
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Certificate, Result, Status
from mechopt.runtime.deadline import passed
from mechopt.solvers.lp.colgen import Outcome, column_generation
from mechopt.solvers.lp.cones import LDPCone, LIPCone, MetricCone, metric_closure
from mechopt.solvers.lp.full import FULL_MEMORY, STALL_PASSES, choose, solve_full
from mechopt.solvers.lp.spanner import check_dilation, greedy_spanner

__all__ = ["LPSolver", "SOLVERS", "applies"]

#: Up to this n²·m the recovered channel is made to pass the audit exactly (not only within ``privacy``):
#: an audit costs O(n²·m) under metric privacy, and a failed one is followed by a bisection of audits.
_EXACT_AUDIT_CELLS = 2e8
#: Largest n·m (inputs × outputs) accepted by default (the distance table and C are n² doubles).
MAX_CELLS = 25_000_000
#: The normalised loss's scale: its worst channel costs Σ_x max_y Cn[x, y] = 1 (module docstring).
NORMALISED_SCALE = 1.0


def applies(problem: Any) -> bool:
    """A channel problem whose utility is linear in Q under LDP, LIP, ε-PML, ALIP, graph- or metric-LDP."""
    notion, utility = getattr(problem, "notion", None), getattr(problem, "utility", None)
    if notion is None or utility is None or getattr(problem, "prior", None) is None:
        return False
    if not (type(notion) in (LDP, LIP) or isinstance(notion, (GraphLDP, MetricLDP, PosteriorBox))):
        return False
    from mechopt.utilities import Utility

    return type(utility).linear_cost is not Utility.linear_cost


class LPSolver(Solver):
    """Column generation with exact pricing and a dual bound (module docstring).

    Other Parameters
    ----------------
    max_iter : int
        Most rounds (master solve + pricing pass).
    target_gap : float
        Relative gap at which the loop stops (below the ``gap`` tolerance that decides ``optimal``).
    max_cells : int
        Largest inputs × outputs accepted.
    spanner : float, optional
        Metric-LDP only: constrain the edges of a greedy δ-spanner of the metric at ε/δ instead of every
        pair (:mod:`~mechopt.solvers.lp.spanner`). The mechanism is ε-private (audited) and no worse than the
        optimum at ε/δ (``extras["spanner"]``); the status is ``feasible``, never ``optimal`` at ε.
    method : {"auto", "colgen", "full"}
        ``full``: the whole essential-pairs LP by HiGHS's interior point, certified by the same bound
        (:mod:`~mechopt.solvers.lp.full`, which states the ``auto`` rule); ``colgen``: column generation.
    full_memory : float
        Memory budget (bytes) of the full LP's estimate; ``method="full"`` above it is a TooLargeError.
    """

    name = "lp"
    options = {"max_iter": 10_000, "target_gap": 1e-9, "max_cells": MAX_CELLS, "spanner": None, "method": "auto",
               "full_memory": FULL_MEMORY}  # fmt: skip
    requires = ("highspy",)

    def can_solve(self, problem: Any) -> bool:
        return applies(problem)

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        t0 = time.perf_counter()
        P = np.asarray(problem.prior, float)
        C = np.asarray(problem.utility.linear_cost(P), float)
        n, m = C.shape
        if n * m > opts["max_cells"]:
            from mechopt.errors import TooLargeError

            raise TooLargeError(
                f"{n} inputs x {m} outputs = {n * m} cells is above max_cells={opts['max_cells']}; raise it "
                "(memory grows as n x m doubles and the distance table as n^2)"
            )
        free = type(problem.notion) is LIP or isinstance(problem.notion, PosteriorBox)
        rows = P > 0 if free else np.ones(n, bool)  # zero-mass rows are free under LIP, PML, ALIP
        offset = C[rows].min(axis=1)
        with np.errstate(over="ignore", invalid="ignore"):
            Cs = C[rows] - offset[:, None]
            top = Cs.max(axis=1)
            peak = float(top.max()) if np.all(np.isfinite(top)) else math.inf
            scale = peak * float((top / peak).sum()) if 0 < peak < math.inf else peak  # Σ top without overflow
        if not (np.all(np.isfinite(C)) and math.isfinite(scale)):
            from mechopt.errors import ProblemError

            raise ProblemError(
                "the expected loss overflows double precision (losses within a row differ by ~1e308): rescale "
                "the loss (the design does not change when every loss is multiplied by one constant)"
            )
        base = dict(sense="min", objective=problem.objective, solver=self.name)
        if scale == 0.0:  # every channel costs the same: report output 0 always
            Q = np.zeros((n, m))
            Q[:, 0] = 1.0
            v = float(offset.sum())
            cert = Certificate(v, 0.0)
            return Result(status=Status.OPTIMAL, value=v, mechanism=Q, certificate=cert, proof="certificate",
                          message="the loss does not depend on the report: every channel is optimal",
                          extras={"relative_gap": 0.0}, **base)  # fmt: skip
        Cn = Cs / scale
        spanner = _spanner_option(problem.notion, opts["spanner"])
        if spanner is None:
            cone, radii, note = _cone(problem.notion, P[rows], n)
        else:
            cone, radii, note = _spanner_cone(problem.notion, spanner)
        deadline = None if opts["time_limit"] is None else t0 + float(opts["time_limit"])
        out, method, note = _run(Cn, cone, radii, note, opts, deadline)
        Qr = _recover(out, cone, m)
        if rows.all() and n * n * m <= _EXACT_AUDIT_CELLS:  # rounding may leave ε + 1e-16: mix it away
            Qr = _exactly_private(Qr, P, problem.notion)
        Q = np.empty((n, m))
        Q[rows] = Qr
        if not rows.all():
            Q[~rows] = P[rows] @ Qr  # the output marginal λ: LIP leaves zero-mass rows free
        res = _result(problem, out, Q, Qr, Cn, offset, scale, note, base)
        res.extras["method"] = _METHOD_TEXT[method]
        return res if spanner is None else _spanner_result(res, problem.notion.eps, spanner, cone)


_METHOD_TEXT = {
    "colgen": "column generation: master LP over admissible columns, exact pricing per output",
    "full": "full essential-pairs LP (HiGHS IPM + crossover); bound from exact pricing at its row prices",
}


def _run(Cn: np.ndarray, cone: Any, radii: tuple, note: str, opts: dict, deadline: float | None) -> tuple:
    """(outcome, "colgen" or "full", note): the path of option ``method`` (rule in :mod:`~mechopt.solvers.lp.full`).

    Column generation first unless ``full``; on a dense cone it stops after STALL_PASSES full passes and the full LP
    takes over. A full LP stopped by the time limit falls back to column generation's answer (or
    one round of it), status ``time_limit``.
    """
    method, pairs = choose(opts["method"], cone, Cn.shape[1], _budget(opts["full_memory"]))

    def colgen(until: float | None, passes: int | None = None) -> Outcome:
        return column_generation(Cn, cone, radii=radii, target=opts["target_gap"], max_rounds=opts["max_iter"],
                                 deadline=until, accept=settings.tolerance("gap") / 2, max_passes=passes)  # fmt: skip

    out = None if method == "full" else colgen(deadline, STALL_PASSES if method == "stall" else None)
    if out is not None and out.status != "stalled":
        return out, "colgen", note
    if passed(deadline):
        out = out or colgen(deadline)  # no time left for the full LP: column generation's answer, not certified
        out.status = "time_limit"
        return out, "colgen", note
    first = None if out is None else {k: out.stats[k] for k in ("rounds", "full_passes", "time_s")}
    full = solve_full(Cn, cone, pairs, deadline)
    if full is None:  # HiGHS stopped at the time limit
        out = out or colgen(time.perf_counter())
        out.status = "time_limit"
        return out, "colgen", f"{note}; the full LP stopped at the time limit"
    full.stats["column_generation_first"] = first
    return (
        full,
        "full",
        f"{note.split(':')[0]}: full LP of {len(pairs)} essential pairs (HiGHS IPM), bound at its duals",
    )


def _budget(value: Any) -> float:
    """Option ``full_memory`` as a positive number of bytes, or a ParamError."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    if not ok:
        from mechopt.errors import ParamError

        raise ParamError(f"option full_memory is a memory budget in bytes (> 0, e.g. 4e9), got {value!r}")
    return float(value)


def _cone(notion: Any, P: np.ndarray, n: int) -> tuple[Any, tuple[float, ...], str]:
    """The pricing cone of the notion, the ball radii of the starting columns, and a note."""
    if type(notion) is LDP:
        return LDPCone(P.size, notion.eps), (0.0,), "ldp: closed-form pricing"
    if type(notion) is LIP:
        return LIPCone(P, notion.eps), (0.0,), "lip: fractional-knapsack pricing"
    if isinstance(notion, PosteriorBox):
        return LIPCone(P, notion.eps, low=notion.factors()[0]), (0.0,), f"{notion.name}: fractional-knapsack pricing"
    if isinstance(notion, GraphLDP):
        D, pairs = _graph_metric(notion.graph, n)
        cone = MetricCone(D, notion.eps, start=pairs, complete=True)
        # Laplace columns e^{−ε d(x, c)} only: the plateaus of _radii made the first master 2.4x larger for the
        # same rounds (20x20 grid, ε = 0.1: 1601 -> 401 starting columns, 7.5 -> 5.5 s CPU)
        return cone, (0.0,), f"{notion.name}: {len(pairs)} essential edges of the policy graph"
    D = notion.dist
    if not (notion.source and notion.source.get("norm")):  # a table of unknown origin: its metric closure
        D = metric_closure(D)
    cone = MetricCone(D, notion.eps)
    return cone, _radii(D), "metric-ldp: essential neighbour pairs, row generation over all pairs"


def _spanner_option(notion: Any, value: Any) -> float | None:
    """The dilation δ of option ``spanner`` (None: the exact problem); a ParamError off metric-LDP."""
    if value is None:
        return None
    if not isinstance(notion, MetricLDP):
        from mechopt.errors import ParamError

        raise ParamError(
            f"option spanner applies to metric-ldp (geo-indistinguishability), not {notion.name}; leave it out"
        )
    return check_dilation(value)


def _spanner_cone(notion: Any, dilation: float) -> tuple[Any, tuple[float, ...], str]:
    """The cone of the greedy δ-spanner's edges at ε/δ (a policy graph with the metric's edge lengths)."""
    D = notion.dist
    if not (notion.source and notion.source.get("norm")):
        D = metric_closure(D)
    edges, DG = greedy_spanner(D, dilation)
    cone = MetricCone(DG, notion.eps / dilation, start=edges, complete=True)
    return cone, (0.0,), f"greedy {dilation:g}-spanner: {len(edges)} edges at eps/{dilation:g}"


def _spanner_result(res: Result, eps: float, dilation: float, cone: Any) -> Result:
    """The spanner's certified design restated: ε-private, no worse than the optimum at ε/δ; not optimal at ε."""
    gap = res.extras["relative_gap"]
    bound = res.certificate.bound if res.certificate is not None else -math.inf
    info = {
        "dilation": dilation,
        "edges": len(cone.start),
        "eps_guarantee": eps / dilation,
        "spanner_bound": bound,
        "statement": (
            f"eps-private at eps={eps:g} (audited); value <= OPT(eps/{dilation:g}) + (value - spanner_bound), "
            f"and >= OPT(eps); not the optimum at eps"
        ),
    }
    certified = res.status is Status.OPTIMAL
    msg = (
        f"greedy {dilation:g}-spanner ({len(cone.start)} edges at eps/{dilation:g}): "
        + (f"no worse than the optimum at eps={eps / dilation:.6g} (gap {gap:.3g})" if certified else res.message)
        + f"; private at eps={eps:g}, not proven optimal at eps={eps:g}"
    )
    status = Status.FEASIBLE if certified else res.status
    return Result(status=status, value=res.value, mechanism=res.mechanism, certificate=None, proof=None,
                  iterations=res.iterations, message=msg, extras={**res.extras, "spanner": info},
                  sense=res.sense, objective=res.objective, solver=res.solver)  # fmt: skip


def _graph_metric(graph: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Shortest-path distances of the policy graph and its essential edges (those that are shortest paths)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import shortest_path

    edges = np.array([(u, v, w) for u, v, w in graph.edges(data="weight", default=1.0)], float).reshape(-1, 3)
    u, v, w = edges[:, 0].astype(int), edges[:, 1].astype(int), edges[:, 2]
    A = sp.coo_matrix((w, (u, v)), shape=(n, n)).tocsr()
    D = shortest_path(A, method="D", directed=False)
    keep = (w <= D[u, v] * (1 + 1e-12)) & (u != v)
    return D, np.column_stack([u[keep], v[keep]])


def _radii(D: np.ndarray) -> tuple[float, ...]:
    """0 and 1, 2, 3 times the median nearest-neighbour distance (plateau columns for small ε)."""
    Dm = np.where(np.eye(D.shape[0], dtype=bool) | ~np.isfinite(D), np.inf, D)
    near = Dm.min(axis=1)
    h = float(np.median(near[np.isfinite(near)])) if np.isfinite(near).any() else 0.0
    return (0.0,) if h <= 0 else (0.0, h, 2 * h, 3 * h)


def _recover(out: Outcome, cone: Any, m: int) -> np.ndarray:
    """Q[:, y] = Σ_{j: y_j = y} θ_j q_j, with θ re-solved on its support and rows renormalised."""
    n = out.cols.shape[0]
    theta = _polish(out.cols, out.theta)
    Q = np.zeros((n, m))
    np.add.at(Q.T, out.ys, (out.cols * theta).T)
    Q = np.clip(Q, 0.0, None)
    return Q / Q.sum(axis=1, keepdims=True)


def _exactly_private(Q: np.ndarray, P: np.ndarray, notion: Any) -> np.ndarray:
    """Q, or (1 − t) Q + t 1λᵀ for the least t in 1e-15, 1e-13, ..., 1e-7 that the audit passes exactly.

    The columns are admissible up to rounding, so the audit may read ε + 1e-16; the product channel
    1λᵀ (λ = PQ) is private under every notion, and a mixture moves the value by at most t.
    """
    if notion.epsilon(Q, P) <= notion.eps:
        return Q
    base = np.tile(P @ Q, (Q.shape[0], 1))
    for t in (1e-15, 1e-13, 1e-11, 1e-9, 1e-7):
        M = (1 - t) * Q + t * base
        if notion.epsilon(M, P) <= notion.eps:
            return M
    return Q


def _polish(R: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """θ re-solved from Σ_j θ_j r_j = 1 on its support by least squares (HiGHS meets the rows to 1e-10),
    kept when it is positive and closer; as :func:`mechopt.solvers.exact.lp.polish` with P = 1.

    >>> R = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> _polish(R, np.array([0.6666, 0.6667])).round(12).tolist()
    [0.666666666667, 0.666666666667]
    """
    used = np.flatnonzero(theta > 0)
    if used.size == 0 or used.size > R.shape[0]:
        return theta
    M = R[:, used]
    cand = np.linalg.lstsq(M, np.ones(R.shape[0]), rcond=None)[0]
    if np.all(cand > 0) and np.abs(M @ cand - 1).max() < np.abs(M @ theta[used] - 1).max():
        out = np.zeros_like(theta)
        out[used] = cand
        return out
    return theta


def _result(problem, out, Q, Qr, Cn, offset, scale, note, base) -> Result:
    v_norm = float(np.sum(Cn * Qr))
    lower = min(out.lower, v_norm)  # a bound above the value of a feasible channel is rounding: clip
    gap = relative_gap(v_norm, lower, NORMALISED_SCALE)
    value = float(offset.sum()) + scale * v_norm
    # the bound rounded outward by its own arithmetic (a few ulp per input of each sum): on the correct side of
    # the optimum, not ~1e-15 above it (issue 26: "a bound on the correct side" at 60 digits)
    per = (Cn.shape[0] + 2) * float(np.finfo(float).eps)
    margin = per * (float(np.abs(offset).sum()) + scale * (abs(v_norm) + abs(lower)))
    bound = float(offset.sum()) + scale * lower - margin
    tol = settings.tolerance("gap")
    extras = {"relative_gap": gap, "normalised_value": v_norm, "normalised_bound": lower, "pricing": note, **out.stats}
    b = getattr(problem.utility, "b", None)
    if b is not None:  # what output y of Q stands for: the estimate b_y (MAE)
        extras["output_estimates"] = np.asarray(b, float).tolist()
    if out.status in ("time_limit", "iteration_limit") and gap > tol:
        status, msg = Status(out.status), f"stopped at the {out.status.replace('_', ' ')}: relative gap {gap:.3g}"
    elif gap <= tol:
        status, msg = Status.OPTIMAL, f"certified: relative gap {gap:.3g} on the normalised loss ({note})"
    else:
        status = Status.OPTIMAL_INACCURATE
        msg = f"relative gap {gap:.3g} above tolerance {tol:.3g} ({out.status}; {note})"
    cert = Certificate(bound, value_gap(problem, Q, value, bound)) if math.isfinite(bound) else None
    return Result(status=status, value=value, mechanism=Q, certificate=cert,
                  proof="certificate" if status is Status.OPTIMAL else None,
                  iterations=out.stats["rounds"], message=msg, extras=extras, **base)  # fmt: skip


SOLVERS = {"lp": LPSolver}
