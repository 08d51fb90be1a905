"""Children that die with their parent, and SIGTERM handled like Ctrl-C.

A process mechopt forks (sqp's time-limited child, compare's isolated rows, the local workers of
a sweep or compare) must not outlive the process that started it: an orphaned sqp child ran on at
85 % CPU after its parent got SIGTERM or SIGKILL, and in a sweep it kept the lock so ``--resume``
was refused. :func:`bind_to_parent`, called in the child, ends it with its parent, by the best
means the platform has:

* Linux: the parent-death signal, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` through :mod:`ctypes`;
  the kernel kills the child when the thread that forked it ends, whatever killed it (SIGKILL
  included);
* elsewhere, with a pipe from :func:`lifeline`: a thread of the child blocks reading the pipe,
  whose write end only the parent holds, and ends the child at end-of-file (the parent is gone);
* otherwise a thread that polls :func:`os.getppid` every ``interval`` seconds.

:func:`terminate_like_interrupt` makes SIGTERM (and SIGHUP) raise :class:`Terminated`, a
:class:`KeyboardInterrupt`, in the main thread, so every ``finally`` runs as for Ctrl-C: sweep
locks released, temporaries removed, children killed.

Examples
--------
>>> import signal
>>> from mechopt.runtime.lifeline import Terminated, terminate_like_interrupt
>>> with terminate_like_interrupt():                  # in the main thread: SIGTERM raises Terminated
...     handler = signal.getsignal(signal.SIGTERM)
>>> try:
...     handler(signal.SIGTERM, None)
... except Terminated as exc:
...     print(exc, isinstance(exc, KeyboardInterrupt))
terminated by SIGTERM True
>>> signal.getsignal(signal.SIGTERM) is handler       # restored on leaving
False
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

__all__ = ["bind_to_parent", "lifeline", "parent_death_signal", "Terminated", "terminate_like_interrupt"]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C's KeyboardInterrupt."""


@functools.cache
def _prctl() -> Any:
    """libc's ``prctl`` (Linux), looked up once in the parent: a child forked from a threaded
    process must not run the dynamic loader."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask Linux to send ``sig`` to this process when the thread that forked it ends; False elsewhere."""
    prctl = _prctl()
    return prctl is not None and prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def lifeline() -> tuple[int, int]:
    """Call in the parent before forking: a pipe ``(read, write)``. The child passes ``read`` to
    :func:`bind_to_parent` and closes ``write``; the parent closes ``read`` and keeps ``write``
    open until the child is reaped."""
    _prctl()
    return os.pipe()


def _exit_when(gone: object) -> None:
    threading.Thread(target=gone, name="mechopt-exit-with-parent", daemon=True).start()


def bind_to_parent(parent: int, watch_fd: int | None = None, interval: float = 0.5) -> str:
    """In a forked child: end this process (``os._exit``/SIGKILL) when process ``parent`` ends.

    Returns the means used: ``"pdeathsig"``, ``"pipe"`` or ``"poll"`` (module docstring).
    """
    if parent_death_signal():
        if os.getppid() != parent:  # the parent died before the signal was armed
            os._exit(1)
        if watch_fd is not None:
            os.close(watch_fd)
        return "pdeathsig"
    if watch_fd is not None:

        def read_until_eof() -> None:
            with contextlib.suppress(OSError):
                while os.read(watch_fd, 1):
                    pass
            os._exit(1)

        _exit_when(read_until_eof)
        return "pipe"

    def poll() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        os._exit(1)

    _exit_when(poll)
    return "poll"


def _raise_terminated(signum: int, frame: object) -> None:
    raise Terminated(f"terminated by {signal.Signals(signum).name}")


@contextlib.contextmanager
def terminate_like_interrupt() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise :class:`Terminated` in the main thread (elsewhere: no change)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {}
    for name in ("SIGTERM", "SIGHUP"):
        sig = getattr(signal, name, None)
        if sig is not None:
            with contextlib.suppress(OSError, ValueError):
                old[sig] = signal.signal(sig, _raise_terminated)
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
