"""Robust MI pricing at scale: the flip-and-swap pattern search, the prior-free start duals, robust-rays with both."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import mechopt
from mechopt.errors import ParamError
from mechopt.model.info import mutual_information
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.search import LDPMIBranchPricer, pattern_search


def _all_patterns(n: int) -> np.ndarray:
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)


@pytest.mark.parametrize("seed", range(4))
def test_search_returns_true_values_at_local_optima(seed):
    """Each pattern's value is its ρ recomputed, and no single flip or swap improves it."""
    rng = np.random.default_rng(seed)
    n, k = 8, 3
    V = rng.dirichlet(np.ones(n), size=k)
    pr = LDPMIBranchPricer(V, 1.0)
    lam, mu = rng.dirichlet(np.ones(k)), rng.uniform(0.0, 0.3, n)
    c0, c = pr._lin(lam, mu)
    Z, val = pattern_search(V, lam, c0, c, lambda U: pr._psi(U)[0], np.zeros((1, n), bool), starts=6, seed=seed)
    assert np.allclose(val, pr.rho(Z, lam, mu), rtol=0, atol=1e-12)
    for z, v in zip(Z, val):
        moves = [np.eye(n, dtype=bool)[x] for x in range(n)]
        moves += [np.eye(n, dtype=bool)[a] | np.eye(n, dtype=bool)[b] for a, b in itertools.product(np.flatnonzero(z),
                  np.flatnonzero(~z))]  # fmt: skip
        assert pr.rho(np.array([z ^ m for m in moves]), lam, mu).max() <= v + 1e-12


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_start_duals_bound_every_pattern_by_the_prior_free_value(eps):
    """At the start duals ρ ≤ 0 on all 2^n patterns, and 1ᵀμ is max_u f(u)/t(u) (a grid, independently)."""
    V = np.random.default_rng(3).dirichlet(np.ones(10), size=3)
    pr = LDPMIBranchPricer(V, eps)
    lam, mu = pr.start_duals()
    assert pr.rho(_all_patterns(10), lam, mu).max() <= 1e-12
    u = np.linspace(0.0, 1.0, 200_001)
    t = 1.0 + math.expm1(eps) * u
    assert math.isclose(mu.sum(), float(((eps * math.exp(eps) * u - t * np.log(t)) / t).max()), rel_tol=1e-9)


@pytest.mark.parametrize("smoothing", [0.0, 0.5])
def test_search_pricing_and_smoothing_certify_the_enumerated_optimum(smoothing):
    """Branch-and-bound pricing (with the search, the start duals and smoothing) = subset-sum enumeration."""
    V = np.random.default_rng(11).dirichlet(np.ones(10), size=4)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="robust-rays")
    r = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, smoothing=smoothing, mi_pricer="branch")
    assert ref.status.value == r.status.value == "optimal" and "branch and bound" in r.extras["pricing"]
    assert math.isclose(r.value, ref.value, rel_tol=1e-7) and r.certificate.gap <= 1e-7
    assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)


def test_smoothing_out_of_range_is_a_param_error():
    V = np.random.default_rng(1).dirichlet(np.ones(5), size=2)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(ParamError, match="smoothing"):
        mechopt.solve(prob, solver="robust-rays", enumerate_max=2, smoothing=1.0)


@pytest.mark.slow
def test_d64_three_priors_certified_at_the_prior_free_value():
    """d = 64, 3 Dirichlet(1) priors: certified, and no better than any single prior's certified bound (the
    exact solver, independently: the robust value is at most each vertex's optimum)."""
    V = np.random.default_rng(64).dirichlet(np.ones(64), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="robust-rays", time_limit=600)
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-7
    single = [mechopt.design(prior=P, notion="ldp", utility="mi", eps=1.0) for P in V]
    assert all(s.status.value == "optimal" for s in single)
    assert r.value <= min(s.certificate.bound for s in single)
    assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)


@pytest.mark.parametrize("d", [40, 64])
def test_two_priors_above_enumeration_are_certified_under_every_single_prior_bound(d):
    """d = 40 / 64, 2 priors (seconds): certified; the value is at most each vertex's certified single-prior
    bound (the exact solver, independently) and is the worst MI of its channel over the vertices."""
    V = np.random.default_rng(d).dirichlet(np.ones(d), size=2)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="robust-rays", time_limit=300, mi_pricer="branch")
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-7 and "branch and bound" in r.extras["pricing"]
    single = [mechopt.design(prior=P, notion="ldp", utility="mi", eps=1.0) for P in V]
    assert all(s.status.value == "optimal" for s in single)
    assert r.value <= min(s.certificate.bound for s in single)
    assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)
