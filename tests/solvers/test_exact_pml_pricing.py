"""ε-PML and ALIP pricing at large d (solvers/exact/pricing/pml.py): its bound against brute-force vertex
enumeration, the chord dual, and certified optima against an independent LP over every vertex (scipy HiGHS).

ALIP's box has the lower corner l = e^{−ε_l} P (``lower`` below); PML's is 0 (``lower = None``)."""

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
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals, lagrangian_bound


def _phi(utility: str, Pu: np.ndarray):
    if utility == "histogram":
        return lambda p, idx: p * p
    return lambda p, idx: xlogy(p, p) - p * np.log(Pu)[idx]


def _box(P: np.ndarray, eps: float, lower: float | None) -> tuple[np.ndarray, np.ndarray]:
    """(l, h) of the PML (lower None) or (ε, lower)-ALIP posterior box."""
    lo = np.zeros_like(P) if lower is None else np.exp(-lower) * P
    return lo, np.minimum(np.exp(eps) * P, 1.0)


def _vertices(h: np.ndarray, lo: np.ndarray | None = None) -> np.ndarray:
    """Every vertex of {p ∈ Δ : lo ≤ p ≤ h} by brute force (a set S at h, one filler j, the rest at lo), as rows."""
    d, out = h.size, []
    lo = np.zeros_like(h) if lo is None else lo
    for S in itertools.product((0, 1), repeat=d):
        p = np.where(np.array(S, bool), h, lo)
        r = 1.0 - p.sum()
        if abs(r) <= 1e-15:
            out.append(p)
        for j in np.flatnonzero(np.array(S) == 0):
            if 0.0 < r < h[j] - lo[j]:
                q = p.copy()
                q[j] += r
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
    lower=st.one_of(st.none(), st.floats(0.05, 3.0)),
)
def test_bound_holds_over_every_vertex_and_columns_are_vertices(d, seed, eps, utility, core, wide, lower):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi(utility, P)
    V = _vertices(h, lo)
    nu = chord_duals(h, phi, lo) + rng.normal(scale=0.3, size=d) * rng.random()
    pr = PMLSeparablePricer(P, h, phi, core=core, wide=wide, lo=lo)
    out = pr.price(nu)
    best = float(_rc(V, phi, nu).max())
    assert out.bound >= best - 1e-12  # a proven bound on every vertex
    if out.exhaustive and out.rays.shape[1] == 0:  # then no vertex has a reduced cost worth a column
        assert best <= max(0.25e-10 * abs(float(nu @ P)), 1e-11) + 1e-12  # the B&B target, the rc tolerance
    for p in out.rays.T:  # each column is a vertex of the box with a positive reduced cost
        assert abs(p.sum() - 1.0) <= 1e-12 and np.all(p >= lo - 1e-15) and np.all(p <= h + 1e-15)
        assert np.sum((p > lo + 1e-15) & (p < h - 1e-15)) <= 1
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


def test_random_faces_hold_vertices_the_ordered_faces_miss():
    """Seeded random faces (3 free coordinates) return vertices of B, the same ones at the same call, and find
    improving vertices where the ordered faces (3, then 4 coordinates) have none, near the chord duals."""
    rng, rescued = np.random.default_rng(1), 0
    for _ in range(40):
        d = int(rng.integers(10, 13))
        P = rng.dirichlet(np.ones(d))
        lo, h = _box(P, float(rng.uniform(1.0, 2.5)), float(rng.uniform(0.5, 1.5)))
        phi = _phi("mi", P)
        nu = chord_duals(h, phi, lo) + rng.normal(scale=1e-2, size=d)
        pr = PMLSeparablePricer(P, h, phi, core=3, wide=4, lo=lo)
        fl, fh = phi(lo, pr.idx) - nu * lo, phi(h, pr.idx) - nu * h
        lam = lagrangian_bound(fl, fh, pr.delta, pr.R)[1]
        ordered = np.vstack([pr._search(nu, fl, fh, lam, c, None)[0] for c in (3, 4)])
        pts = pr._random_faces(nu, fl, fh, lam, None, 1e-12)
        assert np.array_equal(pts, pr._random_faces(nu, fl, fh, lam, None, 1e-12))  # seeded by the call count
        V = _vertices(h, lo)
        assert all(np.abs(V - p).max(axis=1).min() <= 1e-12 for p in pts)
        if len(pts) and _rc(pts, phi, nu).max() > 1e-12 and not (len(ordered) and _rc(ordered, phi, nu).max() > 1e-12):
            rescued += 1
    assert rescued >= 4  # 8 of these 40 at the time of writing


@settings(max_examples=20, deadline=None)
@given(
    d=st.integers(2, 9),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.1, 3.0),
    lower=st.one_of(st.none(), st.floats(0.05, 3.0)),
)
def test_chord_duals_leave_no_positive_reduced_cost(d, seed, eps, lower):
    P = np.random.default_rng(seed).dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    for utility in ("histogram", "mi"):
        phi = _phi(utility, P)
        nu0 = chord_duals(h, phi, lo)
        V = _vertices(h, lo)
        rc = _rc(V, phi, nu0)
        assert float(rc.max()) <= 1e-14
        pure = np.all(np.isclose(V, lo, rtol=0, atol=1e-15) | np.isclose(V, h, rtol=0, atol=1e-15), axis=1)
        assert np.all(np.abs(rc[pure]) <= 1e-12)  # tight at the vertices without a filler strictly inside
        out = PMLSeparablePricer(P, h, phi, lo=lo).price(nu0)
        assert out.bound <= 1e-14 and out.rays.shape[1] == 0 and out.exhaustive


@settings(max_examples=30, deadline=None)
@given(d=st.integers(2, 9), seed=st.integers(0, 10**6), eps=st.floats(0.1, 3.0), lower=st.floats(0.05, 3.0))
def test_lagrangian_bound_is_the_fractional_knapsack_bound(d, seed, eps, lower):
    """L(λ*) = max of F over the whole box (an LP after relaxing the filler's convexity): above every vertex,
    and equal to the greedy fill's value of the chord-linearised F (the Dantzig bound)."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    fl, fh = rng.normal(size=d), rng.normal(size=d)
    L, lam = lagrangian_bound(fl, fh, h - lo, 1.0 - lo.sum())
    lin = linprog(-(fh - fl) / (h - lo), A_eq=np.ones((1, d)), b_eq=[1.0 - lo.sum()], bounds=list(zip(0 * lo, h - lo)))
    assert res_ok(lin) and L == pytest.approx(fl.sum() - lin.fun, abs=1e-10)
    for lam2 in lam + np.array([-1.0, -0.1, 0.1, 1.0]):  # λ* minimises L
        assert lam2 * (1 - lo.sum()) + np.maximum(fl, fh - lam2 * (h - lo)).sum() >= L - 1e-12


def res_ok(res) -> bool:
    return res.status == 0


def _vertex_lp(P: np.ndarray, h: np.ndarray, gain, lo: np.ndarray | None = None) -> float:
    """max Σθ gain(v) s.t. Σθ v = P, θ ≥ 0 over every vertex (HiGHS): the exact optimal gain."""
    V = _vertices(h, lo)
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


@pytest.mark.parametrize(
    "d,eps,lower,utility",
    [(9, 1.0, None, "mi"), (10, 2.0, None, "histogram"), (9, 1.0, 0.5, "mi"), (10, 2.0, 1.0, "histogram")],
)
def test_column_generation_with_the_pml_pricer_brackets_the_full_lp(d, eps, lower, utility):
    """With a small core the search is a heuristic but the bound is proven: value ≤ optimum ≤ bound."""
    P = np.random.default_rng(7 * d).dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi(utility, P)
    opt = _vertex_lp(P, h, _sep_gain(phi, d), lo)
    pr = PMLSeparablePricer(P, h, phi, core=4, lo=lo)
    out = column_generation(P, _sep_gain(phi, d), pr, P[:, None].copy(), start=chord_duals(h, phi, lo))
    assert out.master.value <= opt + 1e-12 and out.bound >= opt - 1e-12


@pytest.mark.parametrize(
    "d,eps,lower,utility",
    [
        (8, 1.0, 0.5, "mi"),
        (9, 1.0, 1.0, "histogram"),
        (10, 2.0, 1.0, "mi"),
        (11, 1.0, 0.5, "histogram"),
        (12, 2.0, 1.0, "mi"),
    ],
)
def test_alip_pricer_certifies_the_full_vertex_lp(d, eps, lower, utility):
    """The ALIP box pricer with its face the whole box (core = d): column generation certifies the LP's optimum."""
    P = np.random.default_rng(300 + d).dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi(utility, P)
    opt = _vertex_lp(P, h, _sep_gain(phi, d), lo)
    pr = PMLSeparablePricer(P, h, phi, core=d, wide=d, lo=lo)
    out = column_generation(P, _sep_gain(phi, d), pr, P[:, None].copy(), start=chord_duals(h, phi, lo))
    assert out.status == "optimal" and out.proven
    assert out.master.value == pytest.approx(opt, rel=1e-9, abs=1e-12)
    assert out.bound >= opt - 1e-12 and out.bound - out.master.value <= 1e-9 * max(1.0, abs(opt))


@pytest.mark.parametrize(
    "d,eps,lower,utility", [(8, 1.0, 0.5, "mi"), (10, 1.0, 1.0, "histogram"), (12, 2.0, 1.0, "histogram")]
)
def test_alip_design_matches_the_full_vertex_lp(d, eps, lower, utility):
    """``mechopt.solve`` on ALIP (exact box pricing at this size) against HiGHS over every vertex."""
    P = np.random.default_rng(500 + d).dirichlet(np.ones(d))
    prob = ChannelDesign.from_params(prior=P, notion="alip", utility=utility, eps=eps, eps_lower=lower)
    r = mechopt.solve(prob, solver="exact")
    cp = prob.column_program()
    lo, h = cp.notion.box(cp.prior)
    ref = cp.value_of(_vertex_lp(cp.prior, h, cp.gain, lo))
    assert r.status.value == "optimal" and r.violation <= 1e-12
    assert r.value == pytest.approx(ref, rel=1e-9, abs=1e-12)
    assert r.certificate.gap <= 1e-9


def test_d40_histogram_certified_above_the_meet_in_the_middle_limit():
    """d = 40 > MITM_MAX_D: the PML pricer (Lagrangian bound, core-face search) and the chord start (~8 s)."""
    P = np.random.default_rng(40).dirichlet(np.ones(40))
    r = mechopt.design(prior=P, notion="pml", utility="histogram", eps=1.0, solver="exact")
    assert r.extras["pricing"] == "PML Lagrangian bound, core-face search"
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
    assert r.Q.shape[1] <= 40


def test_d40_alip_histogram_certified_above_the_meet_in_the_middle_limit():
    """d = 40 > MITM_MAX_D, (1, 1)-ALIP: the box pricer with lower corner e^{−1} P and the chord start (~10-20 s)."""
    P = np.random.default_rng(40).dirichlet(np.ones(40))
    r = mechopt.design(prior=P, notion="alip", utility="histogram", eps=1.0, eps_lower=1.0, solver="exact")
    assert r.extras["pricing"] == "ALIP Lagrangian bound, core-face search"
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
    lo, hi = np.exp(-1.0) * P, np.minimum(np.e * P, 1.0)
    post = (P[:, None] * r.Q) / (P @ r.Q)  # every output's posterior lies in the ALIP box
    assert np.all(post >= lo[:, None] * (1 - 1e-9)) and np.all(post <= hi[:, None] * (1 + 1e-9))


def _lip_and_alip(d: int, utility: str, eps: float, **opts):
    """(ε-LIP, (ε, ε)-ALIP) designs of one Dirichlet(1) prior on d symbols: the same program, two notions."""
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    return [mechopt.design(prior=P, notion=n, utility=utility, eps=eps, solver="exact", **kw, **opts)
            for n, kw in (("lip", {}), ("alip", {"eps_lower": eps}))]  # fmt: skip


@pytest.mark.parametrize("utility", ["histogram", "mi"])
def test_lip_routes_to_the_alip_box_pricer_above_the_meet_in_the_middle_limit(utility):
    """ε-LIP at d = 37 prices on the box e^{−ε} P ≤ p ≤ min(e^ε P, 1); at d = 36 it keeps meet in the middle."""
    from mechopt.solvers.exact.columns import _structured

    def lip(d):
        P = np.random.default_rng(d).dirichlet(np.ones(d))
        return ChannelDesign.from_params(prior=P, notion="lip", utility=utility, eps=0.7).column_program()

    assert _structured(lip(36), "lip", None)[2] == "LIP meet in the middle"
    cp = lip(37)
    pricer, _, name = _structured(cp, "lip", None)
    assert name == "LIP Lagrangian bound, core-face search" and isinstance(pricer, PMLSeparablePricer)
    lo, h = _box(cp.prior, 0.7, 0.7)
    assert np.allclose(pricer.lo, lo, rtol=1e-15, atol=0) and np.allclose(pricer.h, h, rtol=1e-15, atol=0)
    assert pricer.price(pricer.chord_duals()).bound <= 1e-14  # the chord start's certificate holds on this box


@pytest.mark.slow
@pytest.mark.parametrize("d,utility,eps", [(40, "histogram", 1.0), (64, "histogram", 0.5), (64, "mi", 1.0)])
def test_lip_above_the_meet_in_the_middle_limit_is_the_alip_box(d, utility, eps):
    """ε-LIP above MITM_MAX_D takes (ε, ε)-ALIP's box pricer: certified, private, and ALIP's optimum
    (d = 40 histogram ~2 × 8-17 s; d = 64 MI ~2 × 55 s at colgen gap 1e-9; main's LIP branch and bound
    stopped at gap 1.5e-3 at d = 64)."""
    with mechopt.settings.override(colgen_gap=1e-9):
        lip, alip = _lip_and_alip(d, utility, eps)
    assert lip.extras["pricing"] == "LIP Lagrangian bound, core-face search"
    assert lip.status.value == "optimal" and lip.certificate.gap <= 1e-9 and lip.violation <= 1e-12
    assert alip.status.value == "optimal" and lip.value == pytest.approx(alip.value, rel=2e-9)


@pytest.mark.slow
@pytest.mark.parametrize(
    "utility,eps,lower,gap",
    [("histogram", 1.0, 0.5, 1e-10), ("histogram", 1.0, 1.0, 1e-10), ("mi", 1.0, 1.0, 1e-9), ("mi", 2.0, 1.0, 1e-10)],
)
def test_alip_dirichlet_prior_certified_at_d64(utility, eps, lower, gap):
    """d = 64, Dirichlet(1): ALIP's box pricer, histogram ~10 s, MI ~55 s at column-generation gap 1e-9; MI (2, 1)
    1-3 min at the default gap, proven by the flip sets (before them it stopped at gap 2e-7; benchmarks/RESULTS.md)."""
    P = np.random.default_rng(64).dirichlet(np.ones(64))
    with mechopt.settings.override(colgen_gap=gap):
        r = mechopt.design(prior=P, notion="alip", utility=utility, eps=eps, eps_lower=lower, solver="exact")
    assert r.extras["pricing"] == "ALIP Lagrangian bound, core-face search"
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("d,utility,eps", [(40, "mi", 1.0), (64, "mi", 0.5), (64, "histogram", 2.0)])
def test_dirichlet_prior_certified_at_large_d(d, utility, eps):
    """d = 40 MI ~50 s, d = 64 ~20-70 s on the shared machine (the benchmark has the numbers)."""
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    with mechopt.settings.override(colgen_gap=1e-9):
        r = mechopt.design(prior=P, notion="pml", utility=utility, eps=eps, solver="exact")
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12


def test_chord_start_is_for_posterior_boxes_only():
    """PML at any d, ALIP and ε-LIP above MITM_MAX_D (its chord duals leave no positive reduced cost), not LIP below."""
    from mechopt.solvers.exact.box import chord_start

    def cp(d, notion, **kw):
        P = np.random.default_rng(d).dirichlet(np.ones(d))
        return ChannelDesign.from_params(prior=P, notion=notion, utility="histogram", eps=1.0, **kw).column_program()

    assert chord_start(cp(8, "lip"), "lip") is None
    lip40, alip40 = cp(40, "lip"), cp(40, "alip", eps_lower=1.0)  # ε-LIP above MITM_MAX_D: (ε, ε)-ALIP's chords
    assert np.array_equal(chord_start(lip40, "lip"), chord_start(alip40, "box"))
    assert chord_start(cp(8, "alip", eps_lower=0.5), "box") is None
    assert chord_start(cp(8, "pml"), "box") is not None
    big = cp(40, "alip", eps_lower=0.5)
    nu0 = chord_start(big, "box") + big.shift
    lo, h = big.notion.box(big.prior)
    pr = PMLSeparablePricer(big.prior, h, _phi("histogram", big.prior), lo=lo)
    assert pr.price(nu0).bound <= 1e-14
