"""Issue 27, portability and the time-limit report (newcomer defects 4 and 5).

main at 279f854: ``import mechopt`` raised ``ModuleNotFoundError: import of fcntl halted`` where
``fcntl`` is missing (Windows; simulated here as the report did), and a column-generation run stopped by
its time limit said "best master solution and best proven bound so far" over a certificate line
"none (this method gives no bound)".
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mechopt
from mechopt.cli.design_report import describe
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact import methods

NO_POSIX = """
import sys, os
sys.modules["fcntl"] = None          # what `import fcntl` does where it does not exist
del os.fork                          # and no fork
import multiprocessing
multiprocessing.get_all_start_methods = lambda: ["spawn"]
"""


def _run(code: str, tmp_path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", NO_POSIX + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


def test_every_module_imports_without_fcntl_or_fork(tmp_path):
    out = _run(
        """
        import importlib, pkgutil
        import mechopt
        bad = []
        for name in ("mechopt", "mechopt.solvers", "mechopt.problems"):
            pkg = importlib.import_module(name)
            for info in pkgutil.walk_packages(pkg.__path__, name + "."):
                try:
                    importlib.import_module(info.name)
                except Exception as exc:
                    bad.append((info.name, repr(exc)))
        print("bad", bad)
        r = mechopt.design(prior="0.3,0.7", notion="mip", utility="mi", eps=1, solver="sqp", time_limit=30, n_starts=2)
        print("sqp", r.status.value)
        """,
        tmp_path,
    )
    assert out.returncode == 0, out.stderr
    assert "bad []" in out.stdout and "sqp locally_optimal" in out.stdout


def test_what_needs_fcntl_or_fork_says_so(tmp_path):
    (tmp_path / "s.toml").write_text(
        'problem = "design"\nsolvers = ["exact"]\n[fixed]\nnotion = "ldp"\nutility = "mi"\nprior = "0.3,0.7"\n'
        "[grid]\neps = [1.0]\n"
    )
    out = _run(
        """
        from mechopt.cli import main
        print("sweep", main(["sweep", "s.toml", "--out", "s.jsonl"]))
        print("plain", main(["sweep", "s.toml", "--json"]))
        argv = ["compare", "--problem", "kss-mi", "--solver", "exact", "--isolate", "--time-limit", "9"]
        print("compare", main(argv))
        """,
        tmp_path,
    )
    assert "sweep 2" in out.stdout and "plain 0" in out.stdout and "compare 2" in out.stdout, out.stderr
    assert "sweep --out locks its output file with POSIX fcntl" in out.stderr
    assert "isolate=True needs the POSIX 'fork' start method" in out.stderr
    assert "Traceback" not in out.stderr and not (tmp_path / "s.jsonl").exists()


def _colgen_prob():
    p = 1.0 / np.arange(1, 15) ** 1.1
    return ChannelDesign.from_params(prior=p / p.sum(), notion="ldp", utility="mse", eps=1.0)


@pytest.mark.parametrize("proven", [False, True])
def test_time_limit_report_claims_a_bound_only_when_it_has_one(monkeypatch, proven):
    """A time-limited column generation: with no proven bound the message and the certificate line agree."""
    real = methods.column_generation

    def stopped(*args, **kwargs):
        out = real(*args, **kwargs)
        out.status = "time_limit"
        if not proven:
            out.bound = math.inf
        return out

    monkeypatch.setattr(methods, "column_generation", stopped)
    prob = _colgen_prob()
    res = mechopt.solve(prob, solver="exact", method="colgen")
    text = describe(prob, res)
    assert res.status.value == "time_limit"
    if proven:
        assert "best master solution and best proven bound so far" in res.message
        assert res.certificate is not None and "certificate  bound=" in text
    else:
        assert "no bound was proven" in res.message and "best proven bound" not in res.message
        assert res.certificate is None and "certificate  none (no bound proven before the limit)" in text
        assert "this method gives no bound" not in text


def test_a_local_solver_still_says_it_gives_no_bound():
    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="mip", utility="mi", eps=1)
    assert "none (this method gives no bound)" in describe(prob, mechopt.solve(prob, solver="sqp", n_starts=2))
