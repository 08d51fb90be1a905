"""Compiled hot loops of the frequency-oracle samplers (OUE/BRR rows and own bits, GRR shifts).

Each function is a :func:`mechopt.runtime.jit.kernel`: a pure transform of
random words numpy has already drawn from the user's Generator, so the
compiled loop and the caller's numpy path give bit-identical reports (the
caller draws the same words in the same order either way). Without numba
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

import numpy as np

from mechopt.runtime.jit import kernel

__all__ = ["byte_rows", "tail_bytes", "own_bits", "own_bits_numpy", "grr_shift"]


@kernel
def byte_rows(cells: np.ndarray, u: np.ndarray, first: int, dst: np.ndarray, tail: np.ndarray) -> int:
    """``dst[i] = cells[u[i]]``; the positions i with ``u[i] ≥ first`` (tail cells) go to ``tail`` in order.

    Returns how many tail positions were written (the caller redraws those bytes).

    >>> dst, tail = np.empty(3, dtype=np.uint8), np.empty(3, dtype=np.intp)
    >>> byte_rows.python(np.array([7, 8, 9], dtype=np.uint8), np.array([2, 0, 1]), 2, dst, tail), dst.tolist()
    (1, [9, 7, 8])
    """
    m = 0
    for i in range(u.size):
        c = u[i]
        dst[i] = cells[c]
        if c >= first:
            tail[m] = i
            m += 1
    return m


@kernel
def tail_bytes(dst: np.ndarray, tail: np.ndarray, u: np.ndarray, cdf: np.ndarray) -> None:
    """``dst[tail[i]]`` = the number of entries of ``cdf`` ≤ ``u[i]`` (capped at its last index), i < ``u.size``.

    >>> dst = np.zeros(3, dtype=np.uint8)
    >>> tail_bytes.python(dst, np.array([0, 2]), np.array([0.2, 0.99]), np.array([0.5, 1.0])); dst.tolist()
    [0, 0, 1]
    """
    top = cdf.size - 1
    for i in range(u.size):
        dst[tail[i]] = min(np.searchsorted(cdf, u[i], side="right"), top)


@kernel
def own_bits(flat: np.ndarray, width: int, x: np.ndarray, bits: np.ndarray, r0: int, r1: int) -> None:
    """For rows i in r0..r1−1: set bit ``x[i]`` of packed row i (``width`` bytes, big-endian bits) to bit i of
    ``bits`` (little-endian).

    >>> flat = np.zeros(4, dtype=np.uint8)
    >>> own_bits.python(flat, 2, np.array([0, 9]), np.array([0b10], dtype=np.uint8), 0, 2); flat.tolist()
    [0, 0, 0, 64]
    """
    for i in range(r0, r1):
        at = i * width + (x[i] >> 3)
        mask = np.uint8(0x80 >> (x[i] & 7))
        bit = (bits[i >> 3] >> (i & 7)) & 1
        flat[at] = (flat[at] & ~mask) | (mask * bit)


def own_bits_numpy(out: np.ndarray, x: np.ndarray, bits: np.ndarray) -> None:
    """The numpy path of :func:`own_bits` on all rows of ``out`` ((n, width) uint8), vectorised.

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


@kernel
def grr_shift(x: np.ndarray, u: np.ndarray, inv_h: float, d: int, out: np.ndarray) -> None:
    """GRR reports from uniforms: ``out[i] = (x[i] + min(u[i]·inv_h, d − 1) truncated + 1) mod d``."""
    top = float(d - 1)
    for i in range(x.size):
        v = u[i] * inv_h
        y = x[i] + int(min(v, top)) + 1  # < 2d: one conditional subtraction is the mod
        out[i] = y - d * (y >= d)
