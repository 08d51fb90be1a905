"""Exact orbit pricing for ε-LIP by lattice branch and bound with closed-form bounds (no MILP).

The LIP pricing problem of :mod:`mechopt.solvers.exact.orbits.pricing` for a free class j is

    max_k  f(k) = c₀ + βᵀk + ψ(z),   z = ℓ₀ + ℓᵀk = ℓ₀ − Δᵀk,
    over integers lb ≤ k ≤ ub with slo ≤ Δᵀk ≤ shi,

with Δ = −ℓ > 0, z the free value v of class j, the slab keeping it in
[e^{−ε}p_j, min(e^ε p_j, 1)], and ψ convex (histogram MSE: ψ(v) = v²; mutual
information: ψ(v) = v log(v / P_j)). The slab is widened by the ``vertex``
tolerance, as :meth:`~._orbit_price.Piece.feasible` reads it.

**Bound.** Over a partial assignment, the continuous relaxation of the
remaining classes is solved exactly in closed form. With x_i = Δ_i (k_i − lb_i)
∈ [0, Δ_i (ub_i − lb_i)] and X = Σ x_i, z = z₀ − X; for a fixed X the best
Σ β_i k_i is the fractional knapsack that fills classes by decreasing
ρ_i = β_i / Δ_i, a concave piecewise-linear G(X). On each linear piece of G,
G(X) + ψ(z₀ − X) is convex, so its maximum over the feasible X-interval (the
box cut by the slab) is at an end of the interval or at a breakpoint of G
inside it: at most g + 1 evaluations, no solver. (This is at most the bound
that replaces ψ by its chord on the interval, so it prunes at least as much.)

**Search.** :func:`mechopt.solvers.exact.orbits.lattice.search` fixes the classes one at a time,
smallest count range first, closing every value whose bound is at most
best + tol (and recording that bound, so the returned upper bound stays
proven). The last count enters f as a convex function of one integer on the
interval the slab cuts from its box, so its best value is at an end of that
integer interval; the ends are computed by rounding with the slab's tolerance
and then checked (and moved by one) in floating point, so no feasible end is
lost to round-off. Nothing here is d-dimensional.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.orbits.pricing import pieces
>>> from mechopt.solvers.exact.orbits.reduction import classes_of
>>> from mechopt.utilities import HistogramMSE
>>> P = np.r_[np.full(300, 1.0), np.full(200, 2.0), np.full(100, 4.0)]; P /= P.sum()
>>> pcs = pieces(classes_of(P, HistogramMSE()), "lip", HistogramMSE(), 1.0, np.array([0.01, 0.0, -0.01]))
>>> top, ub = lattice_max_lip(pcs[0], 1e-12)
>>> k = top[0][1]; bool(pcs[0].feasible(k, 1e-12)), pcs[0].f(k) <= ub <= pcs[0].f(k) + 1e-12
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from mechopt import settings
from mechopt.solvers.exact.orbits.lattice import MAX_EVALS, best_candidate, knapsack_prefix, rounded_up, search

__all__ = ["lattice_max_lip", "applies"]


def applies(piece) -> bool:
    """Whether the piece has the form this search solves: convex ψ on arrays, a slab on z itself (Δ = −ℓ > 0)."""
    return (
        piece.convex
        and piece.slab is not None
        and getattr(piece, "psi_vec", None) is not None
        and np.array_equal(piece.slab, -piece.ell)
        and bool(np.all(piece.slab > 0))
    )


def _window(piece) -> tuple[float, float]:
    """The z-interval the slab allows, widened by the vertex tolerance (as ``Piece.feasible`` reads it)."""
    vtol = settings.tolerance("vertex")
    return piece.l0 - piece.shi - vtol, piece.l0 - piece.slo + vtol


def _relax(piece, B0: np.ndarray, z0: np.ndarray, rest: np.ndarray) -> np.ndarray:
    """Max of B0 + Σ_{i∈rest} β_i k_i + ψ(z0 + Σ ℓ_i k_i) over the continuous box and slab, per row.

    Rows with no continuous point in the slab get −inf.
    """
    zl, zh = _window(piece)
    _, C, G, b_lb, w_lb = knapsack_prefix(piece.beta[rest], piece.slab[rest], piece.lb[rest], piece.ub[rest])
    B0, z0 = B0 + b_lb, z0 - w_lb
    lo = np.maximum(z0 - zh, 0.0)  # X = z0 − z must put z in [zl, zh]
    hi = np.minimum(z0 - zl, C[-1])
    X = np.clip(C[None, :], lo[:, None], hi[:, None])  # both ends and every breakpoint inside
    val = np.interp(X, C, G) + piece.psi_vec(z0[:, None] - X)
    return np.where(lo <= hi, rounded_up(B0, val, G), -math.inf)


def _last(piece, B0: np.ndarray, z0: np.ndarray, j: int) -> tuple[np.ndarray, np.ndarray]:
    """Best integer k_j and f there, per row: f is convex in k_j, so an end of the feasible integer interval."""
    zl, zh = _window(piece)
    lo, hi, dl, beta = int(piece.lb[j]), int(piece.ub[j]), float(piece.slab[j]), float(piece.beta[j])
    kmin = np.clip(np.ceil((z0 - zh) / dl), lo, hi)  # z0 − dl k ≤ zh
    kmax = np.clip(np.floor((z0 - zl) / dl), lo, hi)  # z0 − dl k ≥ zl
    cand = np.stack([kmin - 1, kmin, kmin + 1, kmax - 1, kmax, kmax + 1])
    z = z0[None, :] - dl * cand
    ok = (cand >= lo) & (cand <= hi) & (z >= zl) & (z <= zh)  # round-off in the division moved an end by one at most
    val = np.where(ok, B0[None, :] + beta * cand + piece.psi_vec(z), -math.inf)
    return best_candidate(cand, val)


def lattice_max_lip(
    piece,
    tol: float,
    *,
    deadline: float | None = None,
    keep: int = 4,
    enough: float = math.inf,
    target: float = -math.inf,
    max_evals: int = MAX_EVALS,
) -> tuple[list[tuple[float, np.ndarray]], float]:
    """Exact max of f over the integer box and slab: (best ``keep`` points as (f, k), best first; a proven bound).

    Stops early when a point with f ≥ ``enough`` is known, at ``deadline`` or
    after ``max_evals`` bounds; the bound returned is then the largest bound of
    any node left open, still proven. Nodes whose bound is at most ``target``
    are closed too (see :func:`mechopt.solvers.exact.orbits.lattice.search`). With no feasible
    point it returns ``([], -inf)``.
    """
    order = np.argsort(piece.ub - piece.lb, kind="stable")  # branch on small classes, solve the largest last
    return search(
        piece,
        tol,
        _relax,
        _last,
        order[:-1],
        int(order[-1]),
        deadline=deadline,
        keep=keep,
        enough=enough,
        target=target,
        max_evals=max_evals,
    )
