"""Pricing of posterior-box vertices (ε-PML, ALIP) at large d: a proven Lagrangian bound, core-face columns, chord dual.

The normalised rays of the ε-PML and ALIP cones are the vertices of the posterior box
B = {p ∈ Δ : l ≤ p ≤ h}, l = e^{−ε_l} P (0 under PML), h = min(e^{ε_u} P, 1). Substitute
p = l + s: 0 ≤ s_x ≤ δ_x = h_x − l_x, 1ᵀs = R = 1 − 1ᵀl, so a vertex is a set S of coordinates
at h, one filler j at l_j + r with r = R − δ(S) ∈ [0, δ_j], the rest at l. For a separable convex
gain μ(p) = Σ_x φ_x(p_x) (histogram MSE φ = p², mutual information φ = p log(p / P_u)) the
reduced cost at duals ν is F(p) = Σ_x f_x(p_x), f_x(p) = φ_x(p) − ν_x p: a 0/1 knapsack with
weights δ_x, values v_x = f_x(h_x) − f_x(l_x), the exact capacity R and a convex term for the
filler (weakly NP-hard; the exact searches of :mod:`~mechopt.solvers.exact.pricing.mitm` are
limited to d ≤ ``MITM_MAX_D``).

**Bound (proven).** For any λ and p ∈ B, since f_x − λ·id is convex on [l_x, h_x], its maximum
is at an end: f_x(p_x) − λ(p_x − l_x) ≤ m_x(λ) = max(f_x(l_x), f_x(h_x) − λ δ_x). Summing, on
1ᵀ(p − l) = R,

    F(p) = λR + Σ_x (f_x(p_x) − λ(p_x − l_x)) ≤ L(λ) = λR + Σ_x m_x(λ).

L is convex and piecewise linear in λ with slope R − Σ_{x : v_x > λδ_x} δ_x, so it is minimised at
λ = the key v_k / δ_k of the greedy fill's fractional item k (keys v_x / δ_x descending, capacity
R): there the slope changes sign. It is the fractional-knapsack (Dantzig) bound. It bounds every
point of B, vertices included, so νᵀP + L is a certificate (math.md §1) whatever the columns.
Coordinates with δ_x = 0 (P_x = 0, or ε_u = ε_l = 0) are fixed at l_x = h_x and add f_x(l_x).

**Chord dual.** Let σ_x = (φ_x(h_x) − φ_x(l_x)) / δ_x, the slope of φ_x's chord from the lower
to the upper corner, and c_x = φ_x(l_x) − σ_x l_x its value at 0. Convexity puts φ_x below its
chord on [l_x, h_x]: φ_x(p) ≤ c_x + σ_x p. At ν⁰_x = σ_x + Σ_y c_y (a shift along 1, which
changes every reduced cost by the same constant since 1ᵀp = 1) F(p) ≤ Σ_x c_x + σᵀp − ν⁰ᵀp = 0
on B: the bound is ν⁰ᵀP = σᵀP + Σ_x c_x, the value of the LP in which every gain is replaced by
its chord (affine on B). Under PML (l = 0, φ(0) = 0) c = 0 and ν⁰_x = φ_x(h_x) / h_x. The bound
is reached exactly when P is a mixture of vertices without a filler strictly inside (δ(S) = R),
and a vertex with filler r loses the chord's excess at r; with many inputs the subset sums δ(S)
are dense near R, so the optimum approaches ν⁰ᵀP (measured, Dirichlet(1) priors: PML 1.7e-8
below it at d = 32, ε = 1, where the exact pricing proves the gap; within the 1e-10
column-generation gap at d = 64, ε ≤ 1; ALIP at d = 64 in ``benchmarks/RESULTS.md``). Column
generation prices ν⁰ first (``column_generation(start=ν⁰)``) and keeps the lower of the bounds.

**Columns (a search, not a bound).** The vertices are searched on the *core face*:
sorted by |v_x − λ δ_x| (what moving x off the greedy fill's side costs in L), the
first ``core`` coordinates are free, the others fixed at their greedy side (h or l); the face
is again a box cut by 1ᵀp = const, scaled to the simplex and searched by the exact
meet in the middle (:func:`~mechopt.solvers.exact.pricing.mitm.mitm_max`, early stop).
The best vertices of the face are the round's columns; the round's bound is L. When the face
(``core`` free coordinates) has no improving vertex, a wider one (``wide``) is searched, then up to
``RANDOM_FACES`` seeded random faces (near the chord duals every key v_x / δ_x agrees to ~1e-4, the order
that picks the faces is set by residuals, and improving vertices lie outside them), then the
exact branch and bound over all of B (:func:`~mechopt.solvers.exact.pricing.bnb.separable_bnb`) for
``FALLBACK_NODES`` nodes: if it finishes, its bound (the maximum, to a quarter of ``colgen_gap``) replaces
L and a round without columns is a proof. (With a prior mass above e^{−ε} the chord bound is far from the
optimum and the branch and bound does the work: PML, d = 40, P(0) > 0.5, ε = 1, histogram: gap 1.3e-9 in
60 s, where the faces alone stalled at 9e-3.) When it does not finish, the *flip sets* are searched
(:func:`~mechopt.solvers.exact.pricing.flips.flip_ladder`, at most ``FLIP_PAIRS`` pairs): an exact search that
charges the filler's chord excess, which L cannot (no dual brings L below the chord bound), so near the
chord duals it proves a bound below L or finds the best vertices (ALIP MI (2, 1), d = 64: certified, gap
2.5e-11, where the other searches stopped at 2e-7). When its lists outgrow ``FLIP_LIST_MAX`` it keeps the
bound of its last finished rung, the round is marked not exhaustive (``Pricing.exhaustive``) and column
generation stops with the best proven bound, saying so.

**Strata (ε-PML mutual information, d ≤ 64).** With ``strata=True`` (PML MI, every P_x < e^{−ε} and
K = ⌊d e^{−ε}⌋ + 3 ≤ 11; d = 40, ε = 2 with larger masses: gap 7.9e-7 against 3.4e-7 without, at 120 s) the
first step is the stratified exact pricing (:mod:`~mechopt.solvers.exact.pricing.strata`), and
:meth:`PMLSeparablePricer.dual_bound` gives column generation a bound at duals of its own, chosen by the
cutting-plane LP (:mod:`~mechopt.solvers.exact.pricing.strata_bound`); :meth:`PMLSeparablePricer.seed_columns`
seeds the master when no window cover exists (d = 64, ε = 2, K = 11: gaps 7.9e-11 to 9.9e-11, where the
chord bound left 1.25e-9 to 3.5e-9).

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
>>> alip = PMLSeparablePricer(P, np.minimum(np.e * P, 1.0), lambda p, i: p * p, lo=np.exp(-0.5) * P)
>>> float(alip.price(alip.chord_duals()).bound) <= 1e-15   # ALIP box, lower corner e^{-1/2} P
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import xlogy

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.pricing.base import Pricing
from mechopt.solvers.exact.pricing.bnb import separable_bnb
from mechopt.solvers.exact.pricing.cover import window_sets
from mechopt.solvers.exact.pricing.flips import flip_ladder, greedy_fill, lagrangian_bound
from mechopt.solvers.exact.pricing.lip import _top_columns
from mechopt.solvers.exact.pricing.mitm import mitm_max
from mechopt.solvers.exact.pricing.strata import STRATA_MAX_D, StrataPricer, strata_k
from mechopt.solvers.exact.pricing.strata_bound import StrataBound

__all__ = ["PMLSeparablePricer", "CORE_D", "chord_duals", "lagrangian_bound", "separable_phi"]

#: Free coordinates of the core face searched by meet in the middle (2^14 subsets per half; one
#: search takes ~0.1-1 s on the shared machine and ~40 MB).
CORE_D = 28
#: Nodes of exact branch and bound (all of B) per round when no face has an improving vertex: a work budget of
#: the search (no proof depends on it), the same on every machine (was 5 s of wall clock).
FALLBACK_NODES = 120_000  # ~5 s at ~24 k nodes/s (PML MI d = 38-40, ε = 1.5-2, load ~1.7)
#: The wider face searched when the first has no improving vertex (~0.1 GB at 32, ~0.5 GB at 36).
WIDE_D = 32
#: Seeded random faces (``core`` free coordinates) searched when neither face has an improving vertex, before the
#: branch and bound: near the chord duals every key agrees to ~1e-4 (the order is set by residuals) and improving
#: vertices lie outside the ordered faces (ALIP MI (2, 1), d = 64: 5-7 of 20-40 random faces held one; RESULTS.md).
#: At most ``RANDOM_FACES`` faces and ``RANDOM_NODES`` search nodes per pricing (~3 M nodes/s: ~3 s, the wall-clock
#: budget it replaces): a work budget, the same faces on every machine; no proof depends on it.
RANDOM_FACES, RANDOM_NODES = 32, 8_000_000
#: Pairs evaluated by the exact flip-set search (:mod:`~mechopt.solvers.exact.pricing.flips`) per round when no face
#: has an improving vertex and the branch and bound did not finish: a work budget (its unfinished bound stays proven).
FLIP_PAIRS = 4_000_000  # ~30 s at ~0.12 M pairs/s (flip_max, PML MI d = 56, ε = 2, load ~2.1), the old budget
#: Rounds per call of the strata's cutting-plane bound (:meth:`PMLSeparablePricer.dual_bound`): a work budget.
BOUND_ROUNDS = 20
#: Window width and seeded restrictions of the slices seeded into the master (:meth:`PMLSeparablePricer.seed_columns`).
SEED_T, SEED_RESTRICTIONS = 1e-8, 60


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


def chord_duals(h: np.ndarray, phi, lo: np.ndarray | None = None) -> np.ndarray:
    """ν⁰ = σ + (Σ_x c_x)·1, φ_x's chords c_x + σ_x p on [lo_x, h_x]: every reduced cost ≤ 0 on B (module docstring).

    ``lo`` defaults to 0 (ε-PML), where ν⁰_x = (φ_x(h_x) − φ_x(0)) / h_x when φ(0) = 0.

    >>> chord_duals(np.array([0.5, 0.25]), lambda p, i: p * p).tolist()
    [0.5, 0.25]
    >>> chord_duals(np.array([0.5, 0.5]), lambda p, i: p * p, lo=np.array([0.25, 0.25])).tolist()  # σ = 0.75, c = −1/8
    [0.5, 0.5]
    """
    h = np.asarray(h, float)
    lo = np.zeros_like(h) if lo is None else np.asarray(lo, float)
    idx, delta = np.arange(h.size), h - lo
    fl = phi(lo, idx)
    sigma = np.divide(phi(h, idx) - fl, delta, out=np.zeros_like(h), where=delta > 0)
    return sigma + float((fl - sigma * lo).sum())


class PMLSeparablePricer:
    """Pricing of ε-PML vertices for μ(p) = Σ_x φ_x(p_x) with a proven bound (module docstring).

    Parameters
    ----------
    P : ndarray
        The prior.
    h : ndarray
        The box's upper corner min(e^ε P, 1) (``PML.box(P)[1]``; ALIP: ``ALIP.box(P)[1]``).
    phi : callable
        ``phi(p, idx)``: φ_x(p_x) elementwise for inputs ``idx``, convex in p.
    batch : int, optional
        Most columns per call (default d).
    core, wide : int
        Free coordinates of the first face searched for columns and of the second, searched when the
        first has no improving vertex (≤ ``MITM_MAX_D``); then the exact branch and bound for
        ``FALLBACK_NODES``.
    lo : ndarray, optional
        The box's lower corner (ALIP: e^{−ε_l} P, ``ALIP.box(P)[0]``); default 0 (ε-PML).
    """

    def __init__(
        self,
        P: np.ndarray,
        h: np.ndarray,
        phi,
        batch: int | None = None,
        *,
        core: int = CORE_D,
        wide: int = WIDE_D,
        lo: np.ndarray | None = None,
        strata: bool = False,
    ) -> None:
        self.P = np.asarray(P, float)
        self.h = np.asarray(h, float)
        self.lo = np.zeros_like(self.h) if lo is None else np.asarray(lo, float)
        self.delta = self.h - self.lo
        self.R = 1.0 - float(self.lo.sum())  # what the coordinates above l carry
        self.phi = phi
        self.batch = int(batch or max(4, self.P.size))
        self.core = int(min(core, self.P.size))
        self.wide = int(min(wide, self.P.size))
        self.idx = np.arange(self.P.size)
        self.early = True  # the face searches stop at their first improving vertices
        self.calls = self.calls_fallback = self.calls_flips = self.calls_strata = 0
        self.flip_bound = math.inf
        self.nodes = 0
        unclipped = bool(np.all(self.h < 1.0))  # every P_x < e^{−ε}: the strata's size argument (else B&B, flips)
        K = strata_k(self.h) if strata and unclipped and lo is None and self.P.size <= STRATA_MAX_D else None
        self.strata = None if K is None else StrataPricer(self.h, phi, K)
        self.strata_bound = math.inf
        self._sb = None  # the cutting-plane bound over the strata (dual_bound)

    def chord_duals(self) -> np.ndarray:
        """ν⁰ (:func:`chord_duals`) of this pricer's box and gain."""
        return chord_duals(self.h, self.phi, self.lo)

    def rc(self, Pm: np.ndarray, nu: np.ndarray) -> np.ndarray:
        """Reduced costs of posteriors (rows of Pm)."""
        Pm = np.atleast_2d(Pm)
        return self.phi(Pm, np.broadcast_to(self.idx, Pm.shape)).sum(axis=1) - Pm @ nu

    def _face(self, fl, fh, lam: float, core: int, rng=None) -> tuple[np.ndarray, np.ndarray]:
        """(free, fixed at h) of the core face: the greedy fill's side (h or l) for the fixed coordinates.

        Free: the fill's fractional item k and the coordinates with the least |v_x − λ δ_x|
        (ties: nearest to k in the fill's order), so 1ᵀp = 1 is feasible on the face; with ``rng``
        (a ``numpy.random.Generator``) k and a random sample instead.
        """
        h, delta = self.h, self.delta
        order, k = greedy_fill(fl, fh, delta, self.R)
        rank = np.empty(h.size, np.int64)
        rank[order] = np.arange(h.size)
        near = np.lexsort((np.abs(rank - k), np.abs(fh - lam * delta - fl))) if rng is None else rng.permutation(h.size)
        free = np.concatenate([[order[k]], near[near != order[k]][: core - 1]])
        fixed = np.setdiff1d(self.idx, free)
        return free, fixed[rank[fixed] < k]

    def _search(self, nu, fl, fh, lam, core, deadline, rng=None) -> tuple[np.ndarray, float | None]:
        """(the best vertices (rows) of the core face with ``core`` free coordinates, the face's proven max or None).

        The face's proven max (meet in the middle's bound) is returned only when the face is all of B.
        """
        h, lo = self.h, self.lo
        free, high = self._face(fl, fh, lam, core, rng)
        low = np.setdiff1d(np.setdiff1d(self.idx, free), high)
        if not 0.0 < self.R - float(self.delta[high].sum()) <= float(self.delta[free].sum()):
            return np.zeros((0, h.size)), None
        tot = 1.0 - float(h[high].sum() + lo[low].sum())  # what the free coordinates carry: 1ᵀp[free]
        const = float(fh[high].sum() + fl[low].sum())

        def f(q, which):  # the face's reduced cost, the fixed coordinates' part as const·1ᵀq = const
            p = tot * q
            x = free[which]
            return self.phi(p, x) - nu[x] * p + const * q

        out = mitm_max(lo[free] / tot, h[free] / tot, f, self.batch, deadline, early=self.early)
        self.nodes += out.nodes
        points = np.zeros((len(out.points), h.size))
        points[:, high] = h[high]
        points[:, low] = lo[low]
        if out.points:
            points[:, free] = tot * np.array(out.points)
        return points, (out.bound if free.size == h.size else None)

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        """The proven bound at ν (L, or the search's when its face is all of B) and the best vertices found.

        The searches in turn until one has an improving vertex or proves the maximum: the core face, the wide
        face, random faces, the branch and bound for ``FALLBACK_NODES``, then the flip sets, so a run goes as
        before them until it would have stopped without a proof (run earlier, they slowed LIP histogram ε = 2,
        d = 64, from 135 s to a 300 s time limit).
        """
        self.calls += 1
        nu = np.asarray(nu, float)
        h, idx = self.h, self.idx
        fl = self.phi(self.lo, idx) - nu * self.lo
        fh = self.phi(h, idx) - nu * h
        bound, lam = lagrangian_bound(fl, fh, self.delta, self.R)
        tol = settings.tolerance("reduced_cost")
        steps = [
            lambda: self._stratified(nu, deadline) if self.strata is not None else None,
            lambda: self._search(nu, fl, fh, lam, self.core, deadline),
            lambda: self._search(nu, fl, fh, lam, self.wide, deadline),
            lambda: (self._random_faces(nu, fl, fh, lam, deadline, tol), None) if self.P.size > self.core else None,
            lambda: self._fallback(nu, deadline),
            lambda: self._flips(nu, deadline),
        ]
        points, whole, self.flip_bound, self.strata_bound = np.zeros((0, h.size)), False, math.inf, math.inf
        for step in steps if bound > tol else ():
            out = step()
            if out is None:
                continue
            points, exact = out
            if exact is not None:
                bound, whole = min(bound, exact), True
            if whole or np.any(self.rc(points, nu) > tol):
                break
        bound = min(bound, self.flip_bound, self.strata_bound)  # proven all the same (unfinished ladder, strata)
        rays = _top_columns(points, self.rc(points, nu), self.batch) if points.size else np.zeros((h.size, 0))
        return Pricing(rays, bound, "PML Lagrangian bound, core-face search", exhaustive=whole or bound <= tol)

    def _random_faces(self, nu, fl, fh, lam, deadline, tol) -> np.ndarray:
        """The vertices of the first of ``RANDOM_FACES`` seeded random faces with an improving one (or the last's)."""
        rng = np.random.default_rng(self.calls)  # seeded: the same run prices the same faces
        points, last = np.zeros((0, self.h.size)), self.nodes + RANDOM_NODES
        for _ in range(RANDOM_FACES):
            points, _ = self._search(nu, fl, fh, lam, self.core, deadline, rng)
            if np.any(self.rc(points, nu) > tol) or self.nodes >= last or passed(deadline):
                break
        return points

    def _stratified(self, nu: np.ndarray, deadline: float | None = None) -> tuple[np.ndarray, float | None] | None:
        """(vertices, proven max or None) of the stratified exact pricing (module ``strata``).

        None when its window is too wide to list (early rounds, far from the chord duals) or the set tables were not
        built before ``deadline``: the other searches run.
        Its bound is kept (``strata_bound``) even when the large sets' bound is above the target.
        """
        out = self.strata.price(nu, self._target(nu), self.batch, deadline)
        if out.sets < 0:
            return (out.points, None) if out.points.size else None
        self.strata_bound = out.bound
        self.calls_strata += 1
        return out.points, (out.bound if out.whole else None)

    def dual_bound(self, deadline: float | None = None) -> tuple[float, np.ndarray] | None:
        """(a proven bound on max Σ μ, its duals ν) from the duals best against the stratified pricing, or None.

        :class:`~mechopt.solvers.exact.pricing.strata_bound.StrataBound` for at most ``BOUND_ROUNDS`` per call (its
        pool is kept); None without the stratified pricing. Column generation keeps the lower of this and its own.
        """
        if self.strata is None:
            return None
        if self._sb is None:
            self._sb = StrataBound(self.strata, self.P)
            self._sb.seed(deadline=deadline)
        tau = 0.1 * self._target(self.strata.nu0)
        b, nu = self._sb.run(rounds=BOUND_ROUNDS, deadline=deadline, tau=tau)
        return None if nu is None else (b, nu)

    def seed_columns(self, deadline: float | None = None) -> np.ndarray:
        """Columns for the master when no window cover exists: the bound's pool of small vertices and window slices.

        The slices p_S = P·1_S / π(S) with a ≤ π(S) ≤ a(1 + ``SEED_T``)
        (:func:`~mechopt.solvers.exact.pricing.cover.window_sets`, ``SEED_RESTRICTIONS`` seeded restrictions) are
        the large sets the relaxation stands for.
        """
        if self.strata is None:
            return np.zeros((self.P.size, 0))
        live = self.P > 0
        eps = math.log(float(np.max(self.h[live] / self.P[live])))  # h = min(e^ε P, 1): e^ε at any unclipped input
        # the slices first: under a time limit they are the master's feasible columns (the strata's tables may not
        # be built in time; d = 64, ε = 2 takes ~80 s for them and ~13 s for the slices)
        W = window_sets(self.P, eps, SEED_RESTRICTIONS, np.random.default_rng(0), t=SEED_T, deadline=deadline)
        slices = (self.P[None, :] * W) / np.array([math.fsum(self.P[w]) for w in W])[:, None]
        self.dual_bound(deadline)
        return np.hstack([self._sb.pool.T, slices.T])

    def _target(self, nu: np.ndarray) -> float:
        """A quarter of ``colgen_gap`` times |νᵀP|: a maximum proven below it certifies column generation's gap."""
        return 0.25 * settings.tolerance("colgen_gap") * abs(float(nu @ self.P))

    def _f(self, nu: np.ndarray):
        def f(p, which):
            return self.phi(p, which) - nu[which] * p

        return f

    def _flips(self, nu: np.ndarray, deadline: float | None) -> tuple[np.ndarray, float | None]:
        """(vertices, proven max or None): the flip-set ladder for ``FLIP_PAIRS`` pairs at most.

        :func:`~mechopt.solvers.exact.pricing.flips.flip_ladder`. Its bound is returned only when it is exact
        (a rung's maximum, or the last rung's proof); ``flip_bound`` keeps the ladder's bound either way (an
        unfinished ladder's is its last finished rung's θ, proven too).
        """
        self.calls_flips += 1
        f, target = self._f(nu), self._target(nu)
        out, exact = flip_ladder(self.lo, self.h, f, target, self.batch, deadline, max_pairs=FLIP_PAIRS)
        self.nodes += out.nodes
        self.flip_bound = out.bound
        points = np.array(out.points) if out.points else np.zeros((0, self.h.size))
        return points, (out.bound if exact else None)

    def _fallback(self, nu: np.ndarray, deadline: float | None) -> tuple[np.ndarray, float | None]:
        """The exact branch and bound over all of B for ``FALLBACK_NODES`` at most: (vertices, proven max or None).

        As in :class:`~mechopt.solvers.exact.pricing.lip.LIPSeparablePricer`, nodes within a quarter of
        ``colgen_gap`` (times |νᵀP|) of zero are closed, so a finished search's bound is ≥ the maximum
        and only that much above it when the maximum is below it.
        """
        self.calls_fallback += 1
        f, target = self._f(nu), self._target(nu)
        out = separable_bnb(
            self.lo, self.h, f, self.batch, deadline, target=target, early=True, max_nodes=FALLBACK_NODES
        )
        self.nodes += out.nodes
        return (np.array(out.points) if out.points else np.zeros((0, self.h.size))), out.bound
