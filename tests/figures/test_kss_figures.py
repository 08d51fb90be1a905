"""kss reproductions: quick runs write their files and data in the promised shape."""

from __future__ import annotations

import json
import math

import pytest

from mechopt.figures.kss.figures import FIGURES
from mechopt.figures.kss.table1 import PAPER_TABLE1, reproduce_flags, simulate_row

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


# --- legends: what each curve is (issue 17) ------------------------------------------------------


def test_mi_curve_legend_certified_dots_and_closed_forms(tmp_path):
    from mechopt.figures.kss.figures import draw_mi_curve
    from mechopt.results.result import PROOFS

    out = FIGURES["kss-mi-curve"].run(tmp_path, quick=True)
    fig = draw_mi_curve(out.data["rows"])
    assert len(fig.axes) == 5
    for ax in fig.axes:
        d = int(ax.get_title().split("= ")[1])
        handles, labels = ax.get_legend_handles_labels()
        assert labels[0].startswith("optimum (Thm 2.1) — closed form (k*-subset)")
        assert "MRR (eq. 6) — closed form" in labels and "Sec. 4 — upper bound (no mechanism)" in labels
        assert "exact — certified optimum" in labels
        dots = handles[labels.index("exact — certified optimum")]
        rows = [r for r in out.data["rows"] if r["d"] == d and r.get("certified") is not None]
        assert sorted(dots.get_xdata()) == sorted(r["eps"] for r in rows)
        # certified dots come from results that are optimal with a proof, and agree with Theorem 2.1
        assert all(r["certified_status"] == "optimal" and r["certified_proof"] in PROOFS for r in rows)
        assert all(abs(r["certified"] - r["optimal"]) <= 1e-7 * max(1.0, r["optimal"]) for r in rows)
    assert out.data["legend"]["d = 4"] == fig.axes[1].get_legend_handles_labels()[1]


def test_prior_gap_and_table1_legends(tmp_path):
    from mechopt.figures.kss.figures import draw_table1
    from mechopt.figures.kss.prior import draw_prior_gap

    gap = FIGURES["kss-prior-gap"].run(tmp_path, quick=True)
    labels = draw_prior_gap(gap.data["rows"]).axes[0].get_legend_handles_labels()[1]
    assert labels == [f"Zipf s={s} — best k-subset (closed form) vs certified optimum" for s in (0.0, 0.5, 1.0, 2.0)]
    assert all(r["optimum_status"] == "optimal" and r["optimum_proof"] == "certificate" for r in gap.data["rows"])
    tab = FIGURES["kss-table1"].run(tmp_path, quick=True)
    labels = draw_table1(tab.data["rows"]).axes[0].get_legend_handles_labels()[1]
    assert {lab.split(" — ")[0] for lab in labels if " — " in lab} == {"BRR", "MRR", "k*-SS", "k#-SS"}
    assert all(lab.endswith("Monte-Carlo ± 1.96 se") for lab in labels if " — " in lab)
    assert tab.data["legend"]["l2 error"] == labels
