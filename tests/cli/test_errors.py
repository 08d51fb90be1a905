"""CLI error handling: interrupts, internal bugs, the console script (bad-input catalog: tests/reliability)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from mechopt.cli import main

FLAGS = ["design", "--notion", "lip", "--utility", "histogram", "--solver", "sqp"]


# The bad-input cases (exit 2, one line, expected message fragment) live in
# tests/reliability/test_bad_input_cli.py, the single catalog of them.


def test_interrupt_is_one_line_exit_130(monkeypatch, cli):
    import mechopt.api

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(mechopt.api, "solve", boom)
    run = cli(*FLAGS, "--prior", "0.3,0.7", "--eps", "1")
    assert (run.code, run.err, run.out) == (130, "mechopt: error: interrupted\n", "")


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


DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "1", "--solver", "exact"]


@pytest.mark.parametrize(
    ("signum", "said"), [(signal.SIGINT, "interrupted"), (signal.SIGTERM, "terminated by SIGTERM")]
)
def test_an_interrupt_just_after_out_is_in_place_says_so_and_exits_as_interrupted(
    monkeypatch, cli, tmp_path, signum, said
) -> None:
    """Hostile-four U3: a signal between the rename of ``--out`` and the end of the run exited 2 ("bad
    input", "interrupted") though the file was complete. Now 128 + the signal, and the line names the file."""
    from mechopt.io import writer
    from mechopt.runtime.lifeline import Terminated

    out = tmp_path / "m.json"
    assert cli(*DESIGN, "--out", out).code == 0
    whole = json.loads(out.read_text())["mechanism"]["Q"]
    out.unlink()
    close = writer.Output.close

    def close_then_signal(self, publish=False):
        close(self, publish)
        if publish:
            raise KeyboardInterrupt if signum == signal.SIGINT else Terminated(said, signum)

    monkeypatch.setattr(writer.Output, "close", close_then_signal)
    run = cli(*DESIGN, "--out", out)
    assert run.code == 128 + signum, (run.code, run.err)
    assert run.err.strip() == f"mechopt: error: {said}; {str(out)!r} was already written in full"
    assert json.loads(out.read_text())["mechanism"]["Q"] == whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_an_interrupt_before_out_is_in_place_leaves_nothing_and_names_no_file(monkeypatch, cli, tmp_path) -> None:
    from mechopt.io import writer

    def publish_interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(writer.Output, "publish", publish_interrupted)
    run = cli(*DESIGN, "--out", tmp_path / "m.json")
    assert (run.code, run.err) == (130, "mechopt: error: interrupted\n")
    assert list(tmp_path.iterdir()) == []


SIGINT_ON_IMPORT = """
import os, signal, sys

class InterruptOnImport:  # Ctrl-C while the package imports its heavy parts (numpy: also for --version)
    def find_spec(self, name, path=None, target=None):
        if name == "numpy":
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, InterruptOnImport())
"""


def test_ctrl_c_while_the_console_script_imports_the_package_is_one_line_exit_130(tmp_path) -> None:
    """Hostile-four U2: the console script imported ``mechopt.cli`` before any handler existed, so Ctrl-C in
    its first ~0.5 s printed a KeyboardInterrupt traceback (SIGINT at 0.1-0.3 s: 5 of 5). The signal is sent
    here from an import hook (sitecustomize) when numpy starts importing: the same moment, every time."""
    (tmp_path / "sitecustomize.py").write_text(SIGINT_ON_IMPORT)
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    run = subprocess.run(_console() + ["--version"], capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert (run.returncode, run.stderr, run.stdout) == (130, "mechopt: error: interrupted\n", "")
    env.pop("PYTHONPATH")
    again = subprocess.run(_console() + ["--version"], capture_output=True, text=True, timeout=120, env=env)
    assert again.returncode == 0 and again.stdout.startswith("mechopt ")


def test_ctrl_c_while_python_m_mechopt_imports_the_package_is_one_line_exit_130(tmp_path) -> None:
    """``python -m mechopt`` imported the package (numpy, scipy, the solvers: ``mechopt.api``) before any handler,
    so the same Ctrl-C printed a KeyboardInterrupt traceback; it now goes through the console script's entry."""
    (tmp_path / "sitecustomize.py").write_text(SIGINT_ON_IMPORT)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    argv = [sys.executable, "-m", "mechopt", "--version"]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=env, cwd=tmp_path)
    assert (run.returncode, run.stderr, run.stdout) == (130, "mechopt: error: interrupted\n", "")
    again = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert again.returncode == 0 and again.stdout.startswith("mechopt ")
