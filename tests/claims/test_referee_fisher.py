"""The Fisher paper's Proposition 1, Remarks 1 and 6, and Corollaries 1/3/5 read over x-dependent policies
(issue 26)."""

from __future__ import annotations

import math

import pytest

from mechopt.claims.fisher.preliminaries import XDEP_GRID, fisher_info
from mechopt.claims.fisher.sections import CLAIMS

BY_ID = {c.id: c for c in CLAIMS}


def test_fisher_info_of_closed_forms() -> None:
    assert fisher_info(lambda w: math.cos(math.pi * w / 2) ** 2, -1.0, 1.0) == pytest.approx(math.pi**2, rel=1e-7)
    assert fisher_info(lambda w: math.exp(-0.5 * (w / 0.7) ** 2), -12.0, 12.0) == pytest.approx(1 / 0.49, rel=1e-7)


def test_prop1_cramer_rao_holds_with_gaussian_equality() -> None:
    v = BY_ID["fisher.prop1"].run().result
    assert v.verdict == "holds" and v.checked == 20
    assert "Var(w) J = 1.2899 for cos^2" in v.note and "1.000000 for the Gaussian" in v.note
    assert math.pi**2 / 3 - 2 == pytest.approx(1.2899, abs=1e-4)


def test_remark1_bounded_attained_unbounded_not() -> None:
    v = BY_ID["fisher.remark1"].run().result
    assert v.verdict == "holds" and v.checked == 5 and v.worst_deviation < 1e-6


def test_remark6_witness_of_non_concavity() -> None:
    v = BY_ID["fisher.remark6"].run().result
    ce = v.counterexample
    assert v.verdict == "holds" and 1 / ce["J_mid"] < 0.5 * (1 / ce["J1"] + 1 / ce["J2"])


def test_corollaries_fail_over_x_dependent_policies() -> None:
    v = BY_ID["fisher.cor_xdep"].run().result
    assert v.verdict == "fails" and v.checked == len(XDEP_GRID)
    ce = v.counterexample
    assert ce["X"] == [0.0, 2.0] and ce["grid_optimum"] < 0.3 * ce["cos2_on_grid"]
    assert v.note.startswith("as read over x-dependent policies it fails: cos^2 is beaten on 5 of the 5 (X, grid)")


def test_sec5_gaussian_noise_has_more_entropy_and_leaks_less() -> None:
    v = BY_ID["fisher.sec5_info"].run().result
    assert v.verdict == "holds" and v.checked == 6
    assert 0.5 * math.log(math.pi * math.e) - 1 == pytest.approx(0.0724, abs=1e-4)


def test_laplace_mutual_information_matches_the_gaussian_limit() -> None:
    """Small signal: I(x; x + w) ~ s^2 J(w) / 2 with J = 1/b^2 for Laplace(b) (within 5 % at s = 0.05)."""
    from mechopt.claims.fisher.preliminaries import _mi_laplace_noise

    assert _mi_laplace_noise(0.05, 1.0) == pytest.approx(0.05**2 / 2, rel=0.05)


def test_eq7_8_inequalities_hold() -> None:
    v = BY_ID["fisher.eq7_8"].run().result
    assert v.verdict == "holds" and v.checked == 300
