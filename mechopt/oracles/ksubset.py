"""The k-subset mechanism (Definition 2.1, eq. (5)) as a frequency oracle: Algorithm 1 vectorised.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.ksubset import KSubset
>>> KSubset(d=16, eps=1.0).k          # the l2-optimal k# of Theorem 3.1
4
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mechopt.errors import ProblemError, TooLargeError
from mechopt.oracles.aggregate import subset_counts
from mechopt.oracles.base import (
    CHUNK,
    PureOracle,
    _bincount,
    _bounded,
    _check_d,
    _check_hist,
    _check_items,
    check_eps,
    packed_column_sums,
)
from mechopt.oracles.mask_items import ITEMS_BLOCK, own_subset_items
from mechopt.oracles.small_ksubset import SMALL_D, own_subset_words
from mechopt.oracles.subset_masks import own_subset_masks
from mechopt.runtime.rng import RngLike, as_generator

ITEMS_BITMAP_MAX = 1 << 32  # bytes of one block's membership bitmap or masks in item reports (d = 3.3e6: 3.4 GB)
ITEMS_MASKS_D = 1 << 14  # item reports read off packed masks up to this d (a block of masks: 128 MiB), or k ≥ d/16

__all__ = ["KSubset", "hit_rates_ksubset", "items_from_masks", "ksubset_outputs", "subset_rank"]


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
    if math.isinf(den):  # k·e^ε overflows (ε near its cap, k ≳ 1.8e308/e^ε): the same rates, divided through by k·e^ε
        r = (d - k) / k / e
        g = 1 / (1 + r)
        return g, g * (k - 1) / (d - 1) + r * g * k / (d - 1)
    g = k * e / den
    h = g * (k - 1) / (d - 1) + (d - k) / den * k / (d - 1)
    return g, h


def items_from_masks(d: int, k: int) -> bool:
    """Whether k-subset item reports are the set bits of the packed reports (else Floyd's sampler draws them).

    True for d ≤ :data:`ITEMS_MASKS_D` or k ≥ d/16 (a block's d-bit masks then take no more memory
    than its int16 items). Measured (CPU time per user, load ~4.7 on 2 shared cores, branch items-fast):
    masks 1.1–86× faster than Floyd for 2 ≤ k ≤ d/2 at d = 64..65 536 (most at k near d/2, where
    Floyd draws d − k), within noise at k = 1 (0.6–1.6×); Floyd stays for d ≫ k (the literature's
    K = 3.3·10⁶, k = 22 086), where a block of 2¹⁶ masks would take 27 GB.

    Examples
    --------
    >>> items_from_masks(1024, 275), items_from_masks(3_300_000, 22_086)
    (True, False)
    """
    return d <= ITEMS_MASKS_D or d <= 16 * k


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

    def n_outputs(self) -> int:
        """C(d, k) outputs: every k-subset."""
        return math.comb(self.d, self.k)

    def output_labels(self) -> list:
        """Item tuples of the k-subsets, in column (lexicographic) order."""
        return [tuple(int(v) for v in z) for z in ksubset_outputs(self.d, self.k)]

    def output_rank(self, reports):
        """Column index of each report (the lexicographic rank of its subset)."""
        return subset_rank(reports)

    k: int | None = field(default=None)

    def __post_init__(self) -> None:
        d = _check_d(self.d)
        object.__setattr__(self, "d", d)
        object.__setattr__(self, "eps", check_eps(self.eps))
        k = _k_sharp(d, self.eps) if self.k is None else self.k
        if isinstance(k, bool) or int(k) != k or not 1 <= int(k) <= d - 1:
            raise ProblemError(f"k must be an integer in 1..{d - 1} (k = 0 or d carries no information), got {k!r}")
        object.__setattr__(self, "k", int(k))

    @property
    def g(self) -> float:
        return hit_rates_ksubset(self.d, self.k, self.eps)[0]

    @property
    def h(self) -> float:
        return hit_rates_ksubset(self.d, self.k, self.eps)[1]

    # per-user randomizer (Algorithm 1) ------------------------------------
    def randomize(self, x, rng: RngLike, *, packed: bool = False) -> np.ndarray:
        """Algorithm 1 for every user at once.

        Returns an (n, k) array of the k distinct items of each report (int16, int32 for
        d > 32767), or with ``packed=True`` the reports as d-bit masks,
        ``numpy.packbits`` rows of shape (n, ⌈d/8⌉) (what a client would send
        when k log d > d).

        With probability g_k the user's item is in the report together with a
        uniform (k−1)-subset of the other d−1 items, else a uniform k-subset of
        the others. Item reports, when :func:`items_from_masks` (d ≤ 16 384 or k ≥ d/16):
        the packed reports of the same generator, each row's set bits in increasing order
        (:func:`mechopt.oracles.mask_items.own_subset_items`, per block of 2¹⁶ users: the same
        reports whatever the block), so ``randomize(x, rng)`` is then the positions of the set
        bits of ``randomize(x, rng, packed=True)``. Otherwise (d ≫ k), in no particular
        order within a row, per block of users: Floyd's algorithm
        draws a uniform m-subset S of the d−1 others column-wise (one
        vectorised step per element, a bitmap for the membership test; exact
        bounded integers by Lemire's multiply-and-reject on 16-bit draws);
        removing a uniformly chosen element of S leaves a uniform
        (m−1)-subset. For 2k ≤ d−1, m = k and S (or S minus one element, plus
        x) is the report; otherwise m = d−k complements it. Work O(n·min(k, d−k)).

        Packed reports: for d ≤ 16 a report is one 16-bit word, one look-up
        per user in an exact integer alias table of Q^k(· | x) (P(x ∈ Z) = ⌊g·2⁶⁴⌋/2⁶⁴,
        each subset to 2^−(64+K); :func:`mechopt.oracles.small_ksubset.own_subset_words`);
        larger d start from i.i.d. dyadic Bernoulli bits and fix the count up by rejection
        (:func:`mechopt.oracles.subset_masks.own_subset_masks`, O(n·d/64) words plus
        O(n·√d) tries, compiled kernels when numba is installed, identical numbers without).
        """
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        # packed d ≤ 16: own_subset_words checks the range itself (compiled: per block, x read once)
        x = _check_items(x, self.d, values=not (packed and self.d <= SMALL_D))
        if packed:
            return self._packed(x, rng)
        if items_from_masks(self.d, self.k):  # the packed reports' set bits, ascending
            width = min(x.size, ITEMS_BLOCK) * (-(-self.d // 64)) * 8
            if width > ITEMS_BITMAP_MAX:
                raise TooLargeError(
                    f"k-subset item reports at d = {self.d} read {min(x.size, ITEMS_BLOCK)} d-bit masks "
                    f"({width / 2**30:.3g} GiB) per block of users, above {ITEMS_BITMAP_MAX / 2**30:.0f} GiB: "
                    f"randomize at most {ITEMS_BITMAP_MAX // (width // min(x.size, ITEMS_BLOCK))} users "
                    "per call, draw the aggregate counts with simulate_counts, or use fewer categories"
                )
            return own_subset_items(rng, x, self.d, self.k, self.g)
        dt = np.int32 if self.d > 32767 else np.int16
        step = max(1024, min(CHUNK, (1 << 21) // self.d))  # keep the block's bitmap cache-sized (~2 MB)
        if step * self.d > ITEMS_BITMAP_MAX:  # Floyd's membership bitmap of a block: step x (d - 1) bytes
            raise TooLargeError(
                f"k-subset item reports at d = {self.d} need a {step} x {self.d} membership bitmap "
                f"({step * self.d / 2**30:.3g} GiB) per block of users, above {ITEMS_BITMAP_MAX / 2**30:.0f} GiB: "
                "draw the aggregate counts with simulate_counts (bounded memory), or use fewer categories"
            )
        out = np.empty((self.k, x.size), dtype=dt)  # filled item-major, returned as its (n, k) view
        for lo in range(0, x.size, step):
            xs = x[lo : lo + step]
            out[:, lo : lo + xs.size] = self._chunk_items(xs, rng)  # (k, n)
        return out.T

    def _packed(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Packed reports: one 16-bit word per report for d ≤ 16, else the Bernoulli start and fix-up of
        :func:`mechopt.oracles.subset_masks.own_subset_masks` (x in with probability g_k, the rest uniform)."""
        if self.d <= SMALL_D:  # one word per report: one look-up in the alias table of x
            return own_subset_words(rng, x, self.k, self.d, self.g, packed=True)
        return own_subset_masks(rng, x, self.d, self.k, self.g)

    def _chunk_items(self, x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The reports of users holding ``x`` as a (k, n) array of items."""
        n, k, N = x.size, self.k, self.d - 1
        inc = rng.random(n) < self.g
        if 2 * k <= N:  # sample the report directly
            T = _floyd(n, N, k, rng)
            T += T >= x.astype(T.dtype)  # others-index → item
            rows = np.nonzero(inc)[0]
            T[_bounded(rng, np.full(1, k), rows.size)[0], rows] = x[rows]
            return T
        S = _floyd(n, N, N - k + 1, rng)  # complement, one too many
        keep = np.ones((n, N), dtype=bool)
        keep[np.arange(n)[None, :], S] = False
        rows = np.nonzero(~inc)[0]  # they keep one more other item
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
            return packed_column_sums(z, self.d)  # packed masks (item arrays are never uint8)
        if z.ndim != 2 or z.shape[1] != self.k:
            raise ProblemError(f"reports must be an (n, {self.k}) array of k-subsets or packed d-bit masks")
        return _bincount(z, self.d)

    # aggregate simulation ----------------------------------------------------
    def simulate_counts(self, hist, rng: RngLike) -> np.ndarray:
        """Draw the support counts of ``hist[x]`` users holding item x, exactly, without drawing reports.

        The item range is halved recursively and each group of users splits the
        items it still needs between the halves by hypergeometric draws
        (:func:`mechopt.oracles.aggregate.subset_counts`). Memory O(d + groups), never
        O(d·k): K = 3.3·10⁶ items, k = 22 086, n = 10⁵ users fit in under 1 GB.
        """
        rng = as_generator(rng)  # a seed, bit generator or Generator (mechopt.runtime.rng)
        hist = _check_hist(hist, self.d)
        return subset_counts(hist, self.k, self.g, rng)

    # materialised channel ---------------------------------------------------
    def matrix(self) -> np.ndarray:
        """The channel Q^k (eq. (5)) over the C(d, k) subsets in colex order (see :func:`ksubset_outputs`)."""
        Z = ksubset_outputs(self.d, self.k)
        member = np.zeros((self.d, Z.shape[0]), dtype=bool)
        member[Z.T, np.arange(Z.shape[0])[None, :]] = True
        e = math.exp(self.eps)
        den = (self.k * e + self.d - self.k) * math.comb(self.d, self.k) / self.d
        return np.where(member, e, 1.0) / den


def _floyd(n: int, N: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """n independent uniform m-subsets of {0..N−1} as an (m, n) intp array.

    Floyd's algorithm, vectorised over users: for j = N−m..N−1 draw
    t ∈ [0, j]; take t unless already taken, else take j. One step per j over a
    flat (n·N) bitmap; O(n·m) work.
    """
    flat = np.zeros(n * N, dtype=bool)
    base = np.arange(n, dtype=np.intp) * N
    highs = np.arange(N - m, N)
    T = _bounded(rng, highs + 1, n, offset=base)  # (m, n) flat indices
    bj = base + (N - m)  # flat index of j for every user
    hit = np.empty(n, dtype=bool)
    for s in range(m):
        t = T[s]
        np.take(flat, t, out=hit)  # already taken?
        np.copyto(t, bj, where=hit)  # then take j instead (in place in T)
        flat[t] = True
        bj += 1
    T -= base
    return T


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
