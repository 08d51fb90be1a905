"""ε-PML pricing at large d (solvers/exact/pricing/pml.py): its bound against brute-force vertex enumeration,
the chord dual, and certified optima against an independent LP over every vertex (scipy HiGHS)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.special import xlogy

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals


def _phi(utility: str, Pu: np.ndarray):
    if utility == "histogram":
        return lambda p, idx: p * p
    return lambda p, idx: xlogy(p, p) - p * np.log(Pu)[idx]


def _vertices(h: np.ndarray) -> np.ndarray:
    """Every vertex of {p ∈ Δ : 0 ≤ p ≤ h} by brute force (a set S at h, one filler j, the rest 0), as rows."""
    d, out = h.size, []
    for S in itertools.product((0, 1), repeat=d):
        p = np.where(np.array(S, bool), h, 0.0)
        r = 1.0 - p.sum()
        if abs(r) <= 1e-15:
            out.append(p)
        for j in np.flatnonzero(np.array(S) == 0):
            if 0.0 < r < h[j]:
                q = p.copy()
                q[j] = r
                out.append(q)
    return np.unique(np.array(out), axis=0)


def _rc(V: np.ndarray, phi, nu: np.ndarray) -> np.ndarray:
    return phi(V, np.broadcast_to(np.arange(V.shape[1]), V.shape)).sum(axis=1) - V @ nu


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(3, 9),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.2, 2.5),
    utility=st.sampled_from(["histogram", "mi"]),
    core=st.integers(2, 9),
    wide=st.integers(2, 9),
)
def test_bound_holds_over_every_vertex_and_columns_are_vertices(d, seed, eps, utility, core, wide):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = _phi(utility, P)
    V = _vertices(h)
    nu = chord_duals(h, phi) + rng.normal(scale=0.3, size=d) * rng.random()
    pr = PMLSeparablePricer(P, h, phi, core=core, wide=wide)
    out = pr.price(nu)
    best = float(_rc(V, phi, nu).max())
    assert out.bound >= best - 1e-12  # a proven bound on every vertex
    if out.exhaustive and out.rays.shape[1] == 0:  # then no vertex has a reduced cost worth a column
        assert best <= max(0.25e-10 * abs(float(nu @ P)), 1e-11) + 1e-12  # the B&B target, the rc tolerance
    for p in out.rays.T:  # each column is a vertex of the box with a positive reduced cost
        assert abs(p.sum() - 1.0) <= 1e-12 and np.all(p >= 0) and np.all(p <= h + 1e-15)
        assert np.sum((p > 1e-15) & (p < h - 1e-15)) <= 1
        assert float(_rc(p[None, :], phi, nu)[0]) > 0
    if best > 1e-9:
        assert out.rays.shape[1] >= 1  # the search finds an improving vertex when one exists
    if core >= d and best > 1e-9:  # the face is the whole box: the search is exact and so is the bound
        pr.early = False
        out = pr.price(nu)
        assert out.exhaustive and out.bound == pytest.approx(best, abs=1e-11)
        assert float(_rc(out.rays[:, :1].T, phi, nu)[0]) == pytest.approx(best, abs=1e-11)


def test_small_faces_fall_back_to_the_exact_branch_and_bound():
    """Faces of 2 and 3 free coordinates often hold no improving vertex: the B&B over all of B then decides."""
    rng, fell = np.random.default_rng(0), 0
    for _ in range(60):
        d = int(rng.integers(5, 10))
        P = rng.dirichlet(np.ones(d))
        h = np.minimum(np.exp(rng.uniform(0.2, 2.5)) * P, 1.0)
        phi = _phi("histogram", P)
        nu = chord_duals(h, phi) + rng.normal(scale=0.3, size=d) * rng.random()
        pr = PMLSeparablePricer(P, h, phi, core=2, wide=3)
        out = pr.price(nu)
        best = float(_rc(_vertices(h), phi, nu).max())
        fell += pr.calls_fallback
        assert out.bound >= best - 1e-12
        assert out.exhaustive or out.rays.shape[1] > 0  # the B&B finishes (or stops at columns) at this size
        if out.rays.shape[1] == 0:  # a finished search: its bound is the maximum (to the B&B's target)
            assert out.bound <= max(best, 0.25e-10 * abs(float(nu @ P))) + 1e-12
        if best > 1e-9:
            assert float(_rc(out.rays[:, :1].T, phi, nu)[0]) > 0
    assert fell >= 5  # the fallback really ran


@settings(max_examples=20, deadline=None)
@given(d=st.integers(2, 9), seed=st.integers(0, 10**6), eps=st.floats(0.1, 3.0))
def test_chord_duals_leave_no_positive_reduced_cost(d, seed, eps):
    P = np.random.default_rng(seed).dirichlet(np.ones(d))
    h = np.minimum(np.exp(eps) * P, 1.0)
    for utility in ("histogram", "mi"):
        phi = _phi(utility, P)
        nu0 = chord_duals(h, phi)
        assert float(_rc(_vertices(h), phi, nu0).max()) <= 1e-14
        out = PMLSeparablePricer(P, h, phi).price(nu0)
        assert out.bound <= 1e-14 and out.rays.shape[1] == 0 and out.exhaustive


def _vertex_lp(P: np.ndarray, h: np.ndarray, gain) -> float:
    """max Σθ gain(v) s.t. Σθ v = P, θ ≥ 0 over every vertex (HiGHS): the exact optimal gain."""
    V = _vertices(h)
    res = linprog(-gain(V.T), A_eq=V.T, b_eq=P, bounds=(0, None), method="highs")
    assert res.status == 0
    return -float(res.fun)


def _sep_gain(phi, d: int):
    return lambda R: _rc(R.T, phi, np.zeros(d))


@pytest.mark.parametrize(
    "d,eps,utility", [(8, 1.0, "mi"), (10, 0.5, "histogram"), (11, 2.0, "mi"), (12, 1.0, "histogram")]
)
def test_certified_optimum_matches_the_full_vertex_lp(d, eps, utility):
    P = np.random.default_rng(100 + d).dirichlet(np.ones(d))
    prob = ChannelDesign.from_params(prior=P, notion="pml", utility=utility, eps=eps)
    r = mechopt.solve(prob, solver="exact")
    cp = prob.column_program()
    h = cp.notion.box(cp.prior)[1]
    ref = cp.value_of(_vertex_lp(cp.prior, h, cp.gain))  # the program's gain: μ minus its linear shift
    assert r.status.value == "optimal" and r.violation <= 1e-12
    assert r.value == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert r.certificate.gap <= 1e-9


@pytest.mark.parametrize("d,eps,utility", [(9, 1.0, "mi"), (10, 2.0, "histogram")])
def test_column_generation_with_the_pml_pricer_brackets_the_full_lp(d, eps, utility):
    """With a small core the search is a heuristic but the bound is proven: value ≤ optimum ≤ bound."""
    P = np.random.default_rng(7 * d).dirichlet(np.ones(d))
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = _phi(utility, P)
    opt = _vertex_lp(P, h, _sep_gain(phi, d))
    pr = PMLSeparablePricer(P, h, phi, core=4)
    out = column_generation(P, _sep_gain(phi, d), pr, P[:, None].copy(), start=chord_duals(h, phi))
    assert out.master.value <= opt + 1e-12 and out.bound >= opt - 1e-12


def test_d40_histogram_certified_above_the_meet_in_the_middle_limit():
    """d = 40 > MITM_MAX_D: the PML pricer (Lagrangian bound, core-face search) and the chord start (~8 s)."""
    P = np.random.default_rng(40).dirichlet(np.ones(40))
    r = mechopt.design(prior=P, notion="pml", utility="histogram", eps=1.0, solver="exact")
    assert r.extras["pricing"] == "PML Lagrangian bound, core-face search"
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
    assert r.Q.shape[1] <= 40


@pytest.mark.slow
@pytest.mark.parametrize("d,utility,eps", [(40, "mi", 1.0), (64, "mi", 0.5), (64, "histogram", 2.0)])
def test_dirichlet_prior_certified_at_large_d(d, utility, eps):
    """d = 40 MI ~50 s, d = 64 ~20-70 s on the shared machine (the benchmark has the numbers)."""
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    with mechopt.settings.override(colgen_gap=1e-9):
        r = mechopt.design(prior=P, notion="pml", utility=utility, eps=eps, solver="exact")
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
