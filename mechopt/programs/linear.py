"""The convex program of a channel design whose utility is linear in Q (MAE with fixed estimates).

For a utility with ``value(Q) = Σ_{x,y} L[x, y] Q[x, y]`` (:meth:`Utility.linear_cost`)
the design

    minimise   Σ_{x,y} L[x, y] Q[x, y]
    s.t.       Q ≥ 0,  Q 1 = 1,  Q satisfies the notion at level ε

is an LP under every notion whose constraints are linear in Q — ε-LDP
(Q[x, y] ≤ e^ε Q[x', y]), graph- and metric-LDP (the same per edge, with
e^{ε w}), ε-LIP (e^{-ε} λ_y ≤ Q[x, y] ≤ e^ε λ_y, λ = PQ), CIP — and a convex
program under MIP (I(X; Y) ≤ ε is convex in Q for a fixed prior). It is
handed to the ``conic`` solver (cvxpy + Clarabel), whose dual objective
bounds the optimum: the result is ``optimal`` with proof ``convex`` and a
certificate, whose bound is the larger of that dual bound and Σ_x min_y L[x, y]
(the optimum without privacy). When the notion does not bind (e.g. MIP with
ε ≥ H(X)) the channel that reports every input's cheapest output is private,
attains that bound and is returned (Clarabel's exponential cones would leave
a gap of ~1e-6 there).

The returned mechanism is the solver's point made exactly private: entries
clipped at 0 and rows renormalised; if that is not private, columns of
numerical dust (max entry < ``settings.dust``) zeroed; if still not, mixed
with the product channel 1λᵀ (private under every notion at every ε ≥ 0) by
the smallest weight t found by bisection that makes the audit pass. The value is evaluated on that
mechanism, so the certificate's gap includes the repair.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="ldp", utility="mae", eps=1.0)
>>> r = mechopt.solve(prob, solver="conic")   # the default for LDP/LIP/graphs is lp (column generation)
>>> r.solver, r.status.value, r.proof, r.violation <= 1e-7, r.certificate.gap <= 1e-7
('conic', 'optimal', 'convex', True, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt import settings
from mechopt.model.forms import ConicForm

__all__ = ["linear_conic_form", "make_private"]

_BISECTIONS = 60  # halvings of the mixing weight: t is found to 2^-60


def linear_conic_form(problem: Any) -> ConicForm | None:
    """The convex program of a channel problem with a linear utility, or None when the utility is not linear.

    ``problem`` needs ``prior``, ``notion`` and ``utility`` (a
    :class:`~mechopt.model.problem.ChannelProblem`). The program is built on the
    full prior (zero-mass inputs keep their rows, constrained by the notion).
    """
    P = np.asarray(problem.prior, float)
    utility, scale = problem.utility.normalised()  # unit-free: values ×s give this program, value and bound ×s
    L = utility.linear_cost(P)
    if L is None:
        return None
    import cvxpy as cp

    d, m = L.shape
    Q = cp.Variable((d, m), nonneg=True)
    cons = [cp.sum(Q, axis=1) == 1, *problem.notion.cvxpy_constraints(Q, P)]
    prog = cp.Problem(cp.Minimize(cp.sum(cp.multiply(L, Q))), cons)
    floor = float(L.min(axis=1).sum())  # the optimum without privacy: a bound no channel beats
    box: dict[str, Any] = {}

    def recover() -> np.ndarray:
        if "Q" not in box:
            M = make_private(Q.value, P, problem.notion)
            free = _unconstrained(L)  # when the notion does not bind, its optimum is exact
            box["free"] = problem.notion.epsilon(free, P) <= problem.notion.eps
            box["Q"] = free if box["free"] else M
        return box["Q"]

    def bound_of(b: float) -> float:  # called after value_of (so after recover)
        if box.get("free"):
            return scale * floor
        if problem.notion.linear:  # an LP: the Lagrangian bound of the solver's multipliers is valid exactly
            lag = lagrangian_bound(L, Q, cons[1:])
            b = b if lag is None else lag
        return scale * max(float(b), floor)

    def value_of(_opt: float) -> float:
        return scale * float(np.sum(L * recover()))

    extras: dict[str, Any] = {
        "program": f"{'LP' if problem.notion.linear else 'convex program'} over a {d} x {m} channel"
    }
    b = getattr(problem.utility, "b", None)
    if b is not None:  # what output y of Q stands for: the estimate b_y (MAE)
        extras["output_estimates"] = np.asarray(b, float).tolist()
    tight = settings.tolerance("conic_lp")
    return ConicForm(
        problem=prog,
        recover=recover,
        sense="min",
        objective=problem.objective,
        value_of=value_of,
        bound_of=bound_of,
        extras=extras,
        clarabel={"tol_gap_abs": tight, "tol_gap_rel": tight, "tol_feas": tight} if problem.notion.linear else {},
    )


def lagrangian_bound(L: np.ndarray, Q: Any, cons: list) -> float | None:
    """min Σ L∘Q over row-stochastic Q ≥ 0 of the Lagrangian: a lower bound for any multipliers λ ≥ 0.

    With the solver's duals λ_i ≥ 0 (clipped) of the affine constraints g_i(Q) ≤ 0
    in ``cons``, the Lagrangian Σ L∘Q + Σ_i λ_iᵀ g_i(Q) is linear in Q, and its
    minimum over the product of simplices (the rows of Q) is
    Σ_x min_y (L + G)[x, y] + Σ_i λ_iᵀ g_i(0), G its gradient. It bounds the LP
    whatever λ is, so Clarabel's dual infeasibility cannot put it above the
    optimum (its dual objective can: N3). A rounding margin is subtracted;
    None when a dual is missing.
    """
    import cvxpy as cp

    if not cons:
        return float(L.min(axis=1).sum())
    terms, size = [], 0
    for con in cons:
        lam = None if con.dual_value is None else np.maximum(np.asarray(con.dual_value, float), 0.0)
        if lam is None or not isinstance(con, cp.constraints.nonpos.Inequality):
            return None
        terms.append(cp.sum(cp.multiply(lam, con.expr)))
        size += int(np.size(lam))
    phi = cp.sum(cp.hstack(terms))
    keep = Q.value
    try:
        Q.value = np.zeros(Q.shape)
        const = float(phi.value)
        grad = phi.grad[Q]
    finally:
        Q.value = keep
    if grad is None:
        return None
    G = np.asarray(grad.todense(), float).reshape(Q.shape, order="F")
    eff = L + G
    margin = 8 * np.finfo(float).eps * (size + L.shape[1]) * float((np.abs(L) + np.abs(G)).max(axis=1).sum())
    out = float(eff.min(axis=1).sum()) + const - margin
    return out if np.isfinite(out) else None


def _unconstrained(L: np.ndarray) -> np.ndarray:
    """The optimum without privacy: every input reports its cheapest output (first on ties)."""
    free = np.zeros_like(L)
    free[np.arange(L.shape[0]), L.argmin(axis=1)] = 1.0
    return free


def make_private(Q: np.ndarray, prior: np.ndarray, notion: Any, dust: float | None = None) -> np.ndarray:
    """A channel near ``Q`` that ``notion`` audits as private: clean, then mix with 1λᵀ as little as needed.

    Examples
    --------
    >>> import numpy as np
    >>> from mechopt.notions import LDP
    >>> Q = np.array([[0.7311, 0.2689], [0.2689, 0.7311]])   # log(0.7311/0.2689) = 1.0002 > 1
    >>> M = make_private(Q, np.array([0.5, 0.5]), LDP(1.0))
    >>> bool(LDP(1.0).epsilon(M, None) <= 1.0), bool(np.abs(M - Q).max() < 1e-3)
    (True, True)
    """
    dust = settings.resolve(dust, "dust")
    P = np.asarray(prior, float)
    M = np.clip(np.asarray(Q, float), 0.0, None)
    M = M / M.sum(axis=1, keepdims=True)
    if notion.epsilon(M, P) <= notion.eps:  # private as it is: every change would cost value
        return M
    M[:, M.max(axis=0) < dust] = 0.0  # a dust column's ratios are solver noise
    M = M / M.sum(axis=1, keepdims=True)
    if notion.epsilon(M, P) <= notion.eps:
        return M
    base = np.tile(P @ M, (M.shape[0], 1))  # the product channel: private under every notion

    def mix(t: float) -> np.ndarray:
        return (1.0 - t) * M + t * base

    lo, hi = 0.0, 1.0
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        if notion.epsilon(mix(mid), P) <= notion.eps:
            hi = mid
        else:
            lo = mid
    return mix(hi)
