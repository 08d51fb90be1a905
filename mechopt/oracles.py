"""Frequency oracles under ε-LDP: randomizers a deployment can run, and their estimators.

Every oracle here is *pure*: a report y "supports" a set of items, and the
support count f_j = #{i : j ∈ support(y_i)} has E f_j = n θ_j g + n (1 − θ_j) h
with hit rates g (the user's own item) and h (any other item). The unbiased
remapping estimator (Algorithm 2 of Wang et al., eq. (9)) is

    θ̂_j = (f_j − n h) / (n (g − h)),

with E‖θ̂ − θ‖² = Σ_j [θ_j g(1−g) + (1−θ_j) h(1−h)] / (n (g−h)²) for a fixed
dataset with empirical distribution θ.

- :class:`KSubset` — the k-subset mechanism (Definition 2.1, eq. (5)); its
  per-user randomizer is Algorithm 1, vectorised over users (Floyd's sampling
  done column-wise with a per-chunk bitmap, O(n·min(k, d−k)) work).
- :class:`GRR` — multivariate / generalised randomized response (eq. (6)).
- BRR and OUE (unary encodings) live in :mod:`mechopt.oracles_bits`.

Each oracle also has ``simulate_counts(hist, rng)``: a draw of the support
counts with exactly the distribution the n per-user reports induce, at a cost
independent of n (for experiments; the per-user ``randomize`` is what a
deployment runs).

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles import KSubset
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
from dataclasses import dataclass, field

import numpy as np

from .errors import ProblemError
from .notions.base import check_eps

__all__ = ["PureOracle", "KSubset", "GRR", "project_simplex", "regression_estimator",
           "subset_rank", "ksubset_outputs", "hit_rates_ksubset", "packed_column_sums", "bernoulli", "CHUNK"]

CHUNK = 1 << 16     # users per vectorised block (bounds memory at CHUNK·d bytes)


def _check_d(d) -> int:
    try:
        val = int(d)
    except (TypeError, ValueError):
        raise ProblemError(f"d must be an integer ≥ 2, got {d!r}") from None
    if val != d or val < 2:
        raise ProblemError(f"d must be an integer ≥ 2, got {d!r}")
    return val


def _check_items(x, d: int) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise ProblemError("x must be a 1-D integer array of items in 0..d-1")
    if arr.size and (arr.min() < 0 or arr.max() >= d):
        raise ProblemError(f"items must lie in 0..{d - 1}; got range [{arr.min()}, {arr.max()}]")
    return arr.astype(np.int64, copy=False)


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

    def l2_error(self, n: int, theta=None) -> float:
        """E‖θ̂ − θ‖² = [g(1−g) + (d−1) h(1−h)] / (n (g−h)²) (Section 3.3; θ-free)."""
        t = np.full(self.d, 1.0 / self.d) if theta is None else theta
        return float(self.variance(t, n).sum())


def hit_rates_ksubset(d: int, k: int, eps: float) -> tuple[float, float]:
    """(g_k, h_k) of the k-subset mechanism (Section 3.2).

    g_k = k e^ε / (k e^ε + d − k),
    h_k = g_k (k−1)/(d−1) + (d−k)/(k e^ε + d − k) · k/(d−1).

    Examples
    --------
    >>> g, h = hit_rates_ksubset(4, 1, 1.0)     # k = 1 is randomized response
    >>> round(g, 6), round(h, 6)
    (0.475367, 0.174878)
    """
    e = math.exp(eps)
    den = k * e + d - k
    g = k * e / den
    h = g * (k - 1) / (d - 1) + (d - k) / den * k / (d - 1)
    return g, h


def _k_sharp(d: int, eps: float) -> int:
    """Theorem 3.1: the better of ⌊d/(1+e^ε)⌋, ⌈d/(1+e^ε)⌉ (clamped to 1..d−1)."""
    r = d / (1.0 + math.exp(eps))
    cands = sorted({min(max(c, 1), d - 1) for c in (math.floor(r), math.ceil(r))})

    def err(k: int) -> float:
        g, h = hit_rates_ksubset(d, k, eps)
        return (g * (1 - g) + (d - 1) * h * (1 - h)) / (g - h) ** 2
    return min(cands, key=err)


@dataclass(frozen=True)
class KSubset(PureOracle):
    """The k-subset mechanism Q^k (Definition 2.1): report a size-k subset Z with
    Q^k(Z | x) ∝ e^ε if x ∈ Z, 1 otherwise.

    Parameters
    ----------
    d : int
        Domain size (items 0..d−1).
    eps : float
        Privacy level; the mechanism is exactly ε-LDP for 1 ≤ k ≤ d−1.
    k : int, optional
        Subset size; default the squared-ℓ2-optimal k# of Theorem 3.1.

    Examples
    --------
    >>> import numpy as np
    >>> ks = KSubset(d=5, eps=0.5, k=2)
    >>> z = ks.randomize(np.array([0, 4, 4]), np.random.default_rng(1))
    >>> z.shape, z.dtype.kind
    ((3, 2), 'i')
    """

    k: int | None = field(default=None)

    def __post_init__(self) -> None:
        d = _check_d(self.d)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "eps", check_eps(self.eps))
        k = _k_sharp(d, self.eps) if self.k is None else self.k
        if int(k) != k or not 1 <= int(k) <= d - 1:
            raise ProblemError(f"k must be an integer in 1..{d - 1} (k = 0 or d carries no information), got {k!r}")
        object.__setattr__(self, "k", int(k))

    @property
    def g(self) -> float:
        return hit_rates_ksubset(self.d, self.k, self.eps)[0]

    @property
    def h(self) -> float:
        return hit_rates_ksubset(self.d, self.k, self.eps)[1]

    # per-user randomizer (Algorithm 1) ------------------------------------
    def randomize(self, x, rng: np.random.Generator, *, packed: bool = False) -> np.ndarray:
        """Algorithm 1 for every user at once.

        Returns an (n, k) array of the k distinct items of each report (sorted
        within a row), or with ``packed=True`` the reports as d-bit masks,
        ``numpy.packbits`` rows of shape (n, ⌈d/8⌉) (what a client would send
        when k log d > d).

        With probability g_k the user's item is in the report together with a
        uniform (k−1)-subset of the other d−1 items, else a uniform k-subset of
        the others. Implementation, per block of users: Floyd's algorithm
        draws a uniform m-subset S of the d−1 others column-wise (one
        vectorised step per element, a bitmap for the membership test; exact
        bounded integers by Lemire's multiply-and-reject on 16-bit draws);
        removing a uniformly chosen element of S leaves a uniform
        (m−1)-subset. For 2k ≤ d−1, m = k and S (or S minus one element, plus
        x) is the report; otherwise m = d−k complements it. Work O(n·min(k, d−k)).
        """
        x = _check_items(x, self.d)
        width = (self.d + 7) // 8
        dt = np.int32 if self.d > 32767 else np.int16
        out = np.empty((x.size, width if packed else self.k), dtype=np.uint8 if packed else dt)
        for lo in range(0, x.size, CHUNK):
            xs = x[lo:lo + CHUNK]
            items = self._chunk_items(xs, rng)                # (k, n)
            if packed:
                bits = np.zeros((xs.size, self.d), dtype=bool)
                bits[np.arange(xs.size)[None, :], items] = True
                out[lo:lo + xs.size] = np.packbits(bits, axis=1)
            else:
                out[lo:lo + xs.size] = items.T
        return out

    def _chunk_items(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The reports of users holding ``x`` as a (k, n) array of items."""
        n, k, N = x.size, self.k, self.d - 1
        inc = rng.random(n) < self.g
        if 2 * k <= N:                                      # sample the report directly
            T = _floyd(n, N, k, rng)
            T += T >= x.astype(T.dtype)                     # others-index → item
            rows = np.nonzero(inc)[0]
            T[_bounded(rng, np.full(1, k), rows.size)[0], rows] = x[rows]
            return T
        S = _floyd(n, N, N - k + 1, rng)                    # complement, one too many
        keep = np.ones((n, N), dtype=bool)
        keep[np.arange(n)[None, :], S] = False
        rows = np.nonzero(~inc)[0]                          # they keep one more other item
        keep[rows, S[_bounded(rng, np.full(1, N - k + 1), rows.size)[0], rows]] = True
        others = np.nonzero(keep)[1]
        cnt = keep.sum(axis=1)
        out = np.empty((k, n), dtype=np.int64)
        o = others + (others >= np.repeat(x, cnt))
        starts = np.concatenate(([0], np.cumsum(cnt)[:-1]))
        slot = np.arange(o.size) - np.repeat(starts, cnt)
        out[slot, np.repeat(np.arange(n), cnt)] = o
        r_in = np.nonzero(inc)[0]
        out[k - 1, r_in] = x[r_in]
        return out

    def support_counts(self, reports) -> np.ndarray:
        """f_j = number of reports containing item j (Algorithm 2, lines 1–6).

        ``reports`` is what :meth:`randomize` returns: (n, k) items, or uint8 packed masks.
        """
        z = np.asarray(reports)
        if z.ndim == 2 and z.dtype == np.uint8 and z.shape[1] == (self.d + 7) // 8:
            return packed_column_sums(z, self.d)       # packed masks (item arrays are never uint8)
        if z.ndim != 2 or z.shape[1] != self.k:
            raise ProblemError(f"reports must be an (n, {self.k}) array of k-subsets or packed d-bit masks")
        return _bincount(z, self.d)

    # aggregate simulation ----------------------------------------------------
    def simulate_counts(self, hist, rng: np.random.Generator) -> np.ndarray:
        """Draw the support counts of ``hist[x]`` users holding item x, exactly.

        Users holding x first include x with probability g_k (a binomial);
        each then still needs j ∈ {k−1, k} of the d−1 other items. Scanning the
        others in turn, a user needing j of the R remaining items takes the next
        one with probability j/R (sequential selection sampling), so the number
        of takers in each (x, j) group is binomial. O(d²k) binomial draws,
        independent of the number of users.
        """
        hist = _check_hist(hist, self.d)
        d, k, N = self.d, self.k, self.d - 1
        inc = rng.binomial(hist, self.g)
        f = inc.astype(np.int64)
        state = np.zeros((d, k + 1), dtype=np.int64)
        state[:, k - 1] += inc
        state[:, k] += hist - inc
        need = np.arange(k + 1, dtype=float)
        xs = np.arange(d)
        for s in range(N):
            picks = rng.binomial(state, np.minimum(need / (N - s), 1.0))
            state -= picks
            state[:, :-1] += picks[:, 1:]
            np.add.at(f, s + (s >= xs), picks.sum(axis=1))
        return f

    # materialised channel ---------------------------------------------------
    def matrix(self) -> np.ndarray:
        """The channel Q^k (eq. (5)) over the C(d, k) subsets in colex order (see :func:`ksubset_outputs`)."""
        Z = ksubset_outputs(self.d, self.k)
        member = np.zeros((self.d, Z.shape[0]), dtype=bool)
        member[Z.T, np.arange(Z.shape[0])[None, :]] = True
        e = math.exp(self.eps)
        den = (self.k * e + self.d - self.k) * math.comb(self.d, self.k) / self.d
        return np.where(member, e, 1.0) / den


def _bounded(rng: np.random.Generator, highs: np.ndarray, n: int) -> np.ndarray:
    """(len(highs), n) integers, row s uniform on 0..highs[s]−1 exactly (highs ≤ 2^16).

    Lemire's method on 16-bit raw draws: t = (u·s) >> 16, rejecting the
    (2^16 mod s) low products that would bias it; rejections (≤ s/2^16) are redrawn.
    """
    s = np.asarray(highs, dtype=np.uint32)
    m = s.size
    if n == 0 or m == 0:
        return np.zeros((m, n), dtype=np.int64)
    if s.max() > 1 << 16:
        return rng.integers(0, s.astype(np.int64)[:, None], size=(m, n))
    raw = rng.bit_generator.random_raw((n * m + 3) // 4)
    prod = np.multiply(raw.view(np.uint16)[:n * m].reshape(m, n), s[:, None], dtype=np.uint32)
    halves = prod.view(np.uint16).reshape(m, n, 2)        # little-endian: [low, high]
    if np.little_endian is False:                         # pragma: no cover
        halves = halves[..., ::-1]
    out = halves[..., 1].astype(np.int64)
    bad = halves[..., 0] < (((1 << 16) - s) % s).astype(np.uint16)[:, None]
    if bad.any():
        r, c = np.nonzero(bad)
        out[r, c] = rng.integers(0, s[r].astype(np.int64))
    return out


def _floyd(n: int, N: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """n independent uniform m-subsets of {0..N−1} as an (m, n) intp array.

    Floyd's algorithm, vectorised over users: for j = N−m..N−1 draw
    t ∈ [0, j]; take t unless already taken, else take j. One step per j over a
    flat (n·N) bitmap; O(n·m) work.
    """
    flat = np.zeros(n * N, dtype=bool)
    base = np.arange(n, dtype=np.intp) * N
    highs = np.arange(N - m, N)
    T = np.add(_bounded(rng, highs + 1, n), base, dtype=base.dtype)   # (m, n) flat indices
    bj = base + (N - m)                                  # flat index of j for every user
    hit = np.empty(n, dtype=bool)
    for s in range(m):
        t = T[s]
        np.take(flat, t, out=hit)                        # already taken?
        np.copyto(t, bj, where=hit)                      # then take j instead (in place in T)
        flat[t] = True
        bj += 1
    T -= base
    return T


def _bincount(z: np.ndarray, d: int) -> np.ndarray:
    """Counts of the values 0..d−1 in ``z``, in cache-sized blocks (no full int64 copy)."""
    flat = z.reshape(-1)
    out = np.zeros(d, dtype=np.int64)
    for lo in range(0, flat.size, 1 << 20):
        out += np.bincount(flat[lo:lo + (1 << 20)], minlength=d)[:d]
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
    bits_of = (np.arange(256)[:, None] >> (7 - np.arange(8))[None, :]) & 1      # (256, 8) big-endian
    out = np.zeros(P.shape[1] * 8, dtype=np.int64)
    for j in range(P.shape[1]):                         # histogram of byte values per byte column
        out[8 * j:8 * j + 8] = np.bincount(P[:, j], minlength=256) @ bits_of
    return out[:d]


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

    def randomize(self, x, rng: np.random.Generator) -> np.ndarray:
        """One item per user: x with probability g, else x + U mod d with U uniform on 1..d−1.

        Vectorised: one exact Bernoulli(g) (:func:`bernoulli`) and one bounded
        integer (numpy's exact Lemire sampler) per user, in the narrowest integer
        type that holds the items; O(n).
        """
        x = _check_items(x, self.d)
        dt = np.int16 if self.d <= 32767 else np.int64
        xs = x.astype(dt)
        keep = bernoulli(rng, x.size, self.g)
        y = xs + rng.integers(1, self.d, size=x.size, dtype=dt)
        y[y >= self.d] -= self.d
        x = xs
        return np.where(keep, x, y)

    def support_counts(self, reports) -> np.ndarray:
        return np.bincount(np.asarray(reports).ravel(), minlength=self.d).astype(np.int64)

    def simulate_counts(self, hist, rng: np.random.Generator) -> np.ndarray:
        """Exact draw of the report histogram: stayers binomial, movers multinomial over the others."""
        hist = _check_hist(hist, self.d)
        d = self.d
        stay = rng.binomial(hist, self.g)
        moved = rng.multinomial(hist - stay, np.full(d - 1, 1.0 / (d - 1)))     # (d, d-1)
        f = stay.astype(np.int64)
        cols = (np.arange(d)[:, None] + np.arange(1, d)[None, :]) % d
        np.add.at(f, cols.ravel(), moved.ravel())
        return f

    def matrix(self) -> np.ndarray:
        """Q^m of eq. (6) (d × d)."""
        Q = np.full((self.d, self.d), self.h)
        np.fill_diagonal(Q, self.g)
        return Q


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
    qb = np.frombuffer(int(prob * 2.0 ** 64).to_bytes(8, "big"), dtype=np.uint8)
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


def _raw_bytes(rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` uniform random bytes from the generator's raw 64-bit stream."""
    return rng.bit_generator.random_raw((size + 7) // 8).view(np.uint8)[:size]


def project_simplex(v) -> np.ndarray:
    """Euclidean projection of each row of ``v`` onto the probability simplex.

    argmin_{p ≥ 0, Σp = 1} ‖p − v‖₂ = max(v − τ, 0) with τ from the sorted
    prefix sums (Wang & Carreira-Perpiñán 2013; Duchi et al. 2008), vectorised
    over rows: O(r · d log d).

    Examples
    --------
    >>> project_simplex([0.5, 0.8, -0.1])
    array([0.35, 0.65, 0.  ])
    """
    V = np.atleast_2d(np.asarray(v, dtype=float))
    d = V.shape[1]
    U = -np.sort(-V, axis=1)
    css = np.cumsum(U, axis=1) - 1.0
    ind = np.arange(1, d + 1)
    cond = U - css / ind > 0
    rho = d - 1 - np.argmax(cond[:, ::-1], axis=1)
    tau = css[np.arange(V.shape[0]), rho] / (rho + 1)
    P = np.maximum(V - tau[:, None], 0.0)
    return P[0] if np.ndim(v) == 1 else P


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


def ksubset_outputs(d: int, k: int) -> np.ndarray:
    """All k-subsets of 0..d−1 as rows (sorted entries), in colex order: row r has rank r.

    Examples
    --------
    >>> ksubset_outputs(4, 2).tolist()
    [[0, 1], [0, 2], [1, 2], [0, 3], [1, 3], [2, 3]]
    """
    from itertools import combinations

    if math.comb(d, k) > 5_000_000:
        raise ProblemError(f"C({d}, {k}) subsets are too many to materialise; use the remapping estimator")
    Z = np.array(list(combinations(range(d), k)), dtype=np.int64).reshape(-1, k)
    return Z[np.argsort(subset_rank(Z), kind="stable")]


def subset_rank(Z) -> np.ndarray:
    """Colex rank Σ_i C(z_(i), i+1) of each row (a k-subset; any order within the row).

    Examples
    --------
    >>> subset_rank([[2, 0], [3, 1]]).tolist()
    [1, 4]
    """
    S = np.sort(np.atleast_2d(np.asarray(Z, dtype=np.int64)), axis=1)
    k = S.shape[1]
    top = int(S.max()) + 1 if S.size else 1
    table = np.array([[math.comb(c, i + 1) for i in range(k)] for c in range(top)], dtype=np.int64).reshape(top, k)
    return table[S, np.arange(k)[None, :]].sum(axis=1)
