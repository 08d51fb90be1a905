"""Exact aggregate sampler of k-subset (and GRR) support counts by dyadic splitting, in memory independent of d·k.

Users holding x report a k-subset Z ∋ x with probability g (then k − 1 other
items), else k other items; the other items are a uniform subset of the d − 1
items ≠ x. The support counts f_j = #{i : j ∈ Z_i} are drawn without drawing any
report: the item range is halved recursively, and the users "needing" j items
from a range of r items split them j₁ + (j − j₁) between the halves of sizes
r₁, r − r₁ with j₁ ~ Hypergeometric(r, r₁, j) — or, for users whose own item x
lies in the range, ~ Hypergeometric(r − 1, r₁ − [x left], j) (x is never among
the others). Users that share (range, need) — and x, for those whose x is in
the range — split together: a multinomial over j₁ when they are many, one
hypergeometric draw each when they are few. At a single item, the users still
needing it are its count. The law is exactly that of the per-user reports
(up to the float rounding of the hypergeometric pmf).

Cost: O(Σ over depths of the (range, need) groups), independent of n for large
n and never O(d²) or O(d·k) memory; GRR is the case k = 1.

Examples
--------
>>> from functools import lru_cache

import numpy as np
>>> f = subset_counts(np.array([5, 0, 3, 2]), k=2, g=0.6, rng=np.random.default_rng(0))
>>> int(f.sum())                # every one of the 10 reports has k = 2 items
20
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

__all__ = ["subset_counts"]

HOEFFDING_Z = 27.5  # P(|j₁ − E j₁| ≥ 27.5·√n) ≤ 2e−1512: below the smallest double, so the window is the support
GRID_CELLS = 1 << 21  # multinomial pmf grids are built in chunks of this many cells (16 MB)
TAIL_MASS = 1e-18  # mass left out at each end of a hypergeometric law (below the rounding of its pmf)


def subset_counts(hist: np.ndarray, k: int, g: float, rng: np.random.Generator) -> np.ndarray:
    """Support counts of ``hist[x]`` users holding x under the k-subset law with own-item rate g.

    Examples
    --------
    >>> import numpy as np
    >>> subset_counts(np.array([0, 7]), k=1, g=1.0, rng=np.random.default_rng(1)).tolist()
    [0, 7]
    """
    hist = np.asarray(hist, dtype=np.int64)
    d = hist.size
    inc = rng.binomial(hist, g)
    f = inc.astype(np.int64)
    xs = np.flatnonzero(hist)
    tree = _Level(np.zeros(1, dtype=np.int64), np.full(1, d, dtype=np.int64))
    # users whose own item x lies in the range: (x, node, need, count); free users: (node, need, count)
    own = [np.concatenate([xs, xs]), np.zeros(2 * xs.size, dtype=np.int64)]
    own += [np.repeat(np.array([k - 1, k], dtype=np.int64), xs.size), np.concatenate([inc[xs], hist[xs] - inc[xs]])]
    free = [np.zeros(0, dtype=np.int64)] * 3
    while own[0].size or free[0].size:
        leaf = tree.r[free[0]] == 1  # a single item: the users still needing one take it
        f += np.bincount(tree.a[free[0][leaf]], free[2][leaf], minlength=d).astype(np.int64)
        free = [v[~leaf] for v in free]
        own = [v[tree.r[own[1]] > 1] for v in own]  # at its own item a user needs nothing more
        free, own, tree = _depth(free, own, tree, k, rng)
    return f


class _Level:
    """The ranges [a, a + r) at one depth of the halving, by node number (children of o: 2o, 2o + 1)."""

    def __init__(self, a: np.ndarray, r: np.ndarray) -> None:
        self.a, self.r = a, r

    def children(self) -> _Level:
        r1 = self.r // 2
        return _Level(np.stack([self.a, self.a + r1], axis=1).ravel(), np.stack([r1, self.r - r1], axis=1).ravel())


def _depth(free, own, tree: _Level, k: int, rng: np.random.Generator):
    """Split every group's need between the halves of its range; merge the groups of the next depth."""
    o, j, c = free
    r = tree.r[o]
    idx, j1, cnt = _hypergeom_split(c, r, r // 2, j, rng)
    fo = [2 * o[idx], 2 * o[idx] + 1]
    fj = [j1, j[idx] - j1]
    fc = [cnt, cnt]
    x, ob, jb, cb = own
    rb = tree.r[ob]
    left = x < tree.a[ob] + rb // 2
    idx, j1, cnt = _hypergeom_split(cb, rb - 1, rb // 2 - left, jb, rng)
    lt = left[idx]
    side = [j1, jb[idx] - j1]  # needs in the left and the right half
    fo.append(2 * ob[idx] + lt)  # the half without x: free users
    fj.append(np.where(lt, side[1], side[0]))
    fc.append(cnt)
    nxt = tree.children()
    width = int(max((v.max(initial=0) for v in fj), default=0)) + 1
    key = np.bincount(np.concatenate(fo) * width + np.concatenate(fj), np.concatenate(fc), minlength=0)
    cells = np.flatnonzero(key)
    free = [cells // width, cells % width, key[cells].astype(np.int64)]
    keep = free[1] > 0
    free = [v[keep] for v in free]
    xo, jo = x[idx], np.where(lt, side[0], side[1])
    m = jo > 0
    own = _merge_own(xo[m], 2 * ob[idx][m] + ~lt[m], jo[m], cnt[m], k)
    return free, own, nxt


def _merge_own(x, o, j, c, k: int):
    """One group per (x, need) (x fixes the node at a depth), counts added."""
    uniq, first, inv = np.unique(x * (k + 1) + j, return_index=True, return_inverse=True)
    return [x[first], o[first], j[first], np.bincount(inv.ravel(), c, minlength=uniq.size).astype(np.int64)]


def _hypergeom_split(c, N, K, n, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For group e of c[e] users each drawing j₁ ~ Hypergeometric(N[e], K[e], n[e]): (group, j₁, users) triples.

    Few users (fewer than a quarter of the law's spread, ±9 sd): one numpy
    hypergeometric draw each (the triples are not merged: the caller merges). Many
    users: a multinomial over the law's window, with the pmf of each distinct
    (N, K, n) computed once.
    """
    z = np.zeros(0, dtype=np.int64)
    if c.size == 0:
        return z, z, z
    var = n * (K / np.maximum(N, 1)) * (1 - K / np.maximum(N, 1)) * (N - n) / np.maximum(N - 1, 1)
    each = 4 * c <= 18 * np.sqrt(var) + 1
    parts = []
    e = np.flatnonzero(each)
    if e.size:
        rep = np.repeat(e, c[e])
        parts.append((rep, rng.hypergeometric(K[rep], N[rep] - K[rep], n[rep]), np.ones(rep.size, dtype=np.int64)))
    e = np.flatnonzero(~each)
    if e.size:
        span = int(n[e].max()) + 1
        base = N[e].min()
        key = ((N[e] - base) * 3 + (K[e] - N[e] // 2 + 1)) * span + n[e]  # N spans 2 values, K − N//2 ∈ {−1, 0, 1}
        present = np.flatnonzero(np.bincount(key))
        law = np.searchsorted(present, key)
        pk, pn = present // span, present % span
        NN = pk // 3 + base
        lo, pmf = _cached_windows(np.stack([NN, pk % 3 - 1 + NN // 2, pn], axis=1))
        step = max(1, GRID_CELLS // pmf.shape[1])
        for s in range(0, e.size, step):  # bounded grids: rows of the distinct laws, gathered per group
            g, li = e[s : s + step], law[s : s + step]
            m = rng.multinomial(c[g], pmf[li])
            r, col = np.nonzero(m)
            parts.append((g[r], lo[li[r]] + col, m[r, col]))
    return tuple(np.concatenate([p[i] for p in parts]).astype(np.int64) for i in range(3))  # type: ignore[return-value]


def _cached_windows(laws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_windows` row by row through a cache (repeated draws at one d meet the same laws)."""
    rows = [_window(int(N), int(K), int(n)) for N, K, n in laws]
    W = max(p.size for _, p in rows)
    pmf = np.zeros((len(rows), W))
    for i, (_, p) in enumerate(rows):
        pmf[i, : p.size] = p
    return np.array([lo for lo, _ in rows], dtype=np.int64), pmf


@lru_cache(maxsize=1 << 16)
def _window(N: int, K: int, n: int) -> tuple[int, np.ndarray]:
    lo, pmf = _windows(np.array([[N, K, n]]))
    p = pmf[0, : int(np.flatnonzero(pmf[0])[-1]) + 1]
    p.setflags(write=False)
    return int(lo[0]), p


def _windows(laws: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per law (N, K, n): the first j₁ of its window and its pmf there (rows padded with zeros, each summing to 1).

    The pmf comes from the ratio p(t+1)/p(t) = (K−t)(n−t) / ((t+1)(N−K−n+t+1))
    summed in logs from the mode (relative error ~1e-13), on a Hoeffding
    window cut to where 1e−18 of the mass lies outside at each end.
    """
    N, K, n = (col.astype(np.int64) for col in laws.T)
    lo_s, hi_s = np.maximum(0, n - (N - K)), np.minimum(n, K)
    mode = np.clip((n + 1) * (K + 1) // (N + 2), lo_s, hi_s)
    half = np.ceil(HOEFFDING_Z * np.sqrt(n)).astype(np.int64) + 1
    lo, hi = np.maximum(lo_s, mode - half), np.minimum(hi_s, mode + half)
    t = lo[:, None] + np.arange(int((hi - lo).max()) + 1)[None, :]
    inside = t <= hi[:, None]
    tt = np.where(inside, t, lo[:, None]).astype(float)
    Nf, Kf, nf = (v[:, None].astype(float) for v in (N, K, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log((Kf - tt) * (nf - tt)) - np.log((tt + 1) * (Nf - Kf - nf + tt + 1))
    lr = np.where(inside & (t < hi[:, None]), lr, 0.0)
    C = np.concatenate([np.zeros((lr.shape[0], 1)), np.cumsum(lr, axis=1)[:, :-1]], axis=1)
    logp = C - np.take_along_axis(C, (mode - lo)[:, None], axis=1)
    pmf = np.where(inside, np.exp(np.minimum(logp, 0.0)), 0.0)
    pmf /= pmf.sum(axis=1, keepdims=True)
    first = (np.cumsum(pmf, axis=1) < TAIL_MASS).sum(axis=1)  # leading cells holding < TAIL_MASS in all
    last = pmf.shape[1] - 1 - (np.cumsum(pmf[:, ::-1], axis=1) < TAIL_MASS).sum(axis=1)  # same at the top
    W = int((last - first).max()) + 1
    idx = np.minimum(first[:, None] + np.arange(W)[None, :], pmf.shape[1] - 1)
    out = np.where(np.arange(W)[None, :] <= (last - first)[:, None], np.take_along_axis(pmf, idx, axis=1), 0.0)
    out /= out.sum(axis=1, keepdims=True)
    return lo + first, out
