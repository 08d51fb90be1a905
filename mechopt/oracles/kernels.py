"""Compiled hot loops of the frequency-oracle samplers (OUE/BRR rows and own bits, GRR shifts).

Each function is a :func:`mechopt.runtime.jit.kernel`. :func:`grr_shift` is a pure
transform of random numbers numpy has already drawn; :func:`unary_rows` draws from
the user's BitGenerator itself (:mod:`mechopt.runtime.bitgen`: the same words and
doubles, in the same order, as its numpy twin draws through the Generator), so the
compiled loop and the caller's numpy path give bit-identical reports. Without numba
(or with ``MECHOPT_JIT=0``) the callers run their vectorised numpy code
(:func:`own_bits_numpy` here, the rest beside the callers) and never these
Python loops, which stay readable references of the transform.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.kernels import grr_shift
>>> out = np.empty(3, dtype=np.int16)
>>> grr_shift.python(np.array([0, 1, 2]), np.array([0.0, 0.3, 0.99]), 4.0, 3, out)
>>> out.tolist()
[1, 0, 2]
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numpy as np

from mechopt.runtime.bitgen import (
    MASK64,
    PCG_MULT,
    bitgen_handles,
    load_u64,
    next_double,
    next_uint64,
    pcg64_address,
    pcg64_advance,
    pcg64_output,
    pcg64_step,
    store_u64,
)
from mechopt.runtime.jit import helper, kernel

__all__ = [
    "unary_rows",
    "items_below",
    "own_bits_numpy",
    "grr_shift",
    "generator_handles",
    "drawing",
    "state_in",
    "draw_word",
    "state_out",
    "jump",
]


_MULT_HI, _MULT_LO = PCG_MULT >> 64, PCG_MULT & MASK64  # PCG64's multiplier in 64-bit halves (numba types them)
SUB = 4096  # bytes per sub-block of unary_rows (rows are finished while in L1; a multiple of 4)


@kernel
def unary_rows(
    gen: tuple[int, int, int, int],
    cells: np.ndarray,
    first: int,
    tail_cdf: np.ndarray,
    guide: np.ndarray,
    flat: np.ndarray,
    width: int,
    pad: int,
    x: np.ndarray,
    bits: np.ndarray,
    work: np.ndarray,
    top: int,
) -> int:
    """Packed rows of i.i.d. bits drawn from a BitGenerator inside the kernel (no buffer of words).

    ``gen`` = the BitGenerator's :func:`~mechopt.runtime.bitgen.bitgen_handles` and its
    :func:`~mechopt.runtime.bitgen.pcg64_address` (non-zero: PCG64 stepped in registers;
    0: words through ``next_uint64``; with PCG64 each whole sub-block's words come from two
    states half a sub-block apart, whose multiplies overlap: the same words in the same
    places). ``flat`` is n rows of ``width`` bytes, filled in
    blocks of ``work.size`` bytes. Per block: one 64-bit word per 4 bytes (its 16-bit
    quarters, low first, index ``cells``); then one double per byte whose quarter was
    ``≥ first`` (a tail cell), in position order: the count of ``tail_cdf`` entries ≤ it
    (capped at its last index), found from ``guide[⌊u·G⌋]`` = that count at ⌊u·G⌋/G
    (``guide = searchsorted(tail_cdf, arange(G) / G, "right")``, G = ``guide.size``).
    Each finished row's last byte is ANDed with ``pad`` and, when ``x`` is not empty,
    bit ``x[i]`` of row i (big-endian bits) set to bit i of ``bits`` (little-endian), after
    the items of those rows are checked to lie in 0..``top``−1 (in cache, just before their own
    bits are set: x is read from memory once); one outside returns −1 at once (the generator
    then stands anywhere: the caller restores it), else 0.
    The draws are those of :func:`mechopt.oracles.packed.bernoulli_rows`'s numpy path
    (``raw_uint16`` per block, then ``Generator.random``), in the same order.

    >>> import numpy as np
    >>> from mechopt.runtime.bitgen import bitgen_handles
    >>> flat = np.empty(4, dtype=np.uint8)
    >>> cells = np.arange(1 << 16, dtype=np.uint16).astype(np.uint8)  # byte = low 8 bits of the quarter
    >>> bg = np.random.PCG64(0)  # kept alive while its handles are used
    >>> gen, none, work = (*bitgen_handles(bg), 0), flat[:0], np.empty(8, np.intp)
    >>> unary_rows.python(gen, cells, 1 << 16, np.ones(1), np.zeros(1, np.intp), flat, 2, 0xF0, none, none, work, 0)
    0
    >>> w = np.random.PCG64(0).random_raw()
    >>> flat.tolist() == [w & 0xFF, (w >> 16) & 0xF0, (w >> 32) & 0xFF, (w >> 48) & 0xF0]
    True
    """
    hi, lo_s, inc_hi, inc_lo = state_in(gen)  # zeros unless PCG64 is stepped here (gen[3])
    quads = flat[: flat.size & ~3].view(np.uint32)  # little-endian: byte 4i + k is bits 8k.. of quads[i]
    done = 0  # rows finished (padded, own bit set)
    ok = True  # the items so far lie in 0..top−1
    jh = jump(inc_hi, inc_lo, SUB >> 3)  # half a whole sub-block's words (used when PCG64 is stepped here)
    spare = np.empty(SUB, dtype=np.intp)  # tail positions of a sub-block's second half
    for lo in range(0, flat.size, work.size):
        hi_b = min(lo + work.size, flat.size)
        t = 0  # tail positions of this block so far
        if gen[3]:  # PCG64 stepped here, its state in registers (stored back before the tail's doubles)
            hi, lo_s, inc_hi, inc_lo = state_in(gen)
        for s in range(lo, hi_b, SUB):  # sub-blocks: finished rows are set while still in L1
            e = min(s + SUB, hi_b)
            j0 = s
            half = (e - s) >> 3  # words per half of the sub-block
            if gen[3] and half:  # two states a half apart: their 128-bit multiplies overlap (the same words)
                mh, ml, ch, cl = jh if half == SUB >> 3 else jump(inc_hi, inc_lo, half)
                hb, lb = pcg64_advance(hi, lo_s, mh, ml, ch, cl)
                tb = 0
                for m in range(half):
                    hi, lo_s, w = draw_word(gen, hi, lo_s, inc_hi, inc_lo)
                    t = _quad(cells, first, w, quads, s + 4 * m, work, t)
                    hb, lb, w = draw_word(gen, hb, lb, inc_hi, inc_lo)
                    tb = _quad(cells, first, w, quads, s + 4 * (m + half), spare, tb)
                work[t : t + tb] = spare[:tb]  # the second half's tails follow the first's: position order
                t += tb
                hi, lo_s = hb, lb
                j0 = s + 8 * half
            for j in range(j0, e, 4):  # the rest (every word when the generator is called per word)
                hi, lo_s, w = draw_word(gen, hi, lo_s, inc_hi, inc_lo)
                if j + 4 <= e:  # a whole word: its 4 bytes stored as one uint32 (whole-row loads forward from it)
                    t = _quad(cells, first, w, quads, j, work, t)
                else:  # the block's last, partial word: its first (e − j) quarters
                    for k in range(e - j):
                        c = np.intp((w >> np.uint64(16 * k)) & np.uint64(0xFFFF))
                        flat[j + k] = cells[c]
                        if c >= first:
                            work[t] = j + k
                            t += 1
            end = e // width
            ok = ok and items_below(x, done, end, top)  # no early exit: the loop keeps its registers
            if ok:
                _finish_rows(flat, width, pad, x, bits, done, end)
            done = end
        state_out(gen, hi, lo_s)
        if not ok:
            return -1
        _resolve_tails(gen, flat, work[:t], tail_cdf, guide, width, pad, x, bits, done)
    return 0


@helper
def items_below(x: np.ndarray, r0: int, r1: int, top: int) -> bool:
    """Whether x[r0:r1] all lie in 0..top−1 (as unsigned, a negative item is larger than any top)."""
    if x.size == 0:
        return True
    xs = x[r0:r1]
    m = np.uint64(0)
    for i in range(xs.size):  # indices from 0 up: no negative-index code, a vectorised maximum
        m = max(m, np.uint64(xs[i]))
    return m < np.uint64(top)


@helper
def _quad(cells: np.ndarray, first: int, w, quads: np.ndarray, j: int, work: np.ndarray, t: int) -> int:
    """Bytes j..j+3 from the word's 16-bit quarters (one uint32 store); tail positions appended to ``work[t:]``."""
    v = np.uint32(0)
    for k in range(4):
        c = np.intp((w >> np.uint64(16 * k)) & np.uint64(0xFFFF))
        v |= np.uint32(cells[c]) << np.uint32(8 * k)
        if c >= first:
            work[t] = j + k
            t += 1
    quads[j >> 2] = v
    return t


@helper
def _resolve_tails(
    gen: tuple[int, int, int, int],
    flat: np.ndarray,
    at: np.ndarray,
    tail_cdf: np.ndarray,
    guide: np.ndarray,
    width: int,
    pad: int,
    x: np.ndarray,
    bits: np.ndarray,
    done: int,
) -> None:
    """Tail bytes at positions ``at``, in order: one double each, then the row's pad and own bit again (idempotent)."""
    top = tail_cdf.size - 1
    for p in at:
        u = next_double(gen[1], gen[2])
        v = guide[int(u * guide.size)]  # the count of tail_cdf entries ≤ ⌊u·G⌋/G, then step up to u's
        while v < top and tail_cdf[v] <= u:
            v += 1
        r = p // width
        b = min(v, top) & (pad if p == r * width + width - 1 else 0xFF)
        if x.size and r < done and p == r * width + (np.intp(x[r]) >> 3):
            b = _with_own_bit(b, np.intp(x[r]), bits, r)
        flat[p] = b


def own_bits_numpy(out: np.ndarray, x: np.ndarray, bits: np.ndarray) -> None:
    """The numpy path of :func:`unary_rows`'s own bits, on all rows of ``out`` ((n, width) uint8), vectorised.

    Rows of one or two bytes are whole words: W ^= (W ^ B) & m_x with B = own bit · all-ones.

    >>> out = np.zeros((2, 2), dtype=np.uint8)
    >>> own_bits_numpy(out, np.array([0, 9]), np.array([0b10], dtype=np.uint8)); out.tolist()
    [[0, 0], [0, 64]]
    """
    own = np.unpackbits(bits, count=x.size, bitorder="little")
    if out.shape[1] > 2:
        flat = out.reshape(-1)
        at = np.arange(0, out.size, out.shape[1]) + (x >> 3)  # the byte holding each user's bit x
        mask = np.uint8(0x80) >> (x & 7).astype(np.uint8)
        flat[at] = (flat[at] & ~mask) | (mask * own)
        return
    dt = np.dtype(f"u{out.shape[1]}")
    one = np.zeros((8 * out.shape[1], out.shape[1]), dtype=np.uint8)  # row i: item i's bit in memory order
    one[np.arange(one.shape[0]), np.arange(one.shape[0]) >> 3] = 0x80 >> (np.arange(one.shape[0]) & 7)
    masks, words = one.view(dt).ravel(), out.view(dt).reshape(-1)
    for lo in range(0, x.size, 1 << 16):  # cache-sized blocks
        w = words[lo : lo + (1 << 16)]
        t = np.multiply(own[lo : lo + (1 << 16)], dt.type(np.iinfo(dt).max), dtype=dt)
        t ^= w
        t &= masks[x[lo : lo + (1 << 16)]]
        w ^= t


@helper
def _finish_rows(flat: np.ndarray, width: int, pad: int, x: np.ndarray, bits: np.ndarray, r0: int, r1: int) -> None:
    """Rows r0..r1−1 of ``flat``: last byte ANDed with ``pad``, bit ``x[r]`` set to bit r of ``bits`` (if any x)."""
    if pad != 0xFF:
        for r in range(r0, r1):
            flat[r * width + width - 1] &= pad
    if x.size == 0:
        return
    if width == 2:  # a row is one little-endian uint16: bit x is bit 8·(x >> 3) + 7 − (x mod 8) = x ^ 7 of it
        rows = flat.view(np.uint16)
        r = r0
        while r < r1 and r & 7:  # single rows up to a multiple of 8
            _own_row(rows, r, x, np.uint64(bits[r >> 3]) >> np.uint64(r & 7))
            r += 1
        while r + 8 <= r1:  # 8 rows per byte of own bits: one load of it (unsigned: no wrap-around code)
            b = np.uint64(bits[r >> 3])
            for j in range(8):
                _own_row(rows, r + j, x, b >> np.uint64(j))
            r += 8
        while r < r1:  # the last rows
            _own_row(rows, r, x, np.uint64(bits[r >> 3]) >> np.uint64(r & 7))
            r += 1
        return
    for r in range(r0, r1):
        xr = np.intp(x[r])
        at = r * width + (xr >> 3)
        flat[at] = _with_own_bit(flat[at], xr, bits, r)


@helper
def _own_row(rows: np.ndarray, r: int, x: np.ndarray, own) -> None:
    """Row r (one little-endian uint16) with its bit x[r] ^ 7 set to the low bit of ``own``."""
    ur, one = np.uint64(r), np.uint64(1)
    sh = np.uint64(x[ur]) ^ np.uint64(7)
    rows[ur] = np.uint16((np.uint64(rows[ur]) & ~(one << sh)) | ((own & one) << sh))


@helper
def _with_own_bit(byte: int, xr: int, bits: np.ndarray, r: int) -> int:
    """``byte`` with its bit ``xr mod 8`` (big-endian) set to bit r of ``bits`` (little-endian)."""
    sh = 7 - (xr & 7)
    return (np.intp(byte) & ~(1 << sh)) | (((np.intp(bits[r >> 3]) >> (r & 7)) & 1) << sh)


def generator_handles(bit_generator) -> tuple[int, int, int, int]:
    """``gen`` for kernels that draw themselves: :func:`~mechopt.runtime.bitgen.bitgen_handles` and the PCG64 address.

    The caller holds ``bit_generator.lock`` while the kernel runs and keeps the generator alive.

    >>> generator_handles(np.random.SFC64(0))[3]
    0
    """
    return (*bitgen_handles(bit_generator), pcg64_address(bit_generator))


@contextlib.contextmanager
def drawing(rng: np.random.Generator) -> Iterator[tuple[int, int, int, int]]:
    """Inside: ``gen`` (:func:`generator_handles`) for a kernel that draws from ``rng`` itself, with
    ``bit_generator.lock`` held (no other thread draws meanwhile); ``rng`` stays referenced, so alive.

    >>> rng = np.random.default_rng(0)
    >>> with drawing(rng) as gen:
    ...     hi, lo, ihi, ilo = state_in(gen)
    ...     hi, lo, w = draw_word(gen, hi, lo, ihi, ilo)
    ...     state_out(gen, hi, lo)
    >>> fresh = np.random.default_rng(0).bit_generator.random_raw(2)  # the same word, then the state stored back
    >>> bool(w == fresh[0]), bool(rng.bit_generator.random_raw() == fresh[1])
    (True, True)
    """
    with rng.bit_generator.lock:
        yield generator_handles(rng.bit_generator)


@helper
def state_in(gen):
    """(hi, lo, inc_hi, inc_lo) of the PCG64 at ``gen[3]``, to step in registers; zeros when ``gen[3]`` is 0."""
    pcg = gen[3]
    if pcg:
        return load_u64(pcg + 8), load_u64(pcg), load_u64(pcg + 24), load_u64(pcg + 16)
    zero = np.uint64(0)
    return zero, zero, zero, zero


@helper
def draw_word(gen, hi, lo, ihi, ilo):
    """(hi, lo, word): the next 64-bit word, from the registers (PCG64, ``gen[3]`` non-zero) or ``next_uint64``."""
    if gen[3]:
        hi, lo = pcg64_step(hi, lo, ihi, ilo)
        return hi, lo, pcg64_output(hi, lo)
    return hi, lo, next_uint64(gen[0], gen[2])


@helper
def jump(ihi, ilo, delta):
    """(m_hi, m_lo, c_hi, c_lo): the PCG64 state ``delta`` words on is s·m + c (square and multiply, inc (ihi, ilo)).

    >>> bg = np.random.PCG64(5)
    >>> hi, lo, ihi, ilo = state_in(generator_handles(bg))
    >>> hi, lo = pcg64_advance(hi, lo, *jump(ihi, ilo, 9))
    >>> bool(pcg64_output(hi, lo) == np.random.PCG64(5).random_raw(9)[8])
    True
    """
    zero, one = np.uint64(0), np.uint64(1)
    m_hi, m_lo, c_hi, c_lo = zero, one, zero, zero  # the identity
    b_hi, b_lo, d_hi, d_lo = np.uint64(_MULT_HI), np.uint64(_MULT_LO), ihi, ilo  # one step
    while delta:
        if delta & 1:  # powers of one map commute: compose in any order
            m_hi, m_lo, c_hi, c_lo = (
                *pcg64_advance(m_hi, m_lo, b_hi, b_lo, zero, zero),
                *pcg64_advance(c_hi, c_lo, b_hi, b_lo, d_hi, d_lo),
            )
        b_hi, b_lo, d_hi, d_lo = (
            *pcg64_advance(b_hi, b_lo, b_hi, b_lo, zero, zero),
            *pcg64_advance(d_hi, d_lo, b_hi, b_lo, d_hi, d_lo),
        )
        delta >>= 1
    return m_hi, m_lo, c_hi, c_lo


@helper
def state_out(gen, hi, lo) -> None:
    """Store the registers' PCG64 state back (nothing when ``gen[3]`` is 0): the generator continues from there."""
    if gen[3]:
        store_u64(gen[3], lo)
        store_u64(gen[3] + 8, hi)


@kernel
def grr_shift(x: np.ndarray, u: np.ndarray, inv_h: float, d: int, out: np.ndarray) -> None:
    """GRR reports from uniforms: ``out[i] = (x[i] + min(u[i]·inv_h, d − 1) truncated + 1) mod d``."""
    top = float(d - 1)
    for i in range(x.size):
        v = u[i] * inv_h
        y = x[i] + int(min(v, top)) + 1  # < 2d: one conditional subtraction is the mod
        out[i] = y - d * (y >= d)
