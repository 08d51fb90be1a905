"""The referee's corrected LIP verdicts (issue 26): Proposition 5's region shown exact, the Introduction's
"especially when the prior is not uniform" and Fig. 5's "gap increases at P1 = 0.99" judged per eps."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.claims.lip.binary_figures import advantage, gap_deviation, skew_gain, skew_threshold
from mechopt.claims.lip.figures_more import ldp_mse, lip_mse
from mechopt.claims.lip.relations import prop5_bands_coincide, prop5_grid
from mechopt.claims.lip.theorems import CLAIMS
from mechopt.problems.lip import closed as cf

BY_ID = {c.id: c for c in CLAIMS}


def test_prop5_region_is_exact_on_189_instances() -> None:
    v = BY_ID["lip.prop5"].run().result
    assert v.verdict == "holds-in-region" and v.checked == 189 == len(prop5_grid())
    assert v.region_kind == "exact boundary" and "exact region (checked on 189 instances)" in v.region
    ce = v.counterexample
    assert not cf.binary_lip_region(ce["p1"], ce["eps"]) and ce["prop5"] < ce["definition4"] - 1e-6
    assert "114 of the 114" in v.note  # every instance outside the region differs


def test_prop5_grid_has_both_sides_for_every_n() -> None:
    grid = prop5_grid()
    for n in (2, 3, 4):
        inside = [cf.binary_lip_region(p, e) for m, p, e in grid if m == n]
        assert 0 < sum(inside) < len(inside)


@pytest.mark.parametrize("p1", np.linspace(0.01, 0.99, 23))
@pytest.mark.parametrize("eps", [0.05, 0.3, 1.0, 2.2, 4.0])
def test_prop5_bands_coincide_exactly_on_the_region(p1: float, eps: float) -> None:
    assert prop5_bands_coincide(float(p1), eps) == cf.binary_lip_region(float(p1), eps)


def test_intro_skew_holds_only_above_the_computed_threshold() -> None:
    v = BY_ID["lip.intro_skew"].run().result
    assert v.verdict == "holds-in-region" and v.region_kind == "exact boundary"
    assert v.note.startswith("the universal reading (every eps > 0) fails")
    assert "eps > 3.57" in v.region and "4 (13.6 vs 1.95)" in v.note
    assert v.counterexample["eps"] < 3.57 and v.counterexample["deviation"] > 0


def test_intro_skew_threshold_brackets_a_sign_change() -> None:
    t = skew_threshold(0.98, 3.0, 4.0)
    assert 3.565 < t < 3.58
    assert skew_gain(0.98, t - 0.01) < 0 < skew_gain(0.98, t + 0.01)
    assert advantage(0.98, 4.0) == pytest.approx(13.56, abs=0.01) and advantage(0.5, 4.0) == pytest.approx(
        1.95, abs=0.01
    )


def test_fig5_gap099_evidence_names_where_it_holds() -> None:
    v = BY_ID["lip.fig5_gap099"].run().result
    assert v.verdict == "holds-in-region" and v.region_kind == "exact boundary"
    assert "it holds at eps = 4.5 and 5" in v.note and "5 (30.4 vs 1.98)" in v.note
    assert 4.0 < skew_threshold(0.99, 4.0, 4.5) < 4.5 and gap_deviation(0.99, 5.0) < 0 < gap_deviation(0.99, 4.0)
    assert BY_ID["lip.fig5_gap099"].recheck(v.counterexample) == pytest.approx(v.counterexample["deviation"])


def test_fig2_order_with_valid_mechanisms() -> None:
    v = BY_ID["lip.fig2_order"].run().result
    assert v.verdict == "holds" and v.checked == 5
    assert "at eps = 1, 8.20 (Opt-LDP) and 7.91 (LIP) vs 92.07 (context-free LDP)" in v.note


def test_fig7_growth_with_d_holds_only_at_large_eps() -> None:
    v = BY_ID["lip.fig7_growth_d"].run().result
    assert v.verdict == "holds-in-region" and v.region_kind == "empirical"
    assert v.region.startswith("eps >= 3 ") and v.counterexample["eps"] == 0.5
    r = v.counterexample["ratio"]
    assert r[-1] < r[0]  # at eps = 0.5 the advantage at d = 20 is below the one at d = 2


def test_fig8_large_n_sandwich_and_no_crossing() -> None:
    v = BY_ID["lip.fig8_large"].run().result
    assert v.verdict == "holds" and v.checked == 18 and "holds on the 18 (N, eps) instances checked" in v.note


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5, 5.0])
def test_vectorised_closed_forms_match_the_scalar_ones(eps: float) -> None:
    P = np.linspace(0.01, 0.99, 37)
    np.testing.assert_allclose(lip_mse(P, eps), [cf.binary_lip_optimum(p, eps)[0] for p in P], rtol=0, atol=1e-15)
    np.testing.assert_allclose(ldp_mse(P, eps), [cf.binary_ldp_mse(p, eps) for p in P], rtol=0, atol=1e-15)


def test_cip_gap_is_small_only_for_few_users() -> None:
    v = BY_ID["lip.intro_cip_gap"].run().result
    assert v.verdict == "holds-in-region" and v.region.startswith("N <= 3") and v.region_kind == "empirical"
    ce = v.counterexample
    assert ce["N"] == 4 and ce["cip"] < ce["sum_local_lip"] and ce["sqrt_ratio"] > 2
    assert v.note.startswith("CIP <= LIP at all 16 instances")


def test_fig9b_advantage_at_d83_exceeds_d20_only_above_threshold() -> None:
    v = BY_ID["lip.fig9b_vs_fig7"].run().result
    assert v.verdict == "holds-in-region" and v.region_kind == "exact boundary"
    assert v.region.startswith("eps > 4.39") and v.counterexample["ratio_d83"] < v.counterexample["ratio_d20"]
