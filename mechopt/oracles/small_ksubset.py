"""k-subset reports of at most 16 items, one 16-bit word each, by one look-up in an exact integer alias table per x.

Used by :meth:`mechopt.oracles.ksubset.KSubset.randomize` (``packed=True``) for
d ≤ :data:`SMALL_D`; larger d go through :mod:`mechopt.oracles.subset_masks`.
Item i is bit 15 − i of the word (``packbits`` order once byte-swapped to big-endian).

**Law.** For each item x the C(d, k) subsets get integer weights in units of
2^−(64+K) (2^K ≥ C(d, k) alias columns): the subsets holding x share
⌊g·2⁶⁴⌋·2^K units, the others (2⁶⁴ − ⌊g·2⁶⁴⌋)·2^K, equally up to one unit
(the remainder of the division goes one unit each to the first subsets in
rank order). An alias table is built from these integers with Python integers
(Vose's pairing, no rounding): column j keeps its primary subset with
probability T_j/2⁶⁴ (T_j an integer) and its alias otherwise. So P(x ∈ Z) =
⌊g·2⁶⁴⌋/2⁶⁴ exactly (as :func:`mechopt.oracles.base.bernoulli`), and each
subset's probability is its eq. (5) value to within 2^−(64+K) — far below
numpy's own double resolution (2⁻⁵³).

**Stream.** Per block of :data:`CHUNK_USERS` users, in order: ⌈m/2⌉ words
(:func:`~mechopt.oracles.base.raw_words`); user i of the block takes half i
(low half first) as a 32-bit v: column j = v mod 2^K, and U's top 32 − K bits
u = v >> K against the top 32 − K bits t of T_j (u < t: primary; u > t: alias);
then, in user order, each tie (u = t, chance 2^−(32−K)) takes one fresh word
whose top 32 + K bits finish the comparison U < T_j. The compiled kernel and
its numpy twin give the same words. This stream replaced the coin-and-list
sampler of mechopt 0.1.0 before commit fast-samplers (same law, other reports for a seed).

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.small_ksubset import own_subset_words
>>> own_subset_words(np.random.default_rng(1), np.array([2, 2]), 1, 4, 1.0).tolist()  # g = 1: the report is {x}
[8192, 8192]
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from mechopt.errors import ProblemError
from mechopt.oracles.base import item_range_error, items_in_range, raw_words
from mechopt.oracles.kernels import draw_word, drawing, items_below, state_in, state_out
from mechopt.oracles.packed import BLOCK, CHUNK_USERS, POP16
from mechopt.runtime.jit import kernel

__all__ = ["own_subset_words", "alias_tables", "SMALL_D"]

SMALL_D = 16  # up to this d a report is one 16-bit word, drawn directly from its table
ONE = 1 << 64


def _subset_words(d: int, k: int) -> np.ndarray:
    """The C(d, k) k-subsets of 0..d−1 as words (item i at bit 15 − i), increasing."""
    words = np.arange(1 << d, dtype=np.int64)
    return words[POP16[words] == k] << (BLOCK - d)


def _alias(weights: list[int], cols: int) -> tuple[list[int], list[int], list[int]]:
    """Vose's alias table on integers: weights sum to cols·2⁶⁴; returns (primary, alias, threshold) per column.

    >>> _alias([ONE // 2, 3 * ONE // 2], 2)[2] == [ONE // 2, ONE]
    True
    """
    w = list(weights) + [0] * (cols - len(weights))  # padding outcomes of weight 0
    small = [i for i, v in enumerate(w) if v < ONE]
    large = [i for i, v in enumerate(w) if v >= ONE]
    prim, alias, thr = [0] * cols, [0] * cols, [0] * cols
    col = 0
    while small and large:
        s, big = small.pop(), large[-1]
        prim[col], alias[col], thr[col] = s, big, w[s]
        w[big] -= ONE - w[s]
        if w[big] < ONE:
            small.append(large.pop())
        col += 1
    for i in large + small:  # what is left has weight exactly 2⁶⁴ (integers: no drift)
        prim[col], alias[col], thr[col] = i, i, ONE
        col += 1
    return prim, alias, thr


@lru_cache(maxsize=32)
def alias_tables(d: int, k: int, g: float, swapped: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """Per item x the exact alias table of Q^k(· | x) (module docstring): (fast, thresholds, K).

    ``fast[x, j]`` packs the primary word (bits 0–15), the alias word (16–31) and
    the top 32 − K bits of T_j (32–63); ``thresholds[x, j]`` = T_j (2⁶⁴ stored as
    2⁶⁴ − 1 with primary = alias). ``swapped``: words byte-swapped (``packbits`` bytes).

    >>> fast, thr, K = alias_tables(4, 2, 0.5)
    >>> fast.shape, K
    ((4, 8), 3)
    """
    words = _subset_words(d, k)
    if swapped:
        words = words.astype(np.uint16).byteswap().astype(np.int64)
    K = max(1, (words.size - 1).bit_length())
    cols = 1 << K
    G = min(int(g * 2.0**64), ONE - 1)
    n_in, n_out = math.comb(d - 1, k - 1), math.comb(d - 1, k)
    fast = np.empty((d, cols), dtype=np.uint64)
    thr = np.empty((d, cols), dtype=np.uint64)
    raw = _subset_words(d, k)  # membership is read from the unswapped words
    for x in range(d):
        has = ((raw >> (BLOCK - 1 - x)) & 1) == 1
        weights = [0] * words.size
        for mask, mass, count in ((has, G * cols, n_in), (~has, (ONE - G) * cols, n_out)):
            q, r = divmod(mass, count)
            for rank, i in enumerate(np.flatnonzero(mask).tolist()):
                weights[i] = q + (rank < r)
        prim, alias, t = _alias(weights, cols)
        for j in range(cols):
            tj = min(t[j], ONE - 1)
            a = alias[j] if t[j] < ONE else prim[j]
            pw, aw = int(words[prim[j]]) if prim[j] < words.size else 0, int(words[a]) if a < words.size else 0
            fast[x, j] = pw | (aw << 16) | ((tj >> (32 + K)) << 32)
            thr[x, j] = tj
    return fast, thr, K


def own_subset_words(
    rng: np.random.Generator, x: np.ndarray, k: int, d: int, g: float, *, packed: bool = False
) -> np.ndarray:
    """k-subset reports of items x (d ≤ :data:`SMALL_D`) as uint16 words: x is in with probability g, the rest uniform.

    One 32-bit half-word per user and one look-up in the alias table of its x
    (:func:`alias_tables`; stream and exactness in the module docstring). Items outside
    0..d−1 raise :class:`~mechopt.errors.ProblemError` with the generator untouched; the
    compiled kernel checks each block's items just before sampling them (so they are read
    from memory once, not in a separate pass over all of x). With
    ``packed=True`` the result is the (n, ⌈d/8⌉) ``packbits`` rows instead (the
    table holds byte-swapped words, so the words come out big-endian: no pass
    over the output).

    Examples
    --------
    >>> import numpy as np
    >>> w = own_subset_words(np.random.default_rng(0), np.array([0, 3, 3]), 2, 5, 0.6)
    >>> POP16[w].tolist(), w.dtype
    ([2, 2, 2], dtype('uint16'))
    """
    if not 0 < k < d <= SMALL_D:
        raise ProblemError(f"own_subset_words needs 0 < k < d <= {SMALL_D}, got d={d}, k={k}")
    fast_tab, thr, K = alias_tables(d, k, float(g), bool(packed and np.little_endian))
    kern, settle = _pick.compiled(), _settle.compiled()
    out = np.empty(x.size, dtype=np.uint16)
    ties = np.empty(min(x.size, CHUNK_USERS), dtype=np.int64)
    if kern is not None:
        out.fill(0)  # first touch in one tight pass: page faults inside the sampling cost more system time
        nt = 0
        # the lock and handles once for all blocks (~15 µs each); the kernels draw from the generator themselves
        with drawing(rng) as gen:
            before = rng.bit_generator.state  # under the lock: no other thread's draws can come between
            for lo in range(0, x.size, CHUNK_USERS):
                xs, os_ = x[lo : lo + CHUNK_USERS], out[lo : lo + CHUNK_USERS]
                nt = kern(gen, xs, fast_tab, K, os_, ties)
                if nt < 0:  # an item out of range in this block (checked before its first draw)
                    rng.bit_generator.state = before  # the earlier blocks' draws undone, still under the lock
                    break
                if nt:  # the same fresh words as _settle_ties, drawn in the kernel (the lock is held)
                    settle(gen, xs, ties[:nt], fast_tab, thr, K, os_)
        if nt < 0:
            raise item_range_error(x, d)
        return _finish(out, packed, d)
    if not items_in_range(x, d):
        raise item_range_error(x, d)
    for lo in range(0, x.size, CHUNK_USERS):
        xs, os_ = x[lo : lo + CHUNK_USERS], out[lo : lo + CHUNK_USERS]
        u = raw_words(rng, (xs.size + 1) // 2).view(np.uint32)[: xs.size]
        nt = _pick_numpy(u, xs, fast_tab, K, os_, ties)
        if nt:
            _settle_ties(rng, xs, ties[:nt], fast_tab, thr, K, os_)
    return _finish(out, packed, d)


def _finish(out: np.ndarray, packed: bool, d: int) -> np.ndarray:
    """The words, or with ``packed`` their (n, ⌈d/8⌉) ``packbits`` rows (a view; copied for d ≤ 8)."""
    if not packed:
        return out
    rows = out.view(np.uint8).reshape(-1, 2)  # item i → byte i // 8, bit 7 − i % 8
    return rows if d > 8 else np.ascontiguousarray(rows[:, :1])


@kernel
def _settle(gen, xs, at, fast_tab, thr, K, out):  # pragma: no cover - compiled; its numpy twin is _settle_ties
    """:func:`_settle_ties` drawing its words from the BitGenerator ``gen`` itself (the same words, in order)."""
    hi, lo, ihi, ilo = state_in(gen)
    low, shift = np.uint64((1 << (32 + K)) - 1), np.uint64(32 - K)
    for r in range(at.size):
        hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
        i = at[r]
        col = np.intp(out[i])  # the column index, kept in the output by _pick
        e = fast_tab[xs[i], col]
        keep = (w >> shift) < (thr[xs[i], col] & low)  # U's low 32 + K bits against T_j's
        out[i] = np.uint16(e & np.uint64(0xFFFF)) if keep else np.uint16((e >> np.uint64(16)) & np.uint64(0xFFFF))
    state_out(gen, hi, lo)


def _settle_ties(rng, xs, at, fast_tab, thr, K, out) -> None:
    """Users ``at`` (in order) whose top bits tied T_j's: one fresh word each finishes U < T_j."""
    v = out[at]  # the column index was kept in the output by the kernel (see _pick)
    col = v.astype(np.int64)
    e = fast_tab[xs[at], col]
    low = raw_words(rng, at.size) >> np.uint64(32 - K)  # U's low 32 + K bits
    prim = low < (thr[xs[at], col] & np.uint64((1 << (32 + K)) - 1))
    out[at] = np.where(prim, e & np.uint64(0xFFFF), (e >> np.uint64(16)) & np.uint64(0xFFFF))


@kernel
def _pick(gen, x, tab, K, out, ties):  # pragma: no cover - compiled; its numpy twin is _pick_numpy
    """out[i] = user i's word from its 32-bit half-word; returns the number of ties (listed in ``ties``).

    The half-words are the low then high halves of (n + 1) // 2 words from the BitGenerator
    ``gen`` (:func:`~mechopt.oracles.kernels.generator_handles`; PCG64 stepped in registers when
    it can be), as :func:`~mechopt.oracles.base.raw_words` viewed as uint32 (little-endian).
    A tie's output holds its column index until :func:`_settle_ties`. First the block's
    items are checked (their unsigned maximum, one vectorised pass that leaves them in cache for
    the sampling loop): one outside 0..d−1 (d = ``tab.shape[0]``) returns −1 before any draw.
    """
    if not items_below(x, 0, x.size, tab.shape[0]):
        return -1
    hi, lo, ihi, ilo = state_in(gen)
    cols, sh = np.uint32((1 << K) - 1), np.uint32(K)
    flat = tab.ravel()
    nt = 0
    w = np.uint64(0)
    for i in range(x.size):
        if i & 1 == 0:
            hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
        v = np.uint32((w >> np.uint64(32 * (i & 1))) & np.uint64(0xFFFFFFFF))
        j = v & cols
        e = flat[(np.uint64(x[i]) << np.uint64(sh)) | np.uint64(j)]  # unsigned: no negative-index wrap-around code
        u, t = v >> sh, np.uint32(e >> np.uint64(32))
        out[i] = np.uint16(np.uint32(e) if u < t else np.uint32(e >> np.uint64(16)))  # primary, else alias
        if u == t:  # chance 2^−(32−K): settled after the block with a fresh word (a rare, well-predicted branch)
            out[i] = np.uint16(j)
            ties[nt] = i
            nt += 1
    state_out(gen, hi, lo)
    return nt


def _pick_numpy(u, x, tab, K, out, ties) -> int:
    """:func:`_pick` vectorised on the half-words ``u`` (the same integers)."""
    j = (u & np.uint32((1 << K) - 1)).astype(np.int64)
    e = tab[x, j]
    uu, t = u >> np.uint32(K), (e >> np.uint64(32)).astype(np.uint32)
    np.copyto(out, np.where(uu < t, e & np.uint64(0xFFFF), (e >> np.uint64(16)) & np.uint64(0xFFFF)), casting="unsafe")
    tie = np.flatnonzero(uu == t)
    out[tie] = j[tie]
    ties[: tie.size] = tie
    return tie.size
