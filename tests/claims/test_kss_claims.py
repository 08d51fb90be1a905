"""Every kss claim runs and gives the verdict established here (a change is a finding to look at)."""

from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.claims.kss.theorems import _BASE_CLAIMS as CLAIMS  # the section-by-section claims: test_verdicts.py

EXPECTED = {c.id: "holds" for c in CLAIMS}
EXPECTED["kss.open_prior"] = "fails"  # the Theorem 2.1 bound does not extend to non-uniform priors
EXPECTED["kss.eq8"] = "holds-after-correction"  # the size-d mass inside the bound is e^{+eps/2}/(...)^d


def test_claims_are_registered() -> None:
    ids = {c.id for c in registry.claims("kss")}
    assert {
        "kss.thm2_1",
        "kss.thm3_1",
        "kss.thm3_2",
        "kss.cor2_1",
        "kss.cor2_2",
        "kss.eq6",
        "kss.eq7",
        "kss.eq8",
    } <= ids


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_claim_verdict(claim) -> None:
    rep = claim.run()
    assert rep.verdict == EXPECTED[claim.id], rep.to_dict()
    if rep.verdict == "fails":
        ce = rep.result.counterexample
        assert ce is not None and ce["optimum"] > ce["uniform_bound"]
