"""Issue 27, messages (hostile report N10–N19 that are not about writing files): input, old, new.

The one-line refusals are rows of ``catalog_issue27``; here: what exits 1 rather than 2, what must not
be written, what must not be echoed or printed raw, and the sweep's spec identity.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mechopt
from mechopt.cli import main
from mechopt.errors import InputFileError, ParamError, ProblemError
from mechopt.io.files import read_input
from mechopt.jobs.sweep.run import parse_spec, sweep
from mechopt.problems.design import ChannelDesign

OUTSIDE = ["design", "--notion", "lip", "--utility", "histogram", "--prior", "uniform:10", "--eps", "1"]


def test_npy_of_a_mechanism_that_fails_its_audit_is_not_written(tmp_path, capsys):
    """main (N16): status infeasible_point, exit 1, and cf.npy written with nothing to say it fails."""
    out = tmp_path / "cf.npy"
    assert main(OUTSIDE + ["--solver", "closed-form", "--out", str(out)]) == 1
    cap = capsys.readouterr()
    assert not out.exists() and "status       infeasible_point" in cap.out
    assert cap.err.strip().splitlines()[-1].startswith(f"mechopt: error: --out '{out}' not written")
    js = tmp_path / "cf.json"  # a JSON document keeps the status, so it is written
    assert main(OUTSIDE + ["--solver", "closed-form", "--out", str(js)]) == 1
    assert json.loads(js.read_text())["status"] == "infeasible_point"


def test_note_lines_escape_control_characters(tmp_path, capsys):
    """main (N15): `mechopt: note: e<ESC>[31mred.npy holds Q only` with the raw ESC byte."""
    name = tmp_path / "e\x1b[31mred\nx.npy"
    argv = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "1", "--out", str(name)]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[31mred\\nx.npy holds Q only" in err and len(err.strip().splitlines()) == 1
    assert name.exists()


def test_sizes_that_print_alike_are_given_in_bytes(tmp_path):
    """main (N11): 'is 1.02e+03 MiB, more than the 1.02e+03 MiB a mechanism file may have'."""
    path = tmp_path / "big.npy"
    with open(path, "wb") as fh:  # sparse: the size is checked before any byte is read
        fh.truncate(1024**3 + 128)
    with pytest.raises(InputFileError) as info:
        read_input(path, "mechanism file", 1024**3)
    assert "is 1,073,741,952 bytes, more than the 1,073,741,824 bytes" in str(info.value)
    with pytest.raises(InputFileError, match=r"is 2 GiB, more than the 1 GiB"):
        with open(path, "wb") as fh:
            fh.truncate(2 * 1024**3)
        read_input(path, "mechanism file", 1024**3)


def test_traceback_flag_after_the_subcommand_and_never_for_usage_errors(tmp_path, capsys):
    """main (#20): `audit q.json --traceback` printed a CLIError traceback for 'unrecognized arguments'."""
    q = tmp_path / "q.json"
    q.write_text(json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]]}))
    assert main(["audit", str(q), "--traceback"]) == 0
    assert main(["audit", str(q), "--traceback", "--frob"]) == 2
    err = capsys.readouterr().err
    assert (
        "Traceback" not in err
        and err.strip() == "mechopt: error: unrecognized arguments: --frob (see 'mechopt --help')"
    )


def test_a_bad_mplbackend_is_refused_before_the_solve(tmp_path):
    """main (N13): `internal error: ValueError: Key backend: 'garbage'`, exit 1, after the design ran."""
    env = {**os.environ, "MPLBACKEND": "garbage"}
    argv = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "1", "--plot", "m.png"]
    out = subprocess.run(
        [sys.executable, "-m", "mechopt", *argv], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300
    )
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == (
        "mechopt: error: matplotlib refuses the backend MPLBACKEND='garbage' set in the environment: "
        "unset MPLBACKEND, or set it to Agg (files) or a backend matplotlib lists"
    )


def test_a_changed_prior_is_refused_and_the_real_reason_given():
    """main (#20): after prob.prior[0] = 0.9, 'solver exact cannot solve ...; solvers that can: sqp'."""
    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="mi", eps=1)
    with pytest.raises(ValueError, match="read-only"):
        prob.prior[0] = 0.9
    object.__setattr__(prob, "prior", np.array([0.9, 0.7]))  # forced past the dataclass
    with pytest.raises(ProblemError, match="prior sums to 1.6"):
        mechopt.solve(prob, solver="exact")


def test_save_mechanism_is_part_of_the_spec(tmp_path):
    """main (#12): turning save_mechanism on and resuming returned '3 points' with no mechanisms."""
    text = (
        'problem = "design"\nsolvers = ["exact"]\n[fixed]\nnotion = "ldp"\nutility = "mi"\nprior = "0.3,0.7"\n'
        "[grid]\neps = [0.5, 1.0]\n"
    )
    out = tmp_path / "s.jsonl"
    sweep(parse_spec(text), out)
    with pytest.raises(ParamError, match="another spec"):
        sweep(parse_spec("save_mechanism = true\n" + text), out, resume=True)
    lines = sweep(parse_spec("save_mechanism = true\n" + text), tmp_path / "t.jsonl")
    assert all("mechanism" in ln for ln in lines)
    assert [ln["key"] for ln in sweep(parse_spec(text), out, resume=True)] == [
        json.loads(x)["key"] for x in out.read_text().splitlines()[1:]
    ]  # the keys of a spec without it are unchanged: old files resume


def test_certificate_files_are_read_strictly(tmp_path, capsys):
    """The certificate checker (merged from main) read a key twice (last wins) and '1_0' as 10."""
    cert = tmp_path / "c.json"
    argv = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "1", "--certificate"]
    assert main(argv + [str(cert)]) == 0
    assert main(["check", str(cert)]) == 0
    text = cert.read_text()
    twice = tmp_path / "twice.json"
    twice.write_text(text[: text.rindex("}")] + ', "version": 1}')
    doc = json.loads(text)
    doc["problem"]["notion"]["eps"] = "1_0"
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(doc))
    capsys.readouterr()
    assert main(["check", str(twice)]) == 2 and main(["check", str(odd)]) == 2
    err = capsys.readouterr().err
    assert "a key appears twice in one object" in err and "number '1_0'" in err


def test_mae_with_outputs_up_to_1e308_is_certified_not_refused() -> None:
    """Unit-free solving (issue 26) made this a valid input: reporting output 0 always costs 0.3·1 + 0.5·2."""
    import mechopt

    r = mechopt.design(prior="0.2,0.3,0.5", notion="ldp", utility="mae", values=[0, 1, 2], outputs=[0, 1e308], eps=1.0)
    assert r.status.value == "optimal" and r.value == 1.3 and r.violation <= 1e-12
