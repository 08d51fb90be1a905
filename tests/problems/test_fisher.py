"""Fisher-paper problems: parsing, grid programs against closed forms, audits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import registry
from mechopt.errors import ProblemError
from mechopt.problems.fisher.dp import analytic_gaussian_delta, gaussian_sigma, sensitivity
from mechopt.problems.fisher.gaussian import FisherGaussian, FisherLTI
from mechopt.problems.fisher.grid import GridDensity, grid_error
from mechopt.problems.fisher.problems import FisherBox, FisherInterval, FisherOutput, problem_from_params, query_factor
from mechopt.problems.fisher.weighted import FisherWeighted
from mechopt.results.result import Status

PI2 = math.pi**2


def test_catalog_ids_registered() -> None:
    ids = set(registry.problem_ids())
    assert {"fisher-interval", "fisher-box", "fisher-weighted", "fisher-output", "fisher-gaussian", "fisher-lti"} <= ids


@pytest.mark.parametrize(
    "params, field",
    [
        ({"a": "1", "b": "-1"}, "b > a"),
        ({"a": "x"}, "a must be a number"),
        ({"n": "2"}, "n must be >= 3"),
        ({"bogus": "1"}, "unknown parameter"),
        ({"query": "median"}, "unknown query"),
    ],
)
def test_interval_bad_params(params: dict, field: str) -> None:
    with pytest.raises(ProblemError, match=field):
        problem_from_params(**params)


def test_conic_fast_grid_within_derived_tolerance() -> None:
    """n = 200: the grid error is J(πh/L)²/12 ≈ 2.0e-4; the SOCP lands on the discrete optimum."""
    n = 200
    r = mechopt.solve(problem_from_params(a="-1", b="1", n=str(n)), solver="conic")
    assert r.status is Status.OPTIMAL
    bound = grid_error(2.0, n, PI2)
    assert abs(r.value - PI2) <= 1.5 * bound + 1e-6
    assert r.value < PI2  # the difference Laplacian underestimates
    assert r.extras["grid_points"] == n
    # the Richardson estimate bounds the grid error; the solver allowance (grid_noise) is on top
    assert PI2 - r.value <= r.extras["error_estimate"] <= 1.05 * (PI2 - r.value) + 1.2e-5 * PI2


def test_conic_few_thousand_points_within_1e4() -> None:
    r = mechopt.solve(problem_from_params(a="-1", b="1", n="2000"), solver="conic")
    assert r.status is Status.OPTIMAL and abs(r.value - PI2) < 1e-4
    assert r.extras["grid_points"] == 2000 and PI2 - r.value <= r.extras["error_estimate"] < 2e-5 * PI2
    g = r.mechanism
    assert g.density.min() >= 0 and abs(g.mass() - 1) < 1e-8
    exact = GridDensity.cos2(-1.0, 1.0, 2000).density
    assert np.abs(g.density - exact).max() < 1e-3 * exact.max()


def test_audit_catches_a_wrong_value_and_a_bad_density() -> None:
    prob = problem_from_params(a="-1", b="1", n="200")
    r = mechopt.solve(prob, solver="conic")
    bad = mechopt.audit_result(prob, r.replace(value=r.value * 1.01))
    assert bad.status is Status.OPTIMAL_INACCURATE and "reported value" in bad.message
    g = r.mechanism
    worse = GridDensity(g.lower, g.upper, g.density * 1.1)
    aud = prob.audit(r.replace(mechanism=worse))
    assert any("integrates" in s for s in aud.reasons)
    outside = GridDensity(-2.0, 1.0, g.density)
    assert prob.audit(r.replace(mechanism=outside)).violation == pytest.approx(1.0)


def test_query_does_not_change_the_noise() -> None:
    """Corollaries 3 and 5: the density is the same; the value scales by ∫ρ‖∇f‖²."""
    a = mechopt.solve(FisherInterval(-1.0, 1.0, n=300), solver="conic")
    b = mechopt.solve(FisherInterval(-1.0, 1.0, n=300, query="average:0.3,0.7"), solver="conic")
    assert np.abs(a.mechanism.density - b.mechanism.density).max() < 1e-4 * a.mechanism.density.max()
    assert b.value == pytest.approx(0.58 * a.value, rel=1e-6)
    assert query_factor("variance:3:0:1") == pytest.approx(4 * 2 / (12 * 9))


def test_box_full_grid_program_matches_product_closed_form() -> None:
    prob = FisherBox.from_params(lower="-1,0", upper="1,3", n="24,24")
    cf = mechopt.solve(prob, solver="closed-form").value
    co = mechopt.solve(prob, solver="conic")
    tol = sum(grid_error(L, 24, 4 * PI2 / L**2) for L in (2.0, 3.0))
    assert co.status is Status.OPTIMAL and 0 < cf - co.value <= 1.5 * tol
    assert cf == pytest.approx(PI2 + 4 * PI2 / 9)


def test_output_family_reduces_to_an_interval() -> None:
    p = FisherOutput.from_params(y_lo="0", y_hi="10", f_lo="2", f_hi="6", n="300")
    assert (p.a, p.b) == (-2.0, 4.0)
    assert mechopt.solve(p, solver="spectral").value == pytest.approx(4 * PI2 / 36, rel=1e-9)
    with pytest.raises(ProblemError, match="too narrow"):
        FisherOutput.from_params(y_lo="0", y_hi="3", f_lo="0", f_hi="5")


@pytest.mark.parametrize("kw, expected", [({"m": "2", "sigma2": "4"}, 1.0), ({"m": "3", "xi": "0.25"}, 3.0)])
def test_gaussian_grid_programs(kw: dict, expected: float) -> None:
    prob = FisherGaussian.from_params(n="400", **kw)
    assert mechopt.solve(prob, solver="closed-form").value == pytest.approx(expected)
    co = mechopt.solve(prob, solver="conic")
    assert co.status is Status.OPTIMAL and co.violation <= 1e-7
    assert co.value == pytest.approx(expected, rel=5e-4)


def test_gaussian_audit_flags_too_much_variance() -> None:
    prob = FisherGaussian(m=1, sigma2=1.0, n=200)
    r = mechopt.solve(prob, solver="closed-form")
    from mechopt.problems.fisher.grid import GaussianNoise

    aud = prob.audit(r.replace(mechanism=GaussianNoise(np.eye(1) * 1.5)))
    assert aud.violation == pytest.approx(0.5) and aud.value == pytest.approx(1 / 1.5)
    with pytest.raises(ProblemError, match="exactly one"):
        FisherGaussian(m=1)


def test_lti_sdp_reaches_theorem4() -> None:
    prob = FisherLTI.from_params(dt="1", T="5", xi="1")
    cf, sdp = mechopt.solve(prob, solver="closed-form"), mechopt.solve(prob, solver="conic")
    assert sdp.status is Status.OPTIMAL and cf.status is Status.OPTIMAL
    assert sdp.value == pytest.approx(cf.value, rel=1e-6)
    assert np.allclose(sdp.mechanism.cov, cf.mechanism.cov, atol=1e-3 * np.abs(cf.mechanism.cov).max())
    with pytest.raises(ProblemError, match="full column rank"):
        FisherLTI.from_params(A="1,1;0,1", C="1,0", T="0", xi="1")


def test_weighted_x_independent_policy_cost_is_its_fisher_information() -> None:
    prob = FisherWeighted.from_params(a="-1", b="1", c="0", d="3", weight="gauss:1:0.5", nw="11")
    col = GridDensity.cos2(-1.0, 1.0, 11)
    G = np.tile(col.density[:, None], (1, prob.grid_shape[1]))
    assert prob.cost(G) == pytest.approx(col.fisher(), rel=1e-12)
    r = mechopt.solve(prob, solver="conic")
    assert r.status is Status.OPTIMAL and r.value <= prob.cost(G)
    assert np.allclose(prob.h * r.mechanism.sum(axis=0), 1.0, atol=1e-7)
    assert prob.closed_form() is None


def test_dp_helpers() -> None:
    assert sensitivity(np.array([0.1, 0.4]), 0, 5) == pytest.approx(2.0)
    s = gaussian_sigma(0.5, 1e-6, 1.0)
    assert analytic_gaussian_delta(0.5, s, 1.0) <= 1e-6 < analytic_gaussian_delta(0.5, 0.5 * s, 1.0)


@settings(max_examples=8, deadline=None)
@given(a=st.floats(-5, 5), L=st.floats(0.1, 10))
def test_spectral_scales_as_inverse_square_of_support(a: float, L: float) -> None:
    r = mechopt.solve(FisherInterval(a, a + L), solver="spectral", n=2047)
    assert r.status is Status.OPTIMAL
    assert r.value * L**2 == pytest.approx(4 * PI2, rel=1e-8)


@settings(max_examples=5, deadline=None)
@given(a=st.floats(-3, 3), L=st.floats(0.2, 5), n=st.integers(40, 160))
def test_conic_lands_on_the_discrete_eigenvalue(a: float, L: float, n: int) -> None:
    """The SOCP is the difference eigenproblem in p = q²: same optimum as the raw spectral value."""
    from mechopt.solvers.spectral import ground_state

    r = mechopt.solve(FisherInterval(a, a + L, n=n), solver="conic")
    lam = ground_state(a, a + L, n)[0]
    assert r.status is Status.OPTIMAL
    assert r.value == pytest.approx(lam, rel=1e-6)
    assert lam < 4 * PI2 / L**2
