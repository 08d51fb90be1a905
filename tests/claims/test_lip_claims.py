"""The LIP paper's claims: registered ids, and the verdicts the certified optimum gives."""

from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.claims.lip.theorems import CLAIMS

BY_ID = {c.id: c for c in CLAIMS}


def test_ids_unique_and_registered():
    assert len(BY_ID) == len(CLAIMS)
    assert {
        "lip.thm1",
        "lip.prop1",
        "lip.thm2",
        "lip.prop3",
        "lip.prop4",
        "lip.thm3",
        "lip.thm4",
        "lip.thm5",
        "lip.thm6",
        "lip.prop5",
        "lip.eq41",
        "lip.oue",
        "lip.ex1",
        "lip.prop2",
        "lip.ldp_mimo",
    } <= set(BY_ID)
    assert {c.id for c in registry.claims("lip")} == set(BY_ID)


@pytest.mark.parametrize("cid", ["lip.thm1", "lip.prop1", "lip.prop2", "lip.thm6"])
def test_true_relations_hold(cid):
    v = BY_ID[cid].run().result
    assert v.verdict == "holds" and v.checked >= 12


def test_eq41_holds_only_with_the_flip_probability():
    v = BY_ID["lip.eq41"].run().result
    assert v.verdict == "holds-after-correction" and v.checked >= 12
    assert v.correction.startswith("p = 1/(e^eps+1)")
    ce = v.counterexample  # as printed, E[C_hat] = N - S: off by the whole count at S = 0
    assert ce["S"] == 0 and ce["printed_deviation"] == pytest.approx(1.0)


def test_oue_formula_is_not_the_total_histogram_mse():
    v = BY_ID["lip.oue"].run().result
    assert v.verdict == "fails" and v.counterexample["d"] == 2 and v.worst_deviation > 10


def test_example1_printed_numbers_fail():
    v = BY_ID["lip.ex1"].run().result
    assert v.verdict == "fails" and v.counterexample["eps"] == 0.5


@pytest.mark.parametrize("cid", ["lip.thm2", "lip.prop3"])
def test_theorem2_holds_only_in_its_region(cid):
    v = BY_ID[cid].run().result
    assert v.verdict == "holds-in-region"
    assert v.region == "max(P1, 1-P1) <= e^eps/(1+e^eps)"
    ce = v.counterexample
    assert max(ce["p1"], 1 - ce["p1"]) > 1 / (1 + 2.718281828459045 ** -ce["eps"])


def test_prop4_holds():
    assert BY_ID["lip.prop4"].run().result.verdict == "holds"


def test_report_is_json_ready():
    d = BY_ID["lip.thm2"].run().to_dict()
    assert {
        "id",
        "paper",
        "statement",
        "domain",
        "verdict",
        "checked",
        "worst_deviation",
        "counterexample",
        "region",
    } <= set(d)


@pytest.mark.parametrize(
    "cid, kind",
    [
        ("lip.thm3", "exact boundary"),
        ("lip.thm5", "exact boundary"),
        ("lip.thm4", "sufficient"),
        ("lip.prop5", "exact boundary"),
    ],
)
def test_region_claims(cid, kind):
    v = BY_ID[cid].run().result
    assert v.verdict == "holds-in-region", (v.counterexample, v.note)
    assert v.counterexample is not None and v.region and v.region_kind == kind


def test_thm3_fails_outside_region_with_a_private_violation():
    ce = BY_ID["lip.thm3"].run().result.counterexample
    assert ce["violation"] > 0.01 and ce["d"] == 3


def test_ldp_mimo_channel_is_not_optimal():
    v = BY_ID["lip.ldp_mimo"].run().result
    assert v.verdict == "fails"
    ce = v.counterexample
    assert ce["certified_value"] < ce["closed_value"] - 1e-3 and ce["violation"] <= 1e-9


def test_whole_paper_runs_with_the_exact_reference():
    from mechopt.claims.lip.checks import reference_solver

    assert reference_solver() == "exact"
