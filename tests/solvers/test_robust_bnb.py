"""The robust-mi branch-and-bound pricer: its bound against every pattern enumerated, and in robust-rays."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.bnb import MIBranchBound


def _all_patterns(n: int) -> np.ndarray:
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)


@settings(deadline=None)  # no timing assertion: 262 ms against hypothesis's 200 ms default under load 4
@given(st.integers(2, 10), st.integers(1, 3), st.floats(0.1, 3.0), st.integers(0, 2**31 - 1), st.floats(-0.5, 1.0))
def test_bound_covers_every_pattern_and_finds_the_best(n, k, eps, seed, shift):
    """The bound is ≥ ρ of all 2^n patterns; with a pattern of ρ > 0 the best pattern returned attains the max."""
    rng = np.random.default_rng(seed)
    V = rng.dirichlet(np.ones(n), size=k)
    lam = rng.dirichlet(np.ones(k))
    bb = MIBranchBound(V, eps)
    mu = rng.uniform(0.0, 1.0, n) * eps
    vals = np.array([bb.rho(z, lam, mu) for z in _all_patterns(n)])
    mu = mu + (vals.max() - shift * abs(vals.max())) / n  # the maximum moved near 0, either side
    vals = np.array([bb.rho(z, lam, mu) for z in _all_patterns(n)])
    Z, ub = bb.solve(lam, mu)
    assert ub >= vals.max() - 1e-12
    assert ub <= max(vals.max(), 0.0) + 1e-9  # exact: within its tolerance of the maximum (or of 0)
    if vals.max() > 1e-9:
        assert math.isclose(bb.rho(Z[0], lam, mu), vals.max(), rel_tol=0, abs_tol=1e-12)


def test_robust_rays_certifies_the_same_mi_through_branch_and_bound():
    """enumerate_max below d sends pricing to the branch and bound: same certified optimum as subset sums."""
    V = np.random.default_rng(9).dirichlet(np.ones(9), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="robust-rays")
    bnb = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, mi_pricer="branch")
    assert ref.status.value == bnb.status.value == "optimal"
    assert "branch and bound" in bnb.extras["pricing"] and "enumeration" in ref.extras["pricing"]
    assert math.isclose(bnb.value, ref.value, rel_tol=1e-7)
    assert bnb.certificate.gap <= 1e-7


def test_an_unknown_mi_pricer_is_a_param_error():
    V = np.random.default_rng(9).dirichlet(np.ones(5), size=2)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(ParamError, match="mi_pricer"):
        mechopt.solve(prob, solver="robust-rays", enumerate_max=2, mi_pricer="simplex")
