"""The spectral solver: accuracy after extrapolation, the grid order, the separable and dual cases."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechopt
from mechopt.claims.fisher.theorems import grid_order
from mechopt.errors import ParamError, SolverNotFound
from mechopt.problems.design import ChannelDesign
from mechopt.problems.fisher.gaussian import FisherGaussian
from mechopt.problems.fisher.problems import FisherBox, problem_from_params
from mechopt.results.result import Status
from mechopt.solvers.spectral import _DIRECT, ground_state, richardson

PI2 = math.pi**2


def test_interval_within_1e8_of_pi_squared() -> None:
    r = mechopt.solve(problem_from_params(a="-1", b="1"), solver="spectral")
    assert r.status is Status.OPTIMAL and r.proof == "eigenproblem" and r.solver == "spectral"
    assert abs(r.value - PI2) < 1e-8
    assert r.extras["grid_points"] >= 2000 and 0 < r.extras["error_estimate"] < 1e-8
    assert abs(r.extras["raw_grid_value"] - PI2) > 1e-8  # extrapolation is what buys the accuracy


def test_measured_convergence_order_is_two() -> None:
    for solver in ("spectral", "conic"):
        assert abs(grid_order(solver) - 2) < 0.1


def test_raw_eigenvalue_is_the_exact_discrete_one_on_both_paths() -> None:
    for n in (999, _DIRECT + 2000):
        h = 2.0 / (n + 1)
        lam, p = ground_state(-1.0, 1.0, n)
        assert lam == pytest.approx(16 / h**2 * math.sin(math.pi * h / 4) ** 2, rel=1e-11)
        assert h * p.sum() == pytest.approx(1.0)


def test_harmonic_oscillator_ground_state() -> None:
    """−4q'' + ξw²q = λq: λ = 2√ξ and p = N(0, ξ^{-1/2})."""
    r = mechopt.solve(FisherGaussian(m=1, xi=9.0), solver="spectral")
    assert r.value == pytest.approx(6.0, rel=1e-9)
    assert r.mechanism.axes[0].variance() == pytest.approx(1 / 3, rel=1e-6)


def test_variance_bound_by_duality() -> None:
    r = mechopt.solve(FisherGaussian(m=2, sigma2=4.0), solver="spectral", n=2047)
    assert r.status is Status.OPTIMAL and r.violation <= 1e-7
    assert r.value == pytest.approx(1.0, rel=1e-8) and r.extras["dual_xi"] == pytest.approx(
        0.25, rel=1e-4
    )  # ξ^{-1/2} = σ²/m


def test_separable_box() -> None:
    r = mechopt.solve(FisherBox.from_params(lower="0,0,0", upper="1,2,4"), solver="spectral", n=1023)
    assert r.value == pytest.approx(4 * PI2 * (1 + 1 / 4 + 1 / 16), rel=1e-9)
    assert len(r.mechanism.axes) == 3


def test_richardson_removes_even_powers() -> None:
    vals = [1 + 2 * h**2 + 5 * h**4 + 7 * h**6 for h in (0.2, 0.1, 0.05, 0.025)]
    best, err, _ = richardson(vals)
    assert best == pytest.approx(1.0, abs=1e-13) and err < 1e-6


def test_options_and_applicability() -> None:
    prob = problem_from_params(a="0", b="1")
    with pytest.raises(ParamError):
        mechopt.solve(prob, solver="spectral", n=3)
    with pytest.raises(ParamError):
        mechopt.solve(prob, solver="spectral", grid=10)
    design = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(SolverNotFound):
        mechopt.solve(design, solver="spectral")
    assert "spectral" in mechopt.registry.solvers_for(prob)
    assert np.isfinite(mechopt.solve(prob).value)
