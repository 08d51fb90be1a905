"""Issue 27, N5 of the hostile report: forked children die with their parent; SIGTERM is handled.

Was (``d_orphan.sh``, ``d_lock.sh``): sqp's forked child ran on (85 % CPU, 250 MB) after its parent got
SIGTERM or SIGKILL, and in a sweep it kept the lock, so ``--resume`` and ``--force`` were refused
("another sweep is writing") until the orphan was killed by hand. Now the child is bound to its
parent (:mod:`mechopt.runtime.lifeline`: Linux's parent-death signal, else a pipe the child watches,
else polling ``getppid``), SIGTERM unwinds like Ctrl-C, and a forked child drops the locks it inherits.

A killed child may stay a zombie until the machine's init reaps it: "gone" below means dead or a zombie.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.timeout(180),
    pytest.mark.skipif(not Path("/proc/self/stat").exists() or not hasattr(os, "fork"), reason="Linux /proc, fork"),
]


def _gone(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return True
    return state in ("Z", "X")


def _wait_gone(pid: int, seconds: float) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if _gone(pid):
            return True
        time.sleep(0.05)
    return _gone(pid)


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            pass
    return out


def _wait_child(pid: int, seconds: float = 60.0) -> int:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        kids = _children(pid)
        if kids:
            return kids[0]
        time.sleep(0.05)
    raise AssertionError(f"process {pid} never forked a child")


BIND = textwrap.dedent("""
    import os, sys, time
    import mechopt.runtime.lifeline as L
    mode = sys.argv[1]
    if mode != "pdeathsig":
        L.parent_death_signal = lambda sig=9: False
    r, w = L.lifeline()
    me = os.getpid()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        how = L.bind_to_parent(me, r if mode != "poll" else None, interval=0.1)
        print(how, os.getpid(), flush=True)
        while True:
            time.sleep(0.05)
    os.close(r)
    time.sleep(0.5)
    os._exit(0)   # the parent ends without any cleanup, like a SIGKILL
""")


@pytest.mark.parametrize("mode", ["pdeathsig", "pipe", "poll"])
def test_bound_child_ends_with_its_parent(mode) -> None:
    """Each means of :func:`bind_to_parent`: the child is gone within 2 s of its parent's end."""
    run = subprocess.run([sys.executable, "-c", BIND, mode], capture_output=True, text=True, timeout=60)
    how, child = run.stdout.split()
    assert how == mode, run.stderr
    assert _wait_gone(int(child), 2.0), f"the child {child} ({mode}) outlived its parent"


SQP_CHILD = textwrap.dedent("""
    import time
    from mechopt.solvers import _sqp_run as R
    def busy(publish):   # a child busy in its starts (SLSQP holds the GIL for seconds)
        while True:
            time.sleep(0.01)
    R._forked(busy, 3, time.perf_counter() + 120)
""")


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_n5_sqp_forked_child_dies_with_its_parent(sig) -> None:
    """d_orphan.sh: ``kill -TERM`` / ``kill -9`` of the parent left the child running (PPID 1, 85 % CPU)."""
    proc = subprocess.Popen([sys.executable, "-c", SQP_CHILD], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        child = _wait_child(proc.pid)
        proc.send_signal(sig)
        proc.wait(timeout=30)
        assert _wait_gone(child, 3.0), f"sqp's child {child} outlived its parent ({sig.name})"
    finally:
        if proc.poll() is None:
            proc.kill()


SPEC = """problem = "design"
solvers = ["sqp"]
time_limit = 60
[fixed]
notion = "mip"
utility = "mi"
prior = "0.02,0.03,0.05,0.07,0.08,0.1,0.11,0.12,0.13,0.14,0.15"
[grid]
eps = [1.0]
[options.sqp]
n_starts = 5000
"""


def _sweep(tmp_path: Path, *more: str) -> subprocess.Popen:
    (tmp_path / "sl.toml").write_text(SPEC)
    cmd = [sys.executable, "-m", "mechopt", "sweep", "sl.toml", "--out", "l.jsonl", *more]
    return subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_n5_sigterm_to_a_sweep_releases_its_lock_and_ends_the_child(tmp_path) -> None:
    """SIGTERM to ``mechopt sweep`` while sqp's child runs: one line "terminated by SIGTERM", exit 143,
    the child gone, no lock and no temporary left; ``--resume`` then runs."""
    proc = _sweep(tmp_path)
    child = _wait_child(proc.pid)
    time.sleep(0.5)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143 and err.strip() == "mechopt: error: terminated by SIGTERM", err
    assert _wait_gone(child, 3.0)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
    again = _sweep(tmp_path, "--resume", "--time-limit", "1")
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0 and "1 points" in out, err


def test_n5_kill9_sweep_then_resume_is_not_refused(tmp_path) -> None:
    """d_lock.sh: after ``kill -9`` of the sweep, its sqp child held the flock and ``--resume`` / ``--force``
    were refused ("another sweep is writing 'l.jsonl' now"). Now the child dies with it: both run."""
    proc = _sweep(tmp_path)
    child = _wait_child(proc.pid)
    proc.kill()
    proc.communicate(timeout=30)
    assert _wait_gone(child, 3.0)
    for flag in ("--resume", "--force"):
        again = _sweep(tmp_path, flag, "--time-limit", "1")
        out, err = again.communicate(timeout=120)
        assert again.returncode == 0 and "another sweep" not in err, err
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []  # the killed run's temporary too


def test_sigterm_ends_a_process_stuck_in_c_after_the_grace(tmp_path) -> None:
    """A hostile run: ``timeout 100`` on a prior-free design, and the process ran 425 s (HiGHS held the main
    thread; Python runs a signal handler only back in the interpreter). The watchdog of
    ``terminate_like_interrupt`` ends it GRACE seconds after the signal, status 143, one line on stderr.
    Here the main thread sleeps 30 s inside libc with SIGTERM blocked, so only the watchdog can act. "ready"
    comes from a thread 1 s after the main thread called sleep: a signal while the main thread was still between
    bytecodes ran the Python handler there instead (exit 1, seen once under load)."""
    script = tmp_path / "stuck.py"
    script.write_text(
        textwrap.dedent(
            """
            import ctypes, signal, threading, time
            from mechopt.runtime import lifeline
            lifeline.GRACE = 0.5
            sleep = ctypes.CDLL(None).sleep
            with lifeline.terminate_like_interrupt():
                signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})  # delivered to the watchdog's thread
                threading.Thread(target=lambda: (time.sleep(1.0), print("ready", flush=True)), daemon=True).start()
                sleep(30)  # in C, the GIL released, as in a HiGHS solve
            print("finished")
            """
        )
    )
    p = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready"
    t0 = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=25)
    assert p.returncode == 128 + signal.SIGTERM and "finished" not in out, (p.returncode, out, err)
    assert time.monotonic() - t0 < 15 and "SIGTERM: the solver did not return within 0.5 s" in err


def test_the_watchdog_stands_down_when_the_main_thread_takes_the_signal() -> None:
    from mechopt.runtime import lifeline

    for handled, expect in ((False, [128 + signal.SIGTERM]), (True, [])):
        r, w = os.pipe()
        exits: list[int] = []
        lifeline._handled.clear()
        if handled:
            lifeline._handled.set()
        os.write(w, bytes([signal.SIGALRM, signal.SIGTERM]))  # a deadline's alarm byte is not a stop
        os.close(w)
        lifeline._watchdog(r, (signal.SIGTERM,), 0.05, exit=exits.append)
        assert exits == expect
    lifeline._handled.clear()
