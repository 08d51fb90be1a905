"""Exact orbit pricing for ε-LDP by lattice branch and bound with closed-form bounds (no MILP).

The LDP pricing problem of :mod:`mechopt.solvers.exact.orbits.pricing` is

    max_k  f(k) = c₀ + βᵀk + ψ(ℓ₀ + ℓᵀk)      over integers lb ≤ k ≤ ub,

with ℓ > 0 and ψ concave (mutual information: ψ(z) = −z log z). With
x_i = ℓ_i k_i and r_i = β_i / ℓ_i, f = c₀ + Σ r_i x_i + ψ(ℓ₀ + Σ x_i): it
depends on k through the high set's mass A = pᵀk (z = 1 + (e^ε − 1)A) and
B = βᵀk only. Its continuous relaxation over a box is solved in closed form:
for a total S = Σ x_i the best B is the fractional knapsack that fills classes
by decreasing r (a concave piecewise-linear G(S)), and G(S) + ψ(ℓ₀ + S) is
concave in S, so on each linear piece its maximum is the stationary point
z = (ψ')⁻¹(−r) clipped to the piece. That bound is exact for the continuous
box, hence a proven upper bound for every integer point below it.

The search fixes the classes one at a time (all but the last): for a partial
assignment, the bound as a function of the next count is the partial maximum
of a jointly concave function, hence concave, and every value whose bound is
at most the threshold τ = best + tol is closed (its bound is recorded,
so the returned upper bound stays proven). The last count enters f as a
concave function of one integer, so its best value is the floor or the ceiling
of the stationary point. Nothing here is d-dimensional; the work is the number
of partial assignments whose bound beats τ.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.orbits.pricing import pieces
>>> from mechopt.solvers.exact.orbits.reduction import classes_of
>>> from mechopt.utilities import MutualInfo
>>> P = np.r_[np.full(300, 1.0), np.full(200, 2.0), np.full(100, 4.0)]; P /= P.sum()
>>> (pc,) = pieces(classes_of(P, MutualInfo(P)), "ldp", MutualInfo(P), 1.0, np.array([0.1, 0.0, -0.1]))
>>> top, ub = lattice_max(pc, 1e-12)
>>> k = top[0][1]; pc.f(k) <= ub <= pc.f(k) + 1e-12      # the best point and its proven bound meet
True
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.runtime.deadline import passed

__all__ = ["lattice_max", "search", "threshold", "applies", "MAX_EVALS"]

MAX_EVALS = 20_000_000  # bounds evaluated per call; past it the search stops with the frontier's (proven) bound
DIVE = 1 << 15  # children expanded per batch before diving deeper (speed, not accuracy)
ROUNDOFF = 1e-14  # relative margin added to every bound: keeps it above f in floating point


def applies(piece) -> bool:
    """Whether the piece has the form this search solves: concave ψ with a known (ψ')⁻¹, ℓ > 0, no slab."""
    return (
        not piece.convex
        and piece.slab is None
        and getattr(piece, "dpsi_inv", None) is not None
        and bool(np.all(piece.ell > 0))
    )


def _relax(piece, B0: np.ndarray, z0: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """Max of B0 + Σ_{i∈rest} β_i k_i + ψ(z0 + Σ ℓ_i k_i) over the continuous box of ``rest`` (per row)."""
    if rest.size == 0:
        return B0 + _psi(piece, z0)
    r, C, G, b_lb, w_lb = knapsack_prefix(piece.beta[rest], piece.ell[rest], piece.lb[rest], piece.ub[rest])
    B0, z0 = B0 + b_lb, z0 + w_lb
    zstar = piece.dpsi_inv(-r)  # ψ'(z) = −r on each linear piece
    S = np.clip(zstar[None, :] - z0[:, None], C[None, :-1], C[None, 1:])  # (n, |rest|)
    val = G[None, :-1] + r[None, :] * (S - C[None, :-1]) + _psi(piece, z0[:, None] + S)
    return rounded_up(B0, val, G)


def knapsack_prefix(beta: np.ndarray, w: np.ndarray, lb: np.ndarray, ub: np.ndarray):
    """The fractional knapsack of Σ β_i k_i over lb ≤ k ≤ ub by the weight S = Σ w_i (k_i − lb_i).

    Returns the ratios r = β/w in decreasing order, the cumulative capacities C
    and gains G of filling classes in that order (both from 0: G is the concave
    piecewise-linear best gain as a function of S, breakpoints C), βᵀlb and wᵀlb.
    """
    r = beta / w
    order = np.argsort(-r, kind="stable")
    r, cap = r[order], (w * (ub - lb))[order]
    return (
        r,
        np.concatenate([[0.0], np.cumsum(cap)]),
        np.concatenate([[0.0], np.cumsum(r * cap)]),
        float(beta @ lb),
        float(w @ lb),
    )


def best_candidate(cand: np.ndarray, val: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the candidate count with the largest value, and that value."""
    pick = np.argmax(val, axis=0)
    cols = np.arange(val.shape[1])
    return cand[pick, cols].astype(np.int64), val[pick, cols]


def rounded_up(B0: np.ndarray, val: np.ndarray, G: np.ndarray) -> np.ndarray:
    """B0 + the row maxima of ``val``, plus a relative margin that keeps the bound above f in floating point."""
    out = B0 + val.max(axis=1)
    return out + ROUNDOFF * (np.abs(out) + np.abs(B0) + float(np.abs(G).max()) + 1.0)


def _psi(piece, z: np.ndarray) -> np.ndarray:
    return piece.psi_vec(z)  # ψ on arrays (the Piece's scalar psi is for the MILP search)


def _last(piece, B0: np.ndarray, z0: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Best integer k_j (floor or ceiling of the stationary point, clipped) and f there, per row."""
    lo, hi, ell, beta = piece.lb[j], piece.ub[j], piece.ell[j], piece.beta[j]
    kc = (piece.dpsi_inv(np.array([-beta / ell]))[0] - z0) / ell
    cand = np.stack([np.clip(np.floor(kc), lo, hi), np.clip(np.ceil(kc), lo, hi)])
    val = B0[None, :] + beta * cand + _psi(piece, z0[None, :] + ell * cand)
    return best_candidate(cand, val)


def lattice_max(
    piece,
    tol: float,
    *,
    deadline: float | None = None,
    keep: int = 4,
    enough: float = math.inf,
    target: float = -math.inf,
    max_evals: int = MAX_EVALS,
) -> tuple[list[tuple[float, np.ndarray]], float]:
    """Exact max of f over the integer box: (best ``keep`` points as (f, k), best first; a proven upper bound).

    Stops early when a point with f ≥ ``enough`` is known (column generation
    only needs an improving column), at ``deadline`` or after ``max_evals``
    bounds; the bound returned is then the largest bound of any node left
    open, which is still proven (a child's bound never exceeds its parent's).
    Nodes whose bound is at most ``best + tol`` are closed (``enough`` and
    ``target``: see :func:`search`).
    """
    g = piece.beta.size
    order = np.argsort(piece.ub - piece.lb, kind="stable")  # branch on small classes, solve the largest last
    branch, leaf = order[:-1], int(order[-1])
    # an incumbent: the rounded continuous optimum (every class rounded down and up, the leaf solved exactly)
    kc = _cont_argmax(piece)
    nb = len(branch)
    inc = np.array(
        [
            [np.floor(kc[i]) if (s >> n) & 1 else np.ceil(kc[i]) for n, i in enumerate(branch)]
            for s in range(1 << min(nb, 10))
        ],
        dtype=float,
    ).reshape(1 << min(nb, 10), nb)
    inc = np.clip(inc, piece.lb[branch], piece.ub[branch])
    kl, v = _last(piece, piece.c0 + inc @ piece.beta[branch], piece.l0 + inc @ piece.ell[branch], leaf)
    K = np.zeros((v.size, g), np.int64)
    K[:, branch], K[:, leaf] = inc, kl
    return search(
        piece,
        tol,
        _relax,
        _last,
        branch,
        leaf,
        (K, v),
        deadline=deadline,
        keep=keep,
        enough=enough,
        target=target,
        max_evals=max_evals,
    )


def search(
    piece,
    tol: float,
    relax,
    last,
    branch: np.ndarray,
    leaf: int,
    start=None,
    *,
    deadline: float | None = None,
    keep: int = 4,
    enough: float = math.inf,
    target: float = -math.inf,
    max_evals: int = MAX_EVALS,
) -> tuple[list[tuple[float, np.ndarray]], float]:
    """The lattice branch and bound shared by LDP and LIP pricing (see the module docstring).

    ``relax(piece, B, Z, rest)`` bounds f per row over the continuous box of the
    classes ``rest`` (B: c₀ + βᵀk and Z: ℓ₀ + ℓᵀk of the fixed classes; −inf
    where no point is feasible); ``last(piece, B, Z, leaf)`` returns the best
    integer count of class ``leaf`` and f there, per row (f = −inf where none
    is feasible). Classes ``branch`` are fixed in that order; ``start`` is an
    optional incumbent (points (n, g), values (n,)).

    With a finite ``enough`` the search serves column generation: it stops
    once a point with f ≥ ``enough`` is known, and once a point with f > tol
    (an improving column) is known it closes every node whose bound is below
    ``enough`` as well. Either way every closed or open bound is recorded, so
    the bound returned stays proven (looser than with ``enough = inf``, which
    closes only nodes within ``tol`` of the best point and returns a bound
    within ``tol`` of the maximum). Nodes whose bound is at most ``target``
    are closed too (a column-generation round only has to prove max f ≤
    ``target``); the bound returned is then at most max(``target``, best + tol)
    when the search completes.
    """
    g = piece.beta.size
    c0 = piece.c0
    root = float(relax(piece, np.array([c0]), np.array([piece.l0]), np.arange(g))[0])
    found: dict[tuple, float] = {}

    def record(K: np.ndarray, v: np.ndarray) -> None:
        for t in np.argsort(-v)[:keep]:
            if np.isfinite(v[t]):
                found.setdefault(tuple(int(x) for x in K[t]), float(v[t]))

    if start is not None:
        record(*start)
    best = max(found.values(), default=-math.inf)
    if best >= enough or root <= threshold(best, tol, enough, target):
        return _top(found, keep), max(root, best)

    nb = len(branch)
    state = {"best": best, "closed": -math.inf, "evals": 0}

    def thr() -> float:
        return threshold(state["best"], tol, enough, target)

    def explore(level: int, fixed: np.ndarray, B: np.ndarray, Z: np.ndarray, U: np.ndarray) -> None:
        """Depth first, highest bounds first; raises _Stop with the largest bound left open."""
        o = np.argsort(-U, kind="stable")
        fixed, B, Z, U = fixed[o], B[o], Z[o], U[o]
        if level == nb:
            kl, v = last(piece, B, Z, leaf)
            K = np.zeros((v.size, g), np.int64)
            K[:, branch], K[:, leaf] = fixed, kl
            record(K, v)
            state["best"] = max(state["best"], float(v.max()))
            return
        j = int(branch[level])
        rest = np.concatenate([branch[level + 1 :], [leaf]]).astype(np.int64)
        vals = np.arange(int(piece.lb[j]), int(piece.ub[j]) + 1)
        step = max(1, DIVE // vals.size)
        for s in range(0, B.size, step):
            if U[s] <= thr():  # sorted: every node left here is closed
                state["closed"] = max(state["closed"], float(U[s]))
                return
            if state["best"] >= enough or state["evals"] > max_evals or passed(deadline):
                raise _Stop(float(U[s]))
            Bs = (B[s : s + step, None] + piece.beta[j] * vals[None, :]).ravel()
            Zs = (Z[s : s + step, None] + piece.ell[j] * vals[None, :]).ravel()
            bnd = relax(piece, Bs, Zs, rest)
            state["evals"] += bnd.size
            ok = bnd > thr()
            if (~ok).any():
                state["closed"] = max(state["closed"], float(bnd[~ok].max()))
            if not ok.any():
                continue
            rows = np.flatnonzero(ok)
            parent = rows // vals.size + s
            try:
                explore(
                    level + 1, np.column_stack([fixed[parent], vals[rows % vals.size]]), Bs[rows], Zs[rows], bnd[rows]
                )
            except _Stop as stop:  # add this level's nodes not yet expanded
                raise _Stop(max(stop.bound, float(U[s + step]) if s + step < U.size else -math.inf)) from None

    try:
        explore(0, np.zeros((1, 0), np.int64), np.array([c0]), np.array([piece.l0]), np.array([root]))
        open_bound = -math.inf
    except _Stop as stop:
        open_bound = stop.bound
    return _top(found, keep), max(state["closed"], state["best"], open_bound)


def threshold(best: float, tol: float, enough: float = math.inf, target: float = -math.inf) -> float:
    """Bounds at most this close a node (see :func:`search`); a search whose bound is at most it is complete."""
    if best > tol and enough < math.inf:  # an improving point is known: only look for one ≥ enough
        return max(best + tol, enough, target)
    return max(best + tol, target)


class _Stop(Exception):
    def __init__(self, bound: float) -> None:
        super().__init__()
        self.bound = bound


def _cont_argmax(piece) -> np.ndarray:
    """The continuous maximiser of f over the box (fractional knapsack by decreasing r)."""
    r = piece.beta / piece.ell
    k = piece.lb.astype(float).copy()
    z = piece.l0 + float(piece.ell @ k)
    for i in np.argsort(-r, kind="stable"):
        zstar = float(piece.dpsi_inv(np.array([-r[i]]))[0])
        room = piece.ell[i] * (piece.ub[i] - piece.lb[i])
        take = min(max(zstar - z, 0.0), room)
        k[i] += take / piece.ell[i]
        z += take
        if take < room:
            break
    return k


def _top(found: dict, keep: int) -> list[tuple[float, np.ndarray]]:
    items = sorted(found.items(), key=lambda t: -t[1])[:keep]
    return [(v, np.array(k, dtype=np.int64)) for k, v in items]
