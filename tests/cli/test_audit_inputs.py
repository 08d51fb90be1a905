"""``mechopt audit``: .npy/.csv/bare/object inputs, --eps exit codes, --report files."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

Q = [[0.75, 0.25], [0.25, 0.75]]  # ε-LDP = ln 3


def _write(tmp_path, kind):
    if kind == "npy":
        p = tmp_path / "m.npy"
        np.save(p, np.array(Q))
    elif kind == "csv":
        p = tmp_path / "m.csv"
        p.write_text("# Q, rows are inputs\n0.75,0.25\n0.25,0.75\n")
    elif kind == "bare":
        p = tmp_path / "m.json"
        p.write_text(json.dumps(Q))
    elif kind == "object":
        p = tmp_path / "m.json"
        p.write_text(json.dumps({"Q": Q}))
    else:
        p = tmp_path / "m.json"
        p.write_text(json.dumps({"mechanism": {"Q": Q, "prior": [0.5, 0.5]}, "status": "optimal"}))
    return p


@pytest.mark.parametrize("kind", ["npy", "csv", "bare", "object", "nested"])
def test_every_input_form(cli, tmp_path, kind):
    run = cli("audit", _write(tmp_path, kind), "--prior", "0.5,0.5", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert doc["notions"]["ldp"]["eps"] == pytest.approx(math.log(3), rel=1e-12)
    assert (doc["inputs"], doc["outputs"]) == (2, 2)


def test_nested_prior_is_read(cli, tmp_path):
    doc = cli("audit", _write(tmp_path, "nested"), "--json").json()
    assert set(doc["notions"]) == {"ldp", "lip", "mip", "pml"}


@pytest.mark.parametrize(
    "name,content,match",
    [
        ("p.npy", None, "Python objects"),
        ("s.npy", "strings", "not a numeric matrix"),
        ("t.npy", b"not an npy file", "not a readable .npy"),
        ("h.csv", "a,b\n0.5,0.5\n", "line 1 .* not a comma-separated list of numbers"),
        ("r.csv", "0.5,0.5\n1\n", "different lengths"),
        ("e.csv", "# nothing\n", "has no rows"),
        ("v.json", "[0.5, 0.5]", "JSON matrix"),
        ("n.json", '{"mechanism": {"P": 1}}', "JSON matrix"),
        ("b.json", "[[0.5, 0.5], [true, 0]]", "non-numeric"),
    ],
)
def test_bad_forms_are_one_line_errors(cli, one_line_error, tmp_path, name, content, match):
    p = tmp_path / name
    if content is None:
        np.save(p, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    elif content == "strings":
        np.save(p, np.array([["a", "b"]]))
    elif isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content)
    run = cli("audit", p)
    one_line_error(run)
    import re

    assert re.search(match, run.err), run.err


def test_eps_exit_codes(cli, tmp_path):
    p = _write(tmp_path, "npy")
    ok = cli("audit", p, "--eps", "1.1")
    assert ok.code == 0 and "PASS" in ok.out
    within_tol = cli("audit", p, "--eps", str(math.log(3) - 1e-9))
    assert within_tol.code == 0
    bad = cli("audit", p, "--eps", "1.0")
    assert bad.code == 1
    assert bad.out.splitlines()[-1] == "FAIL: ldp eps = 1.09861 exceeds 1 by 0.0986 nats"
    # LIP of this channel with a uniform prior is ln 2 (posterior/prior in [1/2, 3/2]): passes LIP, fails LDP
    both = cli("audit", p, "--eps", "0.8", "--prior", "0.5,0.5", "--notion", "lip", "--json")
    assert both.code == 0 and both.json()["check"]["private"] is True
    mixed = cli("audit", p, "--eps", "0.8", "--prior", "0.5,0.5", "--notion", "lip", "--notion", "ldp", "--json")
    assert mixed.code == 1 and [f["notion"] for f in mixed.json()["check"]["failed"]] == ["ldp"]
    assert "FAIL: ldp" in mixed.err
    inf = cli("audit", _eye(tmp_path), "--eps", "5")
    assert inf.code == 1 and "ldp needs eps = inf" in inf.out


def _eye(tmp_path):
    p = tmp_path / "eye.csv"
    p.write_text("1,0\n0,1\n")
    return p


@pytest.mark.parametrize(
    "argv,match",
    [
        (["--eps", "-1"], "eps must be a finite number"),
        (["--eps", "nan"], "eps must be a finite number"),
        (["--eps", "1", "--notion", "lip"], "needs the prior"),
        (["--notion", "ldp"], "give --eps E too"),
        (["--report", "r.txt"], r"\.json, \.html or \.png"),
    ],
)
def test_eps_bad_input_is_exit_2(cli, one_line_error, tmp_path, argv, match):
    run = cli("audit", _write(tmp_path, "npy"), *argv)
    one_line_error(run)
    assert match.replace("\\", "") in run.err or __import__("re").search(match, run.err)


def test_report_written_and_nothing_on_bad_input(cli, tmp_path):
    p = _write(tmp_path, "object")
    out = tmp_path / "r.html"
    run = cli("audit", p, "--report", out)
    assert run.code == 0 and "report written" in run.out
    assert "data:image/png;base64," in out.read_text()
    js = tmp_path / "r.json"
    assert cli("audit", p, "--report", js, "--prior", "0.2,0.8").code == 0
    rep = json.loads(js.read_text())
    assert rep["prior"] == [0.2, 0.8] and rep["prior_source"] == "given"
    bad = tmp_path / "bad.json"
    bad.write_text('{"Q": [[0.5, 0.6]]}')
    before = sorted(x.name for x in tmp_path.iterdir())
    assert cli("audit", bad, "--report", tmp_path / "x.png").code == 2
    assert sorted(x.name for x in tmp_path.iterdir()) == before
