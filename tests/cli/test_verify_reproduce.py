"""``mechopt verify`` and ``mechopt reproduce`` over claims and figures registered in the test."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechopt import registry
from mechopt.cli.claims import CLAIM_FIELDS
from mechopt.figures import Figure, FigureOutput
from mechopt.jobs.verify import Claim, Verdict


def _claims(paper=None):
    c = [
        Claim("lip.demo_holds", "lip", "0 ≤ 1", "one instance", lambda: Verdict.from_deviations([0.0, 1e-12], 1e-9)),
        Claim(
            "lip.demo_fails",
            "lip",
            "x ≤ 0 for all x",
            "x in {0, 1, 2}",
            lambda: Verdict.from_deviations(
                [0.0, 1.0, 2.0], 1e-9, instances=[{"x": 0}, {"x": 1}, {"x": 2}], size=lambda i: i["x"]
            ),
        ),
        Claim("kss.demo_crash", "kss", "crashes", "-", lambda: [][1]),
    ]
    return [x for x in c if paper is None or x.paper == paper]


@pytest.fixture
def fake_claims(monkeypatch):
    monkeypatch.setattr(registry, "claims", _claims)


def test_verify_json_contract(cli, fake_claims):
    run = cli("verify", "--json")
    assert run.code == 0
    claims = run.json()["claims"]
    assert [c["id"] for c in claims] == ["lip.demo_holds", "lip.demo_fails", "kss.demo_crash"]
    assert all(set(CLAIM_FIELDS) <= set(c) for c in claims)
    assert all(c["verdict"] in ("holds", "fails", "holds-in-region") for c in claims)
    holds, fails, crash = claims
    assert holds["verdict"] == "holds" and holds["checked"] == 2 and holds["error"] is None
    assert fails["verdict"] == "fails" and fails["counterexample"] == {"x": 1, "deviation": 1.0}
    assert fails["worst_deviation"] == 2.0
    assert crash["verdict"] == "fails" and crash["checked"] == 0 and crash["note"].startswith("check crashed: ")
    assert "IndexError" in crash["error"]


def test_verify_filters_and_table(cli, fake_claims):
    assert [c["id"] for c in cli("verify", "--paper", "kss", "--json").json()["claims"]] == ["kss.demo_crash"]
    assert [c["id"] for c in cli("verify", "--claim", "lip.demo_fails", "--json").json()["claims"]] == [
        "lip.demo_fails"
    ]
    human = cli("verify")
    assert human.code == 0 and "lip.demo_fails" in human.out and "counterexample" in human.out
    assert "1 holds" in human.out and "2 fails" in human.out
    one = cli("verify", "--claim", "lip.demo_fails")  # one claim: the total line says "1 claim", not "1 claims"
    assert "\n1 claim: " in one.out and "1 claims" not in one.out


def _figure(fid, crash=False):
    def run(out_dir, quick=False):
        if crash:
            raise ValueError("no data")
        p = Path(out_dir) / f"{fid}.csv"
        p.write_text(f"quick\n{quick}\n")
        return FigureOutput(
            id=fid, files=[p], data={"quick": quick, "path": p, "tags": {"b", "a"}}, notes=["row 2 does not reproduce"]
        )

    return Figure(id=fid, title=f"title of {fid}", run=run, paper="lip")


@pytest.fixture
def fake_figures(monkeypatch):
    figs = {"lip.fig1": _figure("lip.fig1"), "lip.fig2": _figure("lip.fig2", crash=True)}
    monkeypatch.setattr(registry, "figures", lambda: figs)


def test_reproduce_list_run_and_errors(cli, fake_figures, tmp_path):
    lst = cli("reproduce", "--list", "--json").json()["figures"]
    assert [f["id"] for f in lst] == ["lip.fig1", "lip.fig2"] and lst[0]["title"] == "title of lip.fig1"
    run = cli("reproduce", "lip.fig1", "--out", tmp_path, "--quick", "--json")
    assert run.code == 0
    rep = run.json()["figures"][0]
    assert rep["status"] == "ok" and rep["notes"] == ["row 2 does not reproduce"]
    assert rep["data"] == {"quick": True, "path": str(tmp_path / "lip.fig1.csv"), "tags": ["a", "b"]}
    assert (tmp_path / "lip.fig1.csv").read_text() == "quick\nTrue\n"
    both = cli("reproduce", "all", "--out", tmp_path, "--json")
    assert both.code == 1  # one reproduction failed: reported, the other still ran
    reps = {r["id"]: r for r in both.json()["figures"]}
    assert reps["lip.fig1"]["status"] == "ok" and reps["lip.fig2"]["status"] == "error"
    assert "no data" in reps["lip.fig2"]["error"]
