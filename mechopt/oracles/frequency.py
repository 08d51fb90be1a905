"""Frequency oracles under ε-LDP: randomizers a deployment can run, and their estimators.

Every oracle here is *pure*: a report y "supports" a set of items, and the
support count f_j = #{i : j ∈ support(y_i)} has E f_j = n θ_j g + n (1 − θ_j) h
with hit rates g (the user's own item) and h (any other item). The unbiased
remapping estimator (Algorithm 2 of Wang et al., eq. (9)) is

    θ̂_j = (f_j − n h) / (n (g − h)),

with E‖θ̂ − θ‖² = Σ_j [θ_j g(1−g) + (1−θ_j) h(1−h)] / (n (g−h)²) for a fixed
dataset with empirical distribution θ.

- :class:`KSubset` — the k-subset mechanism (Definition 2.1, eq. (5)); its
  per-user randomizer is Algorithm 1, vectorised over users (item reports: the
  set bits of the packed reports for d ≤ 16 384 or k ≥ d/16, else Floyd's sampling
  done column-wise with a per-chunk bitmap, O(n·min(k, d−k)) work).
- :class:`GRR` — multivariate / generalised randomized response (eq. (6)).
- BRR and OUE (unary encodings) live in :mod:`mechopt.oracles.bits`.

Each oracle also has ``simulate_counts(hist, rng)``: a draw of the support
counts with exactly the distribution the n per-user reports induce, at a cost
independent of n (for experiments; the per-user ``randomize`` is what a
deployment runs).

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.frequency import KSubset
>>> ks = KSubset(d=8, eps=1.0)          # k defaults to the l2-optimal k# (Theorem 3.1)
>>> ks.k
2
>>> rng = np.random.default_rng(0)
>>> x = rng.integers(0, 8, size=50_000)
>>> z = ks.randomize(x, rng)            # one k-subset per user, shape (n, k)
>>> z.shape, bool(np.all(z[:, 0] != z[:, 1]))
((50000, 2), True)
>>> theta = np.bincount(x, minlength=8) / x.size
>>> est = ks.estimate(ks.support_counts(z), x.size)
>>> bool(np.sum((est - theta) ** 2) < 10 * ks.l2_error(x.size))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechopt.errors import ProblemError
from mechopt.mechanism.consistency import project_simplex
from mechopt.oracles.aggregate import subset_counts
from mechopt.oracles.base import (
    CHUNK,
    PureOracle,
    _check_d,
    _check_hist,
    _check_items,
    bernoulli,
    check_eps,
    packed_column_sums,
)
from mechopt.oracles.kernels import grr_shift
from mechopt.oracles.ksubset import KSubset, hit_rates_ksubset, ksubset_outputs, subset_rank
from mechopt.runtime.rng import RngLike, as_generator

GRR_BLOCK = 1 << 16  # users per vectorised block of GRR.randomize (changes speed, never reports)

__all__ = [
    "PureOracle",
    "KSubset",
    "GRR",
    "project_simplex",
    "regression_estimator",
    "subset_rank",
    "ksubset_outputs",
    "hit_rates_ksubset",
    "packed_column_sums",
    "bernoulli",
    "CHUNK",
]


@dataclass(frozen=True)
class GRR(PureOracle):
    """Generalised (multivariate) randomized response Q^m (eq. (6)): keep x with
    probability e^ε/(e^ε + d − 1), else report one of the other d − 1 items uniformly.

    Examples
    --------
    >>> import numpy as np
    >>> grr = GRR(d=4, eps=1.0)
    >>> y = grr.randomize(np.zeros(100_000, dtype=int), np.random.default_rng(0))
    >>> bool(abs(np.mean(y == 0) - grr.g) < 0.01)
    True
    """

    def __post_init__(self) -> None:
        object.__setattr__(self, "d", _check_d(self.d))
        object.__setattr__(self, "eps", check_eps(self.eps))

    @property
    def g(self) -> float:
        e = math.exp(self.eps)
        return e / (e + self.d - 1)

    @property
    def h(self) -> float:
        return 1.0 / (math.exp(self.eps) + self.d - 1)

    def randomize(self, x, rng: RngLike) -> np.ndarray:
        """One item per user: y = x + s mod d with the shift s = 0 w.p. g and s = j w.p. h (j = 1..d−1).

        Report i uses exactly the i-th double u_i of ``rng.random`` (as
        :class:`mechopt.Mechanism` does): s = min(⌊u_i/h⌋, d − 1) + 1 mod d, so
        u_i < (d−1)h moves the item and the top g of [0, 1) keeps it. The law is
        exact up to the 2⁻⁵³ resolution of u; the reports depend only on the
        seed, not on how the users are cut into calls. Vectorised in blocks of
        :data:`GRR_BLOCK` users (cache-resident buffers), in the narrowest integer
        type that holds the items; with numba (``mechopt[fast]``) each block is one
        compiled pass (:func:`mechopt.oracles.kernels.grr_shift`), same reports.
        """
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        x = _check_items(x, self.d)
        d, n = self.d, x.size
        dt = np.int16 if 2 * d <= 32767 else np.int64  # x + s + 1 < 2d must fit
        out = np.empty(n, dtype=dt)
        step = min(GRR_BLOCK, max(n, 1))
        u, s = np.empty(step), np.empty(step, dtype=dt)
        inv_h = math.exp(self.eps) + d - 1  # 1/h
        fast = grr_shift.compiled()
        for lo in range(0, n, step):
            m = min(step, n - lo)
            um, sm, y = u[:m], s[:m], out[lo : lo + m]
            rng.random(out=um)
            if fast is not None:  # the same arithmetic in one compiled pass
                fast(x[lo : lo + m], um, inv_h, d, y)
                continue
            um *= inv_h
            np.minimum(um, d - 1, out=um)  # before the cast: u/h can exceed any integer type at large eps
            sm[:] = um  # ⌊u/h⌋ (truncation of a non-negative double)
            np.add(x[lo : lo + m], sm, out=y, casting="unsafe")
            y += 1
            np.remainder(y, d, out=y)
        return out

    def support_counts(self, reports) -> np.ndarray:
        return np.bincount(np.asarray(reports).ravel(), minlength=self.d).astype(np.int64)

    def simulate_counts(self, hist, rng: RngLike) -> np.ndarray:
        """Exact draw of the report histogram: GRR is the k-subset law with k = 1 (stayers, then movers
        spread over the others by :func:`mechopt.oracles.aggregate.subset_counts`); memory O(d), not O(d²)."""
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        return subset_counts(_check_hist(hist, self.d), 1, self.g, rng)

    def matrix(self) -> np.ndarray:
        """Q^m of eq. (6) (d × d)."""
        Q = np.full((self.d, self.d), self.h)
        np.fill_diagonal(Q, self.g)
        return Q


def regression_estimator(Q, output_counts, n: int | None = None) -> np.ndarray:
    """Least-squares estimate θ̂ = (QQᵀ)⁻¹ Q f / n from output frequencies (Section 3.2).

    Unbiased for any Q of full row rank: E f/n = Qᵀθ and (QQᵀ)⁻¹QQᵀ = I.

    Examples
    --------
    >>> import numpy as np
    >>> Q = GRR(3, 1.0).matrix()
    >>> np.round(regression_estimator(Q, Q.T @ np.array([0.2, 0.3, 0.5]), 1), 12)
    array([0.2, 0.3, 0.5])
    """
    Q = np.asarray(Q, dtype=float)
    f = np.asarray(output_counts, dtype=float)
    G = Q @ Q.T
    if np.linalg.matrix_rank(G) < Q.shape[0]:
        raise ProblemError("the regression estimator needs Q of full row rank")
    total = f.sum(axis=-1, keepdims=True) if n is None else n
    return np.linalg.solve(G, Q @ (f / total).T).T
