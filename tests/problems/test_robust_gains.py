"""The mse's gains relative to the identity (ErrorGains, pattern_errors): the error itself, to ulps of itself."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.problems.robust.gains import ErrorGains, VertexGains, error_duals, error_gains, pattern_errors
from mechopt.utilities import MutualInfo, SumMSE


def _exact_error(P, a, r):
    """Σ_x P_x r_x (a_x − m)², m the weighted mean, in exact rationals (r may hold Fractions)."""
    c = [Fraction(float(p)) * t for p, t in zip(P, r)]
    aq = [Fraction(float(t)) for t in a]
    m = sum(w * t for w, t in zip(c, aq)) / sum(c)
    return sum(w * (t - m) ** 2 for w, t in zip(c, aq))


@pytest.mark.parametrize("eps", [0.5, 5.0, 30.0, 60.0])
def test_pattern_errors_are_exact_to_ulps_of_themselves(eps):
    """Every pattern of 7 symbols against the rational error of the same float pattern: within 1e-13 relative at every
    ε (the error of a one-hot pattern at ε = 30 is e^{−30}·Var per unit mass, 1e-13 of E[a²]). Written as E[a²]-weights
    less the gain, the same numbers are off by up to 1e-3 relative at ε = 30 (the test fails on that form)."""
    rng = np.random.default_rng(4)
    P, a = rng.dirichlet(np.ones(7)), rng.normal(size=7) * 3.0
    got, W = pattern_errors(P, a, eps), Fraction(1.0 + np.expm1(eps))
    Z = ((np.arange(2**7 - 1)[:, None] >> np.arange(7)) & 1).astype(float)
    C = P[None, :] * (1.0 + np.expm1(eps) * Z)
    cancelled = (C * a * a).sum(axis=1) - (C @ a) ** 2 / C.sum(axis=1)
    exact = [_exact_error(P, a, [W if b else Fraction(1) for b in z]) for z in Z]
    assert max(abs(float((Fraction(g) - e) / e)) for g, e in zip(got, exact)) <= 1e-13
    if eps >= 30:
        assert max(abs(float((Fraction(g) - e) / e)) for g, e in zip(cancelled, exact)) > 1e-6


def test_error_gains_score_is_the_mse_and_keeps_its_digits():
    """Σ_y g_i(q_y) = −MSE_i (no constant): at a channel 1e-12 from the identity the MSE (~1e-12 of E[a²]) agrees
    with the exact rational one to 1e-12 relative; VertexGains' E[a²] − Σ gains keeps no digit of it."""
    V = np.array([[0.3, 0.2, 0.5], [0.6, 0.3, 0.1]])
    a = [-1.0, 0.5, 2.0]
    Q = np.eye(3) * (1 - 2e-12) + 1e-12
    g, old = ErrorGains(V, SumMSE(a)), VertexGains(V, SumMSE(a))
    mse = -g.gains(Q).sum(axis=1)
    exact = [sum(_exact_error(P, SumMSE(a).centred, Q[:, y]) for y in range(3)) for P in V]
    assert np.all(g.constants() == 0.0)
    assert all(abs(float((Fraction(m) - e) / e)) <= 1e-12 for m, e in zip(mse, exact))
    cancelled = -(old.gains(Q).sum(axis=1) + old.constants())
    assert any(abs(float((Fraction(m) - e) / e)) > 1e-3 for m, e in zip(cancelled, exact))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 6), st.integers(1, 3))
def test_error_frame_and_gain_frame_price_the_same_rho(seed, n, k):
    """ρ = λᵀf(q) − μᵀq = λᵀg(q) − μ'ᵀq with μ' = error_duals(μ): the two frames price every column alike."""
    rng = np.random.default_rng(seed)
    V, a = rng.dirichlet(np.ones(n), size=k), rng.normal(size=n)
    lam, mu, S = rng.dirichlet(np.ones(k)), rng.normal(size=n), rng.uniform(0.0, 3.0, (n, 5))
    old, new = VertexGains(V, SumMSE(a)), ErrorGains(V, SumMSE(a))
    rho_old = lam @ old.gains(S) - mu @ S
    rho_new = lam @ new.gains(S) - error_duals(old, lam, mu) @ S
    assert np.allclose(rho_old, rho_new, rtol=1e-9, atol=1e-9)
    assert np.array_equal(error_duals(new, lam, mu), mu)


def test_only_the_mse_of_a_sum_is_priced_in_errors():
    V = np.array([[0.5, 0.5]])
    assert isinstance(error_gains(V, SumMSE([0.0, 1.0])), ErrorGains)
    assert type(error_gains(V, MutualInfo())) is VertexGains
