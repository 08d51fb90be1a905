"""Certified ε-PML and ALIP designs: exact solver methods agree, LIP is the symmetric ALIP, lp against a full LP."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

import mechopt
from mechopt.problems.design import ChannelDesign


def _prior(seed: int, d: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(d))


@pytest.mark.parametrize("utility", ["mi", "histogram", "mse"])
@pytest.mark.parametrize("notion,kw", [("pml", {}), ("alip", {"eps_lower": 0.4})])
def test_enumeration_and_column_generation_agree_and_are_certified(notion, kw, utility):
    P = _prior(11, 9)
    prob = ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=0.9, **kw)
    a = mechopt.solve(prob, solver="exact", method="enumerate")
    b = mechopt.solve(prob, solver="exact", method="colgen")
    for r in (a, b):
        assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
        assert r.Q.shape[1] <= P.size  # |Y| <= |X| suffices
    assert a.value == pytest.approx(b.value, abs=1e-12)


def test_alip_with_equal_levels_is_lip_and_the_notions_are_ordered():
    P = _prior(5, 7)
    v = {}
    for name, notion, kw in (
        ("lip", "lip", {}),
        ("alip=", "alip", {"eps_lower": 0.8}),
        ("alip<", "alip", {"eps_lower": 0.3}),
        ("pml", "pml", {}),
    ):
        r = mechopt.solve(
            ChannelDesign.from_params(prior=P, notion=notion, utility="mi", eps=0.8, **kw), solver="exact"
        )
        assert r.status.value == "optimal"
        v[name] = r.value
    assert v["alip="] == pytest.approx(v["lip"], abs=1e-12)
    assert v["alip<"] < v["lip"] < v["pml"]  # stricter lower level, then no lower level at all


def _full_lp(P: np.ndarray, C: np.ndarray, lo: float, hi: float) -> float:
    """min Σ C ∘ Q over all d × m entries of Q (HiGHS): rows stochastic, lo λ_y ≤ Q[x, y] ≤ hi λ_y."""
    n, m = C.shape
    Lam = sp.kron(sp.csr_matrix(np.tile(P, (n, 1))), sp.identity(m))
    eye = sp.identity(n * m)
    A = sp.vstack([eye - hi * Lam] + ([lo * Lam - eye] if lo > 0 else []))
    Aeq = sp.kron(sp.identity(n), np.ones((1, m)))
    r = linprog(C.ravel(), A_ub=A, b_ub=np.zeros(A.shape[0]), A_eq=Aeq, b_eq=np.ones(n), method="highs")
    assert r.status == 0
    return float(r.fun)


@pytest.mark.parametrize("notion,kw", [("pml", {}), ("alip", {"eps_lower": 0.5})])
def test_lp_solver_mae_matches_the_full_lp(notion, kw):
    P = _prior(3, 10)
    prob = ChannelDesign.from_params(prior=P, notion=notion, utility="mae", eps=1.0, **kw)
    r = mechopt.solve(prob, solver="lp")
    assert r.status.value == "optimal" and r.violation == 0.0
    C = np.asarray(prob.utility.linear_cost(prob.prior), float)
    lo, hi = prob.notion.factors()
    assert r.value == pytest.approx(_full_lp(prob.prior, C, lo, hi), abs=1e-9)


def test_pml_mi_is_unit_free_in_the_prior_and_certified_with_zeros():
    P = _prior(8, 6)
    r = mechopt.solve(ChannelDesign.from_params(prior=P, notion="pml", utility="mi", eps=0.5), solver="exact")
    assert r.status.value == "optimal" and np.any(r.Q == 0.0)  # PML optima use zeros (vertices at 0)


@pytest.mark.parametrize("notion,kw", [("pml", {}), ("alip", {"eps_lower": 0.5})])
def test_zero_mass_symbols_are_dropped_and_restored(notion, kw):
    full = mechopt.design(prior="0.2,0,0.3,0.5", notion=notion, utility="mi", eps=1.0, **kw)
    reduced = mechopt.design(prior="0.2,0.3,0.5", notion=notion, utility="mi", eps=1.0, **kw)
    assert full.status.value == "optimal" and full.Q.shape[0] == 4 and full.violation <= 1e-12
    assert full.value == pytest.approx(reduced.value, abs=1e-12)


def test_pml_mse_is_unit_free():
    vals = np.array([0.0, 1.0, 3.0, 7.0])
    out = [
        mechopt.design(prior="0.1,0.2,0.3,0.4", notion="pml", utility="mse", eps=0.7, values=vals * s).value / s**2
        for s in (1e-12, 1.0, 1e12)
    ]
    assert out[0] == pytest.approx(out[1], rel=1e-12) and out[2] == pytest.approx(out[1], rel=1e-12)


@pytest.mark.parametrize("notion,kw", [("pml", {}), ("alip", {"eps_lower": 0.5})])
def test_other_solvers_use_the_cvxpy_constraints_and_stay_below_the_certified_optimum(notion, kw):
    P = "0.1,0.2,0.3,0.4"
    lp = mechopt.design(prior=P, notion=notion, utility="mae", eps=1.0, solver="lp", **kw)
    conic = mechopt.design(prior=P, notion=notion, utility="mae", eps=1.0, solver="conic", **kw)
    assert conic.status.value == "optimal" and conic.value == pytest.approx(lp.value, abs=1e-8)
    exact = mechopt.design(prior=P, notion=notion, utility="histogram", eps=1.0, solver="exact", **kw)
    sqp = mechopt.design(prior=P, notion=notion, utility="histogram", eps=1.0, solver="sqp", **kw)
    assert sqp.violation <= 1e-9 and sqp.value >= exact.value - 1e-9  # an MSE: the certified one is least
