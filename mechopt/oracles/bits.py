"""Unary-encoding frequency oracles: binary randomized response (BRR) and optimised unary encoding (OUE).

The user's item x becomes the one-hot vector e_x ∈ {0,1}^d and every bit is
reported independently: bit x is 1 with probability p, every other bit is 1
with probability q. Under ε-LDP the channel ratio is p(1−q)/(q(1−p)) ≤ e^ε.

- BRR (the paper's eq. (7), symmetric unary encoding / basic RAPPOR): each
  bit flipped with probability 1/(e^{ε/2} + 1): p = e^{ε/2}/(e^{ε/2}+1), q = 1 − p.
- OUE (Wang et al. 2017, "Locally differentially private protocols for
  frequency estimation"): p = 1/2, q = 1/(e^ε + 1).

Both are pure oracles (see :mod:`mechopt.oracles.frequency`) with g = p and h = q.
Reports are packed bit rows (``numpy.packbits``, (n, ⌈d/8⌉) uint8), drawn a
byte at a time from the law of 8 i.i.d. bits (:func:`mechopt.oracles.packed.bernoulli_rows`,
exact up to the float rounding of q^j (1−q)^(8−j)); the own bit is then
replaced by its own Bern(p) draw (one raw bit when p = 1/2, else :func:`bernoulli`, exact to 2⁻⁶⁴).

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.bits import BRR, OUE
>>> brr = BRR(d=6, eps=1.0)
>>> rng = np.random.default_rng(0)
>>> x = rng.integers(0, 6, size=20_000)
>>> rep = brr.randomize(x, rng)
>>> rep.shape, rep.dtype
((20000, 1), dtype('uint8'))
>>> est = brr.estimate(brr.support_counts(rep), x.size)
>>> bool(abs(est.sum() - 1) < 0.2)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechopt.errors import ProblemError, TooLargeError
from mechopt.oracles.base import (
    PureOracle,
    _check_d,
    _check_hist,
    _check_items,
    bernoulli,
    check_eps,
    packed_column_sums,
    raw_words,
)
from mechopt.oracles.packed import bernoulli_rows
from mechopt.runtime.rng import RngLike, as_generator

__all__ = ["UnaryEncoding", "BRR", "OUE", "MAX_MATERIALISE_BITS", "bernoulli"]

MAX_MATERIALISE_BITS = 16  # 2^d outputs are materialised up to this d


@dataclass(frozen=True)
class UnaryEncoding(PureOracle):
    """Unary encoding with P(bit x = 1) = p and P(bit j = 1) = q for j ≠ x."""

    def n_outputs(self) -> int:
        """2^d outputs: every bit vector."""
        return 2**self.d

    def output_labels(self) -> list:
        """Bit strings of length d, in column order."""
        return [format(y, f"0{self.d}b") for y in range(2**self.d)]

    def output_rank(self, reports):
        """Column index of each report (its bit vector read as a number)."""
        return self.output_index(reports, self.d)

    p: float = 0.5
    q: float = 0.25

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", _check_d(self.d))
        object.__setattr__(self, "eps", check_eps(self.eps))
        if not 0 < self.q < self.p < 1:
            raise ProblemError(f"need 0 < q < p < 1, got p={self.p}, q={self.q}")

    @property
    def g(self) -> float:
        return float(self.p)

    @property
    def h(self) -> float:
        return float(self.q)

    def randomize(self, x, rng: RngLike) -> np.ndarray:
        """Per-user reports: packed rows of d independent bits (bit x ~ Bern(p), others ~ Bern(q)).

        First the n own bits are drawn (:meth:`own_draws`: one raw random bit
        per user when p = 1/2 (OUE), else :func:`bernoulli`, exact to 2⁻⁶⁴), then
        the rows i.i.d. Bern(q) (:func:`bernoulli_rows`), whose bit x of each row
        is then replaced by the user's own bit. With numba (``mechopt[fast]``)
        the rows and own bits are compiled passes over the same draws: the same
        reports either way. An item outside 0..d−1 raises
        :class:`~mechopt.errors.ProblemError` once the own bits are drawn (the items are
        checked where the own bits are set, so they are read from memory once): the
        generator has then advanced past the own bits' draws only, on either path.
        """
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        x = _check_items(x, self.d, values=False)  # the range: by bernoulli_rows (compiled: per block, x read once)
        bits = self.own_draws(x.size, rng)
        return bernoulli_rows(rng, x.size, self.d, self.q, own=(x, bits))

    def own_draws(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """The n users' Bern(p) own bits, packed little-endian (bit i of the array is user i's).

        p = 1/2: the first n bits of ⌈n/64⌉ 64-bit words (:func:`~mechopt.oracles.base.raw_words`);
        else :func:`bernoulli`, packed.

        >>> OUE(4, 1.0).own_draws(10, np.random.default_rng(0)).shape
        (2,)
        """
        if self.p == 0.5:
            return raw_words(rng, (n + 63) // 64).view(np.uint8)[: (n + 7) // 8]
        return np.packbits(bernoulli(rng, n, self.p), bitorder="little")

    def support_counts(self, reports) -> np.ndarray:
        """f_j = number of reports with bit j set (packed rows, no unpacking)."""
        z = np.asarray(reports)
        if z.ndim != 2 or z.dtype != np.uint8 or z.shape[1] != (self.d + 7) // 8:
            raise ProblemError(f"reports must be packed bit rows of shape (n, {(self.d + 7) // 8}) uint8")
        return packed_column_sums(z, self.d)

    def simulate_counts(self, hist, rng: RngLike) -> np.ndarray:
        """Exact draw of the support counts: f_j = Bin(n_j, p) + Bin(n − n_j, q), independent over j."""
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        hist = _check_hist(hist, self.d)
        n = int(hist.sum())
        return (rng.binomial(hist, self.p) + rng.binomial(n - hist, self.q)).astype(np.int64)

    def matrix(self) -> np.ndarray:
        """The channel over the 2^d bit vectors, output index y = Σ_j b_j 2^(d−1−j) (``packbits`` order); d ≤ 16.

        Q[x, y] = p^{b_x} (1−p)^{1−b_x} Π_{j≠x} q^{b_j} (1−q)^{1−b_j}  (eq. (7) for BRR).
        """
        d = self.d
        if d > MAX_MATERIALISE_BITS:
            raise TooLargeError(f"2^{d} outputs are too many to materialise; d ≤ {MAX_MATERIALISE_BITS}")
        Y = (np.arange(2**d)[:, None] >> (d - 1 - np.arange(d))[None, :]) & 1  # (2^d, d) bits
        own = np.where(Y.T == 1, self.p, 1 - self.p)  # (d, 2^d): bit x of y
        oth = np.where(Y == 1, self.q, 1 - self.q)  # (2^d, d)
        logs = np.log(oth).sum(axis=1)[None, :] - np.log(np.where(Y.T == 1, self.q, 1 - self.q))
        return own * np.exp(logs)

    @staticmethod
    def output_index(packed: np.ndarray, d: int) -> np.ndarray:
        """Index of each packed report among the 2^d outputs of :meth:`matrix`."""
        bits = np.unpackbits(np.asarray(packed, dtype=np.uint8), axis=1, count=d)
        return bits.astype(np.int64) @ (1 << (d - 1 - np.arange(d)))


def BRR(d: int, eps: float) -> UnaryEncoding:
    """Binary randomized response Q^b (eq. (7)): flip each bit w.p. 1/(e^{ε/2}+1).

    Examples
    --------
    >>> round(BRR(4, 2.0).p, 6)
    0.731059
    """
    e = math.exp(check_eps(eps) / 2)
    return UnaryEncoding(d=d, eps=eps, p=e / (e + 1), q=1 / (e + 1))


def OUE(d: int, eps: float) -> UnaryEncoding:
    """Optimised unary encoding: p = 1/2, q = 1/(e^ε + 1).

    Examples
    --------
    >>> round(OUE(4, math.log(3)).q, 12)
    0.25
    """
    return UnaryEncoding(d=d, eps=eps, p=0.5, q=1 / (math.exp(check_eps(eps)) + 1))
