"""Packed-report samplers: rows of i.i.d. bits and uniform k-subsets, drawn directly as ``packbits`` masks.

Both use one device, a table sampler with a remainder tail (:class:`CellTable`):
a discrete law p on 0..V−1 gets ⌊p_v·M⌋ of M = 2^L equal cells; a uniform
L-bit draw landing in those cells is the outcome by one table look-up, and
the remaining R = M − Σ⌊p_v·M⌋ cells (the tail, under V/M of the mass) are
resolved with a fresh double by the law of the remainders
p_v·M − ⌊p_v·M⌋. The sampled law is p itself (exact up to the float
rounding of p, ≤ 1e-16), not a discretisation of it.

- :func:`bernoulli_rows`: rows of d i.i.d. Bernoulli(q) bits, one
  table look-up per output byte (the 256 byte values have law
  q^|v| (1−q)^(8−|v|)), two random bytes per 8 bits instead of eight.
- :func:`uniform_subsets`: uniform k-subsets of 0..d−1 as d-bit masks.
  Items go in blocks of 16; the block counts are drawn in turn from their
  hypergeometric laws (one :class:`CellTable` per block, rows indexed by
  the number of items still needed), then each block's 16-bit word is
  uniform among the words with that many bits. Work O(n·d/16), independent of k.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.packed import uniform_subsets
>>> m = uniform_subsets(np.random.default_rng(0), 5, 20, 7)
>>> m.shape, np.unpackbits(m, axis=1, count=20).sum(axis=1).tolist()
((5, 3), [7, 7, 7, 7, 7])
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mechopt.errors import ProblemError
from mechopt.oracles.base import raw_uint16
from mechopt.oracles.kernels import byte_rows, own_bits, own_bits_numpy, tail_bytes

__all__ = [
    "CellTable",
    "bernoulli_rows",
    "uniform_subsets",
    "subset_words",
    "words_to_packed",
    "swap_in",
    "item_bit",
    "subset_tables_fit",
    "POP16",
]

BLOCK = 16  # items per block in uniform_subsets (one uint16 word)
CHUNK_USERS = 1 << 16  # users per vectorised block (keeps the working set in cache)
MAX_TABLE_BYTES = 1 << 24  # tables of uniform_subsets beyond this fall back to the caller
POP16 = np.array([bin(v).count("1") for v in range(1 << 16)], dtype=np.uint8)
TAIL = 255  # table entry of a tail cell (outcomes are < 255)


@dataclass(frozen=True)
class CellTable:
    """Exact table sampler for R laws on 0..V−1 (V ≤ 256) with M = 2^L cells each.

    Parameters
    ----------
    pmf : (R, V) array
        One law per row (rows are normalised).
    bits : int
        L: cells per row M = 2^L.

    Examples
    --------
    >>> import numpy as np
    >>> t = CellTable.build(np.array([[0.25, 0.75], [0.1, 0.9]]), bits=4)
    >>> t.cells[0].tolist()[:6], int(t.threshold[1])
    ([0, 0, 0, 0, 1, 1], 15)
    >>> v = t.sample(np.ones(100_000, dtype=np.intp), np.random.default_rng(1).integers(0, 16, 100_000),
    ...              np.random.default_rng(2))
    >>> bool(abs(v.mean() - 0.9) < 0.005)
    True
    """

    cells: np.ndarray  # (R, M) uint8 outcome per cell; TAIL in the tail cells when V < 255
    threshold: np.ndarray  # (R,) number of table cells per row (cells ≥ it are the tail)
    tail_cdf: np.ndarray  # (R, V) cumulative law of the remainders

    @classmethod
    def build(cls, pmf: np.ndarray, bits: int) -> CellTable:
        p = np.asarray(pmf, dtype=float)
        if p.ndim != 2 or p.shape[1] > 256 or np.any(p < 0) or np.any(p.sum(axis=1) <= 0):
            raise ProblemError("CellTable needs rows of non-negative weights over at most 256 outcomes")
        M = 1 << bits
        scaled = p / p.sum(axis=1, keepdims=True) * M
        whole = np.floor(scaled).astype(np.int64)
        rest = scaled - whole
        F = whole.sum(axis=1)
        cells = np.full((p.shape[0], M), TAIL if p.shape[1] < TAIL else 0, dtype=np.uint8)
        for r in range(p.shape[0]):
            cells[r, : F[r]] = np.repeat(np.arange(p.shape[1], dtype=np.uint8), whole[r])
        tot = rest.sum(axis=1, keepdims=True)
        tail = np.cumsum(np.where(tot > 0, rest / np.where(tot > 0, tot, 1.0), 0.0), axis=1)
        return cls(cells, F, tail)

    def sample(self, row: np.ndarray, cell: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Outcomes for draws ``cell`` (uniform on 0..M−1) under the laws ``row``, as uint8."""
        flat = self.cells.ravel()
        out = flat[row * self.cells.shape[1] + cell]
        if self.tail_cdf.shape[1] < TAIL:
            tail = np.flatnonzero(out == TAIL)
        else:  # every byte is an outcome: no sentinel
            tail = np.flatnonzero(cell >= self.threshold[row])
        if tail.size:
            out[tail] = self.resolve(row[tail], rng)
        return out

    def resolve(self, row: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Draws from the remainder laws of ``row`` (what a tail cell stands for)."""
        u = rng.random(row.size)
        if self.tail_cdf.shape[0] == 1:  # one law: a binary search (the count of cdf entries ≤ u)
            v = np.searchsorted(self.tail_cdf[0], u, side="right")
        else:
            v = (self.tail_cdf[row] <= u[:, None]).sum(axis=1)
        return np.minimum(v, self.tail_cdf.shape[1] - 1).astype(np.uint8)


# ---------------------------------------------------------------- i.i.d. bits
ROW_BYTES = 1 << 18  # output bytes per vectorised block of bernoulli_rows (its buffers stay in L2)
SENTINEL = 0xFF  # byte written in the tail cells of the byte table (a rare byte: q^8 of the law)


@lru_cache(maxsize=64)
def _byte_table(prob: float) -> CellTable:
    pop = POP16[:256].astype(float)
    pmf = prob**pop * (1 - prob) ** (8 - pop)
    return CellTable.build(pmf[None, :], bits=16)


@lru_cache(maxsize=64)
def _byte_cells(prob: float) -> tuple[np.ndarray, int]:
    """The byte table's 2^16 cells with :data:`SENTINEL` in its tail cells, and the first tail cell."""
    table = _byte_table(prob)
    cells = table.cells[0].copy()
    first = int(table.threshold[0])
    cells[first:] = SENTINEL
    return cells, first


def bernoulli_rows(
    rng: np.random.Generator, n: int, d: int, prob: float, own: tuple[np.ndarray, np.ndarray] | None = None
) -> np.ndarray:
    """(n, ⌈d/8⌉) uint8 ``packbits`` rows of d i.i.d. Bernoulli(prob) bits; padding bits are 0.

    Each output byte is one look-up of a 16-bit raw draw in the byte table
    (:func:`_byte_table`, the law q^|v| (1−q)^(8−|v|) of the 256 bytes). Its
    tail cells hold :data:`SENTINEL`; only bytes equal to it (found on 64-bit
    words of the comparison) are checked against the tail and redrawn from the
    remainder law. The draws are consumed in blocks of :data:`ROW_BYTES` output
    bytes in order (per block: the 16-bit draws, then one double per tail byte,
    in position order), so the rows depend only on the stream, n and d. With
    numba (``mechopt[fast]``) each block is one compiled pass
    (:func:`mechopt.oracles.kernels.byte_rows`) on the same draws: identical rows.

    ``own = (x, bits)`` then sets bit ``x[i]`` of row i to bit i of ``bits`` (drawn
    beforehand): compiled, on each block's finished rows (in cache); else at the end.

    Examples
    --------
    >>> import numpy as np
    >>> b = bernoulli_rows(np.random.default_rng(0), 20_000, 12, 0.3)
    >>> bits = np.unpackbits(b, axis=1)
    >>> bool(abs(bits[:, :12].mean() - 0.3) < 0.01), int(bits[:, 12:].sum())
    (True, 0)
    """
    if not 0.0 <= prob <= 1.0:
        raise ProblemError(f"prob must be in [0, 1], got {prob}")
    width = (d + 7) // 8
    out = np.empty((n, width), dtype=np.uint8)
    flat = out.reshape(-1)
    cells, first = _byte_cells(float(prob))
    table = _byte_table(float(prob))
    fast, fill_tail, set_own = byte_rows.compiled(), tail_bytes.compiled(), own_bits.compiled()
    mask = np.uint8((0xFF << (8 - d % 8)) & 0xFF) if d % 8 else None
    work = np.empty(min(ROW_BYTES, flat.size), dtype=np.intp if fast else bool)  # tail positions / sentinel flags
    done = 0  # rows finished (padding cleared, own bit set) by the compiled path
    for lo in range(0, flat.size, ROW_BYTES):
        m = min(ROW_BYTES, flat.size - lo)
        u = raw_uint16(rng, m)
        dst = flat[lo : lo + m]
        if fast is None:
            np.take(cells, u, out=dst, mode="wrap")
            if first < cells.size:
                _redraw_tail(dst, u, first, np.equal(dst, SENTINEL, out=work[:m]), table, rng)
            continue
        t = fast(cells, u, first, dst, work)  # the same bytes and tail positions (ascending), one pass
        if t:  # what table.resolve does, on the same doubles
            fill_tail(dst, work, rng.random(t), table.tail_cdf[0])
        end = (lo + m) // width
        if mask is not None:
            out[done:end, -1] &= mask
        if own is not None:
            set_own(flat, width, own[0], own[1], done, end)
        done = end
    if fast is None:
        if mask is not None:
            out[:, -1] &= mask
        if own is not None:
            own_bits_numpy(out, *own)
    return out


def _redraw_tail(dst: np.ndarray, u: np.ndarray, first: int, eq: np.ndarray, table: CellTable, rng) -> None:
    """Redraw, in place, the bytes of ``dst`` whose draw ``u`` fell in a tail cell (those are among ``eq``)."""
    m8 = eq.size // 8 * 8
    words = np.flatnonzero(eq[:m8].view(np.uint64) != 0)  # blocks of 8 bytes holding a sentinel (SIMD compare)
    r, c = np.nonzero(eq[:m8].reshape(-1, 8)[words])
    at = np.concatenate((words[r] * 8 + c, m8 + np.flatnonzero(eq[m8:])))
    at = at[u[at] >= first]
    if at.size:
        dst[at] = table.resolve(np.zeros(at.size, dtype=np.intp), rng)


# ------------------------------------------------------- uniform k-subsets
@lru_cache(maxsize=16)
def _words(s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """s-bit words sorted by popcount, offsets, counts C(s, c), Lemire rejection thresholds 2^16 mod C."""
    pc = POP16[: 1 << s]
    words = np.argsort(pc, kind="stable").astype(np.uint16)  # the words themselves, by popcount
    cnt = np.bincount(pc, minlength=s + 1).astype(np.uint32)
    off = np.concatenate(([0], np.cumsum(cnt)[:-1])).astype(np.intp)
    return words, off, cnt, ((1 << 16) % cnt).astype(np.uint32)


def _bits_for(d: int, k: int) -> int:
    blocks = -(-d // BLOCK)
    for bits in (12, 11, 10, 9, 8):
        if blocks * (k + 1) << bits <= MAX_TABLE_BYTES:
            return bits
    return 0


def subset_tables_fit(d: int, k: int) -> bool:
    """Whether :func:`uniform_subsets` can draw min(k, d−k)-subsets of d items within its table budget.

    Examples
    --------
    >>> subset_tables_fit(256, 69), subset_tables_fit(100_000, 30_000)
    (True, False)
    """
    return _bits_for(d, min(k, d - k)) > 0


@lru_cache(maxsize=8)
def _block_tables(d: int, k: int) -> tuple[list[CellTable], int]:
    """Per block b (all but the last) the laws of its count given j items still needed, j = 0..k."""
    from scipy.stats import hypergeom  # scipy.stats costs ~0.5 s of import: only when tables are built

    bits = _bits_for(d, k)
    blocks = -(-d // BLOCK)
    j = np.arange(k + 1)[:, None]
    c = np.arange(BLOCK + 1)[None, :]
    tables = []
    for b in range(blocks - 1):
        rest = d - BLOCK * b  # items in blocks b.. (the draw's population)
        pmf = hypergeom.pmf(c, rest, BLOCK, np.minimum(j, rest))
        pmf[pmf.sum(axis=1) <= 0, 0] = 1.0  # unreachable states: any valid law
        tables.append(CellTable.build(pmf, bits))
    return tables, bits


def uniform_subsets(rng: np.random.Generator, n: int, d: int, k: int) -> np.ndarray:
    """n independent uniform k-subsets of 0..d−1 as (n, ⌈d/8⌉) ``packbits`` masks.

    Block b holds items 16b..16b+15. With j items still to place among the
    r = d − 16b items of blocks b, b+1, ..., block b receives
    c ~ Hypergeometric(r, 16, j) of them (the last block takes the rest), and
    its word is uniform among the 16-bit words with c bits. For k > d/2 the
    complement of a uniform (d−k)-subset is drawn.

    Examples
    --------
    >>> import numpy as np
    >>> m = uniform_subsets(np.random.default_rng(3), 40_000, 5, 2)
    >>> bits = np.unpackbits(m, axis=1, count=5)
    >>> sorted(set(bits.sum(axis=1).tolist())), bool(np.all(abs(bits.mean(axis=0) - 0.4) < 0.01))
    ([2], True)
    """
    return words_to_packed(subset_words(rng, n, d, k), d)


def subset_words(rng: np.random.Generator, n: int, d: int, k: int) -> np.ndarray:
    """Uniform k-subsets as (n, ⌈d/16⌉) uint16 words: item 16b+i is bit 15−i of word b (see :func:`uniform_subsets`)."""
    if not 0 <= k <= d:
        raise ProblemError(f"k must lie in 0..{d}, got {k}")
    kk = min(k, d - k)
    if not subset_tables_fit(d, k):
        raise ProblemError(
            f"uniform_subsets tables for d={d}, k={kk} exceed {MAX_TABLE_BYTES} bytes; draw item lists instead"
        )
    blocks = -(-d // BLOCK)
    W = np.empty((n, blocks), dtype=np.uint16)
    for lo in range(0, n, CHUNK_USERS):
        _subset_words(rng, d, kk, W[lo : lo + CHUNK_USERS])
    if kk != k:
        np.invert(W, out=W)
        W[:, -1] &= np.uint16((0xFFFF << (BLOCK * blocks - d)) & 0xFFFF)
    return W


def words_to_packed(W: np.ndarray, d: int) -> np.ndarray:
    """The (n, ⌈d/8⌉) ``packbits`` rows of 16-bit item words (item 16b+i = bit 15−i of word b).

    Consumes ``W`` (a C-contiguous uint16 array the caller owns): its words are
    byte-swapped in place to big-endian and viewed as bytes, no second array.
    """
    if np.little_endian:
        W.byteswap(inplace=True)
    out = W.view(np.uint8)  # item 16b+i → byte 2b + i//8, bit 7 − i%8
    width = (d + 7) // 8
    return out if out.shape[1] == width else np.ascontiguousarray(out[:, :width])


def item_bit(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(word index, uint16 mask) of item x in the 16-bit words (item 16b+i is bit 15−i of word b).

    Examples
    --------
    >>> w, m = item_bit(np.array([0, 17]))
    >>> w.tolist(), [hex(v) for v in m.tolist()]
    ([0, 1], ['0x8000', '0x4000'])
    """
    return x >> 4, np.uint16(0x8000) >> (x & 15).astype(np.uint16)


def swap_in(W: np.ndarray, rows: np.ndarray, x: np.ndarray, k: int, rng: np.random.Generator) -> None:
    """In each row of ``rows`` (k items, x not among them) replace a uniformly chosen item by x, in place.

    The item removed is found by rejection when the rows are dense (k ≥ 1/8 of the
    16·blocks positions): a uniform position (Lemire on a 16-bit draw, exact) is
    kept when it holds an item, so a kept one is uniform among the row's items
    (under 8 tries per row on average); sparser rows walk to a uniform rank.
    """
    s = BLOCK * W.shape[1]
    if 8 * k < s or s > 1 << 16:
        _remove_by_rank(W, rows, k, rng)
    else:
        _remove_by_rejection(W, rows, s, rng)
    word, bit = item_bit(x)
    W[rows, word] |= bit


def _remove_by_rejection(W: np.ndarray, rows: np.ndarray, s: int, rng: np.random.Generator) -> None:
    """Clear one uniformly chosen set bit in each row of ``rows`` (positions 0..s−1 drawn until one is set)."""
    thr = np.uint32((1 << 16) % s)
    todo = rows
    while todo.size:
        prod = raw_uint16(rng, todo.size).astype(np.uint32)
        prod *= np.uint32(s)
        pos = prod >> 16
        word, bit = item_bit(pos)
        hit = ((W[todo, word] & bit) != 0) & ((prod & np.uint32(0xFFFF)) >= thr)
        W[todo[hit], word[hit]] ^= bit[hit]
        todo = todo[~hit]


def _remove_by_rank(W: np.ndarray, rows: np.ndarray, k: int, rng: np.random.Generator) -> None:
    """Clear the r-th set bit (r uniform in 0..k−1) of each row of ``rows``, by a cumulative popcount walk."""
    w = W[rows]
    pc = POP16[w]
    cum = np.cumsum(pc, axis=1, dtype=np.int32)
    r = rng.integers(0, k, size=rows.size)
    wi = (cum <= r[:, None]).sum(axis=1)
    at = np.arange(rows.size)
    word = w[at, wi]
    rr = r - (cum[at, wi] - pc[at, wi])  # rank of the item within its word
    lo = word & np.uint16(0xFF)
    plo = POP16[lo]
    in_lo = rr < plo
    hi_pos = _SEL8[word >> np.uint16(8), np.maximum(rr - plo, 0) % 8] + 8
    pos = np.where(in_lo, _SEL8[lo, np.minimum(rr, 7)], hi_pos)
    W[rows, wi] ^= np.uint16(1) << pos.astype(np.uint16)


_SEL8 = np.zeros((256, 8), dtype=np.uint8)  # _SEL8[v, i]: bit position of the i-th set bit of byte v
for _v in range(256):
    _p = [b for b in range(8) if _v >> b & 1]
    _SEL8[_v, : len(_p)] = _p


def _subset_words(rng: np.random.Generator, d: int, k: int, W: np.ndarray) -> None:
    """Fill ``W`` ((n, blocks) uint16) with the words of n uniform k-subsets; item 16b+i is bit 15−i of word b."""
    tables, bits = _block_tables(d, k)
    n, blocks = W.shape
    Wt = np.empty((blocks, n), dtype=np.uint16)  # block-major: each block's words are one contiguous write
    need = np.full(n, k, dtype=np.intp)
    U = raw_uint16(rng, 2 * n * blocks).reshape(blocks, 2, n)
    for b, table in enumerate(tables):
        c = table.sample(need, U[b, 0] >> np.uint16(16 - bits), rng).astype(np.intp)
        need -= c
        Wt[b] = _word_with(c, U[b, 1], BLOCK, rng)
    last = d - BLOCK * (blocks - 1)
    Wt[-1] = _word_with(need, U[-1, 1], last, rng) << np.uint16(BLOCK - last)
    np.copyto(W, Wt.T)  # one transposing pass (column writes into W would touch each row once per block)


def _word_with(c: np.ndarray, u: np.ndarray, s: int, rng: np.random.Generator) -> np.ndarray:
    """For each count c (intp), a uniform s-bit word with c bits set (Lemire's bounded draw on the 16-bit u)."""
    words, off, cnt, thr = _words(s)
    size = cnt[c]
    prod = u.astype(np.uint32) * size
    idx = off[c] + (prod >> 16)
    low = prod & np.uint32(0xFFFF)
    cand = np.flatnonzero(low < size)  # a superset of the rejections (thr < size)
    bad = cand[low[cand] < thr[c[cand]]]
    if bad.size:
        idx[bad] = off[c[bad]] + rng.integers(0, size[bad].astype(np.int64))
    return words[idx]
