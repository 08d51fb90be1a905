"""The flip-set search (solvers/exact/pricing/flips.py) against brute-force vertex enumeration, and the box pricer
that calls it certifying the full vertex LP's optimum (scipy HiGHS) with a core face too small to find columns."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing import pml
from mechopt.solvers.exact.pricing.flips import flip_ladder, flip_max
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals
from tests.solvers.test_exact_pml_pricing import _box, _phi, _rc, _sep_gain, _vertex_lp, _vertices


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(3, 11),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.3, 2.5),
    utility=st.sampled_from(["histogram", "mi"]),
    lower=st.one_of(st.none(), st.floats(0.1, 2.0)),
    scale=st.sampled_from([1e-6, 1e-4, 1e-2]),
    theta=st.sampled_from([-np.inf, 0.0, 1e-9, 0.5]),
)
def test_flip_max_is_the_maximum_over_every_vertex(d, seed, eps, utility, lower, scale, theta):
    """Near the chord duals: the bound is ≥ every vertex; above θ it is the maximum and the first point attains it."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi(utility, P)
    nu = chord_duals(h, phi, lo) + scale * rng.normal(size=d)
    V = _vertices(h, lo)
    Fv = _rc(V, phi, nu)
    best = float(Fv.max())
    out = flip_max(lo, h, lambda p, i: phi(p, i) - nu[i] * p, theta * abs(best), 2 * d)
    if out is None:  # κ ≤ 0: the keys are too far apart for the excess bound (never at scale 1e-6)
        assert scale > 1e-6
        return
    th = theta * abs(best)
    assert out.bound >= best - 1e-12
    assert out.bound <= max(best, th) + 1e-12
    for p in out.points:  # vertices of B with a positive reduced cost, best first
        assert np.abs(V - p).max(axis=1).min() <= 1e-12
        assert float(_rc(p[None, :], phi, nu)[0]) > 0
    if best > th + 1e-12 and best > 1e-11:
        assert out.points and float(_rc(out.points[0][None, :], phi, nu)[0]) == pytest.approx(best, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(3, 11),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.3, 2.5),
    lower=st.one_of(st.none(), st.floats(0.1, 2.0)),
    limit=st.sampled_from([4, 64, 10**6]),
)
def test_flip_ladder_bound_is_proven_at_every_rung(d, seed, eps, lower, limit):
    """Whatever rung the lists stop at (``limit``), the bound holds over every vertex; exact means the maximum."""
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi("mi", P)
    nu = chord_duals(h, phi, lo) + 1e-5 * rng.normal(size=d)
    best = float(_rc(_vertices(h, lo), phi, nu).max())
    out, exact = flip_ladder(lo, h, lambda p, i: phi(p, i) - nu[i] * p, 1e-12, d, limit=limit)
    assert out.bound >= best - 1e-12
    if exact:
        assert out.bound <= max(best, 1e-12) + 1e-12
    assert all(float(_rc(p[None, :], phi, nu)[0]) > 0 for p in out.points)
    if limit == 10**6:
        assert exact


def test_flip_max_runs_at_the_chord_duals_of_many_boxes():
    """Seeded: the excess bound applies (κ > 0) near the chord duals, and at ν⁰ itself the maximum is ≤ 0."""
    rng, ran = np.random.default_rng(3), 0
    for _ in range(30):
        d = int(rng.integers(6, 12))
        P = rng.dirichlet(np.ones(d))
        lo, h = _box(P, float(rng.uniform(0.5, 2.5)), [None, 1.0][int(rng.integers(2))])
        phi = _phi("mi", P)
        nu0 = chord_duals(h, phi, lo)
        at0 = flip_max(lo, h, lambda p, i: phi(p, i) - nu0[i] * p, 0.0, d)
        assert at0 is not None and at0.bound <= 1e-13 and not at0.points
        nu = nu0 + 1e-5 * rng.normal(size=d)
        out = flip_max(lo, h, lambda p, i: phi(p, i) - nu[i] * p, 0.0, d)
        ran += out is not None
        if out is not None:
            assert out.bound >= float(_rc(_vertices(h, lo), phi, nu).max()) - 1e-12
    assert ran == 30


@pytest.mark.parametrize(
    "d,eps,lower,utility,alone",
    [
        (8, 2.0, None, "mi", True),
        (10, 2.0, 1.0, "mi", False),
        (11, 1.0, 0.5, "histogram", False),
        (12, 2.0, None, "mi", False),
    ],
)
def test_pricer_with_flips_brackets_or_certifies_the_full_vertex_lp(d, eps, lower, utility, alone, monkeypatch):
    """Faces of 2 coordinates rarely hold an improving vertex and the branch and bound gets no time, so the flip sets
    find the columns or prove the bound: value ≤ the full vertex LP ≤ bound, and the optimum when certified. Alone
    they certify d = 8 only: far from the chord duals κ ≤ 0 and they do not apply (the branch and bound's rounds)."""
    monkeypatch.setattr(pml, "FALLBACK_NODES", 0)
    P = np.random.default_rng(900 + d).dirichlet(np.ones(d))
    lo, h = _box(P, eps, lower)
    phi = _phi(utility, P)
    opt = _vertex_lp(P, h, _sep_gain(phi, d), lo)
    pr = PMLSeparablePricer(P, h, phi, core=2, wide=2, lo=lo)
    out = column_generation(P, _sep_gain(phi, d), pr, P[:, None].copy(), start=chord_duals(h, phi, lo), smoothing=0.9)
    assert pr.calls_flips > 0 and out.proven
    assert out.master.value <= opt + 1e-12 and out.bound >= opt - 1e-12
    certified = out.bound - out.master.value <= 1e-9 * max(1.0, abs(opt))
    assert certified == alone
    if certified:
        assert out.master.value == pytest.approx(opt, rel=1e-9, abs=1e-12)
