"""Robust design of a sublinear utility (mi, mse, histogram) over a prior set: an LP over extreme rays, certified.

For vertices P_1..P_k and the column gains f_i(q) = μ(P_i ∘ q) (convex, positively homogeneous in the
channel column q: :mod:`mechopt.problems.robust.gains`), splitting a column into extreme rays of the
privacy cone raises every f_i at once (one garbling serves every prior), so over a ray set R

    maximise t   s.t.   t ≤ Σ_r w_r f_i(r) + c_i  (each vertex i),   Σ_r w_r r = 1,   w ≥ 0

is the robust design max_Q min_i s_i(Q) (s_i the score: I(P_i; Q); or −MSE_i, with c_i = 0 for the mse of a
sum, whose gains are its columns' errors −Σ_x P_ix r_x (a_x − m_i)² (:class:`~mechopt.problems.robust.gains.ErrorGains`:
no E[a²] − Σ gains), and c_i = −offset_i for the histogram's).
Column generation: HiGHS's duals give λ ≥ 0 (Σ λ = 1) and μ; for any such λ, μ and any feasible w,
t ≤ Σ λ_i c_i + 1ᵀμ + Σ_r w_r ρ(r), ρ(r) = Σ_i λ_i f_i(r) − μᵀr, and Σ_r w_r lies in the pricer's
range W (:mod:`mechopt.solvers.robust.pricing`), so

    bound = λᵀc + 1ᵀμ + W·max_r ρ(r)

is a certificate whenever the pricing is exact (``optimal`` only then, and only within the ``gap``
tolerance). It holds for *any* λ in the simplex and any μ, so a pricer's ``start_duals`` (priced
before the first master: a first bound) and Wentges smoothing (option ``smoothing``,
:func:`~mechopt.solvers.robust.raylp.ray_lp`) keep it. The rows are those of the set's support (rows
with mass under no vertex are filled with a copy of a support row: private under every notion here,
and worth nothing to any vertex).

Examples
--------
>>> import mechopt
>>> from mechopt.problems.robust import RobustDesign
>>> prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0)
>>> r = mechopt.solve(prob, solver="robust-rays")
>>> r.status.value, r.proof, r.extras["relative_gap"] <= 1e-7, r.violation <= 1e-9
('optimal', 'certificate', True, True)
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.model.problem import value_gap
from mechopt.model.solver import Solver
from mechopt.problems.robust.gains import ErrorGains, error_gains
from mechopt.results.result import Certificate, Result, Status
from mechopt.runtime.deadline import TimeLimitReached, passed
from mechopt.solvers.robust.columns import choose_pricer
from mechopt.solvers.robust.lp import _recover
from mechopt.solvers.robust.raylp import MASTER_TOL, constant_outcome, ray_lp
from mechopt.solvers.robust.search import TREE_LIMIT

__all__ = ["RobustRaysSolver", "SOLVERS", "TREE_LIMIT"]


#: The words of the pricer options (checked on every route, not only where they are used).
WORDS = {
    "mi_pricer": ("auto", "tree", "branch", "milp"),
    "mse_pricer": ("auto", "milp"),
    "cone_pricer": ("auto", "rays", "box"),
}


class RobustRaysSolver(Solver):
    """max_Q min_i score_i(Q) over a prior set's vertices: column generation over extreme rays, certified."""

    name = "robust-rays"
    options: dict[str, Any] = {
        "max_iter": 500,
        "enumerate_max": 20,
        "milp_max": 32,
        "mi_pricer": "auto",
        "mse_pricer": "auto",
        "tree_max": 40,
        "cone_max": 10,
        "box_max": 32,
        "mse_box_max": 64,
        "hist_box_max": 20,
        "cone_pricer": "auto",
        "max_rays": 200_000,
        "hull_rounds": 50,
        "smoothing": None,
        "seed_starts": 1024,
        "seed_near": None,
        "search_starts": 32,
        "multi_level": False,
        "ball_batch": 4,
        "ball_warm": True,
        "ball_exact": "auto",
    }
    requires = ("scipy",)
    forms = ("vertex_gains",)

    def can_solve(self, problem: Any) -> bool:
        fn = getattr(problem, "vertex_gains", None)
        return (callable(fn) and fn() is not None) or _ball_gains(problem)

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        if _ball_gains(problem):  # a ball by its inequalities: vertex generation over its priors
            from mechopt.solvers.robust.ballrays import solve_ball

            return solve_ball(problem, opts, self._solve)
        t0 = time.perf_counter()
        tl = opts.get("time_limit")
        deadline = None if tl is None else t0 + float(tl)
        rows = problem.prior_set.support
        priors = problem.prior_set.vertices
        hull = getattr(problem, "hull_mse", False)
        for key, words in WORDS.items():  # a bad pricer word is refused whatever the route
            if opts[key] not in words:
                raise ParamError(f"{key}={opts[key]!r} is not a pricer: use one of {', '.join(map(repr, words))}")
        base = dict(sense=problem.sense, objective=problem.objective, solver=self.name)
        tol = settings.tolerance("gap")
        cone = priors[:, rows]
        cache: dict[str, np.ndarray] = {}  # the cone's rays, enumerated once for every hull round
        for outer in range(1, (int(opts["hull_rounds"]) if hull else 1) + 1):
            G = _restricted(error_gains(priors, problem.utility), rows)
            pricer, how, out = _run(problem, G, cone, opts, cache, deadline)
            if out["w"] is None:
                return Result(status=out["status"], value=None, message=out["message"], **base)
            Q = _channel(out, rows, problem)
            value = problem.evaluate(Q)
            bound = None if out["bound"] is None else G.sign * out["bound"] + 0.0
            if bound is not None and G.sign < 0:
                bound = max(bound, 0.0)  # an MSE is never negative
            gap = None if bound is None else value_gap(problem, Q, value, bound, G.sign)  # past the value: 0
            late = passed(deadline)
            if not hull or gap is None or gap <= tol or out["status"] != "optimal" or late:
                break
            priors = np.vstack([priors, problem.hull_bracket(Q)[2]])  # the worst prior of Q joins the set
        if gap is not None and gap <= tol and out["proven"]:
            status, proof = Status.OPTIMAL, "certificate"
            msg = f"certified: relative gap {gap:.3g} (ray LP, exact pricing: {how})"
        elif out["status"] in ("time_limit", "iteration_limit"):
            status, proof = Status(out["status"]), None
            left = "unknown" if gap is None else f"{gap:.3g}"
            msg = f"{out['status'].replace('_', ' ')} after {out['rounds']} rounds; relative gap {left}"
            msg += f" ({out['note']}, audited)" if out.get("note") else ""
        elif gap is not None:
            status, proof = Status.OPTIMAL_INACCURATE, None
            msg = f"relative gap {gap:.3g} above tolerance {tol:.3g} ({out['status']}; pricing {how})"
            msg += f"; the last pricing proved no bound: {out['unpriced']}" if out.get("unpriced") else ""
            msg += _resolution(G, value, gap)
        else:
            status, proof = Status.FEASIBLE, None
            msg = f"no certificate: pricing by {how} is a heuristic (audited, not proven optimal)"
        msg += f"; over {problem.prior_set.describe()}, audited at every vertex" + _scope(problem, G, len(priors))
        extras = {
            "relative_gap": gap,
            "vertex_values": problem.losses(Q).tolist(),
            "vertices": len(problem.prior_set.vertices),
            "prior_set": problem.prior_set.describe(),
            "columns": int(out["R"].shape[1]),
            "rounds": out["rounds"],
            "pricing": how,
            "method": "LP over extreme rays of the privacy cone, column generation (HiGHS)",
        }
        if hull:
            extras["hull_rounds"], extras["hull_priors"] = outer, priors[len(problem.prior_set.vertices) :].tolist()
        norm = getattr(pricer, "norm", None)
        ev = None if bound is None or hull or not out["proven"] else _evidence(problem, Q, G, out, rows, norm)
        cert = None if bound is None else Certificate(bound, value_gap(problem, Q, value, bound), evidence=ev)
        return Result(status=status, value=value, mechanism=Q, certificate=cert, proof=proof, message=msg,
                      iterations=out["rounds"], extras=extras, **base)  # fmt: skip


def _ball_gains(problem: Any) -> bool:
    """Whether ``problem`` is a ball held by its inequalities with a gain utility (mi: ``ballrays``)."""
    return callable(getattr(problem, "ball_vertices", None)) and not getattr(problem, "is_linear", True)


def _run(problem: Any, G, cone: np.ndarray, opts: dict[str, Any], cache: dict[str, np.ndarray], deadline):
    """(pricer, word, the ray LP's outcome). A backstop alarm (the CLI's SIGALRM, ``TimeLimitReached``) in a stage
    that does not check the deadline (d = 40: the pattern search seeding, a block tree) ends in the constant
    channel (:func:`~mechopt.solvers.robust.raylp.constant_outcome`), not in a result without a mechanism."""
    try:
        pricer, seed, how = choose_pricer(problem, G, cone, opts, cache, deadline)
        warm = opts.get("_warm")  # vertex generation's last round (ballrays.WarmStart): its columns, cut points
        seed = seed if warm is None else warm.seed(seed, pricer, cone)
        alpha = getattr(pricer, "smoothing", 0.0) if opts["smoothing"] is None else opts["smoothing"]
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):  # None (default): the pricer's
            raise ParamError(f"smoothing must be a number in [0, 1), got {alpha!r}: 0 turns it off")
        out = _point_mass(G) or ray_lp(G, pricer, seed, max_iter=int(opts["max_iter"]), deadline=deadline,
                                       smoothing=float(alpha))  # fmt: skip
        if warm is not None:
            warm.keep(out, pricer)
    except TimeLimitReached:
        return None, "none (stopped at the deadline)", constant_outcome(cone.shape[1], "time_limit")
    return pricer, how, out


def _evidence(problem: Any, Q: np.ndarray, G, out: dict[str, Any], rows: np.ndarray, norm=None) -> Any:
    """The certificate file's duals: the weights λ and ν on every row, ν = μ + δ on the support (0 elsewhere) with
    δ = (bound − λᵀc − 1ᵀμ)·ω / 1ᵀω, ω = ``norm`` the pricer's normalisation of its rays (ωᵀr = 1; default 1,
    so δ = (bound − λᵀc − 1ᵀμ) / |support|; the bound's W is then 1ᵀω), so that the claim reads
    max_r (Σ_i λ_i f_i(r) − νᵀr) / 1ᵀr ≤ 0 over the
    rays r of the cone (summing to the support's size over the columns, as Σ_y Q[x, y] = 1; math.md §1)."""
    from mechopt.results.certificate_file import RobustEvidence

    lam, mu = out["duals"]
    nu = np.zeros(problem.prior_set.d)
    w = np.ones(int(rows.sum())) if norm is None else np.asarray(norm, float)  # a pricer normalising ωᵀr = 1: δ·ω/Σω
    nu[rows] = mu + (out["bound"] - float(lam @ G.constants()) - float(mu.sum())) * w / w.sum()
    centre = float(getattr(G.utility, "centre", 0.0))  # the gains' centre (an MSE is shift-invariant)
    if isinstance(G, ErrorGains):  # the checker's gains are f = g + shift·q: ν + λᵀshift, exactly (Fractions)
        nu = _exact_shift(nu, lam, G, rows)
    return RobustEvidence(problem, Q, lam, nu, None, method=f"robust-rays (ray LP duals; {out['rounds']} rounds)",
                          centre=centre)  # fmt: skip


def _exact_shift(nu: np.ndarray, lam: np.ndarray, G, rows: np.ndarray) -> np.ndarray:
    """ν_x + Σ_i λ_i P_ix (a_x − centre)² in exact rationals, λ = w / Σ w and P_i / 1ᵀP_i as the checker reads the
    weights and the vertices: rounded to doubles (or at the unnormalised vertices) this E[a²]-sized shift moves the
    checker's ρ by ulps of E[a²] per unit mass, 1e-4 of an MSE of 1e-12 of E[a²] (LDP ε = 30: a pattern at
    ρ/1ᵀr = 5e-16 in the checker, the bound proven only to 3e-4 with a floor at the MSE's scale)."""
    from fractions import Fraction

    from mechopt.results.certificate_file import centred_squares

    lam_q = [Fraction(float(t)) for t in lam]
    lam_q = [t / sum(lam_q) for t in lam_q]
    V = [[Fraction(float(p)) for p in P] for P in G.vertices]
    V = [[p / sum(P) for p in P] for P in V]  # as the checker reads a vertex (summing to 1 exactly)
    out = np.array([Fraction(float(v)) for v in nu], dtype=object)
    for j, (x, sq) in enumerate(zip(np.flatnonzero(rows), centred_squares(G.utility))):
        out[x] += sum(t * P[j] for t, P in zip(lam_q, V)) * sq
    return out


def _resolution(G, value: float, gap: float) -> str:
    """Why a histogram MSE far below its offset is not certified: its ray LP's score is offset − Σ gains (the mse of a
    sum is priced in its errors, :class:`~mechopt.problems.robust.gains.ErrorGains`, constants 0: no such note), so
    its bound carries a rounding allowance of ~64·n ulp of the offset (``raylp._margin``) and the master's duals are
    accurate to ``MASTER_TOL`` times it; a note when these explain the gap, else ""."""
    if G.sign > 0 or not value > 0:
        return ""
    big = float(np.abs(G.constants()).max(initial=0.0))
    rounding = 64 * float(np.finfo(float).eps) * G.vertices.shape[1] * 2 * big / value
    if gap > 100 * max(rounding, MASTER_TOL * big / value):
        return ""
    return (
        f"; the MSE is {value / big:.2g} of its offset {big:.3g}: in the score offset − Σ gains the bound's rounding "
        f"allowance is ~{rounding:.2g} and the master LP's tolerance up to ~{MASTER_TOL * big / value:.2g} relative "
        "to it (double precision; not certifiable at this ε)"
    )


def _scope(problem: Any, G, n_priors: int) -> str:
    """What the value and the bound are taken over (an MSE's worst prior in a hull may be interior)."""
    if G.sign > 0:
        return ""
    if not getattr(problem, "hull_mse", False):
        return "; the worst case is over the vertices given (an MSE's worst prior in their hull may be interior)"
    return (f"; value: the channel's worst case over the hull (certified upper bound), bound: the minimax over "
            f"{n_priors} priors of the hull (a lower bound on the hull's minimax)")  # fmt: skip


def _channel(out: dict[str, Any], rows: np.ndarray, problem: Any) -> np.ndarray:
    """Q from the master's weights: used columns on the support rows, other rows a copy of a support row."""
    used = out["w"] > 0
    X = np.zeros((problem.prior_set.d, int(used.sum())))
    X[rows] = out["R"][:, used] * out["w"][None, used]
    X[~rows] = X[rows][0]
    Q = _recover(X, problem)
    return Q[:, Q.max(axis=0) > 0]


def _point_mass(G) -> dict[str, Any] | None:
    """The ray LP's answer when mi has a point-mass vertex e_x: I(e_x; Q) = 0 for every Q, so the optimum is 0,
    reached by the column 1 and proven by λ = e_x, μ = 0 (ρ = f_x ≡ 0); None otherwise. (The box route's chord
    relaxation cannot prove ρ ≤ 0 exactly: it ran to the time limit.)"""
    from mechopt.utilities import MutualInfo

    V = G.vertices
    mass = np.flatnonzero((np.count_nonzero(V, axis=1) == 1)) if isinstance(G.utility, MutualInfo) else []
    if len(mass) == 0:
        return None
    n = V.shape[1]
    lam = np.eye(len(V))[mass[0]]
    return {"w": np.ones(1), "R": np.ones((n, 1)), "bound": 0.0, "proven": True, "rounds": 0, "status": "optimal",
            "message": "optimal", "duals": (lam, np.zeros(n))}  # fmt: skip


def _restricted(G, rows: np.ndarray):
    """The gains on the support rows (vertices and MSE values restricted)."""
    U = G.utility.restrict(np.flatnonzero(rows)) if hasattr(G.utility, "a") else G.utility
    return type(G)(G.vertices[:, rows], U)


SOLVERS = {"robust-rays": RobustRaysSolver}
