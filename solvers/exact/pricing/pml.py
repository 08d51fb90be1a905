"""Pricing of ε-PML vertices at large d: a proven Lagrangian bound, columns from a core face, and the chord dual.

The normalised rays of the ε-PML cone are the vertices of the posterior box
B = {p ∈ Δ : 0 ≤ p ≤ h}, h = min(e^ε P, 1): a set S of coordinates at h, one
filler j at r = 1 − h(S) ∈ [0, h_j], the rest 0. For a separable convex gain
μ(p) = Σ_x φ_x(p_x) (histogram MSE φ = p², mutual information φ = p log(p / P_u))
the reduced cost at duals ν is F(p) = Σ_x f_x(p_x), f_x(p) = φ_x(p) − ν_x p:
a 0/1 knapsack with weights h_x, values v_x = f_x(h_x) − f_x(0), an exact
capacity and a convex term for the filler (weakly NP-hard; the exact searches of
:mod:`~mechopt.solvers.exact.pricing.mitm` are limited to d ≤ ``MITM_MAX_D``).

**Bound (proven).** For any λ and p ∈ B, since f_x − λ·id is convex on [0, h_x],
f_x(p_x) − λ p_x ≤ m_x(λ) = max(f_x(0), f_x(h_x) − λ h_x), so on 1ᵀp = 1

    F(p) = λ + Σ_x (f_x(p_x) − λ p_x) ≤ L(λ) = λ + Σ_x m_x(λ).

L is the fractional-knapsack (Dantzig) bound at λ = the key v_k / h_k of the
greedy fill's fractional item, which minimises it. It bounds every point of B,
vertices included, so νᵀP + L is a certificate (math.md §1) whatever the columns.

**Chord dual.** At ν⁰_x = (φ_x(h_x) − φ_x(0)) / h_x every f_x lies below its chord
f_x(0)(1 − p/h_x), so with φ_x(0) = 0 (both gains) F ≤ 0 on B: the bound is
ν⁰ᵀP = Σ_x P_x φ_x(h_x) / h_x, the value of the LP in which every gain is replaced by
its chord. It is reached exactly when P is a mixture of *pure* vertices (no filler,
h(S) = 1), and the loss of a vertex with filler r is the chord's excess
r·φ-chord − φ_j(r) (MI: r log(h_j / r); histogram: r (h_j − r)). With many inputs
the subset sums h(S) are dense near 1, so the optimum approaches ν⁰ᵀP (measured, Dirichlet(1)
priors: 1.7e-8 below it at d = 32, ε = 1, where the exact pricing proves the gap; within the
1e-10 column-generation gap at d = 64, ε ≤ 1). Column generation prices ν⁰ first
(``column_generation(start=ν⁰)``) and keeps the lower of the bounds.

**Columns (a search, not a bound).** The vertices are searched on the *core face*:
sorted by |v_x − λ h_x| (what moving x off the greedy fill's side costs in L), the
first ``core`` coordinates are free, the others fixed at their greedy side; the face
is again a box cut by 1ᵀp = const, scaled to the simplex and searched by the exact
meet in the middle (:func:`~mechopt.solvers.exact.pricing.mitm.mitm_max`, early stop).
The best vertices of the face are the round's columns; the round's bound is L. When the face
(``core`` free coordinates) has no improving vertex, a wider one (``wide``) is searched, then the
exact branch and bound over all of B (:func:`~mechopt.solvers.exact.pricing.bnb.separable_bnb`) for
``FALLBACK_SECONDS``: if it finishes, its bound (the maximum, to a quarter of ``colgen_gap``) replaces
L and a round without columns is a proof; otherwise the round is marked not exhaustive
(``Pricing.exhaustive``) and column generation stops with the best proven bound, saying so. (With a
prior mass above e^{−ε} the chord bound is far from the optimum and the branch and bound does the
work: d = 40, P(0) > 0.5, ε = 1, histogram: gap 1.3e-9 in 60 s, where the faces alone stalled at 9e-3.)

Examples
--------
>>> import numpy as np
>>> P = np.random.default_rng(0).dirichlet(np.ones(40))
>>> pr = PMLSeparablePricer(P, np.minimum(np.e * P, 1.0), lambda p, i: p * p, core=12)
>>> nu0 = pr.chord_duals()
>>> float(pr.price(nu0).bound) <= 1e-15            # every reduced cost ≤ 0 at the chord dual
True
>>> out = pr.price(np.zeros(40))                      # ν = 0: max Σ p², bounded by L
>>> p = out.rays[:, 0]
>>> bool(abs(p.sum() - 1) < 1e-12 and (p * p).sum() <= out.bound + 1e-15)
True
"""

from __future__ import annotations

import time

import numpy as np
from scipy.special import xlogy

from mechopt import settings
from mechopt.solvers.exact.pricing.base import Pricing
from mechopt.solvers.exact.pricing.bnb import separable_bnb
from mechopt.solvers.exact.pricing.lip import _top_columns
from mechopt.solvers.exact.pricing.mitm import mitm_max

__all__ = ["PMLSeparablePricer", "CORE_D", "chord_duals", "lagrangian_bound", "separable_phi"]

#: Free coordinates of the core face searched by meet in the middle (2^14 subsets per half; one
#: search takes ~0.1-1 s on the shared machine and ~40 MB).
CORE_D = 28
#: Seconds of exact branch and bound (all of B) per round when no face has an improving vertex.
FALLBACK_SECONDS = 5.0
#: The wider face searched when the first has no improving vertex (~0.1 GB at 32, ~0.5 GB at 36).
WIDE_D = 32


def separable_phi(utility):
    """φ(p, idx) of a separable gain μ(p) = Σ_x φ_x(p_x) with φ_x(0) = 0 (histogram MSE, MI), or None.

    >>> from mechopt.utilities import HistogramMSE
    >>> float(separable_phi(HistogramMSE())(np.array([0.5]), np.array([0]))[0])
    0.25
    """
    from mechopt.utilities import HistogramMSE, MutualInfo

    if isinstance(utility, HistogramMSE):
        return lambda p, idx: p * p
    if isinstance(utility, MutualInfo) and utility.prior is not None:
        logPu = np.log(np.asarray(utility.prior, float))
        return lambda p, idx: xlogy(p, p) - p * logPu[idx]  # 0 at p = 0
    return None


def chord_duals(h: np.ndarray, phi) -> np.ndarray:
    """ν⁰_x = (φ_x(h_x) − φ_x(0)) / h_x: every reduced cost ≤ 0 on B when φ(0) = 0, bound ν⁰ᵀP (module docstring).

    >>> chord_duals(np.array([0.5, 0.25]), lambda p, i: p * p).tolist()
    [0.5, 0.25]
    """
    idx = np.arange(h.size)
    return (phi(h, idx) - phi(np.zeros_like(h), idx)) / h


def _greedy(f0: np.ndarray, fh: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, int]:
    """(the coordinates by descending key (fh − f0)/h, the position of the fill's fractional item)."""
    order = np.argsort(-(fh - f0) / h, kind="stable")
    return order, min(int(np.searchsorted(np.cumsum(h[order]), 1.0, side="left")), h.size - 1)


def lagrangian_bound(f0: np.ndarray, fh: np.ndarray, h: np.ndarray) -> tuple[float, float]:
    """(min_λ L(λ), its λ) for f_x with values f0 at 0 and fh at h_x (module docstring), on 1ᵀp = 1.

    >>> L, lam = lagrangian_bound(np.zeros(3), np.array([0.3, 0.2, 0.1]), np.array([0.5, 0.5, 0.5]))
    >>> round(L, 12), round(lam, 12)                          # fill 0.5 of item 0 and 0.5 of item 1
    (0.5, 0.4)
    """
    order, k = _greedy(f0, fh, h)
    lam = float((fh[order[k]] - f0[order[k]]) / h[order[k]])
    return lam + float(np.maximum(f0, fh - lam * h).sum()), lam


class PMLSeparablePricer:
    """Pricing of ε-PML vertices for μ(p) = Σ_x φ_x(p_x) with a proven bound (module docstring).

    Parameters
    ----------
    P : ndarray
        The prior.
    h : ndarray
        The box's upper corner min(e^ε P, 1) (``PML.box(P)[1]``).
    phi : callable
        ``phi(p, idx)``: φ_x(p_x) elementwise for inputs ``idx``, convex in p, φ_x(0) = 0.
    batch : int, optional
        Most columns per call (default d).
    core, wide : int
        Free coordinates of the first face searched for columns and of the second, searched when the
        first has no improving vertex (≤ ``MITM_MAX_D``); then the exact branch and bound for
        ``FALLBACK_SECONDS``.
    """

    def __init__(
        self, P: np.ndarray, h: np.ndarray, phi, batch: int | None = None, *, core: int = CORE_D, wide: int = WIDE_D
    ) -> None:
        self.P = np.asarray(P, float)
        self.h = np.asarray(h, float)
        self.phi = phi
        self.batch = int(batch or max(4, self.P.size))
        self.core = int(min(core, self.P.size))
        self.wide = int(min(wide, self.P.size))
        self.idx = np.arange(self.P.size)
        self.early = True  # the face searches stop at their first improving vertices
        self.calls = self.calls_fallback = 0
        self.nodes = 0

    def chord_duals(self) -> np.ndarray:
        """ν⁰ (:func:`chord_duals`) of this pricer's box and gain."""
        return chord_duals(self.h, self.phi)

    def rc(self, Pm: np.ndarray, nu: np.ndarray) -> np.ndarray:
        """Reduced costs of posteriors (rows of Pm)."""
        Pm = np.atleast_2d(Pm)
        return self.phi(Pm, np.broadcast_to(self.idx, Pm.shape)).sum(axis=1) - Pm @ nu

    def _face(self, f0: np.ndarray, fh: np.ndarray, lam: float, core: int) -> tuple[np.ndarray, np.ndarray]:
        """(free, fixed at h) of the core face: the greedy fill's side for the fixed coordinates.

        Free: the fill's fractional item k and the coordinates with the least |v_x − λ h_x|
        (ties: nearest to k in the fill's order), so 1ᵀp = 1 is feasible on the face.
        """
        h = self.h
        order, k = _greedy(f0, fh, h)
        rank = np.empty(h.size, np.int64)
        rank[order] = np.arange(h.size)
        near = np.lexsort((np.abs(rank - k), np.abs(fh - lam * h - f0)))
        free = np.concatenate([[order[k]], near[near != order[k]][: core - 1]])
        fixed = np.setdiff1d(self.idx, free)
        return free, fixed[rank[fixed] < k]

    def _search(self, nu, f0, fh, lam, core, deadline) -> tuple[np.ndarray, float | None]:
        """(the best vertices (rows) of the core face with ``core`` free coordinates, the face's proven max or None).

        The face's proven max (meet in the middle's bound) is returned only when the face is all of B.
        """
        h = self.h
        free, high = self._face(f0, fh, lam, core)
        cap = 1.0 - float(h[high].sum())  # what the free coordinates must carry
        if not 0.0 < cap <= float(h[free].sum()):
            return np.zeros((0, h.size)), None
        const = float((fh[high] - f0[high]).sum() + f0.sum() - f0[free].sum())

        def f(q, which):  # the face's reduced cost, the fixed coordinates' part as const·1ᵀq = const
            p = cap * q
            x = free[which]
            return self.phi(p, x) - nu[x] * p + const * q

        out = mitm_max(np.zeros(free.size), h[free] / cap, f, self.batch, deadline, early=self.early)
        self.nodes += out.nodes
        points = np.zeros((len(out.points), h.size))
        points[:, high] = h[high]
        if out.points:
            points[:, free] = cap * np.array(out.points)
        return points, (out.bound if free.size == h.size else None)

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        """The proven bound at ν (L, or the search's when its face is all of B) and the best vertices found."""
        self.calls += 1
        nu = np.asarray(nu, float)
        h, idx = self.h, self.idx
        f0 = self.phi(np.zeros_like(h), idx)
        fh = self.phi(h, idx) - nu * h
        bound, lam = lagrangian_bound(f0, fh, h)
        points, tol, whole = np.zeros((0, h.size)), settings.tolerance("reduced_cost"), False
        for core in () if bound <= tol else (self.core, self.wide):  # the wider face if the first has no column
            points, exact = self._search(nu, f0, fh, lam, core, deadline)
            if exact is not None:
                bound, whole = min(bound, exact), True
            if whole or np.any(self.rc(points, nu) > tol):
                break
        if not whole and bound > tol and not np.any(self.rc(points, nu) > tol):
            points, exact = self._fallback(nu, deadline)
            if exact is not None:
                bound, whole = min(bound, exact), True
        rays = _top_columns(points, self.rc(points, nu), self.batch) if points.size else np.zeros((h.size, 0))
        return Pricing(rays, bound, "PML Lagrangian bound, core-face search", exhaustive=whole or bound <= tol)

    def _fallback(self, nu: np.ndarray, deadline: float | None) -> tuple[np.ndarray, float | None]:
        """The exact branch and bound over all of B for ``FALLBACK_SECONDS`` at most: (vertices, proven max or None).

        As in :class:`~mechopt.solvers.exact.pricing.lip.LIPSeparablePricer`, nodes within a quarter of
        ``colgen_gap`` (times |νᵀP|) of zero are closed, so a finished search's bound is ≥ the maximum
        and only that much above it when the maximum is below it.
        """
        self.calls_fallback += 1
        stop = time.perf_counter() + FALLBACK_SECONDS
        stop = stop if deadline is None else min(stop, deadline)
        target = 0.25 * settings.tolerance("colgen_gap") * abs(float(nu @ self.P))

        def f(p, which):
            return self.phi(p, which) - nu[which] * p

        out = separable_bnb(np.zeros(self.h.size), self.h, f, self.batch, stop, target=target, early=True)
        self.nodes += out.nodes
        return (np.array(out.points) if out.points else np.zeros((0, self.h.size))), out.bound
