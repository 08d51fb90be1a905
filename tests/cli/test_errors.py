"""CLI error handling: interrupts, internal bugs, the console script (bad-input catalog: tests/reliability)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from mechopt.cli import main

FLAGS = ["design", "--notion", "lip", "--utility", "histogram", "--solver", "sqp"]


# The bad-input cases (exit 2, one line, expected message fragment) live in
# tests/reliability/test_bad_input_cli.py, the single catalog of them.


def test_interrupt_is_one_line(monkeypatch, cli, one_line_error):
    import mechopt.api

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(mechopt.api, "solve", boom)
    one_line_error(cli(*FLAGS, "--prior", "0.3,0.7", "--eps", "1"))


def test_internal_bug_is_one_line_exit_1(monkeypatch, cli):
    import mechopt.api

    def bug(*a, **k):
        raise ZeroDivisionError("oops")

    monkeypatch.setattr(mechopt.api, "solve", bug)
    run = cli(*FLAGS, "--prior", "0.3,0.7", "--eps", "1")
    assert run.code == 1 and len(run.err.strip().splitlines()) == 1 and "Traceback" not in run.err


def _console() -> list[str]:
    exe = Path(sys.executable).with_name("mechopt")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "mechopt.cli"]


def test_console_script_subprocess(tmp_path):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    ok = subprocess.run(
        _console()
        + [
            "design",
            "--notion",
            "ldp",
            "--utility",
            "mi",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--solver",
            "sqp",
            "--opt",
            "n_starts=2",
            "--json",
            "--out",
            str(tmp_path / "m.json"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["privacy"]["eps_audited"] <= 1 + 1e-7
    bad = subprocess.run(
        _console() + ["audit", str(tmp_path / "m.json"), "--prior", "0.5,0.6"],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("mechopt: error: ") and "Traceback" not in bad.stderr


def test_main_returns_codes_not_exits():
    assert main(["--help"]) == 0
