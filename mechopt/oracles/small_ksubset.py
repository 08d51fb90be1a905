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
from mechopt.oracles.base import bernoulli, raw_uint16
from mechopt.oracles.packed import BLOCK, CHUNK_USERS, POP16

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


def own_subset_words(rng: np.random.Generator, x: np.ndarray, k: int, d: int, g: float) -> np.ndarray:
    """k-subset reports of items x (d ≤ :data:`SMALL_D`) as uint16 words: x is in with probability g, the rest uniform.

    Per user a Bern(g) coin (:func:`mechopt.oracles.base.bernoulli`, exact to 2⁻⁶⁴)
    picks the list of words with or without x, and a 16-bit draw picks a word of
    that list uniformly (Lemire's multiply-and-reject, exact); one look-up in a
    (d, C(d, k)) table. Blocks of :data:`CHUNK_USERS` users in order.

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
    t0, t1 = (1 << 16) % c0, (1 << 16) % c1  # Lemire: low products below 2^16 mod size are rejected
    flat = lists.ravel()
    out = np.empty(x.size, dtype=np.uint16)
    for lo in range(0, x.size, CHUNK_USERS):
        xs = x[lo : lo + CHUNK_USERS]
        hit = bernoulli(rng, xs.size, g).view(np.uint8).astype(np.uint32)
        # per user (uint32 arithmetic, wrapping where c1 < c0): the list's size, start and rejection threshold
        size = hit * np.uint32((c1 - c0) % (1 << 32)) + np.uint32(c0)
        prod = raw_uint16(rng, xs.size).astype(np.uint32)
        prod *= size
        at = prod >> 16  # the index within the list
        thr = hit * np.uint32((t1 - t0) % (1 << 32)) + np.uint32(t0)
        bad = np.flatnonzero((prod & np.uint32(0xFFFF)) < thr)
        at += hit * np.uint32(c0)
        if bad.size:  # the biased low products (fewer than C(d, k)/2^16 of them): redrawn exactly
            at[bad] = rng.integers(0, size[bad].astype(np.int64)) + hit[bad] * c0
        idx = np.multiply(xs, lists.shape[1], dtype=np.intp)
        idx += at
        np.take(flat, idx, out=out[lo : lo + xs.size], mode="clip")
    return out
