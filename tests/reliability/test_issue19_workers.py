"""Issue 19: local worker processes end with the process that started them (``kill -9`` included).

Input: ``mechopt sweep SPEC --jobs 2`` on long points, the parent killed with SIGKILL.
Old: both loky workers kept running (still running 10 s later here; past 100 s in the issue).
New: each worker's watchdog (:func:`mechopt.jobs.workers.exit_with_parent`) ends it within about
``WATCH_INTERVAL_S`` seconds.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mechopt.jobs.workers import WATCH_INTERVAL_S, OrphanSafe, exit_with_parent

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

GRACE_S = 10 * WATCH_INTERVAL_S  # "promptly": a few polling intervals, with room for a loaded machine


def _state(pid: int) -> str | None:
    """The /proc state letter of pid (None when it no longer exists; 'Z' for a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def _gone(pid: int) -> bool:
    return _state(pid) in (None, "Z")


def _children(pid: int) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                stat = (p / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(stat[1]) == pid:
                out.append(int(p.name))
    return out


def _wait_gone(pids: list[int], timeout: float) -> list[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end and not all(_gone(p) for p in pids):
        time.sleep(0.1)
    return [p for p in pids if not _gone(p)]


def _kill_all(pids: list[int]) -> None:
    for p in pids:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_watchdog_ends_a_busy_grandchild_when_its_parent_is_killed():
    """A process that armed exit_with_parent(parent) and then busy-waits; the parent gets SIGKILL.
    Without the watchdog the busy process runs on (it never looks at its parent); with it, it ends."""
    r, w = os.pipe()
    middle = os.fork()
    if middle == 0:  # the "parent" of the worker
        worker = os.fork()
        if worker == 0:
            exit_with_parent(os.getppid(), interval=0.05)
            while True:  # a task that never checks anything
                pass
        os.write(w, str(worker).encode())
        time.sleep(3600)
        os._exit(0)
    os.close(w)
    worker = int(os.read(r, 64))
    os.close(r)
    try:
        assert not _gone(worker)
        os.kill(middle, signal.SIGKILL)
        os.waitpid(middle, 0)
        assert _wait_gone([worker], GRACE_S) == []
    finally:
        _kill_all([worker])


def test_orphan_safe_arms_nothing_in_the_sending_process():
    """--jobs 1 runs the wrapped task in the sending process: no watchdog there (it would end the CLI
    when the shell that started it exits)."""
    assert OrphanSafe(sum)([1, 2]) == 3
    assert exit_with_parent(os.getpid()) is False


SPEC = """problem = "design"
solvers = ["sqp"]
[fixed]
notion = "mip"
utility = "mi"
prior = "uniform:12"
[grid]
eps = [0.5, 1.0, 1.5, 2.0]
[options.sqp]
n_starts = 10000
"""


def test_sweep_workers_end_when_the_cli_is_killed(tmp_path):
    """A real `mechopt sweep --jobs 2` on points that take minutes; kill -9 once both workers run
    (about 2 s here; not slow-marked: it is the end-to-end check of the watchdog)."""
    spec = tmp_path / "long.toml"
    spec.write_text(SPEC)
    proc = subprocess.Popen(
        [sys.executable, "-m", "mechopt", "sweep", str(spec), "--out", str(tmp_path / "o.jsonl"), "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        cwd=tmp_path,
    )
    workers: list[int] = []
    try:
        end = time.monotonic() + 120
        while time.monotonic() < end and len(workers) < 2:
            workers = [
                p
                for p in _children(proc.pid)
                if "LokyProcess" in Path(f"/proc/{p}/cmdline").read_bytes().decode(errors="replace")
            ]
            time.sleep(0.2)
        assert len(workers) == 2, "the sweep never started two workers"
        time.sleep(1.0)  # both are inside their first task now
        assert proc.poll() is None and not any(_gone(p) for p in workers)
        proc.kill()
        proc.wait()
        assert _wait_gone(workers, GRACE_S) == [], "workers still running after the parent was killed"
    finally:
        proc.kill()
        _kill_all(workers)
