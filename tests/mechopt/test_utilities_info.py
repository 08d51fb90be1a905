import math

import numpy as np
import pytest
from hypothesis import given, settings
from scipy.stats import entropy as sp_entropy

import mechopt
from mechopt.errors import ProblemError
from mechopt.model.info import (
    entropy,
    fisher_gaussian,
    fisher_grid,
    gaussian_entropy,
    gaussian_mi,
    kl_divergence,
    mutual_information,
)
from mechopt.testing import prior_and_channel
from mechopt.utilities import MAE, FrequencyVariance, HistogramMSE, MutualInfo, SumMSE, make_utility


def brute_mmse(P, Q, a):
    """E[(a_X - E[a_X | Y])^2] by enumerating (x, y)."""
    J = P[:, None] * Q
    lam = J.sum(0)
    est = np.divide(a @ J, lam, out=np.zeros_like(lam), where=lam > 0)
    return float(np.sum(J * (a[:, None] - est[None, :]) ** 2))


@settings(max_examples=50, deadline=None)
@given(prior_and_channel(max_size=5, max_outputs=5, positive=False))
def test_gains_reproduce_values(pc):
    P, Q = pc
    a = np.linspace(-1, 2, P.size)
    C = P[:, None] * Q
    assert SumMSE(a).value(Q, P) == pytest.approx(brute_mmse(P, Q, a), abs=1e-12)
    # histogram MSE = Σ_k MMSE of the indicator 1{X=k}
    hist = sum(brute_mmse(P, Q, np.eye(P.size)[k]) for k in range(P.size))
    assert HistogramMSE().value(Q, P) == pytest.approx(hist, abs=1e-12)
    for u in (SumMSE(a), HistogramMSE(), MutualInfo(P)):
        assert u.offset(P) + u.sign * u.gain(C).sum() == pytest.approx(u.value(Q, P), abs=1e-12)
        # positive homogeneity of μ
        assert np.allclose(u.gain(3.0 * C), 3.0 * u.gain(C))


def test_mutual_information_matches_entropies():
    P = np.array([0.2, 0.3, 0.5])
    Q = np.array([[0.6, 0.4], [0.3, 0.7], [0.1, 0.9]])
    J = P[:, None] * Q
    expected = sp_entropy(P) + sp_entropy(J.sum(0)) - sp_entropy(J.ravel())
    assert mutual_information(P, Q) == pytest.approx(expected, abs=1e-14)
    assert MutualInfo().value(Q, P) == pytest.approx(expected, abs=1e-14)
    assert mutual_information(P, Q, base=2) == pytest.approx(expected / math.log(2))


def test_entropy_kl():
    assert entropy([0.25] * 4, base=2) == pytest.approx(2.0)
    assert kl_divergence([0.5, 0.5], [0.25, 0.75]) == pytest.approx(0.5 * math.log(2) + 0.5 * math.log(2 / 3))
    assert kl_divergence([0.5, 0.5], [1.0, 0.0]) == math.inf


def test_mae_and_frequency_variance():
    P = np.array([0.5, 0.5])
    Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    assert MAE([0.0, 1.0]).value(Q, P) == pytest.approx(0.25)
    # binary RR with keep prob 3/4: the unbiased estimator is R = Q^{-T} (Σ_y Q[x, y] R[:, y] = e_x)
    fv = FrequencyVariance().value(Q, P)
    R = np.linalg.inv(Q.T)
    assert np.allclose(sum(P[x] * Q[x, y] * R[:, y] for x in range(2) for y in range(2)), P)  # unbiased
    direct = sum(P[x] * Q[x, y] * np.sum((R[:, y] - P) ** 2) for x in range(2) for y in range(2))
    assert fv == pytest.approx(direct)
    # n users: E||mean of R[:, Y_i] - P||^2 = fv / n, checked by simulation
    rng = np.random.default_rng(0)
    n, runs = 400, 4000
    X = rng.choice(2, size=(runs, n), p=P)
    Y = (rng.random((runs, n)) < Q[X, 1]).astype(int)
    est = R[:, Y].mean(axis=2)  # (2, runs)
    err = np.sum((est - P[:, None]) ** 2, axis=0)
    assert abs(err.mean() - fv / n) < 4 * err.std() / np.sqrt(runs)
    with pytest.raises(ProblemError, match="full row rank"):
        FrequencyVariance().value(np.full((2, 1), 1.0), P)


def test_gaussian_measures():
    rho = 0.6
    C = np.array([[1.0, rho], [rho, 1.0]])
    assert gaussian_mi(C, [0], [1]) == pytest.approx(-0.5 * math.log(1 - rho**2))
    assert gaussian_entropy(np.eye(3)) == pytest.approx(1.5 * math.log(2 * math.pi * math.e))
    assert np.allclose(fisher_gaussian(np.diag([2.0, 4.0])), np.diag([0.5, 0.25]))
    with pytest.raises(ProblemError, match="not positive definite|singular"):
        gaussian_mi(np.ones((2, 2)), [0], [1])
    with pytest.raises(ProblemError, match="disjoint"):
        gaussian_mi(C, [0], [0])
    with pytest.raises(ProblemError, match="symmetric"):
        fisher_gaussian(np.array([[1.0, 0.5], [0.0, 1.0]]))


@pytest.mark.parametrize("n", [200, 400, 800])
def test_fisher_grid_converges_to_cos2_value(n):
    L = 2.0
    h = L / (n + 1)
    w = -1 + h * np.arange(1, n + 1)
    p = np.cos(np.pi * w / L) ** 2
    J = fisher_grid(p / (p.sum() * h), h)
    # forward differences of q = sqrt(p) underestimate 4π²/L² by O(h²)
    err = abs(J - math.pi**2)
    assert err < 2.0 * h**2 * math.pi**4 / 12 + 1e-9


def test_make_utility():
    assert isinstance(make_utility("mse", values=[0, 1]), SumMSE)
    assert np.allclose(make_utility("mse", prior=np.full(3, 1 / 3)).a, [0, 1, 2])
    with pytest.raises(ProblemError, match="unknown utility"):
        make_utility("nope")
    with pytest.raises(ProblemError, match="values"):
        SumMSE([np.nan])


@pytest.mark.parametrize("scale", [1e-300, 1e-160, 5e-324])
def test_values_whose_squares_underflow_are_refused_not_certified_as_a_zero_mse(scale) -> None:
    """Hostile-five: values 0, 1e-300, 2e-300 (lip, ε = 1, prior .2,.3,.5) were "optimal (gap 0), value 0" with exact
    and with robust-rays (the rescaled answer is 0.4337e-600, not 0; robust-rays returned a constant channel);
    at 1e-160 "optimal_inaccurate ..., gap 0". Values below 1e-154 in span are refused like those above 1e154."""
    with pytest.raises(ProblemError, match="less than 1e-154: their squares underflow"):
        SumMSE(np.array([0.0, 1.0, 2.0]) * scale)
    with pytest.raises(ProblemError, match="underflow"):
        mechopt.design(prior=[0.2, 0.3, 0.5], notion="lip", utility="mse", values=[0, scale, 2 * scale], eps=1.0)


def test_values_just_above_the_underflow_limit_give_the_rescaled_certified_answer() -> None:
    base = mechopt.design(prior=[0.2, 0.3, 0.5], notion="lip", utility="mse", values=[0, 1, 2], eps=1.0)
    small = mechopt.design(prior=[0.2, 0.3, 0.5], notion="lip", utility="mse", values=[0, 1e-150, 2e-150], eps=1.0)
    assert base.status.value == small.status.value == "optimal"
    assert small.value == pytest.approx(base.value * 1e-300, rel=1e-9)
    assert SumMSE([3.0, 3.0, 3.0]).centred.tolist() == [0.0, 0.0, 0.0]  # equal values (MSE 0) stay valid
