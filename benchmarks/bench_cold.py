"""Cold start of the command line (issue 18, point 1): wall time of fresh processes.

Each case starts a new Python process, as a user's shell does, and times it
against the baseline ``python -c "import numpy, scipy.optimize"`` in the same
run (runs interleaved, so a burst of load on the shared machine hits both
sides). ``ratio`` here is ours_s / baseline_s (a slowdown: 1.0 is as fast as
importing numpy and scipy.optimize; the target is <= 1.5). The notes list the
heavy modules (cvxpy, matplotlib, networkx, ...) the command imported, from
one extra run that reports ``sys.modules``.

Run ``python benchmarks/bench_cold.py`` for a table, or ``mechopt bench --select cold``.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = [sys.executable, "-c", "import numpy, scipy.optimize"]
HEAVY = ("cvxpy", "clarabel", "matplotlib", "networkx", "pandas", "numba", "hypothesis", "scipy.stats")
DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.2,0.3,0.5", "--eps", "1"]
COMMANDS = {  # case -> mechopt arguments (None: the bare import)
    "import mechopt": None,
    "mechopt --help": ["--help"],
    "mechopt design, 3 symbols (default solver: exact)": DESIGN,
}
_PROBE = (
    "import sys\n"
    "argv = {argv!r}\n"
    "if argv is None:\n"
    "    import mechopt\n"
    "else:\n"
    "    import contextlib, io\n"
    "    from mechopt.cli import main\n"
    "    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
    "        main(argv)\n"
    "print(__import__('json').dumps([m for m in {heavy!r} if m in sys.modules]))\n"
)


def command(argv: list[str] | None) -> list[str]:
    """The process a user starts: ``python -m mechopt ARGS`` (``python -c 'import mechopt'`` for None)."""
    if argv is None:
        return [sys.executable, "-c", "import mechopt"]
    return [sys.executable, "-m", "mechopt", *argv]


def heavy_imports(argv: list[str] | None) -> list[str]:
    """The heavy modules a fresh process running ``argv`` ends up importing."""
    out = subprocess.run(
        [sys.executable, "-c", _PROBE.format(argv=argv, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def wall_times(cmds: list[list[str]], repeats: int) -> list[list[float]]:
    """Wall times of each command over ``repeats`` interleaved rounds (one warm-up round first)."""
    times: list[list[float]] = [[] for _ in cmds]
    for rnd in range(repeats + 1):
        for i, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            subprocess.run(
                cmd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=600,
                check=True,
                cwd=tempfile.gettempdir(),
            )
            if rnd:  # round 0 warms the OS file cache
                times[i].append(time.perf_counter() - t0)
    return times


def cold_start(quick: bool) -> list[dict]:
    """``import mechopt``, ``mechopt --help`` and a small design, each vs importing numpy + scipy.optimize."""
    repeats = 3 if quick else 9
    names = list(COMMANDS)
    times = wall_times([BASELINE] + [command(COMMANDS[n]) for n in names], repeats)
    base = statistics.median(times[0])
    rows = []
    for name, t in zip(names, times[1:]):
        ours = statistics.median(t)
        heavy = heavy_imports(COMMANDS[name])
        rows.append(
            {
                "group": "cold start",
                "case": name,
                "ours": "fresh process",
                "ours_s": ours,
                "reference": "import numpy, scipy.optimize",
                "reference_s": base,
                "ratio": ours / base,
                "repeats": repeats,
                "notes": "ratio = ours/baseline (slowdown; target <= 1.5); heavy modules imported: "
                + (", ".join(heavy) if heavy else "none"),
            }
        )
    return rows


CASES = [cold_start]


def main(argv: list[str]) -> None:
    for row in cold_start("--quick" in argv):
        print(
            f"{row['case']:<50} {row['ours_s']:.3f}s  baseline {row['reference_s']:.3f}s  "
            f"x{row['ratio']:.2f}  {row['notes']}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
