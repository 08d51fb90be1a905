"""``mechopt randomize`` / ``mechopt estimate``: the round trip design → randomize → estimate, files, bad input."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.cli.conftest import assert_one_line_error

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")

LABELS = ["low", "mid", "high"]


@pytest.fixture(scope="module")
def designed(tmp_path_factory):
    """A certified 3-symbol freq-var design with named inputs, and a 60 000-row CSV of those names."""
    from mechopt.cli import main

    d = tmp_path_factory.mktemp("rt")
    mech = d / "mech.json"
    assert main(["design", "--notion", "ldp", "--utility", "freq-var", "--prior", "0.5,0.3,0.2", "--eps", "1",
                 "--solver", "sqp", "--out", str(mech)]) == 0  # fmt: skip
    doc = json.loads(mech.read_text())
    doc["mechanism"]["inputs"] = LABELS  # the practitioner's own names
    mech.write_text(json.dumps(doc))
    x = np.random.default_rng(3).choice(3, size=60_000, p=[0.5, 0.3, 0.2])
    data = d / "raw.csv"
    pd.DataFrame({"user": np.arange(x.size), "level": np.array(LABELS)[x]}).to_csv(data, index=False)
    return mech, data, np.bincount(x, minlength=3) / x.size


def test_round_trip_recovers_the_data_within_the_reported_interval(cli, designed, tmp_path) -> None:
    mech, data, truth = designed
    out = tmp_path / "reports.csv"
    run = cli("randomize", mech, data, "--column", "level", "--seed", "7", "--out", out)
    assert run.code == 0 and "60000 reports" in run.out
    assert list(pd.read_csv(out).columns) == ["level"]  # only the randomized column leaves
    doc = cli("estimate", mech, out, "--column", "level", "--ci", "0.95", "--json").json()
    assert doc["inputs"] == LABELS and doc["n"] == 60_000
    est, se = np.array(doc["frequencies"]), np.array(doc["stderr"])
    assert np.all(np.abs(est - truth) <= 3.29 * se)  # the linear estimate is unbiased for the data's histogram
    half = (np.array(doc["ci"]["high"]) - np.array(doc["ci"]["low"])) / 2
    assert np.allclose(half, 1.959964 * se, rtol=1e-5)
    em = cli("estimate", mech, out, "--column", "level", "--method", "em", "--json").json()
    assert np.abs(np.array(em["frequencies"]) - truth).max() <= 3.29 * se.max()
    table = cli("estimate", mech, out, "--column", "level", "--ci", "0.95")
    assert table.code == 0 and "0.95 low" in table.out and "60000 reports, method linear" in table.out


def test_reports_depend_on_the_seed_only_not_on_chunks_or_format(cli, designed, tmp_path) -> None:
    mech, data, _ = designed
    a, b, c = tmp_path / "a.csv", tmp_path / "b.parquet", tmp_path / "c.csv"
    assert cli("randomize", mech, data, "--column", "level", "--seed", "11", "--out", a).code == 0
    assert (
        cli("randomize", mech, data, "--column", "level", "--seed", "11", "--out", b, "--chunk-rows", "7001").code == 0
    )
    assert cli("randomize", mech, data, "--column", "level", "--seed", "12", "--out", c).code == 0
    ya, yb, yc = pd.read_csv(a)["level"], pd.read_parquet(b)["level"].astype(int), pd.read_csv(c)["level"]
    assert ya.equals(yb) and not ya.equals(yc)
    assert cli("estimate", mech, b, "--column", "level", "--json").json()["n"] == 60_000


def test_a_value_outside_the_inputs_is_refused_with_its_row(cli, designed, tmp_path) -> None:
    mech, _, _ = designed
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"level": ["low", "mid", "medium", "high"]}).to_csv(bad, index=False)
    out = tmp_path / "r.csv"
    out.write_text("level\nkept\n")
    run = cli("randomize", mech, bad, "--column", "level", "--seed", "1", "--out", out)
    assert_one_line_error(run)
    assert "row 3 (line 4)" in run.err and "'medium'" in run.err
    assert out.read_text() == "level\nkept\n"  # the old file is untouched
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # nothing half-written


@pytest.mark.parametrize(
    "argv, says",
    [
        (["randomize", "{mech}", "{data}", "--column", "nope", "--out", "{tmp}/r.csv"], "no column 'nope'"),
        (["randomize", "{mech}", "{data}", "--column", "level", "--out", "{tmp}/r.txt"], ".csv or .parquet"),
        (["randomize", "{mech}", "{tmp}/none.csv", "--column", "level", "--out", "{tmp}/r.csv"], "No such file"),
        (["randomize", "{mech}", "{data}", "--column", "level", "--seed", "-1", "--out", "{tmp}/r.csv"], "got -1"),
        (["estimate", "{mech}", "{data}", "--column", "level", "--ci", "1.5"], "coverage level"),
        (["estimate", "{mech}", "{data}", "--column", "user"], "not one of the mechanism's outputs"),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, designed, tmp_path, argv, says) -> None:
    mech, data, _ = designed
    run = cli(*[a.format(mech=mech, data=data, tmp=tmp_path) for a in argv])
    assert_one_line_error(run)
    assert says in run.err


def test_a_mechanism_that_confounds_inputs_refuses_the_linear_estimate(cli, tmp_path) -> None:
    mech = tmp_path / "m.json"
    mech.write_text(json.dumps({"Q": [[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]], "inputs": ["a", "b", "c"]}))
    rep = tmp_path / "r.csv"
    pd.DataFrame({"y": [0, 1, 1, 0, 1]}).to_csv(rep, index=False)
    run = cli("estimate", mech, rep, "--column", "y")
    assert_one_line_error(run)
    assert "a" in run.err and "b" in run.err
    assert cli("estimate", mech, rep, "--column", "y", "--method", "em", "--json").json()["n"] == 5


def test_an_oracle_mechanism_file_round_trips(cli, tmp_path) -> None:
    from mechopt.oracles import GRR

    mech = tmp_path / "grr.json"
    GRR(4, 2.0).mechanism(inputs=list("abcd")).save(mech)
    data = tmp_path / "d.parquet"
    x = np.random.default_rng(0).choice(list("abcd"), size=5000, p=[0.4, 0.3, 0.2, 0.1])
    pd.DataFrame({"c": x}).to_parquet(data)
    out = tmp_path / "r.parquet"
    assert cli("randomize", mech, data, "--column", "c", "--seed", "2", "--out", out).code == 0
    doc = cli("estimate", mech, out, "--column", "c", "--consistency", "project", "--json").json()
    assert doc["inputs"] == list("abcd") and abs(sum(doc["frequencies"]) - 1) < 1e-12
    assert min(doc["frequencies"]) >= 0


def test_an_interval_wholly_outside_the_simplex_is_said_not_shown_as_a_silent_point(cli, tmp_path) -> None:
    """Reports no input mix of Q explains: the linear estimate is (−0.5, 1.5); its clipped intervals [0, 0] and
    [1, 1] exclude it, and the table says why instead of printing two bare points."""
    mech = tmp_path / "m.json"
    mech.write_text(json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]], "inputs": ["a", "b"]}))
    rep = tmp_path / "r.csv"
    pd.DataFrame({"y": [1] * 1000}).to_csv(rep, index=False)
    run = cli("estimate", mech, rep, "--column", "y", "--ci", "0.95")
    assert run.code == 0
    assert "interval of a, b lies wholly outside [0, 1]" in run.out and "disagree with this mechanism" in run.out
    doc = cli("estimate", mech, rep, "--column", "y", "--ci", "0.95", "--json").json()
    assert doc["frequencies"] == pytest.approx([-0.5, 1.5]) and doc["ci"]["low"] == [0.0, 1.0]
    ok = cli("estimate", mech, rep, "--column", "y")  # no --ci: no interval, no such note
    assert "wholly outside" not in ok.out
