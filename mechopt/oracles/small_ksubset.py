"""k-subset reports of at most 16 items, one 16-bit word each, drawn directly from the words with or without x.

Used by :meth:`mechopt.oracles.ksubset.KSubset.randomize` (``packed=True``) for
d ≤ :data:`SMALL_D`; larger d go through the block sampler of
:mod:`mechopt.oracles.packed`. Item i is bit 15 − i of the word (``packbits``
order once byte-swapped to big-endian).

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
from mechopt.oracles.base import raw_words
from mechopt.oracles.kernels import draw_word, drawing, state_in, state_out
from mechopt.oracles.packed import BLOCK, CHUNK_USERS, POP16
from mechopt.runtime.jit import kernel

__all__ = ["own_subset_words", "SMALL_D"]

SMALL_D = 16  # up to this d a report is one 16-bit word, drawn directly from its list


@lru_cache(maxsize=32)
def _own_lists(d: int, k: int) -> tuple[np.ndarray, int, int]:
    """Per item x the k-subset words without x (first C(d−1, k)) and with x (next C(d−1, k−1)), (d, C(d, k)) uint16."""
    words = np.arange(1 << d, dtype=np.int64)
    words = words[POP16[words] == k] << (BLOCK - d)  # item i is bit 15 − i of the word
    lists = np.empty((d, words.size), dtype=np.uint16)
    for x in range(d):
        has = (words >> (BLOCK - 1 - x)) & 1 == 1
        lists[x] = np.concatenate((words[~has], words[has]))
    return lists, math.comb(d - 1, k), math.comb(d - 1, k - 1)


def own_subset_words(
    rng: np.random.Generator, x: np.ndarray, k: int, d: int, g: float, *, packed: bool = False
) -> np.ndarray:
    """k-subset reports of items x (d ≤ :data:`SMALL_D`) as uint16 words: x is in with probability g, the rest uniform.

    Per user one 32-bit draw (:func:`~mechopt.oracles.base.raw_words`, low half first), blocks of
    :data:`CHUNK_USERS` users in order. Its high 16 bits h are the coin against
    the top 16 bits T of ⌊g·2⁶⁴⌋ (h < T: x in; h > T: out; h = T, chance 2⁻¹⁶, a
    tie), its low 16 bits pick a word of the list with or without x (Lemire's
    multiply-shift; the biased low products are rejected): one look-up in a
    (d, C(d, k)) table. Then, in user order, a tie gets one fresh word whose top
    48 bits finish the comparison with ⌊g·2⁶⁴⌋ (so P(x in) = ⌊g·2⁶⁴⌋/2⁶⁴ exactly),
    and ties and rejections get their index by ``rng.integers`` (exact). The
    compiled kernel and its numpy twin give the same words. With ``packed=True``
    the result is the (n, ⌈d/8⌉) ``packbits`` rows instead (the table is
    byte-swapped once, so the words come out big-endian: no pass over the output).

    Examples
    --------
    >>> import numpy as np
    >>> w = own_subset_words(np.random.default_rng(0), np.array([0, 3, 3]), 2, 5, 0.6)
    >>> POP16[w].tolist(), w.dtype
    ([2, 2, 2], dtype('uint16'))
    """
    if not 0 < k < d <= SMALL_D:
        raise ProblemError(f"own_subset_words needs 0 < k < d <= {SMALL_D}, got d={d}, k={k}")
    lists, c0, c1 = _own_lists(d, k)
    if packed and np.little_endian:
        lists = _swapped_lists(d, k)
    thr = min(int(g * 2.0**64), (1 << 64) - 1)
    consts = np.array([c0, c1, (1 << 16) % c0, (1 << 16) % c1, thr >> 48], dtype=np.int64)
    fast = _pick.compiled()
    out = np.empty(x.size, dtype=np.uint16)
    bad = np.empty(min(x.size, CHUNK_USERS), dtype=np.int64)
    badu = np.empty(bad.size, dtype=np.uint32)
    if fast is not None:
        out.fill(0)  # first touch in one tight pass: page faults inside the sampling cost more system time
    for lo in range(0, x.size, CHUNK_USERS):
        xs, os_ = x[lo : lo + CHUNK_USERS], out[lo : lo + CHUNK_USERS]
        if fast is not None:
            with drawing(rng) as gen:  # the kernel draws from the generator itself, under its lock
                nb = fast(gen, xs, lists, consts, os_, bad, badu)
        else:
            u = raw_words(rng, (xs.size + 1) // 2).view(np.uint32)[: xs.size]
            nb = _pick_numpy(u, xs, lists, consts, os_, bad, badu)
        b, ub = bad[:nb], badu[:nb]  # ties and rejections, in user order
        if b.size:
            tie = (ub >> 16) == consts[4]
            inc = (ub >> 16) < consts[4]
            inc[tie] = raw_words(rng, int(tie.sum())) >> np.uint64(16) < np.uint64(thr & (2**48 - 1))
            at = rng.integers(0, np.where(inc, c1, c0))
            os_[b] = lists[xs[b], at + inc * c0]
    if not packed:
        return out
    rows = out.view(np.uint8).reshape(-1, 2)  # item i → byte i // 8, bit 7 − i % 8
    return rows if d > 8 else np.ascontiguousarray(rows[:, :1])


@lru_cache(maxsize=32)
def _swapped_lists(d: int, k: int) -> np.ndarray:
    """:func:`_own_lists` with every word byte-swapped (big-endian words are ``packbits`` bytes)."""
    return _own_lists(d, k)[0].byteswap()


@kernel
def _pick(gen, x, lists, consts, out, bad, badu):  # pragma: no cover - compiled; its numpy twin is _pick_numpy
    """out[i] = the word of user i from its 32-bit draw; returns how many users (``bad``, draws ``badu``) to redo.

    The draws are the low then high halves of (n + 1) // 2 words from the BitGenerator
    ``gen`` (:func:`~mechopt.oracles.kernels.generator_handles`; PCG64 stepped in registers when it can be),
    as :func:`~mechopt.oracles.base.raw_words` viewed as uint32 (little-endian).
    """
    c0, c1, t0, t1, top = (
        np.uint32(consts[0]),
        np.uint32(consts[1]),
        np.uint32(consts[2]),
        np.uint32(consts[3]),
        np.uint32(consts[4]),
    )
    hi, lo, ihi, ilo = state_in(gen)
    w = np.uint64(0)
    flat = lists.ravel()
    ncol = lists.shape[1]
    nb = 0
    for i in range(x.size):
        if i & 1 == 0:
            hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
        v = np.uint32((w >> np.uint64(32 * (i & 1))) & np.uint64(0xFFFFFFFF))
        h = v >> np.uint32(16)
        inc = h < top  # selects, not branches (no wrapping arithmetic: the source also runs as Python)
        size = c1 if inc else c0
        prod = (v & np.uint32(0xFFFF)) * size
        out[i] = flat[x[i] * ncol + np.int64(prod >> np.uint32(16)) + (np.int64(c0) if inc else 0)]
        if (prod & np.uint32(0xFFFF)) < (t1 if inc else t0) or h == top:
            bad[nb] = i
            badu[nb] = v
            nb += 1
    state_out(gen, hi, lo)
    return nb


def _pick_numpy(u, x, lists, consts, out, bad, badu) -> int:
    """:func:`_pick` vectorised on the draws ``u`` (the same integers)."""
    c0, c1, t0, t1, top = (int(v) for v in consts)
    h = (u >> 16).astype(np.int64)
    inc = (h < top).astype(np.int64)
    prod = (u & 0xFFFF).astype(np.int64) * (c0 + inc * (c1 - c0))
    np.take(lists.ravel(), x * lists.shape[1] + (prod >> 16) + inc * c0, out=out)
    b = np.flatnonzero(((prod & 0xFFFF) < t0 + inc * (t1 - t0)) | (h == top))
    bad[: b.size] = b
    badu[: b.size] = u[b]
    return b.size
