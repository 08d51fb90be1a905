"""The Kairouz–Oh–Viswanath regime claims, pinned against the certified LDP-MI optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechopt import registry
from mechopt.claims.kairouz.mechanisms import (
    PAIRS,
    binary,
    binary_mi,
    certified,
    kl_binary,
    kl_optimum,
    rel_deficit,
    rr,
    rr_mi,
    staircase_deviation,
    threshold,
)
from mechopt.claims.kairouz.theorems import CLAIMS, THRESHOLD_GRID, regime_thresholds
from mechopt.cli import main

BY_ID = {c.id: c for c in CLAIMS}


def test_registered_for_verify_with_recalled_statements() -> None:
    assert [c.id for c in registry.claims("kairouz")] == list(BY_ID)
    for c in CLAIMS:
        assert c.statement.startswith("[recalled and paraphrased"), c.id
        assert "believed" in c.section or "Abstract" in c.section


def test_staircase_holds_and_says_it_is_by_construction() -> None:
    c = BY_ID["kairouz.thm2_staircase"]
    v = c.run().result
    assert c.by_construction and v.verdict == "holds" and v.checked >= 50 and v.worst_deviation < 1e-7
    assert "by construction" in v.note


def test_the_staircase_test_can_fail() -> None:
    Q = np.array([[0.5, 0.3, 0.2], [0.3, 0.4, 0.3], [0.2, 0.3, 0.5]])  # not two-valued columns
    assert staircase_deviation(Q, math.log(2.5)) > 0.1
    assert staircase_deviation(rr(3, 1.3), 1.3) < 1e-12


def test_pattern_lp_equals_the_certified_optimum() -> None:
    v = BY_ID["kairouz.thm4_pattern_lp"].run().result
    assert v.verdict == "holds" and v.checked == 55 and v.worst_deviation < 1e-8


def test_binary_high_privacy_fails_for_uniform_3_and_5_only() -> None:
    v = BY_ID["kairouz.binary_high_privacy"].run().result
    assert v.verdict == "holds-in-region" and v.region_kind == "empirical"
    assert v.counterexample["prior"] == "uniform:3" and v.counterexample["eps"] == 0.01
    assert v.counterexample["deviation"] == pytest.approx(2.221e-3, rel=1e-2)
    assert "uniform:3" not in v.region and "uniform:4" in v.region
    # the deficit is linear in eps: optimal to first order only
    P = np.full(3, 1 / 3)
    ratio = rel_deficit(P, 0.001, binary_mi) / rel_deficit(P, 0.01, binary_mi)
    assert ratio == pytest.approx(0.1, rel=2e-2)
    # randomized response is the optimum there, at every eps of the grid
    assert all(rel_deficit(P, float(e), rr_mi) < 1e-9 for e in THRESHOLD_GRID[::4])


def test_rr_low_privacy_holds_and_the_regimes_meet_where_there_is_no_middle() -> None:
    assert BY_ID["kairouz.rr_low_privacy"].run().result.verdict == "holds"
    t = regime_thresholds()
    assert t["uniform:3"]["binary"] is None and t["uniform:3"]["rr"] == pytest.approx(0.01)
    assert t["uniform:4"]["binary"] == pytest.approx(0.8221, rel=1e-3)
    assert t["uniform:4"]["rr"] == pytest.approx(t["uniform:4"]["binary"], rel=1e-3)  # one switch, no middle
    for name in ("uniform:4", "0.2,0.3,0.5", "0.05,0.15,0.8"):  # ... where the two informations cross
        assert t[name]["crossing"] == pytest.approx(t[name]["binary"], rel=1e-3), name
    assert "no intermediate regime" in BY_ID["kairouz.rr_low_privacy"].run().result.note
    assert t["uniform:2"]["crossing"] is None and t["uniform:3"]["crossing"] is None
    assert t["0.1,0.2,0.3,0.4"]["binary"] < 0.5 < 1.9 < t["0.1,0.2,0.3,0.4"]["rr"]  # a middle regime
    # k = 2: binary and randomized response are the same channel, optimal on the whole grid
    assert t["uniform:2"]["binary"] == pytest.approx(12.0) and t["uniform:2"]["rr"] == pytest.approx(0.01)


def test_threshold_bisection_brackets_the_switch() -> None:
    P = np.full(4, 0.25)
    e = threshold(lambda x: rel_deficit(P, x, binary_mi), THRESHOLD_GRID, low=False)
    assert rel_deficit(P, e, binary_mi) <= 1e-9 < rel_deficit(P, e * 1.001, binary_mi)


def test_intermediate_is_not_checkable_with_the_measured_gap() -> None:
    v = BY_ID["kairouz.intermediate"].run().result
    assert v.verdict == "not-checkable" and 0.05 < v.worst_deviation < 0.2


def test_certified_optimum_is_optimal_with_a_small_gap() -> None:
    value, gap, status, Q = certified(np.array([0.1, 0.2, 0.3, 0.4]), 1.0)
    assert status == "optimal" and gap < 1e-10 and value == pytest.approx(0.12197347318, rel=1e-9)


def test_verify_cli_knows_the_paper(capsys) -> None:
    assert main(["verify", "--paper", "kairouz", "--claim", "kairouz.thm4_pattern_lp", "--json"]) == 0
    assert '"kairouz.thm4_pattern_lp"' in capsys.readouterr().out


@pytest.mark.parametrize("cid", ["kairouz.binary_kl_high_privacy", "kairouz.rr_kl_low_privacy"])
def test_kl_regime_claims_hold_against_the_pattern_lp(cid: str) -> None:
    v = BY_ID[cid].run().result
    assert v.verdict == "holds" and v.checked >= 14 and v.worst_deviation < 1e-8
    assert "measured ε*" in v.note and "staircase theorem" in v.note


def test_the_kl_check_can_fail_with_the_wrong_set() -> None:
    P0, P1 = (np.array(p) for p in PAIRS["uniform:4|0.1,0.2,0.3,0.4"])
    assert (kl_optimum(P0, P1, 0.1) - kl_binary(P0, P1, 0.1)) / kl_optimum(P0, P1, 0.1) < 1e-8
    from scipy.special import rel_entr

    wrong = binary(4, 0.1, (0, 2))  # not {x : P0(x) >= P1(x)} = {0, 1}
    assert float(rel_entr(P0 @ wrong, P1 @ wrong).sum()) < 0.5 * kl_optimum(P0, P1, 0.1)
