"""Local worker processes: how many a job may use, and that they end with the process that asked.

How many: never more than its tasks or the usable CPUs.

``compare --jobs 200`` on a 2-core machine used to fork 138 processes (4 GB within 24 s);
:func:`cap_jobs` bounds the request by the number of tasks and by the CPUs this process may
run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count``), and returns a
note saying so, which the CLI prints.

Ending with the parent: a loky worker busy in a long task never looks at its call queue, so after
``kill -9`` of ``mechopt sweep --jobs 2`` its workers ran on past 100 s. Tasks sent to workers are
wrapped in :class:`OrphanSafe`, which arms :func:`exit_with_parent` in the worker: on Linux the
parent-death signal (:func:`mechopt.runtime.lifeline.parent_death_signal`, SIGKILL the moment the
parent dies) when the worker is a direct child started from the main thread (the signal follows
the thread that forked, and only the main thread lives as long as the process), and in every case
a daemon thread that ends the worker (``os._exit``) within ``interval`` seconds once the process
that sent the task is gone (the worker is re-parented, or the pid no longer exists). In the
sending process itself (``--jobs 1``) the wrapper arms nothing.

Examples
--------
>>> from mechopt.jobs.workers import cap_jobs, usable_cpus
>>> cap_jobs(1, 50)
(1, None)
>>> n, note = cap_jobs(10_000, 3)
>>> n <= 3 and note.startswith("--jobs 10000 capped at")
True
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from typing import Any

__all__ = ["usable_cpus", "cap_jobs", "exit_with_parent", "OrphanSafe", "WATCH_INTERVAL_S"]

WATCH_INTERVAL_S = 0.5
"""How often a worker checks that the process that sent its task still exists (seconds)."""

_ARMED: dict[int, int] = {}  # owner pid -> this process's pid, once its watchdog runs


def usable_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def cap_jobs(jobs: int, tasks: int) -> tuple[int, str | None]:
    """``min(jobs, tasks, usable CPUs)`` (at least 1) and a note when that is less than ``jobs``."""
    cpus = usable_cpus()
    n = max(1, min(jobs, tasks, cpus))
    if n >= jobs:
        return jobs, None
    return n, f"--jobs {jobs} capped at {n} ({tasks} tasks, {cpus} usable CPUs)"


def _owner_alive(owner: int, first_ppid: int) -> bool:
    if first_ppid == owner:  # a direct child: re-parented at the owner's death, zombie or not
        return os.getppid() == owner
    try:  # not a direct child (an intermediate launcher): ask the pid
        os.kill(owner, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else (pid reused): treat as gone
        return False
    return True


def exit_with_parent(owner: int, interval: float = WATCH_INTERVAL_S, death_signal: bool = False) -> bool:
    """Start (once per process) a daemon thread that calls ``os._exit(1)`` once process ``owner`` is gone,
    and with ``death_signal`` in a direct child of ``owner``, arm the parent-death signal (module docstring).

    Returns whether a watchdog runs in this process (False in ``owner`` itself).

    Examples
    --------
    >>> import os
    >>> exit_with_parent(os.getpid())      # the owner never watches itself
    False
    """
    me = os.getpid()
    if me == owner:
        return False
    if _ARMED.get(owner) == me:  # after a fork the dict is inherited; the thread is not
        return True
    first_ppid = os.getppid()
    if death_signal and first_ppid == owner:
        from mechopt.runtime.lifeline import parent_death_signal

        parent_death_signal()
        if os.getppid() != owner:  # the owner died before the signal was armed
            os._exit(1)

    def watch() -> None:
        while _owner_alive(owner, first_ppid):
            time.sleep(interval)
        os._exit(1)  # ends the task too: nobody is left to receive its result

    threading.Thread(target=watch, name="mechopt-exit-with-parent", daemon=True).start()
    _ARMED[owner] = me
    return True


class OrphanSafe:
    """A picklable wrapper of a task function that arms :func:`exit_with_parent` in the worker first.

    Examples
    --------
    >>> OrphanSafe(abs)(-3)                 # in the sending process: just the call
    3
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.owner = os.getpid()
        self.from_main = threading.current_thread() is threading.main_thread()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        exit_with_parent(self.owner, death_signal=self.from_main)
        return self.fn(*args, **kwargs)
