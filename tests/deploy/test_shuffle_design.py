"""design_for_shuffling: a certified local design whose own shuffled guarantee meets the central target."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.deploy.shuffle import central_guarantee
from mechopt.deploy.shuffle_design import design_for_shuffling, largest_eps0, oracle_baselines
from mechopt.errors import ProblemError
from mechopt.oracles import GRR
from mechopt.utilities import make_utility

P = np.array([0.45, 0.3, 0.15, 0.1])


@pytest.fixture(scope="module")
def designed():
    return design_for_shuffling(P, "mse", 0.3, 1e-6, 10**4, refine_steps=3)


def test_the_design_meets_the_target_by_its_own_q(designed):
    g = central_guarantee(designed.result.Q, 10**4, 1e-6, "variation-ratio")
    assert g.eps <= 0.3 and g.eps == pytest.approx(designed.guarantee.eps, rel=1e-12)
    assert designed.result.status == "optimal" and designed.eps0 >= designed.eps0_safe > 0.3
    assert designed.result.eps_audited <= designed.eps0 * (1 + 1e-7)  # certified eps0-LDP design


def test_the_statement_is_honest(designed):
    s = designed.statement()
    assert "certified for the local problem at eps0" in s and "variation-ratio bound" in s
    assert "not claimed optimal for the central problem" in s
    assert all(row["meets"] == (row["central_eps"] <= 0.3) for row in designed.search)


def test_the_design_beats_grr_and_oue_at_the_same_central_guarantee(designed):
    rows = {r["mechanism"]: r for r in oracle_baselines(P, "mse", 0.3, 1e-6, 10**4)}
    assert all(r["central_eps"] <= 0.3 for r in rows.values())
    assert designed.result.value < 0.9 * rows["GRR"]["value"] and designed.result.value < rows["OUE"]["value"]


def test_the_design_is_never_worse_than_grr_at_its_own_eps0(designed):
    u = make_utility("mse", prior=P)
    assert designed.result.value <= u.value(GRR(d=4, eps=designed.eps0).matrix(), P) + 1e-9


def test_largest_eps0_bisects_a_monotone_map():
    assert largest_eps0(lambda e: e / 3.0, 0.5) == pytest.approx(1.5, rel=1e-5)
    assert largest_eps0(lambda e: 0.0, 0.5) == 30.0  # capped


@pytest.mark.parametrize("kw", [{"eps_central": 0.0}, {"eps_central": float("inf")}, {"n": 0}, {"delta": 2.0}])
def test_bad_targets_are_problem_errors(kw):
    args = {"eps_central": 0.3, "delta": 1e-6, "n": 100, **kw}
    with pytest.raises(ProblemError):
        design_for_shuffling(P, "mse", args["eps_central"], args["delta"], args["n"])
