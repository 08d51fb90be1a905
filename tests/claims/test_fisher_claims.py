"""The Fisher-paper claims run and give the expected verdicts (Corollary 4 is a finding)."""

from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.claims.fisher.theorems import _BASE_CLAIMS as CLAIMS  # the section-by-section claims: test_verdicts.py

EXPECTED_FAIL = {"fisher.cor4"}


def test_ids_registered() -> None:
    ids = {c.id for c in registry.claims("fisher")}
    assert {
        "fisher.cor1",
        "fisher.cor2",
        "fisher.cor3",
        "fisher.cor4",
        "fisher.cor5",
        "fisher.thm3",
        "fisher.cor6",
        "fisher.thm4",
        "fisher.prop3",
        "fisher.prop4",
        "fisher.grid_order2",
    } <= ids


@pytest.mark.parametrize("claim", CLAIMS, ids=[c.id for c in CLAIMS])
def test_claim_verdict(claim) -> None:
    rep = claim.run()
    d = rep.to_dict()
    assert d["paper"] == "fisher" and d["checked"] >= 1
    if claim.id in EXPECTED_FAIL:
        assert rep.verdict == "fails" and d["counterexample"]["grid_optimum"] < d["counterexample"]["closed_form"]
    else:
        assert rep.verdict == "holds", d
