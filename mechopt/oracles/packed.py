"""Packed-report samplers: rows of i.i.d. bits drawn directly as ``packbits`` masks, by an exact table sampler.

The device is a table sampler with a remainder tail (:class:`CellTable`):
a discrete law p on 0..V−1 gets ⌊p_v·M⌋ of M = 2^L equal cells; a uniform
L-bit draw landing in those cells is the outcome by one table look-up, and
the remaining R = M − Σ⌊p_v·M⌋ cells (the tail, under V/M of the mass) are
resolved with a fresh double by the law of the remainders
p_v·M − ⌊p_v·M⌋. The sampled law is p itself (exact up to the float
rounding of p, ≤ 1e-16), not a discretisation of it.

- :func:`bernoulli_rows`: rows of d i.i.d. Bernoulli(q) bits, one
  table look-up per output byte (the 256 byte values have law
  q^|v| (1−q)^(8−|v|)), two random bytes per 8 bits instead of eight.

k-subset reports are drawn by :mod:`mechopt.oracles.small_ksubset` (d ≤ 16) and
:mod:`mechopt.oracles.subset_masks`.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.packed import bernoulli_rows
>>> bernoulli_rows(np.random.default_rng(0), 5, 20, 0.3).shape
(5, 3)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from mechopt.errors import ProblemError
from mechopt.oracles.base import item_range_error, items_in_range, raw_uint16
from mechopt.oracles.kernels import drawing, own_bits_numpy, unary_rows

__all__ = ["CellTable", "bernoulli_rows", "POP16"]

BLOCK = 16  # items per 16-bit word (small_ksubset)
CHUNK_USERS = 1 << 16  # users per vectorised block (keeps the working set in cache)
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
GUIDE = 1024  # cells of the look-up that starts the compiled tail search (_tail_guide)
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


@lru_cache(maxsize=64)
def _tail_guide(prob: float) -> np.ndarray:
    """Where a binary search of the byte table's tail law would start at u = i/G: a look-up for the kernel."""
    cdf = _byte_table(prob).tail_cdf[0]
    return np.searchsorted(cdf, np.arange(GUIDE) / GUIDE, side="right").astype(np.intp)


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
    numba (``mechopt[fast]``) one compiled pass (:func:`mechopt.oracles.kernels.unary_rows`)
    draws the same words and doubles from the generator itself, in the same order
    (holding ``bit_generator.lock``), with no buffer in between: identical rows.

    ``own = (x, bits)`` then sets bit ``x[i]`` of row i to bit i of ``bits`` (drawn
    beforehand): compiled, on each block's finished rows (in cache, their items checked
    there: x is read from memory once); else at the end, x checked first. An item outside
    0..d−1 raises :class:`~mechopt.errors.ProblemError`, the generator where it was at the call.

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
    pad = (0xFF << (8 - d % 8)) & 0xFF if d % 8 else 0xFF
    x, bits = own if own is not None else (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.uint8))
    fast = unary_rows.compiled()
    if fast is not None and sys.byteorder == "little":  # the kernel reads quarters low first, as the uint16 view
        work = np.empty(min(ROW_BYTES, max(flat.size, 1)), dtype=np.intp)  # a block's tail positions
        flat.fill(0)  # first touch in one tight pass: page faults spread over the sampling cost ~10x the system time
        guide = _tail_guide(float(prob))
        with drawing(rng) as gen:  # the kernel draws from the generator itself, under its lock
            before = rng.bit_generator.state  # under the lock: no other thread's draws can come between
            ok = fast(gen, cells, first, table.tail_cdf[0], guide, flat, width, pad, x, bits, work, d)
            if ok < 0:  # an item out of range (checked in the kernel, block by block): the rows' draws undone
                rng.bit_generator.state = before
        if ok < 0:
            raise item_range_error(x, d)
        return out
    if not items_in_range(x, d):
        raise item_range_error(x, d)
    eq = np.empty(min(ROW_BYTES, flat.size), dtype=bool)  # sentinel flags
    for lo in range(0, flat.size, ROW_BYTES):
        m = min(ROW_BYTES, flat.size - lo)
        u = raw_uint16(rng, m)
        dst = flat[lo : lo + m]
        np.take(cells, u, out=dst, mode="wrap")
        if first < cells.size:
            _redraw_tail(dst, u, first, np.equal(dst, SENTINEL, out=eq[:m]), table, rng)
    if pad != 0xFF:
        out[:, -1] &= np.uint8(pad)
    if own is not None:
        own_bits_numpy(out, x, bits)
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
