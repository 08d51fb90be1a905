"""The histogram branch and bound (robust histogram under LIP / PML / ALIP past the rays, and ε-LDP past the
enumeration), against the enumerated rays and patterns."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.problems.robust import RobustDesign
from mechopt.problems.robust.gains import VertexGains
from mechopt.solvers.robust.cone import hist
from mechopt.solvers.robust.cone.domains import ConeSlice, PatternBox
from mechopt.solvers.robust.cone.hist import HistBoxPricer
from mechopt.utilities import HistogramMSE
from tests.solvers.test_robust_boxprice import _cone, rays_and_box  # _cone: rays normalised P̄·r = 1


def _patterns(d: int, eps: float) -> np.ndarray:
    return 1.0 + math.expm1(eps) * np.array(list(np.ndindex(*([2] * d))), float).T


def _domain(notion: str, d: int, seed: int):
    """(V, the pricer's domain, every vertex of it as columns)."""
    if notion == "ldp":
        V = np.random.default_rng(seed).dirichlet(np.ones(d), size=3)
        return V, PatternBox(V, 1.0), _patterns(d, 1.0)
    V, lo, hi, R = _cone(notion, d, seed=seed)
    return V, ConeSlice(V, lo, hi), R


def _duals(seed, R, F, norm):
    """λ random in the simplex, μ random then shifted along the normalisation so that the best ray's ρ is about
    ±0.05 of the gains (both signs occur)."""
    rng = np.random.default_rng(seed)
    lam, mu = rng.dirichlet(np.ones(F.shape[0])), rng.normal(0.0, 0.1, R.shape[0])
    shift = ((lam @ F - mu @ R).max() - (0.05 if seed % 2 else -0.05) * np.abs(F).max()) / float((norm @ R).mean())
    return lam, mu + shift * norm


def _exhaustive(pr: HistBoxPricer) -> HistBoxPricer:
    pr.target, pr.stop = -math.inf, 1.0  # searched to the maximum itself
    return pr


@settings(max_examples=12, deadline=None)
@given(notion=st.sampled_from(["lip", "pml", "alip", "ldp"]), d=st.integers(3, 5), seed=st.integers(0, 2**16))
def test_the_proven_bound_is_the_maximum_over_every_enumerated_ray(notion, d, seed):
    V, D, R = _domain(notion, d, seed)
    G = VertexGains(V, HistogramMSE())
    F = G.gains(R)
    norm = np.ones(d) / d if D.norm is None else D.norm
    lam, mu = _duals(seed, R, F, norm)
    rc = lam @ F - mu @ R
    pr = _exhaustive(HistBoxPricer(G, D, max_nodes=20_000))
    assert np.allclose(pr.rho(R, lam, mu), rc, rtol=1e-12, atol=1e-14)  # ρ in closed form = the gains' own
    out = pr.price(lam, mu)
    scale = float(np.abs(F).max())
    assert rc.max() - 1e-12 * scale <= out.bound <= rc.max() + 1e-8 * scale  # proven, and tight
    if rc.max() <= 0.0:
        assert out.rays.shape[1] == 0
        return
    assert pr.rho(out.rays, lam, mu).max() == pytest.approx(rc.max(), abs=1e-9 * scale)
    if notion != "ldp":  # every column is in the cone, normalised P̄·q = 1
        lo, hi, t = D.lo, D.hi, V @ out.rays
        assert np.all(out.rays <= hi * t.min(axis=0) * (1 + 1e-12))
        assert np.all(out.rays >= lo * t.max(axis=0) * (1 - 1e-12))
        assert np.allclose(V.mean(axis=0) @ out.rays, 1.0)
    else:
        assert np.all((out.rays >= 1.0) & (out.rays <= math.e))


@pytest.mark.parametrize("notion", ["lip", "ldp"])
def test_a_roof_below_q2_over_t_is_caught(notion, monkeypatch):
    """Mutation: both faces of the roof replaced by the tangent plane of q²/t at the box's low corner (below it,
    q²/t being convex): the 'bound' falls below the best ray for some duals, which the check above catches."""
    V, D, R = _domain(notion, 5, seed=1)
    G = VertexGains(V, HistogramMSE())
    F = G.gains(R)
    norm = np.ones(5) / 5 if D.norm is None else D.norm

    def tangent(ql, qu, tl, tu):
        face = (ql * ql / tl, 2 * ql / tl, -ql * ql / (tl * tl), ql, tl)
        return (face, face), np.maximum(qu * qu / tl, ql * ql / tu)

    monkeypatch.setattr(hist, "roof", tangent)
    monkeypatch.setattr(ConeSlice, "ratios", lambda self, node: None)  # (the chord rows alone would still hold)
    misses = []
    for s in range(4):
        lam, mu = _duals(s, R, F, norm)
        misses.append((lam @ F - mu @ R).max() - _exhaustive(HistBoxPricer(G, D, max_nodes=2000)).price(lam, mu).bound)
    assert max(misses) > 1e-6


@pytest.mark.parametrize(("notion", "d"), [("lip", 5), ("pml", 6), ("alip", 5), ("lip", 8)])
def test_the_cone_route_equals_the_enumerated_rays_optimum(notion, d):
    prob, rays, box = rays_and_box(notion, d, "histogram")
    assert box.value == pytest.approx(rays.value, rel=1e-9) and "histogram branch and bound" in box.message
    assert box.certificate.bound <= rays.value * (1 + 1e-12)  # an MSE: the bound is below


@pytest.mark.parametrize("d", [6, 9])
def test_the_ldp_route_equals_the_enumerated_patterns_optimum(d):
    V = np.random.default_rng(d).dirichlet(np.ones(d), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="histogram", eps=1.0)
    every = mechopt.solve(prob, solver="robust-rays")
    box = mechopt.solve(prob, solver="robust-rays", enumerate_max=2)
    assert every.status.value == box.status.value == "optimal" and box.proof == "certificate"
    assert "enumeration" in every.message and "boxes of the pattern" in box.message
    assert box.value == pytest.approx(every.value, rel=1e-9) and box.certificate.bound <= every.value * (1 + 1e-12)


@pytest.mark.slow
def test_lip_histogram_at_d16_is_certified_past_cone_max():
    """Three Dirichlet(1) priors, ε = 1, d = 16 (above cone_max = 10: no rays enumerated): certified (39 s at load
    4–6, 130–142 s at load 8–10); every vertex's MSE is at most the value, and the bound is below it by the gap."""
    V = np.random.default_rng(16).dirichlet(np.ones(16), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="histogram", eps=1.0)
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.status.value == "optimal" and r.proof == "certificate" and "histogram branch and bound" in r.message
    assert r.extras["relative_gap"] <= 1e-7 and r.violation <= 1e-9
    assert max(r.extras["vertex_values"]) == pytest.approx(r.value, rel=1e-12)
    assert r.certificate.bound <= r.value and r.value == pytest.approx(0.8101885118085, rel=1e-8)


_POS = st.floats(0.05, 20.0, allow_nan=False, allow_infinity=False)


@settings(max_examples=200, deadline=None)
@given(q=st.tuples(_POS, _POS), t=st.tuples(_POS, _POS), s=st.tuples(st.floats(0, 1), st.floats(0, 1)))
def test_the_roof_is_the_concave_envelope_of_q2_over_t_on_random_boxes(q, t, s):
    """Both faces lie above q²/t on the whole rectangle (an over-estimator: the bound is proven), and their minimum
    meets it at the four corners (the concave envelope of a convex function on a box: nothing tighter is valid)."""
    (ql, qu), (tl, tu) = sorted(q), sorted(t)
    faces, top = hist.roof(*(np.array([v]) for v in (ql, qu, tl, tu)))

    def env(x, y):
        return min(float(g0[0] + gq[0] * (x - q0[0]) + gt[0] * (y - t0[0])) for g0, gq, gt, q0, t0 in faces)

    x, y = ql + s[0] * (qu - ql), tl + s[1] * (tu - tl)
    scale = qu * qu / tl
    assert env(x, y) >= x * x / y - 1e-12 * scale
    for a in (ql, qu):
        for b in (tl, tu):
            assert env(a, b) == pytest.approx(a * a / b, rel=1e-12, abs=1e-12 * scale)
    assert float(top[0]) == pytest.approx(max(qu * qu / tl, ql * ql / tu))


def test_the_roof_on_the_other_diagonal_is_not_an_over_estimator():
    """Mutation at the envelope's level: the two planes through the diagonal (ql, tl)–(qu, tu) (each triangle's
    interpolation is above the convex q²/t, but the LP keeps the smaller plane everywhere) cut under q²/t at the
    corner (qu, tl): the property above would reject them."""
    ql, qu, tl, tu = 1.0, 2.0, 1.0, 2.0
    f00, f01, f10, f11 = ql * ql / tl, ql * ql / tu, qu * qu / tl, qu * qu / tu
    upper = f10  # the plane through (ql, tl), (qu, tl), (qu, tu) at (qu, tl): exact
    lower = f00 + (f11 - f01) + (f01 - f00)  # the plane through (ql, tl), (ql, tu), (qu, tu), extended to (qu, tl)
    assert min(upper, lower) < qu * qu / tl - 1.0
    (p1, p2), _ = hist.roof(*(np.array([v]) for v in (ql, qu, tl, tu)))
    assert min(float(g0[0] + gq[0] * (qu - q0[0]) + gt[0] * (tl - t0[0])) for g0, gq, gt, q0, t0 in (p1, p2)) == 4.0


def _sequence(notion, d, seed, calls=4):
    """(pricer, [(λ, μ, the best enumerated ρ, the gains' scale)]): duals of a few consecutive pricing calls."""
    V, D, R = _domain(notion, d, seed)
    G = VertexGains(V, HistogramMSE())
    F = G.gains(R)
    norm = np.ones(d) / d if D.norm is None else D.norm
    out = []
    for s in range(calls):
        lam, mu = _duals(seed + s, R, F, norm)
        out.append((lam, mu, float((lam @ F - mu @ R).max()), float(np.abs(F).max())))
    pr = _exhaustive(HistBoxPricer(G, D, max_nodes=20_000))
    pr.early = False  # every call by the tree (no climb from the columns of earlier calls)
    return pr, out


@settings(max_examples=8, deadline=None)
@given(notion=st.sampled_from(["lip", "pml", "alip", "ldp"]), d=st.integers(3, 5), seed=st.integers(0, 2**16))
def test_a_partition_reused_across_calls_bounds_every_call(notion, d, seed):
    """One pricer, four calls at other duals: each starts from the last call's leaves, their bounds refreshed by
    weak duality at multipliers of other duals; every bound is still the maximum over the enumerated rays (to 1e-8),
    searched to it (target −∞) or only to a target above it."""
    pr, calls = _sequence(notion, d, seed)
    for j, (lam, mu, top, scale) in enumerate(calls):
        if j % 2:
            pr.target = top + 0.01 * scale  # prove ρ ≤ target only: leaves close on their refreshed bounds
        before, leaves = pr.refreshed, len(pr.leaves)
        out = pr.price(lam, mu)
        assert top - 1e-12 * scale <= out.bound <= max(top + 1e-8 * scale, pr.target)
        assert j == 0 or leaves > pr.max_leaves or pr.refreshed > before  # the partition was reused (unless too large)
        pr.target = -math.inf


def test_a_partition_refreshed_at_the_old_duals_is_caught(monkeypatch):
    """Mutation: the leaves keep the bounds of the call that built them (refreshed at its duals, not the new ones):
    a leaf holding the new maximum is closed on a stale bound, and some call's 'bound' falls below the best ray."""
    first = {}
    refresh = HistBoxPricer._refresh

    def stale(self, node, lam, mu, live, y):
        first.setdefault("duals", (lam, mu))
        return refresh(self, node, *first["duals"], live, y)

    misses = []
    for seed in range(3):
        pr, calls = _sequence("lip", 5, seed, calls=5)
        first.clear()
        monkeypatch.setattr(HistBoxPricer, "_refresh", stale)
        for lam, mu, top, scale in calls:
            misses.append((top - pr.price(lam, mu).bound) / scale)
            first.setdefault("duals", (lam, mu))
        monkeypatch.undo()
    assert max(misses) > 1e-6
