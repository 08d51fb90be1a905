"""Issue 27, N8, N9 and N10 of the hostile report: a time limit bounds the whole call, and sizes are
checked before anything large is allocated.

The time-limit tests are properties of the bound, not speed tests: each runs the report's command
as a fresh process with ``--time-limit`` 2 or 3 s and measures the whole call (interpreter start,
imports, parsing, selection, solving, auditing, printing); it must end within 1 s of CPU of the limit
(the wall-clock allowance divided by the CPU share the process got on a loaded machine),
with either an answer or the status ``time_limit``. The size tests measure the peak memory of the
command (its own ``RUSAGE_CHILDREN`` in a fresh wrapper process) and check the one-line refusal.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npf

pytestmark = pytest.mark.timeout(300)

DESIGN = [sys.executable, "-m", "mechopt", "design"]
_P = np.random.default_rng(1).dirichlet(np.ones(40))
P40 = ",".join(repr(float(v)) for v in _P / _P.sum())


def _timed(argv: list[str], cwd: Path) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, the fraction of a core the run got, the run): the share is its CPU over its wall time."""
    c0, t0 = _children_cpu(), time.perf_counter()
    run = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t0
    return wall, min(1.0, (_children_cpu() - c0) / wall), run


def _children_cpu() -> float:
    import resource

    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


@pytest.mark.parametrize(
    "args, limit",
    [
        (["--notion", "ldp", "--utility", "mi", "--prior", "uniform:10000000", "--eps", "1"], 2),
        (["--notion", "ldp", "--utility", "mi", "--prior", "uniform:10000000", "--eps", "1"], 3),
        (["--notion", "ldp", "--utility", "mse", "--prior", "uniform:1000000", "--eps", "1"], 2),
        (["--notion", "mip", "--utility", "mi", "--prior", P40, "--eps", "1", "--solver", "sqp"], 2),
    ],
    ids=["ldp-mi-1e7-2s", "ldp-mi-1e7-3s", "ldp-mse-1e6-2s", "mip-sqp-d40-2s"],
)
def test_n8_time_limit_bounds_the_whole_cli_call(tmp_path, args, limit) -> None:
    """N8: ``uniform:10^7 --time-limit 10`` took 17.3 s, a d = 10^6 LDP-MSE design was refused after
    23 s, MIP sqp d = 40 with ``--time-limit 5`` took 6.2 s. Now the whole call ends within 1 s of the limit
    with an answer, the status ``time_limit`` or a one-line refusal.

    The text report, not ``--json``: the limit bounds the design, and the JSON of a structured answer is the
    size of its plan (a uniform:10^7 design that ends in time writes 500 MB of JSON, after the limit)."""
    wall, share, run = _timed([*DESIGN, *args, "--time-limit", str(limit)], tmp_path)
    # 1 s of the process's CPU past the limit; on a loaded machine it gets a share of a core, and the wall-clock
    # allowance is scaled by it (the clean-clone CI beside a second suite measured 4.8 s for a 2 s limit)
    allowed = limit + 1.0 / max(share, 0.1)
    assert wall <= allowed, f"{wall:.2f} s for a {limit} s limit (CPU share {share:.2f}): {run.stderr[-300:]}"
    assert "Traceback" not in run.stderr and "internal error" not in run.stderr, run.stderr
    status = re.search(r"^status +(\w+)", run.stdout, re.M)
    if run.returncode == 0:  # an answer in time, or the status time_limit with the mechanism it had
        assert status and status[1] in ("optimal", "locally_optimal", "feasible", "time_limit"), run.stdout
    elif run.returncode == 1:  # the limit passed before any mechanism (reading the problem, or solving): one line
        assert "time limit passed" in run.stderr and run.stderr.count("\n") == 1, run.stderr
        assert status is None or status[1] == "time_limit", run.stdout  # the solve's report, with no mechanism
    else:  # refused in time (d = 10^6 LDP-MSE is too large for every method): one line
        assert run.returncode == 2 and "needs ~" in run.stderr and run.stderr.count("\n") == 1, run.stderr


API = """
import sys, time
import mechopt
t0, c0 = time.perf_counter(), time.thread_time()
r = mechopt.design(prior="uniform:10000000", notion="ldp", utility="mi", eps=1, time_limit=2)
print(time.perf_counter() - t0, time.thread_time() - c0, r.status.value)
"""


def test_n8_api_time_limit_bounds_the_call() -> None:
    """N8: ``mechopt.design(prior="uniform:10000000", ..., time_limit=2)`` took 4.7 s. The API has no
    SIGALRM backstop (it may run in any thread): it checks the deadline between stages, so a stage that
    started before the deadline runs to its end (about 1 s of CPU at d = 10⁷).

    The promise is in CPU terms: the overshoot past the limit is at most 1.5 s of the calling thread's
    CPU. On a loaded machine the thread gets a share of a core, so the wall-clock allowance is scaled by
    wall / CPU of the call itself (measured 2.3-3.0 s at load 1; 4.6 s at load 8, CPU share ~0.5).
    """
    run = subprocess.run([sys.executable, "-c", API], capture_output=True, text=True, timeout=120)
    wall, cpu, status = run.stdout.split()
    share = min(1.0, float(cpu) / float(wall))  # the fraction of a core the call got
    assert status in ("time_limit", "optimal"), run.stdout + run.stderr
    assert float(wall) <= 2 + 1.5 / max(share, 0.1), run.stdout + run.stderr


WRAP = """
import resource, subprocess, sys
run = subprocess.run(sys.argv[1:], capture_output=True, text=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024, run.returncode)
sys.stderr.write(run.stderr)
"""


def _peak(argv: list[str], cwd: Path) -> tuple[int, int, str]:
    """(peak RSS bytes, exit code, stderr) of one fresh run of ``argv``."""
    run = subprocess.run([sys.executable, "-c", WRAP, *argv], cwd=cwd, capture_output=True, text=True, timeout=200)
    rss, code = run.stdout.split()
    return int(rss), int(code), run.stderr


MIB = 1024 * 1024


def test_n9_huge_graph_file_is_refused_before_building_the_graph(tmp_path) -> None:
    """N9: a 40 MB edge list of 2,000,000 edges with ``--prior uniform:3`` cost 2.7 GB and 44 s before
    "policy graph has 2000001 nodes". Now its line 3 (node 3) is refused at once, in a few hundred MB."""
    with open(tmp_path / "big.txt", "w") as fh:
        fh.writelines(f"{i} {i + 1}\n" for i in range(2_000_000))
    argv = [*DESIGN, "--notion", "graph-ldp", "--utility", "mi", "--prior", "uniform:3", "--eps", "1"]
    rss, code, err = _peak([*argv, "--graph", "big.txt"], tmp_path)
    assert code == 2 and "line 3: node 3 is not an input" in err, err
    assert rss < 700 * MIB, f"{rss / MIB:.0f} MiB"


def test_n9_huge_node_link_graph_is_refused_by_its_edge_count(tmp_path) -> None:
    """A node-link JSON with more edges than 3 inputs allow is refused before networkx builds it."""
    doc = {"directed": False, "multigraph": False, "graph": {}, "nodes": [{"id": i} for i in range(3)]}
    doc["edges"] = [{"source": i % 3, "target": (i + 1) % 3} for i in range(300_000)]
    (tmp_path / "g.json").write_text(json.dumps(doc))
    argv = [*DESIGN, "--notion", "graph-ldp", "--utility", "mi", "--prior", "uniform:3", "--eps", "1"]
    rss, code, err = _peak([*argv, "--graph", "g.json"], tmp_path)
    assert code == 2 and "300000 edges, more than the 6" in err, err


@pytest.mark.parametrize("solver", ["sqp", "conic", "greedy", "search", "gd-penalty", "anneal", "spectral"])
def test_n9_solver_that_does_not_apply_says_so_without_building_a_form(tmp_path, solver) -> None:
    """N9: on ``uniform:10000`` LIP histogram each of these spent 920 MB and 10-15 s to say "cannot solve":
    listing the solvers that can computed the 10⁴ × 10⁴ closed form. Now it says so in < 400 MB."""
    argv = [*DESIGN, "--notion", "lip", "--utility", "histogram", "--prior", "uniform:10000", "--eps", "1"]
    rss, code, err = _peak([*argv, "--solver", solver], tmp_path)
    assert code == 2 and f"solver {solver!r} cannot solve" in err and "closed-form" in err, err
    assert rss < 400 * MIB, f"{rss / MIB:.0f} MiB"


def _npy_header(path: Path, shape: tuple[int, ...], body: int) -> None:
    with open(path, "wb") as fh:
        npf.write_array_header_1_0(fh, {"descr": "<f8", "fortran_order": False, "shape": shape})
        fh.truncate(fh.tell() + body)


@pytest.mark.parametrize(
    "argv",
    [["audit", "huge.npy"], ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1", "--prior", "p_huge.npy"]],
    ids=["audit", "design --prior"],
)
def test_n10_npy_header_claiming_a_huge_shape_is_refused_before_allocating(tmp_path, argv) -> None:
    """N10: a 160-byte file claiming (100000, 100000) gave ``internal error: MemoryError: Unable to
    allocate 74.5 GiB``. Now: the claimed size is checked against the file's, exit 2, one line."""
    _npy_header(tmp_path / "huge.npy", (100_000, 100_000), 16)
    _npy_header(tmp_path / "p_huge.npy", (10**9,), 16)
    run = subprocess.run([sys.executable, "-m", "mechopt", *argv], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 2 and "its header claims shape" in run.stderr and "MemoryError" not in run.stderr
    assert run.stderr.count("\n") == 1


def test_n9_large_npy_is_read_once(tmp_path) -> None:
    """N9: a 1 GiB all-zero Q cost 2.68 GB (the bytes held, then copied by np.load). Now the data is read
    straight into its array: a 256 MiB file costs well under twice its size above a tiny file's run."""
    _npy_header(tmp_path / "zero.npy", (4096, 8192), 8 * 4096 * 8192)
    np.save(tmp_path / "tiny.npy", np.zeros((2, 2)))
    base, _, _ = _peak([sys.executable, "-m", "mechopt", "audit", "tiny.npy"], tmp_path)
    rss, code, err = _peak([sys.executable, "-m", "mechopt", "audit", "zero.npy"], tmp_path)
    assert code == 2 and "row 0 of Q in zero.npy sums to 0" in err, err
    assert rss - base < 1.6 * 256 * MIB, f"{(rss - base) / MIB:.0f} MiB above a tiny file's run"
