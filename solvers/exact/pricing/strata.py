"""Exact pricing of ε-PML posterior-box vertices near the chord duals, stratified by the number of full inputs.

Box B = {p ∈ Δ : 0 ≤ p ≤ h} (ε-PML, h = min(e^ε P, 1)); a vertex is a set S at h, a filler j ∉ S at
r = 1 − h(S) ∈ [0, h_j], the rest at 0. For a separable gain μ(p) = Σ_x φ_x(p_x) (φ convex, φ(0) = 0) and the
chord duals ν⁰_x = φ_x(h_x)/h_x (:func:`~mechopt.solvers.exact.pricing.pml.chord_duals`), write y = ν⁰ − ν:
the reduced cost of a vertex is

    F(S, j) = μ(p) − νᵀp = Σ_{x∈S} y_x h_x + y_j r − e_j(r),      e_j(r) = ν⁰_j r − φ_j(r) ≥ 0,

the filler's chord excess (concave, zero at r = 0 and r = h_j; mutual information: e_j(r) = r log(h_j / r)).

**Window (proven).** The fractional-knapsack bound L ≥ max_B yᵀp bounds the first two terms, so F > τ needs
e_j(r) < Δ = L − τ; by concavity {r : e_j(r) < Δ} ⊂ [0, r1_j] ∪ [r2_j, h_j] (found by bisection). So the vertex's
*pure set* T (S when r ≤ r1_j, S ∪ {j} when r ≥ r2_j) has h(T) in the window
[1 − max_j r1_j, 1 + max_j (h_j − r2_j)], which near the optimal duals is a few 1e-9 wide.

**Strata.** A vertex with |S| < K has |T| ≤ K: every such T in the window is listed exactly by meet in the middle
(each T once: its ⌊K/2⌋ lowest inputs in one half, the rest in the other; sums of the halves sorted once per
pricer, windows by ``searchsorted``) and every vertex it names is evaluated. A vertex with |S| ≥ K has s = p/h
in {s ∈ [0, 1]^d : hᵀs = 1, 1ᵀs ≥ K}, so for any α and γ ≥ 0

    F ≤ yᵀp ≤ B_K(α, γ) = α − γK + Σ_x max(0, (y_x − α) h_x + γ),

with (α, γ) from the LP dual of that relaxation (HiGHS, scaled to order one, then evaluated exactly here). Near
ε-PML mutual information's optimum the duals charge each input about 1/(d P_x) (a set of mass e^{−ε} and k
inputs gains about 1 − k/(d e^{−ε})), so the large sets' relaxation is negative: the bound is
max(best listed, B_K, τ), exact to τ when B_K ≤ τ. In practice the relaxation is positive at column generation's
duals; :mod:`~mechopt.solvers.exact.pricing.strata_bound` chooses duals where it is not. (d = 64, ε = 2:
:func:`~mechopt.solvers.exact.pricing.cover.cover_obstructed`'s cardinality is ⌊d e^{−ε}⌋ + 1 = 9, and
:func:`strata_k` takes K = 11.)

**Time limits.** The tables (d = 64, K = 11: 8.3e7 sets, ~50-130 s) are built in pieces of ``PIECE`` sets with the
solver's deadline checked between them (:func:`_subsets`; the same order and sums as one stable sort), and given
up once projected to end past it. A build given up keeps nothing; the pricing proves only L (``whole`` False).

Examples
--------
>>> import math
>>> from mechopt.solvers.exact.pricing.pml import separable_phi
>>> from mechopt.utilities import MutualInfo
>>> P = np.random.default_rng(1).dirichlet(np.ones(10)); h = np.minimum(math.e * P, 1.0)
>>> phi = separable_phi(MutualInfo(P))
>>> st = StrataPricer(h, phi, K=4)
>>> nu0 = st.nu0 - 1e-4 * (1.0 - 1.0 / (10 * P))   # near the chord duals
>>> out = st.price(nu0, tau=1e-12)
>>> V = out.points                                   # the best listed vertices, their reduced costs below the bound
>>> rc = phi(V, np.broadcast_to(np.arange(10), V.shape)).sum(axis=1) - V @ nu0
>>> out.whole, bool(rc.max() <= out.bound)
(True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.pricing.flips import lagrangian_bound

__all__ = [
    "StrataPricer",
    "StrataOut",
    "STRATA_EXTRA",
    "STRATA_K_MAX",
    "STRATA_MAX_D",
    "STRATA_MAX_PAIRS",
    "excess_window",
    "strata_k",
]

#: Largest stratum K: sets of fewer full inputs are listed (meet in the middle, ⌊K/2⌋ + ⌈K/2⌉ inputs per half),
#: larger ones bounded. At d = 64: K = 10 needs the 8.3e6 sets of at most 5 inputs (~7 s, ~0.2 GB, once per run);
#: K = 11 the 8.3e7 of at most 6 (80-130 s, 3.4 GB peak). With K = 10, d = 64 at ε = 2 stops at gaps 1.5e-10 to
#: 2.8e-10; with K = 11 seeds 64 and 65 reach 7.9e-11 and 9.9e-11 (benchmarks/RESULTS.md).
STRATA_K_MAX = 11
#: K = ⌊d / Σ h⌋ + ``STRATA_EXTRA`` (:func:`strata_k`): d = 64 at ε = 2 takes K = 11.
STRATA_EXTRA = 3
#: Most inputs (sets are 64-bit masks).
STRATA_MAX_D = 64
#: Most candidate pairs of one pricing's meet in the middle (~40 bytes each); above it the pricing is not exact.
STRATA_MAX_PAIRS = 20_000_000
#: Above ``STRATA_MAX_PAIRS`` pairs the listing (columns only) is cut to 1 ± this / 4, / 16, ...
STRATA_MAX_WINDOW = 1e-6
_EPS = np.finfo(float).eps


@dataclass
class StrataOut:
    """One pricing: proven bound on max F, the best value listed, the listed vertices (rows), and the counts."""

    bound: float
    best: float
    points: np.ndarray
    whole: bool  # the bound is the maximum (to τ): every stratum was bounded below τ or listed
    large: float  # B_K, the large sets' bound
    window: tuple[float, float]
    sets: int  # sets T listed in the window (−1: the window was too wide, only a part about 1 was listed)


def strata_k(h: np.ndarray) -> int | None:
    """The stratum K = ⌊d / Σ_x h_x⌋ + ``STRATA_EXTRA`` (⌊d e^{−ε}⌋ + 3 under ε-PML), None above ``STRATA_K_MAX``.

    A set of mass e^{−ε} (h(T) = 1) has about d e^{−ε} inputs on average; the duals near the optimum charge the
    larger sets (module docstring). Two more than the first size above the average: at d = 64, ε = 2 (seed 64) the
    large sets' relaxation proves 8.4e-11 below ε with K = 9, 3.7e-10 with K = 10 and 5.4e-10 with K = 11.

    >>> strata_k(np.full(64, math.exp(2) / 64)), strata_k(np.full(64, math.e / 64))
    (11, None)
    """
    K = int(math.floor(h.size / float(h.sum()))) + STRATA_EXTRA
    return K if K <= STRATA_K_MAX else None


def excess_window(e, h: np.ndarray, delta: float, iters: int = 200) -> tuple[np.ndarray, np.ndarray]:
    """(r1, r2): {r ∈ [0, h_j] : e_j(r) < Δ} ⊂ [0, r1_j] ∪ [r2_j, h_j] for concave e_j ≥ 0 zero at both ends.

    ``e(r)`` evaluates every e_j at the vector r. Bisection between an end and a point c_j with e_j(c_j) ≥ Δ
    (ternary search for the top); where none is found r1 = h, r2 = 0 (the whole edge).

    >>> h = np.array([0.5, 1e-12]); r1, r2 = excess_window(lambda r: r * (h - r), h, 1e-4)
    >>> bool(abs(r1[0] - 2e-4) < 1e-6 and abs(0.5 - r2[0] - 2e-4) < 1e-6), float(r1[1]), float(r2[1])
    (True, 1e-12, 0.0)
    """
    lo, hi = np.zeros_like(h), h.copy()
    for _ in range(iters):  # ternary search for the top (e concave)
        m1, m2 = lo + (hi - lo) / 3, hi - (hi - lo) / 3
        up = e(m1) < e(m2)
        lo, hi = np.where(up, m1, lo), np.where(up, hi, m2)
    c = (lo + hi) / 2
    over = e(c) >= delta
    c = np.where(over, c, h)
    a, b = np.zeros_like(h), c.copy()  # e(a) < Δ ≤ e(b): the crossing is in [a, b]
    u, v = c.copy(), h.copy()  # e(u) ≥ Δ > e(v)
    for _ in range(iters):
        m = (a + b) / 2
        below = e(m) < delta
        a, b = np.where(below, m, a), np.where(below, b, m)
        m = (u + v) / 2
        below = e(m) < delta
        u, v = np.where(below, u, m), np.where(below, m, v)
    return np.where(over, b, h), np.where(over, u, 0.0)


def _subsets(h: np.ndarray, k: int, deadline: float | None = None):
    """(sums, masks, lowest input, highest input, size) of every set of at most k inputs, sorted by sum; None when
    ``deadline`` (a ``time.perf_counter()`` value) passes first.

    In pieces of ``PIECE`` sets, the deadline checked between them: the levels (each set extended by a higher
    input) by blocks of parents, the stable order by sum one range of sums at a time, the fields' gathers by blocks:
    exactly the one-shot stable ``argsort``. Peak about twice the table (d = 64, k = 6: 8.3e7 sets, 1.75 GB).
    """
    levels = _levels(h, k, deadline)
    if levels is None:
        return None
    sizes = [sum(piece.size for piece in lv[0]) for lv in levels]
    order = _stable_order(np.concatenate([piece for lv in levels for piece in lv[0]]), deadline)
    if order is None:
        return None
    out = []
    for i in range(4):
        field = np.concatenate([piece for lv in levels for piece in lv[i]])
        for lv in levels:
            lv[i] = None
        out.append(_gather(field, order, deadline))
        del field
        if out[-1] is None:
            return None
    return (*out, _gather(np.repeat(np.arange(k + 1, dtype=np.int8), sizes), order, deadline))


#: Sets per piece of :func:`_subsets` (its deadline is checked between pieces; ~0.1-0.5 s each).
PIECE = 1 << 22
#: The whole build over its levels' part, for the projection that gives up early (:func:`_levels`), checked once a
#: twentieth of the sets is built. d = 64, k = 6 (load ~4.5): levels 7.2 s (profiled), whole build 52-57 s.
BUILD_FACTOR = 8.0


def _levels(h: np.ndarray, k: int, deadline: float | None) -> list | None:
    """Levels 0..k of the sets (each [sums, masks, lowest, highest] as lists of pieces, build order), or None when
    the deadline passes or the build, projected from its first twentieth (× ``BUILD_FACTOR``), would pass it."""
    d = h.size
    total, done, t0 = sum(math.comb(d, i) for i in range(k + 1)), 0, time.perf_counter()
    bits = np.uint64(1) << np.arange(d, dtype=np.uint64)
    levels = [[[np.zeros(1)], [np.zeros(1, np.uint64)], [np.full(1, d, np.int16)], [np.full(1, -1, np.int16)]]]
    for _ in range(k):
        nxt: list[list[np.ndarray]] = [[], [], [], []]
        for s, m, lo, last in zip(*levels[-1]):
            n = np.maximum(d - 1 - last.astype(np.int32), 0)
            ends = np.cumsum(n)
            a = 0
            while a < s.size:  # a block of parents with about PIECE children
                b = max(a + 1, int(np.searchsorted(ends, ends[a] - n[a] + PIECE, "right")))
                if passed(deadline) or _will_pass(deadline, t0, done / total):
                    return None
                piece = _children(s[a:b], m[a:b], lo[a:b], last[a:b], n[a:b], h, bits)
                done += piece[0].size
                for f, part in zip(nxt, piece):
                    f.append(part)
                a = b
        levels.append(nxt)
    return levels


def _will_pass(deadline: float | None, t0: float, frac: float) -> bool:
    """Whether a build started at ``t0``, ``frac`` of its levels done, is projected to end past the deadline."""
    if deadline is None or frac < 0.05:
        return False
    now = time.perf_counter()
    return now + (now - t0) * (BUILD_FACTOR / frac - 1.0) > deadline


def _children(s, m, lo, last, n, h, bits) -> list[np.ndarray]:
    """Each parent set extended by each higher input, parents in order: [sums, masks, lowest, highest]."""
    rep = np.repeat(np.arange(s.size, dtype=np.int32), n)
    j = np.arange(rep.size, dtype=np.int32)
    j -= np.repeat((np.cumsum(n) - n).astype(np.int32), n)
    j = (j + last[rep] + 1).astype(np.int16)
    return [s[rep] + h[j], m[rep] | bits[j], np.minimum(lo[rep], j), j]


def _stable_order(s: np.ndarray, deadline: float | None) -> np.ndarray | None:
    """``np.argsort(s, kind="stable")`` (s without NaN) built one range of values at a time, or None.

    The ranges' splitters are quantiles of a regular sample; a range's entries, taken in index order and sorted
    stably, keep the one-shot order's tie-breaks, and the ranges follow each other in value.
    """
    pieces = -(-s.size // PIECE)
    sample = np.sort(s[:: max(1, s.size // (64 * pieces))])
    cuts = np.unique(sample[(np.arange(1, pieces) * sample.size) // pieces])
    which = np.empty(s.size, np.int16)
    for a in range(0, s.size, PIECE):
        if passed(deadline):
            return None
        which[a : a + PIECE] = np.searchsorted(cuts, s[a : a + PIECE], "right")
    order, at = np.empty(s.size, np.int64), 0
    for b in range(cuts.size + 1):
        if passed(deadline):
            return None
        idx = np.flatnonzero(which == b)
        order[at : at + idx.size] = idx[np.argsort(s[idx], kind="stable")]
        at += idx.size
    return order


def _gather(field: np.ndarray, order: np.ndarray, deadline: float | None) -> np.ndarray | None:
    """``field[order]`` a block at a time, or None when the deadline passes first."""
    out = np.empty(order.size, field.dtype)
    for a in range(0, order.size, PIECE):
        if passed(deadline):
            return None
        out[a : a + PIECE] = field[order[a : a + PIECE]]
    return out


class StrataPricer:
    """Exact stratified pricing of an ε-PML box's vertices (module docstring); the set tables are built once.

    Parameters
    ----------
    h : ndarray
        The box's upper corner (lower corner 0), d ≤ ``STRATA_MAX_D``.
    phi : callable
        ``phi(p, idx)``: φ_x(p_x), convex, φ(0) = 0.
    K : int
        The stratum: sets of fewer than K full inputs are listed, the others bounded.
    """

    def __init__(self, h: np.ndarray, phi, K: int, max_pairs: int = STRATA_MAX_PAIRS) -> None:
        self.h = np.asarray(h, float)
        if self.h.size > STRATA_MAX_D:
            raise ValueError(f"stratified pricing takes at most {STRATA_MAX_D} inputs, got {self.h.size}")
        self.phi, self.K, self.max_pairs = phi, int(K), int(max_pairs)
        self.idx = np.arange(self.h.size)
        self.nu0 = np.divide(phi(self.h, self.idx), self.h, out=np.zeros_like(self.h), where=self.h > 0)
        self._tables = None
        self._gave_up = -math.inf  # the deadline of a build given up (tables() answers None up to it)

    def excess(self, r: np.ndarray, j: np.ndarray) -> np.ndarray:
        """e_j(r) = ν⁰_j r − φ_j(r), clipped at 0 (it is ≥ 0 by convexity; rounding only)."""
        return np.maximum(self.nu0[j] * r - self.phi(r, j), 0.0)

    def tables(self, deadline: float | None = None):
        """The halves' sorted sums: sets of at most ⌈K/2⌉ inputs (the ⌊K/2⌋ half is the same table, filtered).

        None when ``deadline`` passes during the build or it would (nothing kept): later calls with that deadline
        (or an earlier one) answer None at once, a later deadline or none builds again.
        """
        if self._tables is None and not (deadline is not None and deadline <= self._gave_up):
            self._tables = _subsets(self.h, (self.K + 1) // 2, deadline)
            if self._tables is None:
                self._gave_up = deadline
        return self._tables

    def large_bound(self, yh: np.ndarray) -> float:
        """B_K: max yᵀp over p = h∘s, s ∈ [0, 1]^d, hᵀs = 1, 1ᵀs ≥ K (an upper bound, −∞ when empty)."""
        h, K = self.h, self.K
        if K > h.size or np.sort(h)[:K].sum() > 1.0 + 1e-12:
            return -math.inf
        scale = float(np.max(np.abs(yh))) or 1.0
        c = yh / scale
        # dual LP: min α − γK + Σ t  s.t. t_x ≥ c_x − α h_x + γ, t ≥ 0, γ ≥ 0   (variables α, γ, t)
        d = h.size
        A = np.hstack([-h[:, None], np.ones((d, 1)), -np.eye(d)])
        cost = np.concatenate([[1.0, -K], np.ones(d)])
        bounds = [(None, None), (0, None)] + [(0, None)] * d
        r = linprog(cost, A_ub=A, b_ub=-c, bounds=bounds, method="highs")
        if r.status != 0:
            return math.inf  # not decided: no bound
        alpha, gamma = float(r.x[0]) * scale, max(float(r.x[1]), 0.0) * scale
        terms = yh - alpha * h + gamma
        val = alpha - gamma * K + float(np.maximum(terms, 0.0).sum())
        err = 8 * _EPS * (abs(alpha) + gamma * K + float(np.abs(terms).sum()) + float(np.abs(alpha * h).sum()))
        return val + err

    def price(self, nu: np.ndarray, tau: float, batch: int | None = None, deadline: float | None = None) -> StrataOut:
        """The proven bound on max_B F at duals ν, exact to τ when the large sets' bound is ≤ τ; the best vertices.

        When ``deadline`` passes while the set tables are built, only the fractional-knapsack bound L is proven
        (``whole`` False, ``sets`` −1, nothing listed).
        """
        h, d = self.h, self.h.size
        y = self.nu0 - np.asarray(nu, float)
        yh = y * h
        L, _ = lagrangian_bound(np.zeros(d), yh, h, 1.0)
        L += 8 * _EPS * float(np.abs(yh).sum())
        none = np.zeros((0, d))
        if L <= tau:
            return StrataOut(L, -math.inf, none, True, -math.inf, (1.0, 1.0), 0)
        if self.tables(deadline) is None:
            return StrataOut(L, -math.inf, none, False, math.inf, (1.0, 1.0), -1)
        large = self.large_bound(yh)
        delta = L - tau
        r1, r2 = excess_window(lambda r: self.excess(r, self.idx), h, delta)
        margin = 64 * _EPS
        lo, hi = 1.0 - float(r1.max()) - margin, 1.0 + float((h - r2).max()) + margin
        width = math.inf
        while True:  # the window, or (not exhaustive) a narrower one about 1, quartered until it can be listed
            a, b = max(lo, 1.0 - width), min(hi, 1.0 + width)
            T = self._window_sets(a, b)
            if T is not None or width < 1e-12:
                break
            width = min(width, STRATA_MAX_WINDOW) / 4
        if T is None:
            return StrataOut(L, -math.inf, none, False, large, (lo, hi), -1)
        best, points = self._evaluate(T, y, yh, batch or d)
        if (a, b) != (lo, hi):  # columns only: vertices outside the listed window were not seen
            return StrataOut(L, best, points, False, large, (a, b), -1)
        bound = min(L, max(best, large, tau))
        return StrataOut(bound, best, points, bool(large <= tau), large, (lo, hi), int(T.size))

    def _window_sets(self, lo: float, hi: float, deadline: float | None = None) -> np.ndarray | None:
        """Masks of every set T of at most K inputs with lo ≤ h(T) ≤ hi, each once; None above ``max_pairs`` or
        when ``deadline`` passes while the tables are built."""
        tables = self.tables(deadline)
        if tables is None:
            return None
        s, m, low, last, size = tables
        ka = self.K // 2
        # T with |T| ≤ ka: alone (B empty); else A = its ka lowest inputs, B the rest (min B > max A)
        alone = m[(s >= lo) & (s <= hi) & (size <= ka)]
        qa = np.flatnonzero(size == ka)
        sa = s[qa]
        i0, i1 = np.searchsorted(s, lo - sa, "left"), np.searchsorted(s, hi - sa, "right")
        n = i1 - i0
        if int(n.sum()) > self.max_pairs:
            return None
        ia = np.repeat(qa, n)
        ib = np.repeat(i0, n) + (np.arange(ia.size) - np.repeat(np.cumsum(n) - n, n))
        ok = (size[ib] >= 1) & (size[ib] <= self.K - ka) & (low[ib] > last[ia])
        pair = m[ia[ok]] | m[ib[ok]]
        return np.unique(np.concatenate([alone, pair]))

    def _evaluate(self, T: np.ndarray, y, yh, batch: int) -> tuple[float, np.ndarray]:
        """(max F over every vertex named by the pure sets T, the best ``batch`` of them as rows)."""
        h, d = self.h, self.h.size
        if T.size == 0:
            return -math.inf, np.zeros((0, d))
        M = ((T[:, None] >> np.arange(d, dtype=np.uint64)) & np.uint64(1)).astype(bool)
        hT = np.array([math.fsum(h[row]) for row in M])
        YT = M @ yh
        # filler outside T (S = T, r = 1 − h(T)) or inside (S = T ∖ j, r = h_j − (h(T) − 1))
        r = np.where(M, h - (hT - 1.0)[:, None], (1.0 - hT)[:, None])
        ok = (r >= 0) & (r <= h)
        r = np.clip(r, 0.0, h)
        J = np.broadcast_to(self.idx, M.shape)
        F = np.where(M, YT[:, None] - yh, YT[:, None]) + y * r - self.excess(r, J)
        F = np.where(ok, F, -np.inf)
        flat = np.argsort(-F, axis=None, kind="stable")[:batch]
        flat = flat[np.isfinite(F.flat[flat])]
        rows, js = np.unravel_index(flat, F.shape)
        points = np.where(M[rows], h, 0.0)
        points[np.arange(rows.size), js] = r[rows, js]
        best = float(F.max()) if np.isfinite(F).any() else -math.inf
        slack = 16 * _EPS * (float(np.abs(yh).sum() + np.abs(y).max()) + float(np.max(self.nu0 * h)))
        return best + slack, points
