"""Robust (minimax) design over a prior set as one LP solved by HiGHS, with a dual bound recomputed by us.

For a :class:`~mechopt.problems.robust.RobustDesign` (vertices P_1..P_k, loss L, notion ldp / lip /
pml / alip) the program is, with an epigraph variable t,

    minimise t   s.t.   Σ_x P_v(x) Σ_y Q[x, y] L[x, y] ≤ t  (each vertex v),   Q 1 = 1,   0 ≤ Q ≤ 1,
                        LDP: w_y ≤ Q[x, y] ≤ e^ε w_y;   LIP/PML/ALIP at each v: lo·λ_v ≤ q_x ≤ hi·λ_v, λ_v = P_v·q.

A ball held by its inequalities (:class:`~mechopt.problems.robust.BallDesign`, any d) replaces the
vertex rows by the LP duals of the min / max over the ball (:mod:`mechopt.solvers.robust.ball`); its
dual variables are boxed, each variable entering the bound below through its box.

The loss is divided by max |L| (answers are unit-free). The certificate is weak duality recomputed
from HiGHS's duals: with y_ub ≤ 0 (clipped), y_eq and reduced costs r = c − Aᵀy,
bound = Σ y_eq + Σ_j min(r_j lo_j, r_j hi_j) + r_t·t_box (each variable in its box, t in a valid one),
rounded outward by the arithmetic's error; ``optimal`` only when the relative gap is within the ``gap`` tolerance.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.robust import RobustDesign, PriorSet
>>> prob = RobustDesign.from_params(prior_set=PriorSet.simplex(4), notion="ldp", utility="mae", eps=1.0)
>>> r = mechopt.solve(prob, solver="robust-lp")
>>> r.status.value, r.proof, r.extras["relative_gap"] <= 1e-9, r.violation <= 1e-9
('optimal', 'certificate', True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from mechopt import settings
from mechopt.model.problem import objective_scale
from mechopt.model.solver import Solver
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Certificate, Result, Status
from mechopt.solvers._quiet import quiet_stdout
from mechopt.solvers.robust.ball import build_ball_lp, inner_priors, ldp_rows
from mechopt.solvers.robust.witness import BallWitness

__all__ = [
    "RobustLPSolver", "SOLVERS", "build_lp", "cone_rows", "dual_bound", "dual_max", "lp_model", "run_lp", "add_row",
]  # fmt: skip

#: A column of the LP's answer whose largest entry is at most this is HiGHS's feasibility dust: set to 0.
_DUST = 1e-9


class RobustLPSolver(Solver):
    """min_Q max_v loss_v(Q) under privacy at every vertex: one HiGHS LP and a recomputed dual bound."""

    name = "robust-lp"
    options: dict[str, Any] = {"max_memory": 2e9}
    requires = ("scipy",)
    forms = ("robust_program",)

    def can_solve(self, problem: Any) -> bool:
        return callable(getattr(problem, "robust_program", None)) and getattr(problem, "is_linear", True)

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        from scipy.optimize import linprog

        t0 = time.perf_counter()
        data = problem.robust_program()
        ball, L = data.get("ball"), np.asarray(data["loss"], float)
        V = None if ball is not None else np.asarray(data["vertices"], float)
        k = 0 if V is None else len(V)
        n, m = L.shape
        base = dict(sense="min", objective=problem.objective, solver=self.name)
        s = float(np.max(np.abs(L)))
        if s == 0.0 or not math.isfinite(s):
            Q = np.zeros((n, m))
            Q[:, 0] = 1.0
            ev = None if V is None else _evidence(problem, Q, None, k, 1.0)  # the zero duals prove the bound 0
            return Result(status=Status.OPTIMAL, value=0.0, mechanism=Q, certificate=Certificate(0.0, 0.0, ev),
                          proof="certificate", message="zero loss: every channel is optimal",
                          extras={"relative_gap": 0.0}, **base)  # fmt: skip
        check_size(n, m, k, None if V is None else np.count_nonzero(V), data["factors"] is not None, opts)
        if V is None:
            lp = build_ball_lp(ball, L / s, data["rows"], data["factors"], data["ldp_eps"])
        else:
            lp = build_lp(V, L / s, data["rows"], data["factors"], data["ldp_eps"])
        tl = opts.get("time_limit")
        hopts: dict[str, Any] = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
        if tl is not None:
            hopts["time_limit"] = float(tl)
        res = linprog(lp["c"], A_ub=lp["A_ub"], b_ub=lp["b_ub"], A_eq=lp["A_eq"], b_eq=lp["b_eq"],
                      bounds=lp["bounds"], method="highs", options=hopts)  # fmt: skip
        t_lp = time.perf_counter() - t0
        if res.status != 0 or res.x is None:
            st = {1: Status.ITERATION_LIMIT, 2: Status.INFEASIBLE, 3: Status.UNBOUNDED}.get(
                res.status, Status.SOLVER_ERROR
            )
            if "time" in str(res.message).lower():
                st = Status.TIME_LIMIT
            return Result(status=st, value=None, message=f"HiGHS: {res.message}", **base)
        Q = _recover(res.x[: n * m].reshape(n, m), problem)
        value = problem.evaluate(Q)
        lower, margin = dual_bound(lp, res.ineqlin.marginals, res.eqlin.marginals)
        # every expected loss is at least the least loss: a valid bound too (a 0 optimum's duals gave -4e-15, "gap 1")
        bound = max(s * (lower - margin), float(L.min()))
        scale = objective_scale(problem, Q)
        gap = relative_gap(value, bound, scale, sign=-1)  # a lower bound above the value is rounding: gap 0
        tol = settings.tolerance("gap")
        status = Status.OPTIMAL if gap <= tol else Status.OPTIMAL_INACCURATE
        extras = {
            "relative_gap": gap,
            "vertex_losses": problem.losses(Q).tolist(),
            "vertices": k if V is not None else None,
            "prior_set": problem.prior_set.describe(),
            "lp_rows": int(lp["A_ub"].shape[0] + lp["A_eq"].shape[0]),
            "lp_seconds": t_lp,
            "method": "one LP (epigraph of the max over vertices), HiGHS; dual bound recomputed",
        }
        msg = (f"certified: relative gap {gap:.3g} (HiGHS duals, bound recomputed and rounded outward)"
               if status is Status.OPTIMAL else f"relative gap {gap:.3g} above tolerance {tol:.3g}")  # fmt: skip
        msg += f"; over {problem.prior_set.describe()}, audited at every " + ("vertex" if k else "prior (worst ones)")
        if V is not None:  # (the ball's witness asks for the multipliers only once its bound is close)
            ev = _evidence(problem, Q, res, k, s) if opts.get("evidence", True) else None
        elif status is Status.OPTIMAL:  # a ball: priors of the ball whose vertex-form LP proves it (found on save)
            start = inner_priors(ball, lp, res.ineqlin.marginals, res.eqlin.marginals)
            ev = BallWitness(problem, Q, value, lambda p, e: self._solve(p, {**opts, "evidence": e}), cone_rows, start)
        else:
            ev = None
        cert = Certificate(bound, relative_gap(value, bound, scale), evidence=ev)
        return Result(status=status, value=value, mechanism=Q, certificate=cert,
                      proof="certificate" if status is Status.OPTIMAL else None, message=msg, extras=extras,
                      **base)  # fmt: skip


#: Bytes per nonzero of the LP as scipy builds it and HiGHS copies it (COO, CSR, HiGHS's column copy, presolve).
BYTES_PER_NONZERO = 64


def check_size(n: int, m: int, k: int, nnz_v: int | None, box: bool, opts: dict[str, Any]) -> None:
    """Refuse, before building it, an LP whose nonzeros would need more than ``max_memory`` bytes.

    The count is the LP's own: the loss block nnz(V)·m, the privacy rows (LDP's envelope 4·n·m, the posterior
    boxes ≤ 4·k·n·m) and the marginals k·m·(n + 1); a ball (nnz_v None) adds its blocks' 2n + 3 per output.

    >>> try:
    ...     check_size(3000, 3000, 3000, 3000, False, {"max_memory": 2e9})
    ... except Exception as exc:
    ...     print(str(exc)[:97])
    the robust LP for 3000 symbols x 3000 outputs over 3000 priors has about 5.4e+07 nonzeros (3.5 GB
    """
    from mechopt.errors import TooLargeError

    if nnz_v is None:
        nnz = 4 * n * m + m * (2 * n + 3)
    else:
        nnz = nnz_v * m + n * m + (4 * k * n * m + k * m * (n + 1) if box else 4 * n * m)
    need, cap = float(nnz) * BYTES_PER_NONZERO, float(opts.get("max_memory", 2e9))
    if need > cap:
        raise TooLargeError(
            f"the robust LP for {n} symbols x {m} outputs over {k} priors has about {nnz:.2g} nonzeros "
            f"({need / 1e9:.2g} GB at {BYTES_PER_NONZERO} bytes each), above max_memory = {cap / 1e9:g} GB: "
            "use fewer symbols, or raise max_memory"
        )


def build_lp(V: np.ndarray, L: np.ndarray, rows: np.ndarray, factors: Any, ldp_eps: Any) -> dict[str, Any]:
    """The LP in scipy's form; variables vec(Q) (row-major, n·m), the auxiliaries, then t; all but t in [0, 1].

    The auxiliaries are LDP's envelope w_y (m), or the output marginals λ_{v,y} = P_v·Q[:, y] of each
    vertex (k·m, equality rows), so that each privacy row has two entries.

    >>> lp = build_lp(np.eye(2), np.array([[0.0, 1.0], [1.0, 0.0]]), np.array([True, True]), None, 1.0)
    >>> lp["A_ub"].shape, lp["A_eq"].shape, lp["t_box"]
    ((10, 7), (2, 7), (0.0, 1.0))
    """
    k = V.shape[0]
    n, m = L.shape
    N = n * m
    aux = m if factors is None else k * m
    vv, xx = np.nonzero(V)  # row v of the loss block: V[v, x]·L[x, :] at columns x·m + y (nnz(V)·m entries, not k·n·m)
    cols = (xx[:, None] * m + np.arange(m)).ravel()
    loss = sp.csr_matrix(((V[vv, xx][:, None] * L[xx]).ravel(), (np.repeat(vv, m), cols)), shape=(k, N))
    blocks = [sp.hstack([loss, sp.csr_matrix((k, aux)), -sp.csr_matrix(np.ones((k, 1)))])]
    priv = ldp_rows(n, m, ldp_eps) if factors is None else _box_rows(V, rows, m, *factors)
    blocks.append(sp.hstack([priv, sp.csr_matrix((priv.shape[0], 1))]))
    A_ub = sp.vstack(blocks).tocsr()
    eq = [sp.hstack([sp.kron(sp.eye(n), np.ones((1, m))), sp.csr_matrix((n, aux + 1))])]
    b_eq = [np.ones(n)]
    if factors is not None:  # λ_{v,y} − Σ_x P_v(x) Q[x, y] = 0
        marg = sp.kron(sp.csr_matrix(V), sp.eye(m))  # row (v, y), column (x, y)
        eq.append(sp.hstack([-marg, sp.eye(k * m), sp.csr_matrix((k * m, 1))]))
        b_eq.append(np.zeros(k * m))
    A_eq = sp.vstack(eq).tocsr()
    N += aux
    c = np.zeros(N + 1)
    c[-1] = 1.0
    lo = V @ L.min(axis=1)
    hi = V @ L.max(axis=1)
    t_box = (float(lo.max()), float(hi.max()))  # every optimal t lies here (the max over v of a loss in [lo, hi])
    return {"c": c, "A_ub": A_ub, "b_ub": np.zeros(A_ub.shape[0]), "A_eq": A_eq, "b_eq": np.concatenate(b_eq),
            "bounds": [(0.0, 1.0)] * N + [(None, None)], "t_box": t_box}  # fmt: skip


def _box_rows(V: np.ndarray, rows: np.ndarray, m: int, lo: float, hi: float) -> sp.csr_matrix:
    """At each vertex v, output y and row x of the set's support: Q[x, y] − hi·λ_{v,y} ≤ 0 (and
    lo·λ_{v,y} − Q[x, y] ≤ 0 when lo > 0); columns (Q, λ)."""
    k, n = V.shape
    R = np.flatnonzero(rows)
    y = np.tile(np.arange(m), R.size)
    qcol = np.repeat(R, m) * m + y
    r = np.arange(qcol.size)
    out = []
    for v in range(k):
        lcol = n * m + v * m + y
        for sign, f in ((1.0, hi), (-1.0, lo)):
            if sign < 0 and f == 0.0:
                continue
            data = np.r_[np.full(r.size, sign), np.full(r.size, -sign * f)]
            out.append(sp.csr_matrix((data, (np.r_[r, r], np.r_[qcol, lcol])), shape=(r.size, n * m + k * m)))
    return sp.vstack(out).tocsr()


def dual_bound(lp: dict[str, Any], y_ub: Any, y_eq: Any) -> tuple[float, float]:
    """(weak-duality lower bound, its rounding margin) recomputed from HiGHS's duals.

    y_ub is clipped to ≤ 0 (dual feasibility of ≤ rows in a minimisation); r = c − A_ubᵀy_ub − A_eqᵀy_eq;
    each variable but t contributes min(r_j·lo_j, r_j·hi_j) over its box [lo_j, hi_j] (``bounds``; Q and w in
    [0, 1]) and t contributes r_t at the end of its box ``t_box``.
    """
    yu = np.minimum(np.asarray(y_ub, float), 0.0)
    ye = np.asarray(y_eq, float)
    A_ub, A_eq = lp["A_ub"], lp["A_eq"]
    r = lp["c"] - A_ub.T @ yu - A_eq.T @ ye
    rq, rt = r[:-1], float(r[-1])
    lo, hi = np.array(lp["bounds"][:-1], float).T
    t_lo, t_hi = lp["t_box"]
    terms = [float(v) for v in ye * lp["b_eq"]] + [float(v) for v in np.minimum(rq * lo, rq * hi)]
    terms.append(rt * (t_lo if rt > 0 else t_hi))
    lower = math.fsum(terms)
    big = max(float(np.abs(lo).max(initial=1.0)), float(np.abs(hi).max(initial=1.0)))  # the boxes' reach
    scale = (abs(A_ub).T @ np.abs(yu) + abs(A_eq).T @ np.abs(ye) + np.abs(lp["c"])) * big
    nnz = int(max((np.diff(A_ub.tocsc().indptr) + np.diff(A_eq.tocsc().indptr)).max(initial=0), 1))  # per column
    margin = (nnz + 2) * float(np.finfo(float).eps) * (float(scale.sum()) + float(np.abs(ye).sum()) * 2
                                                        + abs(rt) * max(abs(t_lo), abs(t_hi)))  # fmt: skip
    return lower, margin


def dual_max(c, lo, hi, A, rlo, rhi, y, reduced: bool = False):
    """A proven upper bound on max cᵀz s.t. rlo ≤ Az ≤ rhi, lo ≤ z ≤ hi (finite), from any row multipliers y.

    cᵀz = (c − Aᵀy)ᵀz + yᵀAz: each term at its best end; y_r clipped to 0 where the side it needs is infinite.
    ``reduced``: (bound, r) with r = c − Aᵀy, so that z_j kept in [l, s] ⊂ [lo_j, hi_j] lowers the bound by
    max(r_j lo_j, r_j hi_j) − max(r_j l, r_j s) (the reduced-cost tightening of
    :class:`~mechopt.solvers.robust.cone.box.BoxMIPricer`).

    >>> A = np.array([[1.0, 1.0]])
    >>> rows = (np.array([-np.inf]), np.array([1.0]))          # z_0 + z_1 ≤ 1 on [0, 1]²
    >>> b = dual_max(np.array([1.0, 2.0]), np.zeros(2), np.ones(2), A, *rows, np.array([2.0]))
    >>> 2.0 <= b <= 2.0 + 1e-12                                  # the maximum 2 (at z = (0, 1)), plus the margin
    True
    """
    y = np.where(np.isfinite(rhi), np.maximum(y, 0.0), 0.0) + np.where(np.isfinite(rlo), np.minimum(y, 0.0), 0.0)
    r = c - A.T @ y
    side = np.where(y > 0, np.where(np.isfinite(rhi), rhi, 0.0), np.where(np.isfinite(rlo), rlo, 0.0))
    terms = np.r_[np.maximum(r * lo, r * hi), y * side]
    bound = math.fsum(terms) + _rounding(c, lo, hi, A, y, r, terms)
    return (bound, r) if reduced else bound


def _rounding(c, lo, hi, A, y, r, terms) -> float:
    """A bound on the rounding error of :func:`dual_max`'s sum: each r_j = c_j − (Aᵀy)_j is within
    e_j = γ (|c_j| + (|A|ᵀ|y|)_j) of its exact value (γ = (rows + 2) ulp, with a safety factor), and its term
    max(r_j lo_j, r_j hi_j) moves by e_j times its slope on [r_j − e_j, r_j + e_j] (|lo_j| where r_j stays
    negative: 0 for a column at a lower bound 0, however large |r_j| is; |hi_j| where it stays positive); the products
    and the exact sum (fsum) add an ulp of each term. Relative to the bound's terms, not to the costs: a pricing bound
    of 1e-12 against costs of order 1 (the cone's mse at an MSE 1e-5 of E[a²]) is not swamped by the costs' ulps."""
    ulp = float(np.finfo(float).eps)
    e = 1.01 * (A.shape[0] + 2) * ulp * (np.abs(c) + np.abs(A).T @ np.abs(y))
    slope = np.where(r + e <= 0, np.abs(lo), np.where(r - e >= 0, np.abs(hi), np.maximum(np.abs(lo), np.abs(hi))))
    return float(e @ slope) + 4 * ulp * float(np.abs(terms).sum())


def _evidence(problem: Any, Q: np.ndarray, res: Any, k: int, s: float) -> Any:
    """A certificate file's duals, HiGHS's own × s: weights w = −y_ub[:k] ≥ 0, ν = s·y_eq[:n], and μ_y ≥ 0 on the
    cone's rows (:func:`cone_rows`) read off the privacy rows' duals (:func:`_cone_multipliers`): the checker's
    residuals are the LP's reduced costs (an LP for μ in the loss's unit proved 0 for an MAE of 1e-8 at ε = 20)."""
    from mechopt.results.certificate_file import RobustEvidence

    n = Q.shape[0]
    w = np.zeros(k) if res is None else np.maximum(-np.asarray(res.ineqlin.marginals[:k], float), 0.0)
    w = w if w.sum() > 0 else np.ones(k)  # (the LP's weights sum to 1; none: any weights prove 1ᵀν)
    nu = np.zeros(n) if res is None else s * np.asarray(res.eqlin.marginals[:n], float)
    m, K = Q.shape[1], cone_rows(problem).shape[0]
    mu = np.zeros((m, K)) if res is None else s * _cone_multipliers(problem, res.ineqlin.marginals[k:], n, m)
    return RobustEvidence(problem, Q, w, nu, mu, method="robust-lp (HiGHS duals, cone multipliers of its privacy rows)")


def _cone_multipliers(problem: Any, y_priv: Any, n: int, m: int) -> np.ndarray:
    """μ (m × K, the order of :func:`cone_rows`) from the duals of the LP's privacy rows (≤ rows: −y ≥ 0).

    Posterior boxes: the row q_x − hi·λ_vy ≤ 0 with λ_vy = v·q is the cone row hi·v·q − q_x ≥ 0 itself (and the
    lower side likewise). LDP's envelope w_y ≤ q_x (β_x) and q_x ≤ e^ε w_y (α_x): with Σβ = e^ε Σα (w's reduced cost
    0), Σ_x α_x (e^ε w − q_x) + Σ_z β_z (q_z − w) = Σ_{x,z} α_x β_z / Σβ · (e^ε q_z − q_x), so μ_xz = α_x β_z / Σβ
    (the pairs x = z it drops only raise the residuals)."""
    from mechopt.problems.robust import box_factors

    a = -np.minimum(np.asarray(y_priv, float), 0.0)
    f = box_factors(problem.notion)
    if f is None:
        beta, alpha = a[: n * m].reshape(n, m), a[n * m :].reshape(n, m)
        tot = beta.sum(axis=0)
        xs, zs = np.array([(x, z) for x in range(n) for z in range(n) if x != z]).reshape(-1, 2).T
        return (alpha[xs] * np.divide(beta[zs], tot, out=np.zeros_like(beta[zs]), where=tot > 0)).T
    k, nS = problem.prior_set.vertices.shape[0], int(np.count_nonzero(problem.prior_set.support))
    sides = a.reshape(k, 2 if f[0] > 0 else 1, nS, m)  # per vertex: the hi rows (x, y), then the lo rows
    return np.concatenate([sides[:, j].reshape(k * nS, m) for j in range(sides.shape[1])]).T


def cone_rows(problem: Any) -> np.ndarray:
    """Rows a with a·q ≥ 0 exactly for the columns q private at every vertex of the set, in the order of the
    standalone checker's ``robust_rows``: LDP every pair x ≠ z, e^ε q_z − q_x; LIP/PML/ALIP for each vertex v and
    each row x the set constrains, hi·v·q − q_x, then (lo > 0) q_x − lo·v·q.

    >>> from mechopt.problems.robust import RobustDesign
    >>> prob = RobustDesign.from_params(prior_set="0.5,0.5", notion="pml", utility="mae", eps=math.log(2))
    >>> cone_rows(prob).round(12).tolist()        # 2·(0.5 q_0 + 0.5 q_1) − q_x ≥ 0 for x = 0, 1
    [[0.0, 1.0], [1.0, 0.0]]
    """
    from mechopt.problems.robust import box_factors

    V = problem.prior_set.vertices
    d, I = V.shape[1], np.eye(V.shape[1])
    f = box_factors(problem.notion)
    if f is None:
        E = math.exp(problem.notion.eps)
        return np.array([E * I[z] - I[x] for x in range(d) for z in range(d) if x != z]).reshape(-1, d)
    lo, hi = f
    S = np.flatnonzero(problem.prior_set.support)
    rows = [hi * v - I[x] for v in V for x in S] + ([I[x] - lo * v for v in V for x in S] if lo > 0 else [])
    return np.array(rows).reshape(-1, d)


def _recover(X: np.ndarray, problem: Any) -> np.ndarray:
    """Q clipped (dust columns zeroed) and row-normalised; mixed with a constant-row channel (private at every
    prior) when rounding leaves the audit a few ulp above ε."""
    Q = np.clip(X, 0.0, None)
    Q[:, Q.max(axis=0) <= _DUST] = 0.0  # an output HiGHS leaves at its feasibility tolerance: unused
    Q = Q / Q.sum(axis=1, keepdims=True)
    eps = problem.notion.eps
    if float(problem.levels(Q).max()) <= eps:
        return Q
    rows = problem.prior_set.support
    U = np.tile(Q[rows].mean(axis=0), (Q.shape[0], 1))
    for t in (1e-15, 1e-13, 1e-11, 1e-9, 1e-7, 1e-5):
        M = (1 - t) * Q + t * U
        if float(problem.levels(M).max()) <= eps:
            return M
    return Q


SOLVERS = {"robust-lp": RobustLPSolver}


def run_lp(h):
    """Run the HiGHS model ``h``; its model status. HiGHS's default scaling ends 'unknown' on the wide rows of a
    large ε (PML ε = 30: q_x ≤ e^30·t_i); scaling by powers of two to the largest entries solves them: retried
    once, then the default again."""
    import highspy

    h.run()
    status = h.getModelStatus()
    if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kInfeasible):
        default = h.getOptionValue("simplex_scale_strategy")[1]
        h.setOptionValue("simplex_scale_strategy", 4)
        h.run()
        status = h.getModelStatus()
        h.setOptionValue("simplex_scale_strategy", default)
    return status


def lp_model(A, rlo, rhi, lo, hi):
    """A quiet HiGHS simplex model (presolve off: it is re-solved at new costs) of the rows rlo ≤ Az ≤ rhi and
    the columns lo ≤ z ≤ hi, at zero cost."""
    import highspy

    with quiet_stdout():
        h = highspy.Highs()
    tol = settings.tolerance("lp_feasibility")  # tight duals: the recomputed bound is only that much above the LP's
    for key, val in (("output_flag", False), ("presolve", "off"), ("solver", "simplex"),
                     ("primal_feasibility_tolerance", tol), ("dual_feasibility_tolerance", tol)):  # fmt: skip
        h.setOptionValue(key, val)
    N = A.shape[1]
    h.addCols(N, np.zeros(N), lo, hi, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
    if A.shape[0]:  # every row in one call (its nonzeros, row-wise)
        rows, cols = np.nonzero(A)
        starts = np.searchsorted(rows, np.arange(A.shape[0])).astype(np.int32)
        h.addRows(A.shape[0], np.asarray(rlo, float), np.asarray(rhi, float), rows.size, starts,
                  cols.astype(np.int32), np.asarray(A[rows, cols], float))  # fmt: skip
    return h


def add_row(h, row, lo, hi) -> None:
    """Add the row lo ≤ rowᵀz ≤ hi (its nonzeros) to the HiGHS model ``h``."""
    nz = np.flatnonzero(row)
    h.addRow(float(lo), float(hi), nz.size, nz.astype(np.int32), row[nz])
