"""Draws from a numpy BitGenerator inside compiled kernels: the Generator's own words, in its order, no buffer.

numpy exports each BitGenerator's C entry points (``bit_generator.ctypes``);
:func:`bitgen_handles` gives their addresses and :func:`next_uint64` /
:func:`next_double` call them (in Python through ctypes; compiled, one
indirect call). ``next_uint64`` is what ``Generator.integers(0, 2**64,
dtype=np.uint64)`` draws word by word (and ``random_raw`` for every BitGenerator
but MT19937, whose raw words hold 32 bits); ``next_double`` is what
``Generator.random`` draws. For the default PCG64, :func:`pcg64_address` gives
the 128-bit state itself, which a kernel can step in registers
(:func:`pcg64_step`, :func:`pcg64_output`) and store back: the same words again,
without a call per word. The caller holds ``bit_generator.lock`` while a kernel
draws and keeps the BitGenerator alive.

Examples
--------
>>> import numpy as np
>>> bg = np.random.PCG64(0)
>>> u64, _, state = bitgen_handles(bg)
>>> bool(next_uint64(u64, state) == np.random.PCG64(0).random_raw())
True
"""

from __future__ import annotations

import ctypes
import functools
from typing import Any

import numpy as np

__all__ = [
    "bitgen_handles",
    "next_uint64",
    "next_double",
    "pcg64_address",
    "pcg64_step",
    "pcg64_output",
    "pcg64_advance",
    "load_u64",
    "store_u64",
    "popcount64",
    "ctlz64",
    "bswap64",
    "register",
]

_U64 = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)
_F64 = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_void_p)
PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341  # PCG's default 128-bit multiplier
MASK64 = (1 << 64) - 1


def bitgen_handles(bit_generator: Any) -> tuple[int, int, int]:
    """Addresses (next_uint64, next_double, state) of a numpy BitGenerator's C entry points."""
    c = bit_generator.ctypes
    addr = [ctypes.cast(f, ctypes.c_void_p).value for f in (c.next_uint64, c.next_double)]
    return int(addr[0]), int(addr[1]), int(c.state_address)


def next_uint64(fn: int, state: int) -> np.uint64:
    """One 64-bit word from the BitGenerator at ``state`` (``fn``, ``state``: :func:`bitgen_handles`)."""
    return np.uint64(_U64(fn)(state))


def next_double(fn: int, state: int) -> float:
    """One uniform double in [0, 1) from the BitGenerator at ``state`` (as ``Generator.random``)."""
    return float(_F64(fn)(state))


def load_u64(addr: int) -> np.uint64:
    """The 64-bit word at ``addr``."""
    return np.uint64(ctypes.c_uint64.from_address(addr).value)


def store_u64(addr: int, value: Any) -> None:
    """Write the 64-bit word ``value`` at ``addr``."""
    ctypes.c_uint64.from_address(addr).value = int(value)


def pcg64_step(hi: Any, lo: Any, inc_hi: Any, inc_lo: Any) -> tuple[np.uint64, np.uint64]:
    """PCG64's state update s ← s·M + inc (mod 2¹²⁸), on (high, low) 64-bit halves.

    >>> [int(v) for v in pcg64_step(0, 1, 0, 1)] == [PCG_MULT >> 64, (PCG_MULT & MASK64) + 1]
    True
    """
    s = (((int(hi) << 64) | int(lo)) * PCG_MULT + ((int(inc_hi) << 64) | int(inc_lo))) & ((1 << 128) - 1)
    return np.uint64(s >> 64), np.uint64(s & MASK64)


def pcg64_advance(hi: Any, lo: Any, m_hi: Any, m_lo: Any, c_hi: Any, c_lo: Any) -> tuple[np.uint64, np.uint64]:
    """s·m + c (mod 2¹²⁸) on (high, low) halves: affine maps of PCG64 states (jumps, their compositions).

    >>> [int(v) for v in pcg64_advance(0, 1, 0, 3, 0, 4)]
    [0, 7]
    """
    s = ((int(hi) << 64) | int(lo)) * ((int(m_hi) << 64) | int(m_lo)) + ((int(c_hi) << 64) | int(c_lo))
    return np.uint64((s >> 64) & MASK64), np.uint64(s & MASK64)


def pcg64_output(hi: Any, lo: Any) -> np.uint64:
    """PCG64's output of a state (XSL RR): (high ^ low) rotated right by the top 6 bits of the state."""
    x, r = int(hi) ^ int(lo), int(hi) >> 58
    return np.uint64(((x >> r) | (x << (64 - r))) & MASK64)


def pcg64_address(bit_generator: Any) -> int:
    """Address of a PCG64's 128-bit state (low, high, then the increment's), or 0 when not usable.

    0 unless ``bit_generator`` is a :class:`numpy.random.PCG64` and stepping the state read
    this way reproduces ``random_raw`` on this numpy build (:func:`_layout_checked`).

    >>> import numpy as np
    >>> pcg64_address(np.random.SFC64(0))
    0
    """
    if type(bit_generator) is not np.random.PCG64 or not _layout_checked():
        return 0
    return int(load_u64(bit_generator.ctypes.state_address))


def popcount64(v: Any) -> int:
    """The number of set bits of the 64-bit word ``v`` (compiled: LLVM's ``ctpop``, one ``popcnt``).

    >>> popcount64(np.uint64(0xF0F0))
    8
    """
    return int(v).bit_count()


def ctlz64(v: Any) -> int:
    """The number of leading zero bits of the 64-bit word ``v`` (64 for 0; compiled: LLVM's ``ctlz``, one ``lzcnt``).

    >>> ctlz64(np.uint64(1)), ctlz64(np.uint64(1 << 63)), ctlz64(np.uint64(0))
    (63, 0, 64)
    """
    return 64 - int(v).bit_length()


def bswap64(v: Any) -> np.uint64:
    """The 64-bit word ``v`` with its 8 bytes reversed (compiled: LLVM's ``bswap``, one instruction).

    >>> hex(int(bswap64(np.uint64(0x0102030405060708))))
    '0x807060504030201'
    """
    return np.uint64(int.from_bytes(int(v).to_bytes(8, "little"), "big"))


@functools.cache
def _layout_checked() -> bool:
    """True when the PCG64 state is where :func:`pcg64_address` reads it (numpy's native 128-bit layout)."""
    bg = np.random.PCG64(20261126)
    at = int(load_u64(bg.ctypes.state_address))
    lo, hi, ilo, ihi = (load_u64(at + 8 * i) for i in range(4))
    words = []
    for _ in range(4):
        hi, lo = pcg64_step(hi, lo, ihi, ilo)
        words.append(pcg64_output(hi, lo))
    return words == list(np.random.PCG64(20261126).random_raw(4))


@functools.cache
def register() -> None:
    """Teach numba these functions (once, before the first kernel compiles): calls, loads, 128-bit steps, bit counts."""
    from llvmlite import ir
    from numba.core import types
    from numba.extending import intrinsic, overload

    i8p, i64, i128 = ir.IntType(8).as_pointer(), ir.IntType(64), ir.IntType(128)

    def caller(ret_ir: Any, ret_nb: Any) -> Any:
        @intrinsic
        def _call(typingctx: Any, fn: Any, state: Any) -> Any:
            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                f = builder.inttoptr(args[0], ir.FunctionType(ret_ir, [i8p]).as_pointer())
                return builder.call(f, [builder.inttoptr(args[1], i8p)])

            return ret_nb(types.intp, types.intp), codegen

        return _call

    call_u64, call_f64 = caller(i64, types.uint64), caller(ir.DoubleType(), types.float64)

    @intrinsic
    def _load(typingctx: Any, addr: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.load(builder.inttoptr(args[0], i64.as_pointer()))

        return types.uint64(types.intp), codegen

    @intrinsic
    def _store(typingctx: Any, addr: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            builder.store(args[1], builder.inttoptr(args[0], i64.as_pointer()))
            return context.get_dummy_value()

        return types.void(types.intp, types.uint64), codegen

    def wide(builder: Any, hi: Any, lo: Any) -> Any:
        return builder.or_(builder.shl(builder.zext(hi, i128), i128(64)), builder.zext(lo, i128))

    @intrinsic
    def _step(typingctx: Any, hi: Any, lo: Any, inc_hi: Any, inc_lo: Any) -> Any:
        pair = types.UniTuple(types.uint64, 2)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            s = builder.add(builder.mul(wide(builder, *args[:2]), i128(PCG_MULT)), wide(builder, *args[2:]))
            halves = [builder.trunc(builder.lshr(s, i128(64)), i64), builder.trunc(s, i64)]
            return context.make_tuple(builder, pair, halves)

        return pair(types.uint64, types.uint64, types.uint64, types.uint64), codegen

    @intrinsic
    def _advance(typingctx: Any, hi: Any, lo: Any, m_hi: Any, m_lo: Any, c_hi: Any, c_lo: Any) -> Any:
        pair = types.UniTuple(types.uint64, 2)

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            s = builder.add(builder.mul(wide(builder, *args[:2]), wide(builder, *args[2:4])), wide(builder, *args[4:]))
            halves = [builder.trunc(builder.lshr(s, i128(64)), i64), builder.trunc(s, i64)]
            return context.make_tuple(builder, pair, halves)

        return pair(*([types.uint64] * 6)), codegen

    @intrinsic
    def _ctpop(typingctx: Any, v: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.call(builder.module.declare_intrinsic("llvm.ctpop", [i64]), [args[0]])

        return types.uint64(types.uint64), codegen

    @intrinsic
    def _ctlz(typingctx: Any, v: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            fn = builder.module.declare_intrinsic("llvm.ctlz", [i64, ir.IntType(1)])
            return builder.call(fn, [args[0], ir.IntType(1)(0)])  # defined at 0: 64

        return types.uint64(types.uint64), codegen

    @intrinsic
    def _bswap(typingctx: Any, v: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return builder.call(builder.module.declare_intrinsic("llvm.bswap", [i64]), [args[0]])

        return types.uint64(types.uint64), codegen

    @intrinsic
    def _output(typingctx: Any, hi: Any, lo: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            x, r = builder.xor(args[0], args[1]), builder.lshr(args[0], i64(58))
            left = builder.and_(builder.sub(i64(0), r), i64(63))
            return builder.or_(builder.lshr(x, r), builder.shl(x, left))  # rotate right by r (one ror)

        return types.uint64(types.uint64, types.uint64), codegen

    u64 = types.uint64
    overload(next_uint64)(lambda fn, state: lambda fn, state: call_u64(fn, state))
    overload(next_double)(lambda fn, state: lambda fn, state: call_f64(fn, state))
    overload(load_u64)(lambda addr: lambda addr: _load(addr))
    overload(store_u64)(lambda addr, value: lambda addr, value: _store(addr, u64(value)))
    overload(pcg64_step)(
        lambda hi, lo, inc_hi, inc_lo: lambda hi, lo, inc_hi, inc_lo: _step(u64(hi), u64(lo), u64(inc_hi), u64(inc_lo))
    )
    overload(pcg64_advance)(
        lambda hi, lo, m_hi, m_lo, c_hi, c_lo: (
            lambda hi, lo, m_hi, m_lo, c_hi, c_lo: _advance(
                u64(hi), u64(lo), u64(m_hi), u64(m_lo), u64(c_hi), u64(c_lo)
            )
        )
    )
    overload(popcount64)(lambda v: lambda v: np.int64(_ctpop(u64(v))))
    overload(ctlz64)(lambda v: lambda v: np.int64(_ctlz(u64(v))))
    overload(bswap64)(lambda v: lambda v: _bswap(u64(v)))
    overload(pcg64_output)(lambda hi, lo: lambda hi, lo: _output(u64(hi), u64(lo)))
