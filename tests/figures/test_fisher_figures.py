"""Quick variants of the Fisher-paper reproductions write a PNG and their data."""

from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.figures.fisher.figures import FIGURES


@pytest.mark.parametrize("fid", sorted(FIGURES))
def test_quick_figure(fid: str, tmp_path) -> None:
    assert fid in registry.figures()
    out = FIGURES[fid].run(tmp_path, quick=True)
    assert out.id == fid
    assert any(p.suffix == ".png" and p.stat().st_size > 1000 for p in out.files)
    assert any(p.suffix in (".csv", ".json") for p in out.files)
    if fid == "fisher-convergence":
        assert all(abs(v - 2) < 0.1 for v in out.data["orders"].values())
    if fid == "fisher-fig2":
        assert out.data["prop3"]["crb_gain"] == 2.0 and not any("not inside" in n for n in out.notes)


# --- legends: what each curve is (issue 17); read back from the drawn figure into data["legend"] ----


def test_densities_legend_words_follow_the_statuses(tmp_path):
    from mechopt.results.result import PROOFS

    out = FIGURES["fisher-fig-densities"].run(tmp_path, quick=True)
    labels = out.data["legend"]["Corollary 1: minimum-Fisher noise"]
    for sup, lab in zip(out.data["supports"], labels):
        assert lab.startswith(f"[{sup['a']:g}, {sup['b']:g}]: J=")
        certified = sup["status"] == "optimal" and sup["proof"] in PROOFS
        assert lab.endswith("spectral, certified optimum") == certified
        assert lab.endswith("spectral, feasible, no proof") == (sup["status"] == "feasible")
    assert labels[-1].startswith("(2/L) cos² — closed form (Corollary 1)")
    proven = all(s["closed_status"] == "optimal" and s["closed_proof"] in PROOFS for s in out.data["supports"])
    assert labels[-1].endswith("proven optimal") == proven


def test_fig1_panel_titles_and_convergence_legend(tmp_path):
    out = FIGURES["fisher-fig1"].run(tmp_path, quick=True)
    titles = out.data["titles"]
    assert titles[0].startswith("Corollary 4, weight exp:0.5") and "closed form" in titles[0]
    assert "not optimal here" in titles[0]
    for w, t in zip(out.data["weights"], titles[1:]):
        word = "certified optimum" if w["status"] == "optimal" and w["proof"] else "feasible, no proof"
        assert t.startswith(f"grid optimum (conic), weight {w['weight']}") and t.endswith(word)
    conv = FIGURES["fisher-convergence"].run(tmp_path, quick=True)
    labels = list(conv.data["legend"].values())[0]
    assert labels[0] == "spectral-raw — grid eigenvalue, not extrapolated (no Result)"
    conic = [r for r in conv.data["rows"] if r["solver"] == "conic"]
    assert labels[2].startswith("conic — ")
    assert ("certified optimum" in labels[2]) == any(r["status"] == "optimal" for r in conic)
