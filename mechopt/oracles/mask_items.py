"""k-subset item reports read off packed masks: each report's set bits, ascending, by a compiled leading-zeros walk.

:func:`own_subset_items` draws the reports of a block of users as the packed
sampler does (:func:`mechopt.oracles.small_ksubset.own_subset_words` for d ≤ 16,
:func:`mechopt.oracles.subset_masks.own_subset_rows` above: the same random words,
so the same reports as ``KSubset.randomize(x, rng, packed=True)``) and writes each
row's k items in increasing order. Compiled (:func:`_walk`), a row's 64-bit words
are byte-swapped so item j is bit 63 − (j mod 64), and ``ctlz`` names the next item
(one instruction per item); without numba, ``numpy.unpackbits`` and ``flatnonzero`` give
the same items. Blocks are whole multiples of :data:`ITEMS_BLOCK` users, which both
samplers' streams do not depend on: the reports do not depend on the block size.

Examples
--------
>>> import numpy as np
>>> z = own_subset_items(np.random.default_rng(0), np.array([3, 3, 40]), 50, 7, 0.9)
>>> z.shape, bool(np.all(np.diff(z, axis=1) > 0))
((3, 7), True)
"""

from __future__ import annotations

import numpy as np

from mechopt.errors import ProblemError
from mechopt.oracles.small_ksubset import SMALL_D, own_subset_words
from mechopt.oracles.subset_masks import SUPER, own_subset_rows
from mechopt.runtime.bitgen import bswap64, ctlz64
from mechopt.runtime.jit import kernel

__all__ = ["own_subset_items", "ITEMS_BLOCK"]

ITEMS_BLOCK = SUPER  # users per block (2¹⁶: subset_masks' superblock and small_ksubset's CHUNK_USERS)
_UNPACK = 1 << 22  # bytes of one unpackbits sub-block on the numpy path


def own_subset_items(
    rng: np.random.Generator, x: np.ndarray, d: int, k: int, g: float, *, block: int = ITEMS_BLOCK
) -> np.ndarray:
    """(n, k) k-subsets of 0..d−1 holding x_i with probability g, the rest uniform: each row's items ascending.

    Row i is the set bits of row i of the packed sampler's masks from the same generator (module
    docstring); ``x`` holds int64 items in 0..d−1 (checked by the caller), 1 ≤ k ≤ d − 1.
    ``block`` (users drawn and read at a time, a multiple of :data:`ITEMS_BLOCK`) bounds the
    memory to one block's masks and changes no report. Items are int16, or int32 for d > 32767.

    Examples
    --------
    >>> import numpy as np
    >>> own_subset_items(np.random.default_rng(1), np.array([0, 5]), 9, 2, 1.0)[:, 0].tolist()  # g = 1: x is in
    [0, 5]
    """
    if block <= 0 or block % ITEMS_BLOCK:
        raise ProblemError(f"block must be a positive multiple of {ITEMS_BLOCK} users, got {block}")
    out = np.empty((x.size, k), dtype=np.int32 if d > 32767 else np.int16)
    walk = _walk.compiled()
    for lo in range(0, x.size, block):
        xs, o = x[lo : lo + block], out[lo : lo + block]
        if d <= SMALL_D:  # one 16-bit word per report, item i at bit 15 − i
            W, shift, swap = own_subset_words(rng, xs, k, d, g)[:, None], 48, False
        else:  # item j at bit (j mod 64) ^ 7 of word j // 64
            W, shift, swap = own_subset_rows(rng, xs, d, k, g), 0, True
        if walk is not None:
            bad = walk(W, shift, swap, o)
            if bad >= 0:  # pragma: no cover - the samplers draw exactly k items per report
                raise RuntimeError(f"k-subset report {lo + bad} does not hold {k} items")
        else:
            _walk_numpy(W, swap, d, o)
    return out


@kernel
def _walk(W, shift, swap, out):  # pragma: no cover - compiled; its numpy twin is _walk_numpy
    """out[i] = the set bits of row i of W ascending (word q: bswap'd if ``swap``, << ``shift``; item 64q + ctlz).

    Returns −1, or the first row that does not hold exactly out.shape[1] items (nothing is written past a row).
    """
    n, nw = W.shape
    k = out.shape[1]
    top = np.uint64(1) << np.uint64(63)
    sh = np.uint64(shift)
    for i in range(n):
        j = 0
        for q in range(nw):
            v = np.uint64(W[i, q])
            if swap:
                v = bswap64(v)
            v <<= sh
            base = 64 * q
            while v:
                c = ctlz64(v)
                if j == k:
                    return i
                out[i, j] = base + c
                j += 1
                v ^= top >> np.uint64(c)
        if j != k:
            return i
    return -1


def _walk_numpy(W: np.ndarray, swap: bool, d: int, out: np.ndarray) -> None:
    """:func:`_walk` by ``numpy.unpackbits`` and ``flatnonzero`` on the rows' ``packbits`` bytes, by sub-blocks."""
    if swap:  # item j at bit (j mod 64) ^ 7: the little-endian bytes are the packbits row
        rows = W.astype("<u8", copy=False).view(np.uint8)
    else:  # uint16 words, item i at bit 15 − i: the big-endian bytes
        rows = W[:, 0].astype(">u2").view(np.uint8).reshape(-1, 2)
    step = max(1, _UNPACK // max(d, 1))
    for lo in range(0, rows.shape[0], step):
        bits = np.unpackbits(rows[lo : lo + step], axis=1, count=d).view(bool)
        m = bits.shape[0]
        at = np.flatnonzero(bits).reshape(m, out.shape[1])  # row i's flat bit positions i·d + j, ascending
        np.subtract(at, (np.arange(m) * d)[:, None], out=out[lo : lo + m], casting="unsafe")
