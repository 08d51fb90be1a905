"""Large designs through the CLI: a summarised report, fast exact JSON, and a ``.npy`` round trip to ``audit``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import mechopt.io.mechfile as mechfile
from mechopt.results._json import BIG, dumps, jsonable

# 2000 inputs in 3 classes of equal prior value: exact solves it on the orbit LP in well under a second
CLASSES = np.repeat([1.0, 2.0, 3.0], [800, 700, 500])


@pytest.fixture
def prior_file(tmp_path):
    path = tmp_path / "prior.npy"
    np.save(path, CLASSES / CLASSES.sum())
    return path


def design(prior_file, *more):
    return [
        "design",
        "--notion",
        "ldp",
        "--utility",
        "mi",
        "--prior",
        prior_file,
        "--eps",
        "1",
        "--solver",
        "exact",
        *more,
    ]


def test_report_shows_the_corners_of_a_large_q(cli, prior_file):
    run = cli(*design(prior_file))
    assert run.code == 0, run.err
    rows = [ln for ln in run.out.splitlines() if ln.startswith("  x=")]
    assert len(rows) == 7 and rows[0].startswith("  x=0 ") and rows[-1].startswith("  x=1999 ")
    assert "(2000 inputs x " in run.out and "--json or --out FILE for every entry" in run.out
    assert len(run.out.splitlines()) < 30


def test_json_of_a_large_q_is_the_whole_matrix(cli, prior_file):
    run = cli(*design(prior_file, "--json"))
    assert run.code == 0, run.err
    doc = run.json()
    Q = np.array(doc["mechanism"]["Q"])
    assert doc["status"] == "optimal" and Q.shape[0] == 2000 and Q.shape[1] <= 2000
    assert np.allclose(Q.sum(axis=1), 1.0, atol=1e-9)


def test_out_npy_round_trips_through_audit(cli, prior_file, tmp_path):
    out = tmp_path / "q.npy"
    run = cli(*design(prior_file, "--out", out))
    assert run.code == 0, run.err
    assert "holds Q only (2000 x" in run.err
    Q = np.load(out)
    assert Q.shape[0] == 2000 and np.allclose(Q.sum(axis=1), 1.0, atol=1e-9)
    audit = cli("audit", out, "--eps", "1")
    assert audit.code == 0 and "PASS" in audit.out
    lip = cli("audit", out, "--prior", prior_file, "--notion", "lip", "--eps", "1", "--json")
    assert lip.code == 0, lip.err


def test_npy_files_may_exceed_the_text_limit_and_text_files_say_what_to_do(cli, tmp_path, monkeypatch, one_line_error):
    Q = np.full((40, 4), 0.25)
    np.save(tmp_path / "q.npy", Q)
    (tmp_path / "q.json").write_text(json.dumps({"Q": Q.tolist()}))
    monkeypatch.setattr(mechfile, "MAX_MECHANISM_BYTES", 200)  # both files are larger than this
    assert cli("audit", tmp_path / "q.npy", "--eps", "1").code == 0
    run = cli("audit", tmp_path / "q.json", "--eps", "1")
    one_line_error(run)
    assert "save a large mechanism as .npy (mechopt design --out Q.npy" in run.err


def test_out_npy_refuses_a_mechanism_that_is_not_a_channel(cli, tmp_path, one_line_error):
    run = cli("design", "--problem", "gauss-dataset1", "--out", tmp_path / "g.npy")
    one_line_error(run)
    assert "a .npy file holds a channel matrix Q" in run.err and "GaussianNoise" in run.err
    assert not (tmp_path / "g.npy").exists()


def test_dumps_writes_large_matrices_compactly_and_parses_to_the_same_document() -> None:
    Q = np.random.default_rng(0).random((300, 50))
    Q[3, 4] = np.nan
    doc = {"mechanism": {"Q": Q, "inputs": list(range(300))}, "value": np.float64(0.5), "small": np.eye(3)}
    assert Q.size > BIG
    text = dumps(doc)
    assert json.loads(text) == jsonable(doc)
    assert json.loads(text)["mechanism"]["Q"][3][4] is None
    rows = [ln for ln in text.splitlines() if ln.startswith("[") and ln.count(",") >= 49]
    assert len(rows) == 300  # one line per row of Q, not one per entry


def test_dumps_writes_long_lists_on_one_line_and_keeps_strings_intact() -> None:
    """A structured plan's 10⁷ weights were written one number per line by the indenting encoder (100 s for a
    uniform:10^7 design's --json); a long flat list is now one line, and a matrix of strings holding "], [" keeps it."""
    w = np.linspace(0.0, 1.0, BIG + 1)
    labels = [[f"a], [{i}", "b"] for i in range(BIG)]
    doc = {"plan": {"weight": w, "rotation": np.arange(2 * BIG).reshape(-1, 1)}, "labels": labels}
    text = dumps(doc)
    back = json.loads(text)
    assert back == jsonable(doc) and back["labels"][7] == ["a], [7", "b"]
    assert sum(1 for ln in text.splitlines() if ln.count(",") >= BIG) == 1  # the weights: one line
    assert jsonable(back["plan"]["rotation"]) == back["plan"]["rotation"]  # JSON values are kept as they are


def test_jsonable_arrays_keep_their_values_exactly() -> None:
    a = np.array([[0.1, np.inf], [-np.inf, 1e-300]])
    assert jsonable(a) == [[0.1, None], [None, 1e-300]]
    assert jsonable(np.arange(3, dtype=np.int32)) == [0, 1, 2]
    assert jsonable(np.array([0.5], dtype=np.float32)) == [0.5]
    assert jsonable([1.0, float("nan"), np.float64(2.0)]) == [1.0, None, 2.0]


def test_a_q_too_large_for_json_is_named_not_listed(cli, prior_file, tmp_path, monkeypatch, one_line_error):
    import mechopt.cli.design_report as report

    monkeypatch.setattr(report, "JSON_MAX_ENTRIES", 1000)
    run = cli(*design(prior_file, "--json"))
    assert run.code == 0, run.err
    mech = run.json()["mechanism"]
    assert mech["Q"] is None and mech["shape"][0] == 2000 and "--out FILE.npy" in mech["omitted"]
    bad = cli(*design(prior_file, "--out", tmp_path / "q.json"))
    one_line_error(bad)
    assert "write it to a .npy file" in bad.err and not (tmp_path / "q.json").exists()
    assert cli(*design(prior_file, "--out", tmp_path / "q.npy")).code == 0 and (tmp_path / "q.npy").exists()
