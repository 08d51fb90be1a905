"""k-subset reports as packed d-bit masks: i.i.d. dyadic Bernoulli bits, then a rejection fix-up to exactly k items.

The sampler (:func:`own_subset_masks`) draws, for user i holding item x_i, a
report Z with P(x_i ∈ Z) = g and the other members a uniform subset of the
d − 1 others (the k-subset mechanism's Q^k(· | x), eq. (5)); :func:`uniform_subsets`
is the same without an own item. Per user:

1. **Start.** Every item's bit is Bernoulli(p), p = a/2^t a dyadic rational
   near k/d chosen by a cost model (:func:`plan`), from t random 64-bit words per
   64 items combined by AND/OR along the binary digits of a; bit x is then set by
   a coin u < ⌊g·2⁶⁴⌋ on one more word (exact to 2⁻⁶⁴, as
   :func:`mechopt.oracles.base.bernoulli`). Given their number m, the set bits
   among the others are a uniform m-subset (the bits are i.i.d.).
2. **Fix-up.** While m ≠ need (k − 1 with x in, k without), the next
   max(3, ⌈log2 d⌉)-bit slot v of the user's words names bit v mod 64 of the
   row's word v // 64 (item v ^ 7; words past the row when 2^slot > 64⌈d/64⌉),
   which is cleared if m > need and it is set, or set if m < need and it is clear.
   Bit x, the padding bits (items ≥ d) and the words past the row are preset
   full for additions and empty for removals, so a try on them fails (the
   rejection), and restored after. Each success removes a uniform member or adds
   a uniform non-member, so the set stays uniform given its size: the report has
   exactly Q^k(· | x), whatever p is (p only sets the cost: E|m − need| = O(√d) tries).

Random words, in this order (:func:`~mechopt.oracles.base.raw_words`), per superblock of
:data:`SUPER` users (= :data:`mechopt.oracles.mechanism.ORACLE_BLOCK`, so chunks
that are multiples of it reproduce one call), for each of its blocks of
:attr:`Plan.users` users: t arrays (users, ⌈d/64⌉) of bit words (one per level,
digit 1 of a first), one coin word per user, then (users, F) fix-up words (slots
from the low bits of each word, ⌊64/slot⌋ per word). After its blocks, the
superblock's users still short get, in user order, (short users, 2F) fresh words,
again until none is left. The compiled kernel (:func:`_sample`, one pass per
block: start, coins and fix-up) draws these words from the generator itself, in this
order (:mod:`mechopt.runtime.bitgen`: PCG64 stepped in registers, under the
generator's lock); the numpy path (:func:`_draw_numpy`) draws them into buffers.
Both give bit-identical masks.
Item j of a row is bit j ^ 7 of its 64-bit word j // 64, so the words viewed as
little-endian bytes are the ``packbits`` row.

Examples
--------
>>> import numpy as np
>>> m = own_subset_masks(np.random.default_rng(0), np.array([3, 3, 40]), 50, 7, 0.9)
>>> m.shape, np.unpackbits(m, axis=1, count=50).sum(axis=1).tolist()
((3, 7), [7, 7, 7])
"""

from __future__ import annotations

import numpy as np

from mechopt.errors import ProblemError
from mechopt.oracles.base import raw_words
from mechopt.oracles.kernels import draw_word, drawing, jump, state_in, state_out
from mechopt.oracles.maskplan import Plan, plan
from mechopt.oracles.packed import POP16
from mechopt.runtime.bitgen import pcg64_advance, popcount64
from mechopt.runtime.jit import helper, kernel

__all__ = ["own_subset_masks", "own_subset_rows", "uniform_subsets", "plan", "Plan"]

_PER = np.array([64 // max(s, 1) for s in range(65)], dtype=np.int64)  # fix-up slots per word, by slot bits
SUPER = 1 << 16  # users per superblock (= mechopt.oracles.mechanism.ORACLE_BLOCK: such chunks reproduce one call)


def own_subset_masks(rng: np.random.Generator, x: np.ndarray, d: int, k: int, g: float) -> np.ndarray:
    """(n, ⌈d/8⌉) ``packbits`` k-subsets of 0..d−1 holding x_i with probability g, the rest uniform (module docstring).

    ``x`` holds items in 0..d−1 (checked by the caller); 1 ≤ k ≤ d − 1.

    Examples
    --------
    >>> import numpy as np
    >>> m = own_subset_masks(np.random.default_rng(1), np.array([0, 5]), 9, 2, 1.0)
    >>> bits = np.unpackbits(m, axis=1, count=9)
    >>> bits[[0, 1], [0, 5]].tolist(), bits.sum(axis=1).tolist()   # g = 1: each holds its own item, and one more
    ([1, 1], [2, 2])
    """
    if not 1 <= k <= d - 1:
        raise ProblemError(f"k must lie in 1..{d - 1}, got {k}")
    return _draw(rng, np.asarray(x, dtype=np.int64), d, k, g)


def uniform_subsets(rng: np.random.Generator, n: int, d: int, k: int) -> np.ndarray:
    """n independent uniform k-subsets of 0..d−1 as (n, ⌈d/8⌉) ``packbits`` masks (no own item).

    Examples
    --------
    >>> import numpy as np
    >>> m = uniform_subsets(np.random.default_rng(3), 40_000, 5, 2)
    >>> bits = np.unpackbits(m, axis=1, count=5)
    >>> sorted(set(bits.sum(axis=1).tolist())), bool(np.all(abs(bits.mean(axis=0) - 0.4) < 0.01))
    ([2], True)
    """
    if not 0 <= k <= d:
        raise ProblemError(f"k must lie in 0..{d}, got {k}")
    return _draw(rng, np.full(n, -1, dtype=np.int64), d, k, 0.0)


def _draw(rng: np.random.Generator, x: np.ndarray, d: int, k: int, g: float) -> np.ndarray:
    """The masks of users ``x`` (−1: no own item), drawing the words in the order of the module docstring."""
    W = own_subset_rows(rng, x, d, k, g)
    if not np.little_endian:  # pragma: no cover - the layout is the little-endian byte view
        W.byteswap(inplace=True)
    out = W.view(np.uint8)
    width = (d + 7) // 8
    return out if out.shape[1] == width else np.ascontiguousarray(out[:, :width])


def own_subset_rows(rng: np.random.Generator, x: np.ndarray, d: int, k: int, g: float) -> np.ndarray:
    """:func:`own_subset_masks` before its byte view: (n, ⌈d/64⌉) uint64 words, item j at bit (j mod 64) ^ 7 of
    word j // 64 (``x`` int64, −1: no own item; unchecked).

    Examples
    --------
    >>> import numpy as np
    >>> W = own_subset_rows(np.random.default_rng(0), np.array([3, 3, 40]), 50, 7, 0.9)
    >>> W.shape, [sum(int(w).bit_count() for w in row) for row in W]
    ((3, 1), [7, 7, 7])
    """
    pl = plan(d, k)
    nw = -(-d // 64)
    W = np.empty((x.size, nw), dtype=np.uint64)
    last, thr_g = _consts(d, g)
    fast = _sample.compiled()
    if fast is not None:
        W.fill(0)  # first touch in one tight pass: page faults inside the sampling cost more system time
        scratch = np.empty((min(x.size, pl.users), nw), dtype=np.uint64)
        short = np.empty(min(x.size, SUPER), dtype=np.int64)
        with drawing(rng) as gen:  # the kernel draws from the generator itself, under its lock
            left = np.empty(x.size, dtype=np.int64)
            ext = np.empty(max(nw, (1 << pl.slot) >> 6), dtype=np.uint64)  # a row up to 2^slot bits
            fast(gen, x, W, left, pl.a, pl.t, pl.words, pl.users, k, thr_g, pl.slot, last, scratch, short, ext)
    else:
        _draw_numpy(rng, x, W, pl, k, thr_g, d, last)
    return W


def _draw_numpy(rng: np.random.Generator, x: np.ndarray, W: np.ndarray, pl: Plan, k: int, thr_g, d: int, last) -> None:
    """:func:`_sample`'s numpy twin: the words drawn in buffers per block, then whole-array operations."""
    none = np.empty(0, dtype=np.uint64)
    every = np.arange(min(x.size, pl.users))
    for top in range(0, x.size, SUPER):  # a superblock: its sub-blocks, then its users still short
        xt, Wt = x[top : top + SUPER], W[top : top + SUPER]
        left = np.empty(xt.size, dtype=np.int64)
        for lo in range(0, xt.size, pl.users):
            xs, Ws, ls = xt[lo : lo + pl.users], Wt[lo : lo + pl.users], left[lo : lo + pl.users]
            _bits([raw_words(rng, Ws.shape) for _ in range(pl.t)], Ws, pl.a, last)
            C = raw_words(rng, xs.size)
            R = raw_words(rng, (xs.size, pl.words))
            _settle_numpy(C, R, every[: xs.size], xs, Ws, ls, k, thr_g, d, pl.slot)
        while (rows := np.flatnonzero(left)).size:  # 2F fresh words each, in user order
            _settle_numpy(none, raw_words(rng, (rows.size, 2 * pl.words)), rows, xt, Wt, left, k, thr_g, d, pl.slot)


def _consts(d: int, g: float) -> tuple[np.uint64, np.uint64]:
    """(mask of the last word's valid items, coin threshold ⌊g·2⁶⁴⌋)."""
    rem = d - 64 * (-(-d // 64) - 1)
    return np.uint64(sum(1 << (j ^ 7) for j in range(rem))), np.uint64(min(int(g * 2.0**64), (1 << 64) - 1))


# ------------------------------------------------------------------ kernel
@kernel
def _sample(gen, x, W, left, a, t, F, users, k, thr_g, slot, last, scratch, short, ext):  # pragma: no cover - compiled
    """All of :func:`_draw` in one pass per block, drawing the words from the BitGenerator itself, in its order.

    ``gen`` = :func:`~mechopt.oracles.kernels.generator_handles` (PCG64 stepped in registers when it can be).
    Per block of ``users`` rows: the t levels (each folded into the row as it is drawn:
    ``scratch`` holds the AND mask of the levels so far, the row their OR part), the coins
    and popcounts, then F fix-up words per row (all F drawn, used or not); per superblock
    the short rows' rounds of 2F words (``short`` lists them). The masks are those of the
    numpy path (:func:`_settle_numpy`) from the same words.
    """
    hi, lo, ihi, ilo = state_in(gen)
    n, nw = W.shape
    flat = W.reshape(W.size)  # the fix-up's view (C-contiguous rows)
    ones = ~np.uint64(0)
    for top in range(0, n, SUPER):
        end = min(top + SUPER, n)
        for b0 in range(top, end, users):
            b1 = min(b0 + users, end)
            if gen[3] and t <= 2:  # PCG64: one pass, each stretch of the block's words from its own state
                hi, lo = _block_pcg(hi, lo, ihi, ilo, gen, x, W, flat, ext, left, b0, b1, a, t, F, k, thr_g, slot, last)
                continue
            if t == 0:
                for i in range(b0, b1):
                    for q in range(nw):
                        W[i, q] = ones if a == 1 else np.uint64(0)
            for lv in range(t if t != 2 else 0):  # W = L0 op0 (L1 op1 (… L_{t−1})) as (L_{t−1} & A) | B, folded
                orbit = (a >> (t - 1 - lv)) & 1
                for i in range(b0, b1):
                    for q in range(nw):
                        hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
                        A = ones if lv == 0 else scratch[i - b0, q]
                        B = np.uint64(0) if lv == 0 else W[i, q]
                        if lv == t - 1:
                            W[i, q] = (w & A) | B
                        elif orbit:
                            W[i, q] = B | (w & A)
                            scratch[i - b0, q] = A
                        else:
                            W[i, q] = B
                            scratch[i - b0, q] = A & w
            if t == 2:  # W = L0 | L1 (a = 3) or L0 & L1 (a = 1): no scratch
                for lv in range(2):
                    for i in range(b0, b1):
                        for q in range(nw):
                            hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
                            W[i, q] = w if lv == 0 else ((W[i, q] | w) if a == 3 else (W[i, q] & w))
            for i in range(b0, b1):
                W[i, nw - 1] &= last
                hi, lo, c = draw_word(gen, hi, lo, ihi, ilo)
                left[i] = k - _own_and_count(W, i, x[i], c, thr_g)
            for i in range(b0, b1):
                hi, lo = _fix_ext(gen, hi, lo, ihi, ilo, W, ext, left, i, x[i], F, slot, last)
        ns = 0
        for i in range(top, end):  # the superblock's short rows, in order
            if left[i] != 0:
                short[ns] = i
                ns += 1
        while ns:  # 2F fresh words each, until none is left; the list kept in order, never rescanned
            for j in range(ns):
                hi, lo = _fix_ext(gen, hi, lo, ihi, ilo, W, ext, left, short[j], x[short[j]], 2 * F, slot, last)
            m = 0
            for j in range(ns):
                if left[short[j]] != 0:
                    short[m] = short[j]
                    m += 1
            ns = m
    state_out(gen, hi, lo)


@helper
def _block_pcg(hi, lo, ihi, ilo, gen, x, W, flat, ext, left, b0, b1, a, t, F, k, thr_g, slot, last):
    """Rows b0..b1−1 (t ≤ 2) in one pass: the level, coin and fix-up words each from a PCG64 state jumped to them.

    The block's words are t·U·nw level words, U coins, U·F fix-up words (U = b1 − b0); four
    independent states walk them row by row (their 128-bit multiplies overlap) and the row
    is finished while in cache. Returns the state after the block (the fix-up state's end).
    """
    u, nw = b1 - b0, W.shape[1]
    h1, l1 = pcg64_advance(hi, lo, *jump(ihi, ilo, u * nw))  # level 1
    hc, lc = pcg64_advance(hi, lo, *jump(ihi, ilo, t * u * nw))  # coins
    hr, lr = pcg64_advance(hc, lc, *jump(ihi, ilo, u))  # fix-up words
    for i in range(b0, b1):
        for q in range(nw):
            if t == 0:
                v = ~np.uint64(0) if a == 1 else np.uint64(0)
            else:
                hi, lo, v = draw_word(gen, hi, lo, ihi, ilo)
                if t == 2:
                    h1, l1, w = draw_word(gen, h1, l1, ihi, ilo)
                    v = (v | w) if a == 3 else (v & w)
            W[i, q] = v
        W[i, nw - 1] &= last
        hc, lc, c = draw_word(gen, hc, lc, ihi, ilo)
        left[i] = k - _own_and_count(W, i, x[i], c, thr_g)
        if ext.size == nw:
            hr, lr = _fix(gen, hr, lr, ihi, ilo, flat, np.uint64(i * nw), left, i, x[i], F, slot, last, nw)
        else:
            hr, lr = _fix_ext(gen, hr, lr, ihi, ilo, W, ext, left, i, x[i], F, slot, last)
    return hr, lr


@helper
def _own_and_count(W, i, xi, c, thr_g):
    """Row i's bit xi set by the coin c < thr_g (no own item when xi < 0); returns the row's popcount."""
    one = np.uint64(1)
    if xi >= 0:  # branch-free: the coin is a fair guess for the branch predictor
        wx = xi >> 6
        bit = one << np.uint64((xi & 63) ^ 7)
        W[i, wx] = (W[i, wx] & ~bit) | (bit * np.uint64(c < thr_g))
    m = 0
    for q in range(W.shape[1]):
        m += popcount64(W[i, q])
    return m


@helper
def _fix(gen, hi, lo, ihi, ilo, A, base, left, i, xi, nwords, slot, last, nw):
    """Fix-up tries (module docstring, step 2) for row i = ``A[base:base+nw]`` on its next ``nwords`` words, all
    drawn; bit x and the padding preset here (the words past the row by :func:`_fix_ext`), so a try needs no check."""
    one, zero = np.uint64(1), np.uint64(0)
    lf = left[i]
    fill = ~zero if lf > 0 else zero  # additions: the untouchable bits look full; removals: empty
    flip = ~fill  # a try sets its bit (additions) or clears it (removals): (v | bit) ^ (bit & flip)
    xw = base + np.uint64(max(xi, 0) >> 6)
    xb = one << np.uint64((xi & 63) ^ 7) if xi >= 0 else zero
    own = A[xw] & xb
    A[xw] = (A[xw] & ~xb) | (xb & fill)
    end = base + np.uint64(nw - 1)
    A[end] = (A[end] & last) | (~last & fill)
    r = abs(lf)
    mask, sl, s63 = (one << np.uint64(slot)) - one, np.uint64(slot), np.uint64(63)
    per = _PER[slot]  # 64 // slot, without a division per call
    for _ in range(nwords):
        hi, lo, cur = draw_word(gen, hi, lo, ihi, ilo)
        for _ in range(per if r else 0):  # branch-free try: the only branch taken rarely is the exit
            pos = cur & mask
            cur >>= sl
            at = base + (pos >> np.uint64(6))
            bit = one << (pos & s63)
            v = A[at]
            nv = (v | bit) ^ (bit & flip)
            A[at] = nv
            r -= np.int64(nv != v)
            if r == 0:
                break
    A[xw] = (A[xw] & ~xb) | own
    A[end] &= last
    left[i] = r if lf > 0 else -r
    return hi, lo


@helper
def _fix_ext(gen, hi, lo, ihi, ilo, W, ext, left, i, xi, nwords, slot, last):
    """:func:`_fix` on row i of W, through ``ext`` (the row and the words past it up to 2^slot bits) if it has such."""
    nw = W.shape[1]
    if ext.size == nw:
        return _fix(gen, hi, lo, ihi, ilo, W.reshape(W.size), np.uint64(i * nw), left, i, xi, nwords, slot, last, nw)
    ext[:nw] = W[i]
    ext[nw:] = ~np.uint64(0) if left[i] > 0 else np.uint64(0)  # full for additions, empty for removals
    hi, lo = _fix(gen, hi, lo, ihi, ilo, ext, np.uint64(0), left, i, xi, nwords, slot, last, nw)
    W[i] = ext[:nw]
    return hi, lo


# ------------------------------------------------------------ numpy twins
def _settle_numpy(C, R, rows, x, W, left, k, thr_g, d, slot) -> None:
    """The coins and fix-up tries of :func:`_sample` vectorised over rows (bit-identical), a try slot at a time."""
    if C.size:
        _own_numpy(C, x, W, left, k, thr_g)
    _fixup_numpy(R, rows, x, W, left, d, slot)


def _own_numpy(C, x, W, left, k, thr_g) -> None:
    own = np.flatnonzero(x >= 0)
    if own.size:
        xo = x[own]
        bit = np.uint64(1) << ((xo & 63) ^ 7).astype(np.uint64)
        inc = C[own] < thr_g
        W[own, xo >> 6] = np.where(inc, W[own, xo >> 6] | bit, W[own, xo >> 6] & ~bit)
    np.subtract(k, POP16[W.view(np.uint16)].sum(axis=1, dtype=np.int64), out=left)  # numpy ≥ 1.26: no bitwise_count


def _fixup_numpy(R, rows, x, W, left, d, slot) -> None:
    """:func:`_fix` on ``rows`` (row j of R holds their words), vectorised: one try slot of every live row at a time."""
    per, nw = 64 // slot, W.shape[1]
    live = np.flatnonzero(left[rows])
    i, R = rows[live], R[live]
    lf = left[i]
    fill = np.where(lf > 0, ~np.uint64(0), np.uint64(0))
    E = np.empty((i.size, max(nw, (1 << slot) >> 6)), dtype=np.uint64)  # the rows, and words up to 2^slot bits
    E[:, :nw], E[:, nw:] = W[i], fill[:, None]
    j = np.arange(i.size)
    xw, xb = np.maximum(x[i], 0) >> 6, np.where(x[i] >= 0, np.uint64(1) << ((x[i] & 63) ^ 7).astype(np.uint64), 0)
    own = E[j, xw] & xb
    E[j, xw] = (E[j, xw] & ~xb) | (xb & fill)
    last = _consts(d, 0.0)[0]
    E[:, nw - 1] = (E[:, nw - 1] & last) | (~last & fill)
    r = np.abs(lf)
    for s in range(R.shape[1] * per):
        j = j[r[j] != 0]
        if not j.size:
            break
        pos = (R[j, s // per] >> np.uint64((s % per) * slot)) & np.uint64((1 << slot) - 1)
        at, bit = (pos >> np.uint64(6)).astype(np.intp), np.uint64(1) << (pos & np.uint64(63))
        v = E[j, at]
        nv = (v | bit) ^ (bit & ~fill[j])
        E[j, at] = nv
        r[j] -= nv != v
    j = np.arange(i.size)
    E[j, xw] = (E[j, xw] & ~xb) | own
    E[:, nw - 1] &= last
    W[i] = E[:, :nw]
    left[i] = np.where(lf > 0, r, -r)


def _bits(levels: list[np.ndarray], W: np.ndarray, a: int, last: np.uint64) -> None:
    """Start rows: each bit Bernoulli(a/2^t) from t arrays of words like ``W`` (Knuth–Yao on the digits of a).

    Contiguous whole-array numpy operations, the same in both paths.
    """
    t = len(levels)
    if t == 0:
        W[:] = ~np.uint64(0) if a == 1 else np.uint64(0)
    elif t == 1:
        np.copyto(W, levels[0])
    else:
        prev = levels[-1]
        for lv in range(t - 2, -1, -1):  # the first operation reads two levels: no copy pass
            op = np.bitwise_or if (a >> (t - 1 - lv)) & 1 else np.bitwise_and
            op(prev, levels[lv], out=W)
            prev = W
    W[:, -1] &= last
