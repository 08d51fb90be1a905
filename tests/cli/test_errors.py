"""Bad input to every entry point: exit 2, one line on stderr, no traceback, never NaN."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from mechopt.cli import main

FLAGS = ["design", "--notion", "lip", "--utility", "histogram", "--solver", "sqp"]


def _files(tmp: Path) -> dict[str, Path]:
    f = {}
    f["good_q"] = tmp / "good.json"
    f["good_q"].write_text(json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]]}))
    f["nan_q"] = tmp / "nan.json"
    f["nan_q"].write_text('{"Q": [[NaN, 0.5], [0.5, 0.5]]}')
    f["rows"] = tmp / "rows.json"
    f["rows"].write_text(json.dumps({"Q": [[0.6, 0.6], [0.5, 0.5]]}))
    f["neg"] = tmp / "neg.json"
    f["neg"].write_text(json.dumps({"Q": [[1.5, -0.5], [0.5, 0.5]]}))
    f["ragged"] = tmp / "ragged.json"
    f["ragged"].write_text(json.dumps({"Q": [[1.0], [0.5, 0.5]]}))
    f["noq"] = tmp / "noq.json"
    f["noq"].write_text(json.dumps({"P": [1]}))
    f["badjson"] = tmp / "bad.json"
    f["badjson"].write_text("{not json")
    f["badtoml"] = tmp / "bad.toml"
    f["badtoml"].write_text("problem = [unclosed\n")
    f["spec_noparams"] = tmp / "noparams.toml"
    f["spec_noparams"].write_text('problem = "design"\n')
    f["catalog_bad"] = tmp / "cat.toml"
    f["catalog_bad"].write_text('[[instance]]\nproblem = "design"\nname = "x"\nparams = { prior = "0.5,0.6", '
                                'notion = "lip", utility = "histogram", eps = 1.0 }\n')
    f["sweep_bad"] = tmp / "sweep.toml"
    f["sweep_bad"].write_text('problem = "design"\nsolvers = ["sqp"]\n[grid]\neps = []\n')
    f["dir"] = tmp
    f["prior_txt"] = tmp / "prior.txt"
    f["prior_txt"].write_text("0.5 0.6\n")
    f["graph_bad"] = tmp / "g.edgelist"
    f["graph_bad"].write_text("0 one\n")
    return f


CASES = {
    "prior not summing to one": FLAGS + ["--prior", "0.3,0.8", "--eps", "1"],
    "negative prior entry": FLAGS + ["--prior", "-0.2,1.2", "--eps", "1"],
    "NaN prior entry": FLAGS + ["--prior", "nan,0.5", "--eps", "1"],
    "prior file not summing to one": FLAGS + ["--prior", "{prior_txt}", "--eps", "1"],
    "missing prior file": FLAGS + ["--prior", "{dir}/nope.npy", "--eps", "1"],
    "eps zero": FLAGS + ["--prior", "0.3,0.7", "--eps", "0"],
    "eps negative": FLAGS + ["--prior", "0.3,0.7", "--eps=-1"],
    "eps NaN": FLAGS + ["--prior", "0.3,0.7", "--eps", "nan"],
    "eps not a number": FLAGS + ["--prior", "0.3,0.7", "--eps", "one"],
    "unknown solver": ["design", "--notion", "lip", "--utility", "histogram", "--prior", "0.3,0.7", "--eps", "1",
                       "--solver", "nope"],
    "unknown notion": ["design", "--notion", "xdp", "--utility", "mse", "--prior", "0.3,0.7", "--eps", "1"],
    "unknown utility": ["design", "--notion", "ldp", "--utility", "fun", "--prior", "0.3,0.7", "--eps", "1"],
    "unknown solver option": FLAGS + ["--prior", "0.3,0.7", "--eps", "1", "--opt", "bogus=1"],
    "missing flags": ["design", "--notion", "ldp"],
    "two problem sources": ["design", "--problem", "design", "--notion", "ldp"],
    "unknown problem id": ["design", "--problem", "nope-problem"],
    "malformed --set": ["design", "--problem", "design", "--set", "prior"],
    "bad graph file": ["design", "--notion", "graph-ldp", "--utility", "mse", "--prior", "uniform:2", "--eps", "1",
                       "--graph", "{graph_bad}"],
    "missing graph file": ["design", "--notion", "graph-ldp", "--utility", "mse", "--prior", "uniform:2", "--eps",
                           "1", "--graph", "{dir}/none.graphml"],
    "missing spec": ["design", "--spec", "{dir}/none.toml"],
    "bad TOML spec": ["design", "--spec", "{badtoml}"],
    "spec without params": ["design", "--spec", "{spec_noparams}"],
    "unwritable --out": FLAGS + ["--prior", "0.3,0.7", "--eps", "1", "--opt", "n_starts=1", "--out",
                                 "{dir}/no/such/dir/m.json"],
    "negative time limit": FLAGS + ["--prior", "0.3,0.7", "--eps", "1", "--time-limit", "-3"],
    "audit missing file": ["audit", "{dir}/none.json", "--prior", "0.5,0.5"],
    "audit invalid JSON": ["audit", "{badjson}", "--prior", "0.5,0.5"],
    "audit NaN in Q": ["audit", "{nan_q}", "--prior", "0.5,0.5"],
    "audit rows not probability vectors": ["audit", "{rows}", "--prior", "0.5,0.5"],
    "audit negative entry": ["audit", "{neg}", "--prior", "0.5,0.5"],
    "audit ragged Q": ["audit", "{ragged}", "--prior", "0.5,0.5"],
    "audit no Q": ["audit", "{noq}"],
    "audit rows do not match prior": ["audit", "{good_q}", "--prior", "0.2,0.3,0.5"],
    "audit bad prior": ["audit", "{good_q}", "--prior", "0.2,0.3"],
    "audit directory": ["audit", "{dir}", "--prior", "0.5,0.5"],
    "compare unknown solver": ["compare", "--solver", "nope"],
    "compare unknown problem": ["compare", "--problem", "nope-problem"],
    "compare bad catalog": ["compare", "--catalog", "{catalog_bad}"],
    "compare bad TOML catalog": ["compare", "--catalog", "{badtoml}"],
    "compare missing catalog": ["compare", "--catalog", "{dir}/none.toml"],
    "verify unknown paper": ["verify", "--paper", "nope"],
    "verify unknown claim": ["verify", "--claim", "nope.thm1"],
    "reproduce unknown figure": ["reproduce", "nope.fig1", "--out", "{dir}/figs"],
    "reproduce nothing": ["reproduce", "--out", "{dir}/figs"],
    "sweep missing spec": ["sweep", "{dir}/none.toml"],
    "sweep bad TOML": ["sweep", "{badtoml}"],
    "sweep empty grid": ["sweep", "{sweep_bad}"],
    "sweep resume without out": ["sweep", "{sweep_bad}", "--resume"],
    "sweep bad jobs": ["sweep", "{sweep_bad}", "--jobs", "0"],
    "bench missing dir": ["bench", "--dir", "{dir}/none", "--quick"],
    "unknown command": ["frobnicate"],
    "unknown flag": ["audit", "{good_q}", "--frob"],
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2(cli, one_line_error, tmp_path, name):
    files = {k: str(v) for k, v in _files(tmp_path).items()}
    argv = [a.format(**files) for a in CASES[name]]
    run = cli(*argv, "--json") if argv[0] in ("design", "audit") else cli(*argv)
    one_line_error(run)
    assert "nan" not in run.out.lower()


def test_messages_name_the_problem(cli, tmp_path):
    files = {k: str(v) for k, v in _files(tmp_path).items()}
    assert "sums to" in cli(*FLAGS, "--prior", "0.3,0.8", "--eps", "1").err
    assert "eps" in cli(*FLAGS, "--prior", "0.3,0.7", "--eps", "0").err
    assert "'nope'" in cli("design", "--notion", "lip", "--utility", "mse", "--prior", "0.3,0.7", "--eps", "1",
                           "--solver", "nope").err
    err = cli("compare", "--catalog", files["catalog_bad"]).err
    assert "cat.toml" in err and "design" in err and "sums to" in err
    assert "rows but the prior has 3" in cli("audit", files["good_q"], "--prior", "0.2,0.3,0.5").err
    assert "row 0" in cli("audit", files["rows"], "--prior", "0.5,0.5").err


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
    ok = subprocess.run(_console() + ["design", "--notion", "ldp", "--utility", "mi", "--prior", "uniform:2",
                                      "--eps", "1", "--solver", "sqp", "--opt", "n_starts=2", "--json",
                                      "--out", str(tmp_path / "m.json")],
                        capture_output=True, text=True, timeout=120, env=env)
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["privacy"]["eps_audited"] <= 1 + 1e-7
    bad = subprocess.run(_console() + ["audit", str(tmp_path / "m.json"), "--prior", "0.5,0.6"],
                         capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("mechopt: error: ") and "Traceback" not in bad.stderr


def test_main_returns_codes_not_exits():
    assert main(["--help"]) == 0
