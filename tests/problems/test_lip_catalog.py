"""Every LIP catalog instance through exact, closed-form and SQP: exact is the best private answer."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

import mechopt
from mechopt import registry

CATALOG = Path(mechopt.__file__).parent / "data" / "catalog" / "lip.toml"
INSTANCES = tomllib.loads(CATALOG.read_text())["instance"]


def test_catalog_covers_every_family():
    assert {i["problem"] for i in INSTANCES} == {
        "lip-binary",
        "lip-mimo",
        "lip-weighted-sum",
        "lip-histogram",
        "cip-binomial",
    }


@pytest.mark.parametrize("inst", INSTANCES, ids=[i["name"] for i in INSTANCES])
def test_instance(inst):
    prob = registry.get_problem(inst["problem"]).from_params(**inst["params"])
    ex = mechopt.solve(prob, solver="exact")
    assert ex.ok and ex.violation <= 1e-7 and ex.certificate is not None
    sq = mechopt.solve(prob, solver="sqp", n_starts=4)
    assert sq.violation <= 1e-6 and sq.value >= ex.value - 1e-6
    if "closed-form" in registry.solvers_for(prob):
        cf = mechopt.solve(prob, solver="closed-form")
        assert cf.certificate is None
        assert cf.extras["claim"].startswith("lip.")
        if cf.violation <= 1e-7:  # a private closed form can never beat the optimum
            assert cf.value >= ex.value - 1e-7
            assert cf.status.value in ("optimal", "feasible")
            if cf.status.value == "optimal":  # a proven theorem is the certified optimum
                assert cf.proof == "theorem" and cf.value == pytest.approx(ex.value, rel=1e-7, abs=1e-9)
        else:  # a non-private one is flagged, not trusted
            assert cf.status.value == "infeasible_point" and cf.proof is None
