"""The Section 6 figure: certified optimum vs best k-subset, honest about points that are not certified."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mechopt.figures.kss.section6 import ksubset_curve, run_section6, section6_point, section6_prior
from mechopt.problems.kss.problems import ksubset_mi


def test_quick_figure_rows_are_certified_and_consistent(tmp_path) -> None:
    out = run_section6(tmp_path, quick=True, time_budget=120.0)
    rows = json.loads((tmp_path / "kss-section6.json").read_text())["rows"]
    assert {r["prior"] for r in rows} == {"zipf", "dirichlet"} and len(rows) == 4
    for r in rows:
        assert r["certified"] and r["status"] == "optimal" and r["gap"] <= 1e-8
        assert r["optimum"] >= r["best_ksubset"] - 1e-12  # the optimum is at least any k-subset
        assert r["rel_gain"] == pytest.approx((r["optimum"] - r["best_ksubset"]) / r["best_ksubset"])
        assert r["outputs"] <= r["d"]
    assert "4 of 4 points certified" in out.notes[0]
    assert (tmp_path / "kss-section6.png").stat().st_size > 0


def test_a_point_out_of_time_is_a_bound_not_an_optimum() -> None:
    r = section6_point("dirichlet", 64, 3.0, time_budget=0.5)  # far too short to certify d = 64 at eps = 3
    assert not r["certified"] and r["optimum"] is None and r["rel_gain"] is None
    assert r["status"] == "time_limit" and r["bound"] >= r["value"]
    assert r["rel_gain_low"] <= r["rel_gain_high"] and r["ksubset_method"].startswith("monte-carlo")


def test_monte_carlo_ksubset_agrees_with_the_exact_sum() -> None:
    P = section6_prior("zipf", 10)
    exact = np.array([ksubset_mi(P, k, 1.0) for k in range(1, 10)])
    mean, se, how = ksubset_curve(P, 1.0, samples=20_000, exact_max_d=4)
    assert how.startswith("monte-carlo") and np.all(se > 0)
    assert np.all(np.abs(mean - exact) <= 5 * se)


def test_legend_says_what_the_bars_are_when_the_ksubset_side_is_monte_carlo() -> None:
    from mechopt.figures.kss.section6 import draw_section6
    from mechopt.figures.legend import legend_texts

    row = {
        "prior": "zipf",
        "eps": 1.0,
        "certified": True,
        "rel_gain": 0.09,
        "rel_gain_low": 0.088,
        "rel_gain_high": 0.092,
    }
    fig = draw_section6([{**row, "d": 16, "ksubset_se": 0.0}, {**row, "d": 64, "ksubset_se": 1e-4}])
    texts = [t for ts in legend_texts(fig).values() for t in ts]
    d16 = next(t for t in texts if t.startswith("d=16"))
    d64 = next(t for t in texts if t.startswith("d=64"))
    assert "Monte Carlo" not in d16 and "±3 s.e. of the Monte Carlo k-subset MI" in d64
