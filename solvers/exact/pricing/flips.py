"""Exact maximum of a separable convex function over a posterior box's vertices near the chord duals: flip sets.

Program (as in :mod:`~mechopt.solvers.exact.pricing.bnb`): maximise F(p) = Σ_x f_x(p_x), f_x convex, over the
vertices of B = {l ≤ p ≤ h, 1ᵀp = 1}; δ = h − l, R = 1 − 1ᵀl, v_x = f_x(h_x) − f_x(l_x), keys k_x = v_x / δ_x.
A vertex is a set S at h, a filler j ∉ S at l_j + r with r = R − δ(S) ∈ [0, δ_j], the rest at l. Name it by its
*pure set* T, the filler's nearer end: T = S if r ≤ δ_j / 2, else S ∪ {j}; then ρ = min(r, δ_j − r) = |δ(T) − R|.

**Bound (proven).** Take λ = the key of the greedy fill's fractional item (where the Lagrangian bound
L = Σ_x f_x(l_x) + λR + Σ_x max(w_x, 0) is least, :mod:`~mechopt.solvers.exact.pricing.pml`), w_x = v_x − λδ_x,
T* = {x : w_x > 0} and, for a vertex, its *flip set* D = T Δ T* of cost c(D) = Σ_{x∈D} |w_x|, so that
Σ_{x∈T} w_x = Σ_x max(w_x, 0) − c(D). The filler's chord excess e_j(r) = f_j(l_j) + k_j r − f_j(l_j + r) is concave
on [0, δ_j] and zero at both ends, so e_j(r) ≥ κ_j min(r, δ_j − r) with κ_j = 2 e_j(δ_j / 2) / δ_j. Since
F = Σ_x f_x(l_x) + λR + Σ_{x∈T} w_x ± (k_j − λ)ρ − e_j(r),

    F ≤ L − c(D) − κ |δ(T) − R|,        κ = min_j (κ_j − |k_j − λ|)   (when κ > 0).

So every vertex with F > θ has a flip set of cost below L − θ and a pure set within η = (L − θ)/κ of R; on
[0, η] concavity gives the sharper slope min_j (min(e_j(η), e_j(δ_j − η))/η − |k_j − λ|), used twice. This is what
the Lagrangian (fractional-knapsack) bound L misses: it lets the filler follow its chord, with no excess, and no dual
brings it below the chord bound (``benchmarks/RESULTS.md``, the high-ε tails). Near the chord duals every key is
close to λ, L − θ is small and κ is about the excess slope (~0.5 for mutual information), so few flip sets qualify
(ALIP MI (2, 1), d = 64, at the final duals of column generation: 3.8 M and 2.6 M per half, against 2^32).

**Search (exact).** The flippable coordinates (|w_x| < L − θ) are split in two halves (alternately by cost); each
half's flip sets of cost below L − θ are listed (cost, change of δ(T), bit mask) by doubling with the cost filter,
one list is sorted by its change, and every set of the other meets its partners in the window of half-width
(L − θ − its cost)/κ around R − δ(T*) − its change (``searchsorted``). The pairs that pass the bound are evaluated
exactly at every filler (j ∉ T at l_j + R − δ(T) when δ(T) ≤ R, j ∈ T at h_j − (δ(T) − R) when δ(T) ≥ R). Every
vertex with F > θ is evaluated, so the best value found is max_B F when it exceeds θ, and max_B F ≤ θ otherwise;
the bound returned is max(best, θ) plus ``BNB_SLACK`` (scaled). A list above ``limit`` entries, κ ≤ 0 or the
deadline returns None (the caller searches otherwise).

Examples
--------
>>> import numpy as np
>>> lo, hi = np.full(3, 0.1), np.array([0.5, 0.5, 0.6])      # keys h + l = 0.6, 0.6, 0.7: κ > 0
>>> out = flip_max(lo, hi, lambda p, i: p * p, -np.inf, 3)
>>> p = out.points[0]                                         # (0.3, 0.1, 0.6) or its tie (0.1, 0.3, 0.6)
>>> round(float(out.bound), 6), round(float(p @ p), 6), sorted(np.round(p, 6).tolist())
(0.46, 0.46, [0.1, 0.3, 0.6])
"""

from __future__ import annotations

import math

import numpy as np

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.pricing.bnb import BnBOut
from mechopt.solvers.exact.pricing.knapsack import BNB_SLACK

__all__ = ["flip_ladder", "flip_max", "greedy_fill", "lagrangian_bound", "FLIP_LIST_MAX", "FLIP_RUNGS"]

#: Most flip sets listed per half (~24 bytes each) before :func:`flip_max` gives up (returns None).
FLIP_LIST_MAX = 12_000_000
#: The ladder's budgets before the last: L/2^k for k in ``FLIP_RUNGS`` (:func:`flip_ladder`).
FLIP_RUNGS = (3, 2, 1)
_CHUNK = 1 << 16  # sets of the streamed half per numpy batch
_EPS = 2.0**-52


def greedy_fill(fl: np.ndarray, fh: np.ndarray, delta: np.ndarray, R: float) -> tuple[np.ndarray, int]:
    """(the coordinates by descending key (fh − fl)/δ (−∞ where δ = 0), the position of the fill's fractional item)."""
    key = np.divide(fh - fl, delta, out=np.full_like(delta, -np.inf), where=delta > 0)
    order = np.argsort(-key, kind="stable")
    return order, min(int(np.searchsorted(np.cumsum(delta[order]), R, side="left")), delta.size - 1)


def lagrangian_bound(fl: np.ndarray, fh: np.ndarray, delta: np.ndarray, R: float = 1.0) -> tuple[float, float]:
    """(min_λ L(λ), its λ) for f_x with values fl at l_x and fh at h_x = l_x + δ_x, on 1ᵀ(p − l) = R.

    L(λ) = λR + Σ_x max(fl_x, fh_x − λδ_x) bounds Σ_x f_x(p_x) on the box (pml's module docstring); it is
    least at the key of the greedy fill's fractional item.

    >>> L, lam = lagrangian_bound(np.zeros(3), np.array([0.3, 0.2, 0.1]), np.array([0.5, 0.5, 0.5]))
    >>> round(L, 12), round(lam, 12)                          # fill 0.5 of item 0 and 0.5 of item 1
    (0.5, 0.4)
    """
    order, k = greedy_fill(fl, fh, delta, R)
    dk = delta[order[k]]
    lam = float((fh[order[k]] - fl[order[k]]) / dk) if dk > 0 else 0.0
    return lam * R + float(np.maximum(fl, fh - lam * delta).sum()), lam


def _excess_slope(f, lo, delta, fl, key, lam, live, at) -> float:
    """min over live j of e_j(a)/a (and e_j(δ_j − a)/a) − |k_j − λ| at a = ``at`` (None: δ_j/2), less rounding."""
    idx = np.flatnonzero(live)
    d, k, f0 = delta[idx], key[idx], fl[idx]
    a = d / 2 if at is None else np.full(idx.size, float(at))
    ends = [a] if at is None else [a, d - a]
    slope = np.inf
    for r in ends:
        fr = f(lo[idx] + r, idx)
        e = f0 + k * r - fr
        err = 8 * _EPS * (np.abs(f0) + np.abs(k * r) + np.abs(fr))
        slope = min(slope, float(np.min((e - err) / a - np.abs(k - lam) * (1 + 8 * _EPS))))
    return slope


def _half_sets(cost, change, budget, limit, deadline):
    """(cost, change, mask) of every subset of a half costing below ``budget``; None past ``limit`` or the deadline."""
    c, g, m = np.zeros(1), np.zeros(1), np.zeros(1, np.uint64)
    for bit, (cx, gx) in enumerate(zip(cost, change)):
        keep = c + cx < budget
        c = np.concatenate([c, c[keep] + cx])
        g = np.concatenate([g, g[keep] + gx])
        m = np.concatenate([m, m[keep] | np.uint64(1 << bit)])
        if c.size > limit or passed(deadline):
            return None
    return c, g, m


class _Flips:
    """The bound's data at one f: λ, w, T*, L, κ, and the exact evaluation of pure sets at every filler."""

    def __init__(self, lo, hi, f):
        self.lo, self.f = lo, f
        self.d = lo.size
        self.idx = np.arange(self.d)
        self.delta = hi - lo
        self.live = self.delta > 0
        self.fl, self.fh = f(lo, self.idx), f(hi, self.idx)
        self.v = np.where(self.live, self.fh - self.fl, 0.0)
        self.R = 1.0 - float(lo.sum())
        self.L, self.lam = lagrangian_bound(self.fl, self.fh, self.delta, self.R)
        self.key = np.divide(self.v, self.delta, out=np.zeros(self.d), where=self.live)
        self.w = np.where(self.live, self.v - self.lam * self.delta, 0.0)
        self.star = self.w > 0
        self.C = float(self.fl.sum())
        self.slack = BNB_SLACK * max(1.0, float(np.abs(self.fl).sum()), float(np.abs(self.fh).sum()))

    def kappa(self, budget: float) -> float:
        """The excess slope κ, sharpened twice on [0, budget/κ] (module docstring); ≤ 0 when it does not apply."""
        kap = _excess_slope(self.f, self.lo, self.delta, self.fl, self.key, self.lam, self.live, None)
        for _ in range(2):
            if kap <= 0 or budget / kap >= 0.5 * float(self.delta[self.live].min()):
                break
            kap = max(
                kap, _excess_slope(self.f, self.lo, self.delta, self.fl, self.key, self.lam, self.live, budget / kap)
            )
        return kap

    def values(self, T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(best F over the fillers, the best vertex) of each pure set (rows of T, bool)."""
        n = T.shape[0]
        VT, s = T @ self.v, T @ self.delta - self.R
        r = np.where(T, self.delta - s[:, None], -s[:, None])
        ok = self.live & (r >= 0) & (r <= self.delta)
        r = np.clip(r, 0.0, self.delta)
        fr = self.f(self.lo + r, np.broadcast_to(self.idx, r.shape))
        val = np.where(ok, self.C + VT[:, None] - np.where(T, self.v, 0.0) + fr - self.fl, -np.inf)
        j = np.argmax(val, axis=1)
        rows = np.arange(n)
        P = self.lo + self.delta * T
        P[rows, j] = self.lo[j] + r[rows, j]
        return val[rows, j], P


def flip_max(
    lo: np.ndarray,
    hi: np.ndarray,
    f,
    theta: float,
    batch: int,
    deadline: float | None = None,
    *,
    limit: int = FLIP_LIST_MAX,
    max_pairs: int | None = None,
) -> BnBOut | None:
    """max_B Σ_x f(p_x, x) if it exceeds ``theta``, else a bound ≤ ``theta`` (module docstring); None if not run.

    ``f(p, idx)`` evaluates f_x elementwise (convex in p). Returns the proven bound (max(best, θ) + slack),
    up to ``batch`` best vertices evaluated above the ``reduced_cost`` tolerance (best first; those at or below θ
    are a sample, not necessarily the best) and the pairs evaluated; None also once more than ``max_pairs`` were
    evaluated (a work budget: the same stop on every machine).
    """
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    s = _Flips(lo, hi, f)
    theta = float(theta)
    budget = s.L - theta
    if budget <= 0:  # L ≤ θ: nothing to search
        return BnBOut(s.L, [], 0)
    kap = s.kappa(budget)
    if not kap > 0:
        return None
    cost = np.abs(s.w)
    flip = np.flatnonzero(s.live & (cost < budget))
    flip = flip[np.argsort(cost[flip], kind="stable")]
    halves = [flip[0::2], flip[1::2]]
    if max(h.size for h in halves) > 63:
        return None
    change = np.where(s.star, -s.delta, s.delta)
    lists = [_half_sets(cost[h], change[h], budget, limit, deadline) for h in halves]
    if any(x is None for x in lists):
        return None
    (cA, gA, mA), (cB, gB, mB) = lists
    order = np.argsort(gB, kind="stable")
    cB, gB, mB = cB[order], gB[order], mB[order]
    rho = s.R - float(s.delta[s.star].sum())
    wtol = 64 * _EPS * (1.0 + float(s.delta.sum()))  # rounding of the summed changes
    best, pairs, found = -math.inf, 0, []
    cut = settings.tolerance("reduced_cost")
    bitsA, bitsB = np.arange(halves[0].size, dtype=np.uint64), np.arange(halves[1].size, dtype=np.uint64)
    for a0 in range(0, cA.size, _CHUNK):
        if passed(deadline) or (max_pairs is not None and pairs > max_pairs):
            return None
        ca, ga, ma = cA[a0 : a0 + _CHUNK], gA[a0 : a0 + _CHUNK], mA[a0 : a0 + _CHUNK]
        hw = (budget - ca) / kap + wtol
        i0 = np.searchsorted(gB, rho - ga - hw, side="left")
        i1 = np.searchsorted(gB, rho - ga + hw, side="right")
        n = i1 - i0
        a = np.repeat(np.arange(ca.size), n)
        b = np.repeat(i0, n) + (np.arange(a.size) - np.repeat(np.cumsum(n) - n, n))
        ok = ca[a] + cB[b] + kap * np.maximum(np.abs(ga[a] + gB[b] - rho) - wtol, 0.0) < budget + s.slack
        a, b = a[ok], b[ok]
        pairs += a.size
        if not a.size:
            continue
        T = np.repeat(s.star[None, :], a.size, axis=0)
        T[:, halves[0]] ^= ((ma[a][:, None] >> bitsA) & np.uint64(1)).astype(bool)
        T[:, halves[1]] ^= ((mB[b][:, None] >> bitsB) & np.uint64(1)).astype(bool)
        val, P = s.values(T)
        best = max(best, float(val.max()))
        keep = val > cut
        found += list(zip(val[keep].tolist(), P[keep]))
        if len(found) > 8 * batch:
            found = sorted(found, key=lambda t: -t[0])[: 2 * batch]
    points, seen = [], set()
    for _, p in sorted(found, key=lambda t: -t[0]):
        k = np.round(p, 14).tobytes()
        if k not in seen and len(points) < batch:
            seen.add(k)
            points.append(p)
    return BnBOut(max(best, theta) + s.slack, points, pairs)


def flip_ladder(
    lo: np.ndarray,
    hi: np.ndarray,
    f,
    target: float,
    batch: int,
    deadline: float | None = None,
    *,
    limit: int = FLIP_LIST_MAX,
    max_pairs: int | None = None,
) -> tuple[BnBOut, bool]:
    """:func:`flip_max` at θ = L − L/2^k (k in ``FLIP_RUNGS``), then at ``target``: (its result, whether exact).

    The budgets grow rung by rung (the lists with them): the first rung with a vertex above its θ returns the
    best vertices and their exact maximum; a rung with none proves max_B F ≤ θ and the next is tried (its
    improving vertices below θ are kept as columns). Exact (True) when a rung found a vertex above its θ or the
    last one finished; otherwise the bound is the last finished rung's θ (or L), still proven. ``max_pairs``
    bounds the pairs evaluated over all rungs (a search budget, not part of any proof).

    >>> lo, hi = np.full(3, 0.1), np.array([0.5, 0.5, 0.6])
    >>> out, exact = flip_ladder(lo, hi, lambda p, i: p * p - 0.5 * p, -1.0, 3)
    >>> exact, round(float(out.bound), 6)                         # max Σ p² − 0.5 = 0.46 − 0.5
    (True, -0.04)
    """
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    idx = np.arange(lo.size)
    L = lagrangian_bound(f(lo, idx), f(hi, idx), hi - lo, 1.0 - float(lo.sum()))[0]
    proven, nodes, carry = L, 0, []
    for theta in [L - math.ldexp(abs(L), -k) for k in FLIP_RUNGS] + [target]:
        if theta >= proven:
            continue
        left = None if max_pairs is None else max_pairs - nodes
        out = flip_max(lo, hi, f, theta, batch, deadline, limit=limit, max_pairs=left)
        if out is None:
            return BnBOut(proven, carry, nodes), False
        nodes += out.nodes
        top = float(f(out.points[0], idx).sum()) if out.points else -math.inf
        if top > theta or theta <= target:
            return BnBOut(min(proven, out.bound), out.points, nodes), True
        proven, carry = min(proven, out.bound), out.points  # improving vertices below θ: columns all the same
    return BnBOut(proven, carry, nodes), True
