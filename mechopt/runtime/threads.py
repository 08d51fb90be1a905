"""Single-threaded BLAS while mechopt solves: the same input gives the same numbers.

OpenBLAS (and MKL) split a level-3 call such as ``dtrsm`` or ``dgemm`` across
their threads; the split changes the blocking, hence the order of the
floating-point sums, hence the last bits of the result. SciPy's SLSQP solves
its least-squares subproblem with ``dtrsm`` (in ``lsq``, for instance a
144 × 30 right-side solve on a six-symbol design), and a multi-start local
method amplifies a last-bit difference into a different KKT point. So a
result would depend on ``OMP_NUM_THREADS``, on the machine's core count and on
the worker type (joblib's loky workers get ``cores / jobs`` BLAS threads,
Dask workers their own). :func:`single_threaded` pins every BLAS and OpenMP
pool the process has loaded (through ``threadpoolctl``) to one thread while
a solve and its audit run; :func:`mechopt.solve` and
:meth:`mechopt.model.solver.Solver.solve` enter it.

The context is re-entrant and process-wide: the pools go to one thread when
the first solve of the process (in any Python thread) enters, and back to
their previous sizes when the last one leaves, so concurrent solves in one
process (a threaded Dask worker) never restore the pools under each other.
Code outside mechopt that changes the pools from another thread while a solve
runs is not coordinated with.

Examples
--------
>>> from threadpoolctl import threadpool_info
>>> from mechopt.runtime.threads import single_threaded
>>> with single_threaded():
...     sorted({p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"}) in ([], [1])
True
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["single_threaded", "active"]

_LOCK = threading.Lock()
_DEPTH = 0
_LIMITER: Any = None
_CONTROLLER: Any = None
_MODULES_SEEN = -1


def _controller() -> Any:
    """A cached ``ThreadpoolController``, rebuilt when new modules (maybe new native libraries) were imported.

    Building one walks every loaded shared object (~1 ms); a solve of a small
    design takes about as long, so it is reused while ``sys.modules`` is unchanged.
    """
    global _CONTROLLER, _MODULES_SEEN
    from threadpoolctl import ThreadpoolController

    if _CONTROLLER is None or len(sys.modules) != _MODULES_SEEN:
        _CONTROLLER = ThreadpoolController()
        _MODULES_SEEN = len(sys.modules)
    return _CONTROLLER


@contextmanager
def single_threaded() -> Iterator[None]:
    """Run the block with every BLAS / OpenMP thread pool of the process at one thread.

    Re-entrant and shared by all Python threads of the process (see the module
    docstring); the previous pool sizes come back when the outermost block ends.
    """
    global _DEPTH, _LIMITER
    with _LOCK:
        if _DEPTH == 0:
            _release_openblas()
            _LIMITER = _controller().limit(limits=1)
        _DEPTH += 1
    try:
        yield
    finally:
        with _LOCK:
            _DEPTH -= 1
            if _DEPTH == 0:
                limiter, _LIMITER = _LIMITER, None
                limiter.restore_original_limits()
                _release_openblas()


def _release_openblas() -> None:
    """Let any thread set OpenBLAS's (process-wide) pool size next.

    threadpoolctl ≥ 3.6 lets only the first thread that set an OpenBLAS limit
    change it again ("controlling thread") and silently ignores the others, so
    a threaded Dask worker would run with the full pool after the main thread
    once solved something. Only the outermost entry and exit (under ``_LOCK``)
    call this, when no mechopt solve of the process holds the pools.
    """
    from threadpoolctl import OpenBLASController

    clear = getattr(OpenBLASController, "clear_controlling_thread", None)
    if clear is not None:
        clear(force=True)


def active() -> bool:
    """Whether some solve of this process is inside :func:`single_threaded` now.

    >>> active()
    False
    """
    return _DEPTH > 0
