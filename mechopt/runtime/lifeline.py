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
locks released, temporaries removed, children killed. Python runs that handler only when the main
thread is back in the interpreter: a long solve inside HiGHS or LAPACK would keep a terminated
process running to its end (a hostile run: ``timeout 100`` on a prior-free design, and the process
ran 425 s). So the signal also wakes a watchdog thread (``signal.set_wakeup_fd``); when the handler
has not run :data:`GRACE` seconds later, the watchdog says so on stderr and ends the process with
status 128 + the signal's number, as the signal's default action would.

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

__all__ = [
    "bind_to_parent",
    "interrupt_status",
    "lifeline",
    "parent_death_signal",
    "Terminated",
    "terminate_like_interrupt",
]

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP, raised in the main thread like Ctrl-C's KeyboardInterrupt; ``signum`` is the signal."""

    def __init__(self, message: str, signum: int = signal.SIGTERM) -> None:
        super().__init__(message)
        self.signum = int(signum)


def interrupt_status(exc: BaseException) -> int:
    """The exit status of an interrupt, as a shell reports a process killed by its signal: 128 + the
    signal's number (``Terminated.signum``; SIGINT for a plain :class:`KeyboardInterrupt`).

    >>> interrupt_status(KeyboardInterrupt()), interrupt_status(Terminated("terminated by SIGHUP", signal.SIGHUP))
    (130, 129)
    """
    return 128 + int(getattr(exc, "signum", signal.SIGINT))


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


#: Seconds a SIGTERM or SIGHUP waits for the main thread to raise :class:`Terminated` before the watchdog
#: ends the process without cleanup.
GRACE = 5.0

_handled = threading.Event()  # set by the handler: the main thread took the signal, the watchdog stands down


def _raise_terminated(signum: int, frame: object) -> None:
    _handled.set()
    raise Terminated(f"terminated by {signal.Signals(signum).name}", signum)


def _watchdog(read_fd: int, signums: tuple[int, ...], grace: float, exit: Any = os._exit) -> None:
    """Read the wakeup pipe; on one of ``signums``, give the main thread ``grace`` seconds to take it, then end
    the process (``exit(128 + signum)``). Returns at end-of-file (the pipe closed on leaving the context)."""
    while True:
        try:
            data = os.read(read_fd, 64)
        except OSError:
            return
        if not data:
            os.close(read_fd)
            return
        hit = [s for s in data if s in signums]
        if hit and not _handled.wait(grace):
            name = signal.Signals(hit[0]).name
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(
                    f"mechopt: {name}: the solver did not return within {grace:g} s; exiting without cleanup\n"
                )
                sys.stderr.flush()
            exit(128 + hit[0])
            return


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
    _handled.clear()
    r, w = os.pipe()
    os.set_blocking(w, False)
    old_fd = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    threading.Thread(target=_watchdog, args=(r, tuple(old), GRACE), name="mechopt-sigterm-watchdog",
                     daemon=True).start()  # fmt: skip
    try:
        yield
    finally:
        signal.set_wakeup_fd(old_fd)
        os.close(w)  # the watchdog reads end-of-file, closes r and returns
        for sig, handler in old.items():
            signal.signal(sig, handler)
