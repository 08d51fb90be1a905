"""The gauss paper's claims and figure reproductions."""

from __future__ import annotations

import json

import pytest

from mechopt import registry
from mechopt.claims.gauss.theorems import CLAIMS
from mechopt.figures.gauss.figures import FIGURES

BY_ID = {c.id: c for c in CLAIMS}


def test_claims_registered_for_verify():
    ids = {c.id for c in registry.claims("gauss")}
    assert {
        "gauss.eq10",
        "gauss.eq12",
        "gauss.eq13",
        "gauss.mi_fisher_same_curves",
        "gauss.greedy_vs_global",
        "gauss.greedy_beats_gd",
        "gauss.datasets_psd",
    } <= ids


@pytest.mark.parametrize("cid", ["gauss.eq12", "gauss.eq13"])
def test_section_iii_formulas_hold(cid):
    v = BY_ID[cid].run().result
    assert v.verdict == "holds" and v.checked >= 50 and v.worst_deviation < 1e-9


def test_eq10_holds_after_the_sign_and_index_correction():
    v = BY_ID["gauss.eq10"].run().result
    assert v.verdict == "holds-after-correction" and v.checked >= 50
    assert "b_{n+1,n+1}" in v.correction and v.worst_deviation == pytest.approx(2.0)  # printed: the negative


def test_mi_fisher_same_curves_only_in_region_with_counterexample():
    v = BY_ID["gauss.mi_fisher_same_curves"].run().result
    assert v.verdict == "holds-in-region" and "n_u = 1 and γ = 0" in v.region
    ce = v.counterexample
    assert ce["deviation"] > 0.1 and (ce["gamma"] > 0 or ce["n_u"] > 1)
    assert abs(ce["mi_value"] - ce["fisher_value"]) == pytest.approx(ce["deviation"])


def test_dataset2_is_not_psd_as_printed():
    v = BY_ID["gauss.datasets_psd"].run().result
    assert v.verdict == "fails"
    assert v.counterexample["dataset"] == "2" and v.counterexample["block"] == "Σ_{X∪Xu}"
    assert v.counterexample["min_eigenvalue"] == pytest.approx(-0.00279, abs=1e-5)


@pytest.mark.slow
def test_greedy_vs_global_and_gd_claims():
    g = BY_ID["gauss.greedy_vs_global"].run().result
    assert g.verdict == "holds-in-region" and g.counterexample["delta"] == 1.0
    assert g.counterexample["greedy"] > g.counterexample["global"] + 1e-3
    d = BY_ID["gauss.greedy_beats_gd"].run().to_dict()
    assert d["verdict"] in ("holds", "fails") and d["checked"] == 7


def test_quick_figure_writes_png_csv_json(tmp_path):
    out = FIGURES["gauss-fig4"].run(tmp_path, quick=True)
    assert {p.suffix for p in out.files} == {".png", ".csv", ".json"}
    doc = json.loads((tmp_path / "gauss-fig4.json").read_text())
    rows = [r for r in doc["rows"] if r["solver"] == "greedy"]
    ref = {r["delta"]: r["value"] for r in doc["rows"] if r["solver"] == "search"}
    assert rows and all(r["value"] >= ref[r["delta"]] - 1e-9 and r["violation"] <= 1e-7 for r in rows)
    assert any("largest gap" in n for n in out.notes)


@pytest.mark.slow
@pytest.mark.parametrize("fid", sorted(FIGURES))
def test_every_quick_figure_runs(tmp_path, fid):
    out = FIGURES[fid].run(tmp_path, quick=True)
    assert (tmp_path / f"{fid}.png").stat().st_size > 1000 and out.data["rows"]
