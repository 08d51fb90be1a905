"""The deadline of the current call: a time limit that bounds the whole call, not only the solver.

``--time-limit 2`` used to bound the solver's own loop only: parsing the prior, choosing the
solver, building the mechanism and auditing it came on top (``uniform:10^7 --time-limit 10`` took
17.3 s; ``mechopt.design(..., time_limit=2)`` 4.7 s). :func:`bounded` sets the deadline of the
running call (a :class:`~contextvars.ContextVar`, so threads and asyncio tasks each keep their
own; a nested limit can only shorten it); the stages between the solver's own checks call
:func:`check`, which raises :class:`TimeLimitReached` past it. ``mechopt.solve`` and
``mechopt.design`` turn that into a result with the status ``time_limit``; the command line
counts from the start of the process (:func:`process_start`) and, as a backstop for a stage that
runs on in C, :func:`alarm` raises the same exception from ``SIGALRM`` a moment after the deadline.

:class:`TimeLimitReached` derives from :class:`BaseException`, like :class:`KeyboardInterrupt`: a
solver's ``except Exception`` (a ``can_solve`` that answers False on any error) never swallows it.

Examples
--------
>>> import time
>>> from mechopt.runtime.deadline import bounded, check, remaining, TimeLimitReached
>>> with bounded(0.05):
...     time.sleep(0.06)
...     try:
...         check("sleeping")
...     except TimeLimitReached as exc:
...         print(exc)
the 0.05 s time limit passed while sleeping
>>> remaining() is None
True
"""

from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

__all__ = [
    "TimeLimitReached", "bounded", "check", "remaining", "limit", "seconds", "process_start", "alarm", "passed",
    "LATE_GRACE_S", "ALARM_MARGIN_S", "late",
]  # fmt: skip

#: Seconds a solver may run past the deadline to return what it has: column generation's first master LP when the
#: deadline passed before it (so a time limit returns the seed columns' audited channel, not none). The command
#: line's SIGALRM backstop (:func:`alarm`) fires only after them: one grace, not two that disagree.
LATE_GRACE_S = 2.0
#: Seconds after the deadline (or after a stage's :func:`late` grace) at which the backstop alarm fires: a stage that
#: does not :func:`check` (an FFT of 10⁷ points, a coupling) ends the call this soon after it, not a grace later
#: (uniform:10⁷ --time-limit 3 ended 1.03 s late when every stage waited out the first master's 2 s grace).
ALARM_MARGIN_S = 0.2
_BACKSTOP: list[float] = []  # the main thread's armed alarm, while armed: [when it fires (a perf_counter time), the
# process it is armed in (a forked child has no timer: its copy is not its own)], and a third entry once :func:`late`
# moved it (one grace a call)
_MAX_ALARM_S = 1e9  # the longest backstop alarm armed (about 32 years; setitimer's limit is near 9.2e9 s)

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("mechopt_deadline", default=None)
"""(deadline as a time.perf_counter() value, the limit in seconds it came from)."""


class TimeLimitReached(BaseException):
    """The deadline of the current call passed at a checkpoint (``what``: the stage it was in)."""

    def __init__(self, what: str, limit: float | None = None) -> None:
        self.what, self.limit = what, limit
        super().__init__(f"the {limit:g} s time limit passed while {what}" if limit else f"time limit passed: {what}")


def seconds(limit: Any) -> float | None:
    """A valid ``time_limit`` option as seconds, else None (a solver's option check names a bad one).

    >>> seconds(2), seconds(True), seconds(float("inf")), seconds(None)
    (2.0, None, None, None)
    """
    ok = isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 0 and math.isfinite(limit)
    return float(limit) if ok else None


def passed(deadline: float | None) -> bool:
    """Whether a solver's deadline (a ``time.perf_counter()`` value; None: none) has passed. A solver that
    sees it has passed returns what it has: the command line's backstop waits :data:`LATE_GRACE_S` for that
    (:func:`late`).

    >>> passed(None), passed(time.perf_counter() - 1.0)
    (False, True)
    """
    if deadline is None or time.perf_counter() < deadline:
        return False
    late(LATE_GRACE_S)
    return True


def remaining() -> float | None:
    """Seconds left before the deadline of the current call (negative past it); None without one."""
    d = _DEADLINE.get()
    return None if d is None else d[0] - time.perf_counter()


def limit() -> float | None:
    """The time limit (seconds) the current deadline came from; None without one."""
    d = _DEADLINE.get()
    return None if d is None else d[1]


def check(what: str) -> None:
    """Raise :class:`TimeLimitReached` when the deadline of the current call has passed."""
    d = _DEADLINE.get()
    if d is not None and time.perf_counter() > d[0]:
        raise TimeLimitReached(what, d[1])


@contextlib.contextmanager
def bounded(seconds: float | None, start: float | None = None) -> Iterator[None]:
    """Inside: the deadline is ``start + seconds`` (``start``: a perf_counter time, default now), or
    the enclosing one when that is earlier. ``seconds=None`` keeps the enclosing deadline."""
    if seconds is None:
        yield
        return
    mine = (time.perf_counter() if start is None else start) + float(seconds)
    outer = _DEADLINE.get()
    token = _DEADLINE.set((mine, float(seconds)) if outer is None or mine < outer[0] else outer)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def process_start() -> float:
    """The :func:`time.perf_counter` time at which this process started (Linux: from
    ``/proc/self/stat``, so the interpreter's start-up counts); elsewhere the time of the call."""
    now = time.perf_counter()
    try:
        with open("/proc/self/stat", "rb") as fh:
            fields = fh.read().rsplit(b")", 1)[1].split()
        started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time after boot, in ticks
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - started
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - age if 0.0 <= age < 3600.0 else now


@contextlib.contextmanager
def alarm(grace: float) -> Iterator[None]:
    """Inside (main thread, where ``SIGALRM`` exists): ``grace`` seconds after the current deadline (or
    after now, when it passed already), raise :class:`TimeLimitReached` in the main thread whatever stage
    it is in; a backstop for stages that do not :func:`check`. A stage allowed past the deadline moves it
    later (:func:`late`). Elsewhere, without a deadline, or with one further off than ``_MAX_ALARM_S``
    (``setitimer`` overflows near 9.2e9 s), nothing.

    >>> with bounded(1e12), alarm(1.0):  # 31 700 years: no backstop armed, no OverflowError
    ...     remaining() > 9e11
    True
    """
    left = remaining()
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if left is None or not usable or left + grace > _MAX_ALARM_S:
        yield
        return
    lim = limit()

    def fire(signum: int, frame: object) -> None:
        raise TimeLimitReached("running (stopped at the deadline)", lim)

    old = signal.signal(signal.SIGALRM, fire)
    wait = max(left, 0.0) + grace  # never sooner than the grace: a solve entered late still reaches its solver
    signal.setitimer(signal.ITIMER_REAL, wait)
    _BACKSTOP[:] = [time.perf_counter() + wait, os.getpid()]
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        _BACKSTOP.clear()


def late(seconds: float) -> None:
    """The call runs past its deadline by up to ``seconds`` from now to return what it has (a solver that saw the
    deadline pass, column generation's seeds and first master LP, the audit of a small mechanism returned late): the
    armed backstop (:func:`alarm`) is moved to fire no sooner than ``seconds`` + :data:`ALARM_MARGIN_S` from now.
    Once a call: the first move stands (a loop that keeps asking cannot keep the alarm off). Without an armed backstop
    (another thread, no deadline, the library's own calls), nothing.

    >>> late(1.0)  # no alarm armed: nothing happens
    """
    if len(_BACKSTOP) != 2 or _BACKSTOP[1] != os.getpid() or threading.current_thread() is not threading.main_thread():
        return
    fire_at = time.perf_counter() + seconds + ALARM_MARGIN_S
    if fire_at > _BACKSTOP[0]:
        signal.setitimer(signal.ITIMER_REAL, fire_at - time.perf_counter())
        _BACKSTOP[:] = [fire_at, _BACKSTOP[1], 1.0]
