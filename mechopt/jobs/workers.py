"""How many local worker processes a job may use: never more than its tasks or the usable CPUs.

``compare --jobs 200`` on a 2-core machine used to fork 138 processes (4 GB within 24 s);
:func:`cap_jobs` bounds the request by the number of tasks and by the CPUs this process may
run on (``os.sched_getaffinity`` where it exists, else ``os.cpu_count``), and returns a
note saying so, which the CLI prints.

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

__all__ = ["usable_cpus", "cap_jobs"]


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
