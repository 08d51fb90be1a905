import math

import cvxpy as cp
import numpy as np
import pytest
from hypothesis import given, settings

import mechopt
from mechopt.model.forms import ConicForm
from mechopt.model.problem import Problem
from mechopt.problems.design import ChannelDesign
from mechopt.registry import get_problem
from mechopt.results.result import Status
from mechopt.solvers.conic import ConicSolver
from mechopt.testing import eps_values, priors


@pytest.mark.kernel_sensitive
@settings(max_examples=12, deadline=None)
@given(priors(min_size=2, max_size=4), eps_values(0.2, 2.0))
def test_sqp_mechanisms_are_row_stochastic_and_private(P, eps):
    for notion, utility in (("ldp", "mi"), ("lip", "mse"), ("lip", "histogram")):
        prob = ChannelDesign(
            prior=P,
            notion=mechopt.notions.make_notion(notion, eps),
            utility=mechopt.utilities.make_utility(utility, prior=P),
        )
        r = mechopt.solve(prob, solver="sqp", n_starts=3)
        assert r.status is Status.LOCALLY_OPTIMAL and r.proof is None, r.message
        assert np.allclose(r.Q.sum(axis=1), 1) and (r.Q >= 0).all()
        assert r.violation <= 1e-7 and r.certificate is None


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("P1, eps", [(0.3, 0.8), (0.5, 0.3), (0.1, 2.0)])
def test_sqp_binary_lip_beats_a_fine_grid(P1, eps):
    # binary survey under ε-LIP: q0 = P(Y=1|X=0), q1 = P(Y=0|X=1); brute force over a 801² grid
    P = np.array([1 - P1, P1])
    prob = ChannelDesign.from_params(prior=P, notion="lip", utility="mse", values=[0, 1], eps=eps)
    r = mechopt.solve(prob, solver="sqp", n_starts=10)
    g = np.linspace(0, 1, 801)
    q0, q1 = np.meshgrid(g, g, indexing="ij")
    lam0 = (1 - P1) * (1 - q0) + P1 * q1
    with np.errstate(divide="ignore", invalid="ignore"):
        ratios = np.stack([(1 - q0) / lam0, q1 / lam0, q0 / (1 - lam0), (1 - q1) / (1 - lam0)])
        ok = np.all((ratios >= np.exp(-eps)) & (ratios <= np.exp(eps)), axis=0)
        mse = P1 * (1 - P1) - (P1 * (lam0 - q1)) ** 2 / (lam0 * (1 - lam0))  # LIP paper eq. (18)
    best_grid = np.min(np.where(ok, mse, np.inf))
    assert r.value <= best_grid + 1e-12
    assert r.value >= best_grid - 5e-3  # the grid is within 1/800 of the optimum
    assert r.violation <= 1e-7


def test_sqp_time_limit_and_options():
    prob = ChannelDesign.from_params(prior="uniform:4", notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="sqp", n_starts=10_000, time_limit=0.2)
    assert r.status in (Status.TIME_LIMIT, Status.LOCALLY_OPTIMAL) and r.extras.get("starts", 0) < 10_000
    with pytest.raises(mechopt.ParamError, match="method"):
        mechopt.solve(prob, solver="sqp", method="BFGS")
    r2 = mechopt.solve(prob, solver="sqp", n_starts=3, method="trust-constr")
    assert r2.violation <= 1e-7


class Box(Problem):
    sense = "min"
    objective = "sq"

    def __init__(self, feasible: bool = True):
        self.feasible = feasible

    def conic_form(self):
        x = cp.Variable(2)
        cons = [cp.sum(x) == 1] if self.feasible else [x >= 1, cp.sum(x) <= 1]
        prob = cp.Problem(cp.Minimize(cp.sum_squares(x - np.array([1.0, 0.0]))), cons)
        return ConicForm(problem=prob, recover=lambda: x.value, sense="min", objective="sq")


def test_conic_statuses():
    r = mechopt.solve(Box(), solver="conic")
    assert r.status is Status.OPTIMAL and r.proof == "convex" and r.value == pytest.approx(0.0, abs=1e-8)
    bad = mechopt.solve(Box(False), solver="conic")
    assert bad.status is Status.INFEASIBLE and bad.value is None
    with pytest.raises(mechopt.ParamError, match="not installed"):
        mechopt.solve(Box(), solver="conic", backend="NOPE")


def _form(sense: str, bound_of):
    class Tiny(Problem):
        def conic_form(self):
            x = cp.Variable(3)
            obj = cp.Maximize(cp.sum(cp.log(x))) if sense == "max" else cp.Minimize(cp.sum_squares(x - 1))
            return ConicForm(
                problem=cp.Problem(obj, [cp.sum(x) == 1]),
                recover=lambda: x.value,
                sense=sense,
                objective="t",
                bound_of=bound_of,
            )

    return Tiny()


@pytest.mark.parametrize("sense,opt", [("max", 3 * math.log(1 / 3)), ("min", 3 * (2 / 3) ** 2)])
def test_conic_certificate_is_clarabels_dual_bound(sense: str, opt: float) -> None:
    r = ConicSolver().solve(_form(sense, float))
    cert = r.certificate
    assert cert is not None and cert.gap < 1e-7
    assert (cert.bound >= opt - 1e-7) if sense == "max" else (cert.bound <= opt + 1e-7)  # Clarabel's tolerances
    assert (cert.bound >= r.value) if sense == "max" else (cert.bound <= r.value)
    assert r.extras["program_bound"] == pytest.approx(cert.bound, abs=0)


def test_conic_without_bound_map_has_no_certificate() -> None:
    r = ConicSolver().solve(_form("min", None))
    assert r.status.value == "optimal" and r.proof == "convex" and r.certificate is None
    assert "no certificate" in r.message and r.extras["program_bound"] <= 4 / 3


def test_fisher_conic_reports_program_bound_not_a_certificate() -> None:
    p = get_problem("fisher-interval").from_params(n=200)
    r = mechopt.solve(p, solver="conic")
    assert r.certificate is None and "no certificate" in r.message
    assert (
        r.status.value == "optimal" and r.proof == "convex" and "optimum of the 200-point discretisation" in r.message
    )
    J_bound = r.extras["program_bound"] / 2.0**2  # the program lives on the unit interval: J·(b − a)²
    assert 0 <= r.extras["program_value"] - J_bound < 1e-6 * r.extras["program_value"]
