"""kss reproductions: quick runs write their files and data in the promised shape."""
from __future__ import annotations

import json
import math

import pytest

from mechopt.figures.kss import FIGURES
from mechopt.figures.kss_table1 import PAPER_TABLE1, reproduce_flags, simulate_row

ROW_KEYS = {"d", "eps", "mechanism", "k", "l2", "l2_se", "l2_paper", "l1", "l1_se", "l1_paper"}


def test_paper_table_is_complete() -> None:
    assert len(PAPER_TABLE1) == 41 and {r[0] for r in PAPER_TABLE1} == {2, 4, 6, 8, 16, 32, 64, 128, 256}


def test_table1_quick(tmp_path) -> None:
    out = FIGURES["kss-table1"].run(tmp_path, quick=True)
    data = json.loads((tmp_path / "kss-table1.json").read_text())
    assert data["rows"] and all(ROW_KEYS <= set(r) for r in data["rows"])
    assert {r["mechanism"] for r in data["rows"]} == {"BRR", "MRR", "k*-SS", "k#-SS"}
    assert any("Uniform(0, 1)" in n for n in out.notes)
    assert (tmp_path / "kss-table1.png").exists()


def test_one_paper_row_reproduces() -> None:
    rows = simulate_row(16, 1.0, reps=40, n=10_000, seed=3)
    for r in rows:
        assert r["l2_paper"] is not None
        assert math.isclose(r["l2_unprojected"], r["l2_theory_unprojected"], rel_tol=0.25)
        assert reproduce_flags(r)["l2_reproduces"], r
    ks = {r["mechanism"]: r["k"] for r in rows}
    assert (ks["k*-SS"], ks["k#-SS"]) == (5, 4)


@pytest.mark.parametrize("fid", ["kss-mi-curve", "kss-prior-gap"])
def test_curves_quick(tmp_path, fid) -> None:
    out = FIGURES[fid].run(tmp_path, quick=True)
    assert out.data["rows"] and all(p.exists() for p in out.files)
    if fid == "kss-mi-curve":
        assert {r["d"] for r in out.data["rows"]} == {2, 4, 16, 64, 256}
        assert all(r["mrr"] <= r["optimal"] + 1e-12 and r["brr"] <= r["optimal"] + 1e-12 for r in out.data["rows"])
    else:
        assert all(r["optimum"] >= r["best_ksubset"] - 1e-9 for r in out.data["rows"])
