"""Shared base of the frequency oracles: the pure-oracle estimator, input checks, exact samplers.

A pure oracle's support count f_j has E f_j = n θ_j g + n (1 − θ_j) h; the
remapping estimator θ̂_j = (f_j − n h)/(n (g − h)) is unbiased (Algorithm 2 and
eq. (9) of Wang et al.).

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.base import bernoulli
>>> bool(abs(bernoulli(np.random.default_rng(0), 100_000, 0.25).mean() - 0.25) < 0.01)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechopt.errors import ProblemError
from mechopt.notions.base import check_eps as _check_eps

__all__ = [
    "PureOracle",
    "CHUNK",
    "bernoulli",
    "packed_column_sums",
    "check_eps",
    "MAX_EPS",
    "raw_uint16",
    "raw_words",
    "item_range_error",
    "items_in_range",
]

MAX_EPS = 700.0  # e^ε overflows a double beyond ~709


def check_eps(eps) -> float:
    """A finite ε > 0 whose e^ε is representable (≤ :data:`MAX_EPS`); ProblemError otherwise.

    Examples
    --------
    >>> check_eps("1.5")
    1.5
    """
    val = _check_eps(eps)
    if val > MAX_EPS:
        raise ProblemError(f"eps = {val:g} is too large: e^eps overflows double precision; use eps <= {MAX_EPS:g}")
    if math.exp(val) == 1.0:  # g = h: reports carry no information and every estimator divides by g − h = 0
        raise ProblemError(f"eps = {val:g} is too small: e^eps rounds to 1 in double precision; use eps >= 1e-15")
    return val


CHUNK = 1 << 16  # users per vectorised block (bounds memory at CHUNK·d bytes)


def _check_d(d) -> int:
    try:
        val = int(d)
    except (TypeError, ValueError):
        raise ProblemError(f"d must be an integer ≥ 2, got {d!r}") from None
    if val != d or val < 2:
        raise ProblemError(f"d must be an integer ≥ 2, got {d!r}")
    return val


def _check_items(x, d: int, *, values: bool = True) -> np.ndarray:
    """x as a 1-D int64 array; ``values=False`` leaves the range check to the caller (a kernel that
    checks each block before reading it, so the items are read from memory once: :func:`item_range_error`)."""
    arr = np.asarray(x)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ProblemError("x must be a 1-D integer array of items in 0..d-1")
    if values and not items_in_range(arr, d):
        raise item_range_error(arr, d)
    return arr.astype(np.int64, copy=False)


def items_in_range(x: np.ndarray, d: int) -> bool:
    """Whether every item of the integer array x lies in 0..d−1: one pass (as unsigned, a negative
    item is larger than any d).

    >>> items_in_range(np.array([0, 3]), 4), items_in_range(np.array([0, -1]), 4)
    (True, False)
    """
    if not x.size:
        return True
    return bool((x.view(x.dtype.str.replace("i", "u")) if x.dtype.kind == "i" else x).max() < d)


def item_range_error(x: np.ndarray, d: int) -> ProblemError:
    """The error for items outside 0..d−1 (its message names the range found).

    >>> str(item_range_error(np.array([0, 9]), 4))
    'items must lie in 0..3; got range [0, 9]'
    """
    return ProblemError(f"items must lie in 0..{d - 1}; got range [{x.min()}, {x.max()}]")


def _check_hist(hist, d: int) -> np.ndarray:
    h = np.asarray(hist)
    if h.shape != (d,) or not np.issubdtype(h.dtype, np.integer) or np.any(h < 0):
        raise ProblemError(f"hist must be {d} non-negative integer counts (users per item)")
    return h.astype(np.int64)


@dataclass(frozen=True)
class PureOracle:
    """Base of the pure frequency oracles: hit rates g (own item) and h (other item)."""

    d: int
    eps: float

    @property
    def g(self) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def h(self) -> float:  # pragma: no cover - overridden
        raise NotImplementedError

    def estimate(self, counts, n: int) -> np.ndarray:
        """Unbiased remapping estimate θ̂_j = (f_j − n h)/(n (g − h)) (Algorithm 2, line 8).

        ``counts`` may be (d,) or (r, d) for r repetitions.
        """
        f = np.asarray(counts, dtype=float)
        if f.shape[-1] != self.d:
            raise ProblemError(f"counts must have {self.d} entries per row, got shape {f.shape}")
        if n <= 0:
            raise ProblemError(f"n must be a positive number of users, got {n}")
        return (f - n * self.h) / (n * (self.g - self.h))

    def variance(self, theta, n: int) -> np.ndarray:
        """Var θ̂_j = [θ_j g(1−g) + (1−θ_j) h(1−h)] / (n (g−h)²) for a fixed dataset θ."""
        t = np.asarray(theta, dtype=float)
        g, h = self.g, self.h
        return (t * g * (1 - g) + (1 - t) * h * (1 - h)) / (n * (g - h) ** 2)

    def n_outputs(self) -> int:
        """How many outputs the channel has (``d`` for an oracle that reports an item)."""
        return self.d

    def output_labels(self) -> list:
        """Readable output labels, in the order of the channel's columns."""
        return list(range(self.d))

    def output_rank(self, reports):
        """Column index of each report (the identity for an oracle that reports an item)."""
        return np.asarray(reports, dtype=np.intp)

    def mechanism(self, inputs=None):
        """This oracle as a :class:`mechopt.Mechanism` that randomizes with the oracle's own sampler.

        See :func:`mechopt.oracles.mechanism.oracle_mechanism` (TooLargeError when
        the output set is too large to list).
        """
        from mechopt.oracles.mechanism import oracle_mechanism

        return oracle_mechanism(self, inputs)

    def l2_error(self, n: int, theta=None) -> float:
        """E‖θ̂ − θ‖² = [g(1−g) + (d−1) h(1−h)] / (n (g−h)²) (Section 3.3; θ-free)."""
        t = np.full(self.d, 1.0 / self.d) if theta is None else theta
        return float(self.variance(t, n).sum())


def _bounded(rng: np.random.Generator, highs: np.ndarray, n: int, offset: np.ndarray | None = None) -> np.ndarray:
    """(len(highs), n) integers, row s uniform on 0..highs[s]−1 exactly (highs ≤ 2^16), plus ``offset[col]``.

    Lemire's method on 16-bit raw draws: t = (u·s) >> 16, rejecting the
    (2^16 mod s) low products that would bias it; rejections (≤ s/2^16) are
    redrawn. ``offset`` (length n) is added in the same pass (flat indices).
    """
    s = np.asarray(highs, dtype=np.uint32)
    m = s.size
    off = np.zeros(n, dtype=np.intp) if offset is None else offset
    if n == 0 or m == 0:
        return np.zeros((m, n), dtype=np.intp)
    if s.max() > 1 << 16:
        return rng.integers(0, s.astype(np.int64)[:, None], size=(m, n)) + off
    prod = np.multiply(raw_uint16(rng, n * m).reshape(m, n), s[:, None], dtype=np.uint32)
    halves = prod.view(np.uint16).reshape(m, n, 2)  # little-endian: [low, high]
    if np.little_endian is False:  # pragma: no cover
        halves = halves[..., ::-1]
    out = np.add(halves[..., 1], off, dtype=np.intp)
    bad = halves[..., 0] < (((1 << 16) - s) % s).astype(np.uint16)[:, None]
    if bad.any():
        r, c = np.nonzero(bad)
        out[r, c] = rng.integers(0, s[r].astype(np.int64)) + off[c]
    return out


def _bincount(z: np.ndarray, d: int) -> np.ndarray:
    """Counts of the values 0..d−1 in ``z``, in cache-sized blocks (no full int64 copy)."""
    flat = np.ravel(z, order="K")  # no copy for C- or F-ordered report arrays
    out = np.zeros(d, dtype=np.int64)
    for lo in range(0, flat.size, 1 << 20):
        out += np.bincount(flat[lo : lo + (1 << 20)], minlength=d)[:d]
    return out


def packed_column_sums(packed: np.ndarray, d: int) -> np.ndarray:
    """Column sums of the bit matrix ``packbits`` encoded row-wise (big-endian bits), without unpacking.

    Examples
    --------
    >>> import numpy as np
    >>> B = np.array([[1, 0, 1], [1, 1, 0]], dtype=bool)
    >>> packed_column_sums(np.packbits(B, axis=1), 3).tolist()
    [2, 1, 1]
    """
    P = np.asarray(packed, dtype=np.uint8)
    bits_of = (np.arange(256)[:, None] >> (7 - np.arange(8))[None, :]) & 1  # (256, 8) big-endian
    hist = np.zeros((P.shape[1], 256), dtype=np.int64)
    for lo in range(0, P.shape[0], 1 << 16):  # a cache-sized block of rows, byte columns contiguous
        block = np.ascontiguousarray(P[lo : lo + (1 << 16)].T)
        for j in range(P.shape[1]):  # histogram of byte values per byte column
            hist[j] += np.bincount(block[j], minlength=256)
    return (hist @ bits_of).ravel()[:d]


def bernoulli(rng: np.random.Generator, size: int, prob: float) -> np.ndarray:
    """``size`` independent Bernoulli(prob) draws, using ~1 random byte each.

    U < prob is decided on the first byte of U's binary expansion unless it
    ties with prob's first byte (chance 1/256), then on the next byte, ... up
    to 8 bytes: P(True) = ⌊prob·2⁶⁴⌋/2⁶⁴ exactly.

    Examples
    --------
    >>> b = bernoulli(np.random.default_rng(0), 100_000, 0.3)
    >>> bool(abs(b.mean() - 0.3) < 0.005)
    True
    """
    if not 0.0 <= prob <= 1.0:
        raise ProblemError(f"prob must be in [0, 1], got {prob}")
    if prob >= 1.0:
        return np.ones(size, dtype=bool)
    qb = np.frombuffer(int(prob * 2.0**64).to_bytes(8, "big"), dtype=np.uint8)
    B = _raw_bytes(rng, size)
    out = B < qb[0]
    tie = np.flatnonzero(B == qb[0])
    level = 1
    while tie.size and level < 8:
        b = _raw_bytes(rng, tie.size)
        out[tie[b < qb[level]]] = True
        tie = tie[b == qb[level]]
        level += 1
    return out


def raw_words(rng: np.random.Generator, shape) -> np.ndarray:
    """Uniform 64-bit words: the BitGenerator's ``next_uint64``, one per word, in order.

    For PCG64, PCG64DXSM, Philox and SFC64 these are ``bit_generator.random_raw``'s words;
    for MT19937 (whose raw words hold 32 random bits) each is two of its 32-bit outputs.
    The compiled samplers draw the same words (:func:`mechopt.runtime.jit.next_uint64`).

    Examples
    --------
    >>> w = raw_words(np.random.default_rng(0), 3)
    >>> bool((w == np.random.default_rng(0).bit_generator.random_raw(3)).all())
    True
    """
    return rng.integers(0, 2**64, size=shape, dtype=np.uint64)


def _raw_bytes(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` uniform random bytes from :func:`raw_words`."""
    return raw_words(rng, (size + 7) // 8).view(np.uint8)[:size]


def raw_uint16(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` uniform 16-bit integers: the quarters of :func:`raw_words`, low first.

    Examples
    --------
    >>> u = raw_uint16(np.random.default_rng(0), 5)
    >>> u.dtype, u.shape
    (dtype('uint16'), (5,))
    """
    return raw_words(rng, (size + 3) // 4).view(np.uint16)[:size]
