"""Monte Carlo agrees with the analytic MSE within its confidence interval (fixed seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.errors import ParamError, ProblemError
from mechopt.oracles.simulate import UserGroup, analytic_mse, mmse_table, simulate, simulate_oue, simulate_users
from mechopt.problems.lip import closed as cf

Z = 3.0  # a 3-sigma interval: each test fails by chance with probability ~0.3% for its fixed seed


def _group(Q, P, n, f=(0.0, 1.0), g=None):
    return UserGroup(Q=Q, prior=P, count=n, f=np.asarray(f), g=mmse_table(Q, P, f) if g is None else g)


@pytest.mark.parametrize("p1,eps,n", [(0.4, 1.0, 50_000), (0.1, 0.5, 500), (0.5, 3.0, 5)])
def test_binary_lip_group_matches_eq21(p1, eps, n):
    P = np.array([1 - p1, p1])
    grp = _group(cf.binary_lip_channel(p1, eps), P, n)
    assert analytic_mse([grp]) == pytest.approx(n * cf.binary_lip_mse(p1, eps), rel=1e-12)
    mc = simulate([grp], runs=20_000, rng=11)
    assert mc.covers(analytic_mse([grp]), z=Z)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_context_free_estimator_eq42(eps):
    g = cf.context_free_estimate(np.array([0.0, 1.0]), 1, eps)
    grp = _group(cf.binary_ldp_channel(eps), np.array([0.8, 0.2]), 1000, g=g)
    assert analytic_mse([grp]) == pytest.approx(cf.context_free_mse(1000, eps), rel=1e-12)
    assert simulate([grp], runs=20_000, rng=3).covers(cf.context_free_mse(1000, eps), z=Z)


def test_histogram_group_matches_channel_utility():
    from mechopt.problems.lip.problems import LIPHistogram

    prob = LIPHistogram(prior=np.array([0.3, 0.3, 0.4]), eps=1.0)
    Q = prob.closed_form().Q
    grp = _group(Q, prob.prior, 200, f=np.eye(3), g=mmse_table(Q, prob.prior, np.eye(3)))
    assert analytic_mse([grp]) == pytest.approx(200 * prob.evaluate(Q), rel=1e-12)
    assert simulate([grp], runs=20_000, rng=5).covers(analytic_mse([grp]), z=Z)


def test_local_users_vectorised_matches_analytic_and_groups():
    rng = np.random.default_rng(0)
    p1s = rng.uniform(0.05, 0.95, 300)
    Qs = np.stack([cf.binary_ldp_channel(1.0)] * p1s.size)
    pri = np.column_stack([1 - p1s, p1s])
    G = np.stack([mmse_table(Q, P, [0.0, 1.0]) for Q, P in zip(Qs, pri)])
    F = np.tile([0.0, 1.0], (p1s.size, 1))
    exact = sum(cf.binary_ldp_mse(p, 1.0) for p in p1s)
    mc = simulate_users(Qs, pri, F, G, runs=5000, rng=9)
    assert mc.covers(exact, z=Z)
    groups = [_group(Q, P, 1) for Q, P in zip(Qs, pri)]
    assert analytic_mse(groups) == pytest.approx(exact, rel=1e-12)


def test_oue_simulation_matches_exact_not_stated():
    prior = np.full(5, 0.2)
    mc = simulate_oue(prior, 1000, 1.0, runs=20_000, rng=4)
    assert mc.covers(cf.oue_mse_exact(prior, 1000, 1.0), z=Z)
    assert not mc.covers(cf.oue_mse(1000, 1.0), z=Z)  # the stated formula is a per-category variance


def test_biased_estimator_bias_enters_analytic():
    grp = UserGroup(Q=np.eye(2), prior=[0.5, 0.5], count=10, f=[0.0, 1.0], g=[0.5, 1.5])
    assert analytic_mse([grp]) == pytest.approx(25.0)  # every user errs by -0.5: (10 * 0.5)^2
    assert simulate([grp], runs=50, rng=1).mse == pytest.approx(25.0)
    noisy = UserGroup(Q=[[0.8, 0.2], [0.2, 0.8]], prior=[0.5, 0.5], count=10, f=[0.0, 1.0], g=[0.5, 1.5])
    assert simulate([noisy], runs=20_000, rng=2).covers(analytic_mse([noisy]), z=Z)


def test_reproducible_and_seed_sensitive():
    grp = _group(cf.binary_lip_channel(0.3, 1.0), np.array([0.7, 0.3]), 100)
    a, b, c = (simulate([grp], runs=500, rng=s) for s in (1, 1, 2))
    assert a.mse == b.mse and a.se == b.se and a.mse != c.mse
    assert np.random.default_rng(0) is not None and simulate([grp], runs=500, rng=np.random.default_rng(1)).mse == a.mse


def test_errors():
    grp = _group(np.eye(2), np.array([0.5, 0.5]), 3)
    with pytest.raises(ParamError):
        simulate([grp], runs=1, rng=0)
    with pytest.raises(ParamError):
        simulate([grp], runs=10, rng=None)
    with pytest.raises(ProblemError):
        UserGroup(Q=np.eye(2), prior=[0.5, 0.5], count=3, f=[0.0, 1.0], g=[0.0, 1.0, 2.0])
    with pytest.raises(ProblemError):
        simulate([], runs=10, rng=0)


def test_fixed_dataset_simulation():
    from mechopt.oracles.simulate import analytic_fixed, simulate_fixed

    Q = cf.mimo_ldp_channel(3, 1.0)
    P = np.array([0.2, 0.3, 0.5])
    g = mmse_table(Q, P, np.eye(3))
    exact = analytic_fixed(Q, [20, 30, 50], np.eye(3), g)
    assert simulate_fixed(Q, [20, 30, 50], np.eye(3), g, runs=20_000, rng=6).covers(exact, z=Z)
    # averaging the conditional MSE over multinomial inputs gives the unconditional one (one user)
    grp = UserGroup(Q=Q, prior=P, count=1, f=np.eye(3), g=g)
    avg = sum(P[x] * analytic_fixed(Q, np.eye(3)[x], np.eye(3), g) for x in range(3))
    assert avg == pytest.approx(analytic_mse([grp]), rel=1e-12)
