"""Compiled sampler kernels when numba is installed (``mechopt[fast]``), the numpy path otherwise.

A kernel is a plain Python function in the subset numba compiles. :func:`kernel`
wraps it; ``Kernel.compiled()`` returns the compiled form, or ``None`` when numba
is not installed or the environment variable ``MECHOPT_JIT`` is ``0``. Every caller
keeps a numpy path that gives bit-identical output from the same random draws, so
installing numba changes how fast a sampler runs, never the numbers it returns.
Compilation is lazy (first call) and cached on disk by numba (``cache=True``) for
functions defined in a file. A kernel may call :func:`prefetch` (a no-op in Python,
one prefetch instruction when compiled) to start loading a table entry it needs later,
the draws of :mod:`mechopt.runtime.bitgen` (a numpy BitGenerator, without a buffer),
and any function marked :func:`helper`.

Examples
--------
>>> from mechopt.runtime.jit import kernel
>>> @kernel
... def twice(a):
...     for i in range(a.size):
...         a[i] *= 2
>>> import numpy as np
>>> a = np.arange(3.0)
>>> fn = twice.compiled() or twice.python
>>> fn(a); a.tolist()
[0.0, 2.0, 4.0]
"""

from __future__ import annotations

import functools
import importlib.util
import os
from typing import Any, Callable

__all__ = ["Kernel", "kernel", "helper", "available", "numpy_and_compiled", "prefetch"]


@functools.cache
def _numba_installed() -> bool:
    return importlib.util.find_spec("numba") is not None


def available() -> bool:
    """True when kernels compile: numba is installed and ``MECHOPT_JIT`` is not ``0``.

    >>> isinstance(available(), bool)
    True
    """
    return os.environ.get("MECHOPT_JIT", "1") != "0" and _numba_installed()


class Kernel:
    """A function with an optional compiled twin (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.python = fn
        self._compiled: Callable[..., Any] | None = None
        functools.update_wrapper(self, fn)

    def compiled(self) -> Callable[..., Any] | None:
        """The numba-compiled function, or ``None`` when :func:`available` is false."""
        if not available():
            return None
        if self._compiled is None:
            import numba

            _register_prefetch()
            from mechopt.runtime.bitgen import register

            register()
            _register_helpers()
            cache = os.path.isfile(self.python.__code__.co_filename)  # a doctest's function has no file
            self._compiled = numba.njit(cache=cache, nogil=True)(self.python)
        return self._compiled


def kernel(fn: Callable[..., Any]) -> Kernel:
    """Wrap ``fn`` as a :class:`Kernel` (compiled on first use when numba is installed)."""
    return Kernel(fn)


_HELPERS: list[Callable[..., Any]] = []  # functions kernels call (numba compiles them with the kernel)
_REGISTERED: set[Callable[..., Any]] = set()


def helper(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Mark ``fn`` (in numba's subset) as callable from kernels; it stays the plain function in Python.

    >>> @helper
    ... def inc(v):
    ...     return v + 1
    >>> inc(1)
    2
    """
    _HELPERS.append(fn)
    return fn


def _register_helpers() -> None:
    """Register the helpers numba has not seen yet (``register_jitable``: compiled into their callers)."""
    from numba.extending import register_jitable

    for fn in _HELPERS:
        if fn not in _REGISTERED:
            register_jitable(fn)
            _REGISTERED.add(fn)


def numpy_and_compiled(draw: Callable[[], Any], kern: Kernel) -> tuple[Any, Any]:
    """``draw()`` on the numpy path, then again with ``kern`` compiled: the pair, to compare.

    ``MECHOPT_JIT`` is set for each call and restored afterwards, so the check runs
    whatever the caller's environment says. Without numba it raises
    :class:`~mechopt.errors.MissingDependency` naming ``mechopt[fast]``.

    >>> import numpy as np
    >>> slow, fast = numpy_and_compiled(lambda: np.arange(3), kernel(lambda a: a))
    >>> slow.tolist() == fast.tolist()
    True
    """
    from mechopt.errors import MissingDependency

    old = os.environ.get("MECHOPT_JIT")
    try:
        os.environ["MECHOPT_JIT"] = "0"
        slow = draw()
        os.environ["MECHOPT_JIT"] = "1"
        if kern.compiled() is None:
            raise MissingDependency(
                "the compiled path needs numba, which is not installed: pip install 'mechopt[fast]'"
            )
        fast = draw()
    finally:
        if old is None:
            os.environ.pop("MECHOPT_JIT", None)
        else:
            os.environ["MECHOPT_JIT"] = old
    return slow, fast


def prefetch(a: Any, i: int) -> None:
    """Ask the CPU to start loading ``a[i]`` into its cache; changes no value (a no-op in Python).

    Compiled, it is LLVM's ``llvm.prefetch`` (read, keep in all levels) on the address
    of ``a[i]``, without a bounds check: a prefetch of an address outside ``a`` is
    ignored by the CPU, never a fault.

    >>> import numpy as np
    >>> prefetch(np.zeros(3), 1) is None
    True
    """


@functools.cache
def _register_prefetch() -> None:
    """Teach numba :func:`prefetch` (once, before the first kernel compiles)."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic, overload

    i8p = ir.IntType(8).as_pointer()
    name = "llvm.prefetch.p0" if str(i8p) == "ptr" else "llvm.prefetch.p0i8"  # opaque or typed pointers

    @intrinsic
    def _prefetch(typingctx: Any, arr: Any, idx: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            aryty = signature.args[0]
            ary = context.make_array(aryty)(context, builder, args[0])
            ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
            fnty = ir.FunctionType(ir.VoidType(), [i8p] + [ir.IntType(32)] * 3)
            fn = cgutils.get_or_insert_function(builder.module, fnty, name)
            i32 = ir.IntType(32)
            builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, high locality, data
            return context.get_dummy_value()

        return types.void(arr, idx), codegen

    @overload(prefetch)
    def _prefetch_overload(a, i):  # type: ignore[no-untyped-def]  # numba: the same parameters as the lambda
        return lambda a, i: _prefetch(a, i)
