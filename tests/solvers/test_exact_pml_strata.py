"""Stratified exact pricing of ε-PML vertices (solvers/exact/pricing/strata.py) and its cutting-plane bound
(strata_bound.py): against brute-force vertex enumeration, a mutant caught, certified optima against an independent
LP over every vertex (scipy HiGHS)."""

from __future__ import annotations

import functools
import itertools
import math
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from scipy.special import xlogy

from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing import strata
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals
from mechopt.solvers.exact.pricing.strata import StrataPricer, excess_window, strata_k
from mechopt.solvers.exact.pricing.strata_bound import StrataBound


def _phi(P: np.ndarray):
    logP = np.log(P)
    return lambda p, idx: xlogy(p, p) - p * logP[idx]


def _vertices(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every vertex of {p ∈ Δ : 0 ≤ p ≤ h} (rows) and its number of full inputs |S|, by brute force."""
    d, out, full = h.size, [], []
    for S in itertools.product((0, 1), repeat=d):
        s = np.array(S, bool)
        p = np.where(s, h, 0.0)
        r = 1.0 - math.fsum(p)
        if abs(r) <= 1e-15:
            out.append(p)
            full.append(s.sum())
        for j in np.flatnonzero(~s):
            if 0.0 < r <= h[j]:
                q = p.copy()
                q[j] = r
                out.append(q)
                full.append(s.sum())
    return np.array(out), np.array(full)


def _rc(V: np.ndarray, phi, nu: np.ndarray) -> np.ndarray:
    return phi(V, np.broadcast_to(np.arange(V.shape[1]), V.shape)).sum(axis=1) - V @ nu


def _near_chord(P, h, phi, rng, scale):
    """Duals near the chord duals with the cardinality shape of the optimum's (module docstring of strata.py)."""
    d = P.size
    shape = 1.0 - 1.0 / (d * P) + 0.3 * rng.normal(size=d)
    return chord_duals(h, phi) - scale * shape


@settings(max_examples=60, deadline=None)
@given(
    d=st.integers(4, 10),
    seed=st.integers(0, 10**6),
    eps=st.floats(0.5, 2.5),
    K=st.integers(1, 6),
    scale=st.sampled_from([1e-9, 1e-6, 1e-3]),
)
def test_bound_holds_and_is_exact_against_brute_force(d, seed, eps, K, scale):
    rng = np.random.default_rng(seed)
    P = rng.dirichlet(np.ones(d))
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = _phi(P)
    nu = _near_chord(P, h, phi, rng, scale)
    V, full = _vertices(h)
    rc = _rc(V, phi, nu)
    tau = 1e-3 * scale
    out = StrataPricer(h, phi, K).price(nu, tau)
    assert out.bound >= rc.max() - 1e-15  # proven: above every vertex
    if out.sets >= 0:  # the window was listed: every vertex of fewer than K full inputs above τ was evaluated
        small = rc[full < K]
        if small.size and small.max() > tau:
            assert out.best == pytest.approx(small.max(), abs=1e-12)
        if out.whole:  # exact to τ
            assert out.bound <= max(rc.max(), tau) + 1e-14
    for p in out.points:  # columns are vertices with the reduced cost claimed
        assert abs(p.sum() - 1.0) <= 1e-12 and np.all(p >= 0) and np.all(p <= h + 1e-16)
        assert np.sum((p > 1e-300) & (p < h * (1 - 1e-12))) <= 1


def test_a_mutant_that_misses_fillers_inside_the_pure_set_is_caught():
    """Dropping the window's sets of exactly K inputs (vertices of K − 1 full inputs whose filler is near h) makes
    the listed maximum miss the brute-force maximum of the small vertices on some prior; the real pricer never does."""
    caught = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        P = rng.dirichlet(np.ones(10))
        h = np.minimum(np.exp(1.0) * P, 1.0)
        phi = _phi(P)
        nu = _near_chord(P, h, phi, rng, 1e-2)
        V, full = _vertices(h)
        small = _rc(V, phi, nu)[full < 4].max()
        real, mutant = StrataPricer(h, phi, 4), StrataPricer(h, phi, 4)
        listed = mutant._window_sets

        def dropped(lo, hi, listed=listed):
            T = listed(lo, hi)
            return None if T is None else T[np.unpackbits(T.view(np.uint8)).reshape(T.size, 64).sum(axis=1) < 4]

        mutant._window_sets = dropped
        out, bad = real.price(nu, 1e-12), mutant.price(nu, 1e-12)
        if small > 1e-12 and out.sets >= 0:
            assert out.best == pytest.approx(small, abs=1e-12)
            caught += bad.best < small - 1e-12
    assert caught >= 1


def test_excess_window_contains_every_small_excess():
    """{r : e(r) < Δ} ⊂ [0, r1] ∪ [r2, h] for the MI excess r log(h/r), checked on a fine grid."""
    h = np.array([0.3, 0.05, 1.0, 1e-6])
    e = lambda r: xlogy(r, h) - xlogy(r, r)  # noqa: E731  r log(h / r)
    for delta in (1e-9, 1e-4, 0.05):
        r1, r2 = excess_window(e, h, delta)
        grid = np.linspace(0.0, 1.0, 20001)[:, None] * h
        small = e(grid) < delta
        assert np.all(~small | (grid <= r1) | (grid >= r2))


def _vertex_lp(P: np.ndarray, h: np.ndarray, phi) -> float:
    V, _ = _vertices(h)
    res = linprog(-_rc(V, phi, np.zeros(P.size)), A_eq=V.T, b_eq=P, bounds=(0, None), method="highs")
    assert res.status == 0
    return -float(res.fun)


@pytest.mark.parametrize("d,eps,seed", [(9, 2.0, 1), (10, 2.0, 2), (11, 2.0, 3), (12, 2.0, 4), (12, 1.5, 5)])
def test_cutting_plane_bound_is_proven_against_the_full_vertex_lp(d, eps, seed):
    """The strata bound never falls below the exact optimum (every K, including the solver's)."""
    P = np.random.default_rng(seed).dirichlet(np.ones(d))
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = _phi(P)
    opt = _vertex_lp(P, h, phi)
    for K in sorted({2, 3, strata_k(h) or 3}):
        sb = StrataBound(StrataPricer(h, phi, K), P)
        sb.seed()
        bound, nu = sb.run(rounds=30)
        assert bound >= opt - 1e-13
        assert bound <= float(chord_duals(h, phi) @ P) + 1e-13  # at or below the chord bound
        if nu is not None:  # the bound is νᵀP + max over every vertex, checked by brute force
            V, _ = _vertices(h)
            assert bound >= float(nu @ P) + _rc(V, phi, nu).max() - 1e-13


@pytest.mark.parametrize("d,seed", [(10, 23), (11, 26), (12, 27)])
def test_column_generation_with_strata_certifies_the_full_vertex_lp(d, seed):
    """ε = 2, the PML pricer with the stratified pricing and its bound (tiny faces, so the strata do the work);
    Dirichlet(10) priors with every mass below e^{-2} (the strata's condition)."""
    P = np.random.default_rng(seed).dirichlet(np.full(d, 10.0))
    h = np.minimum(np.exp(2.0) * P, 1.0)
    phi = _phi(P)
    opt = _vertex_lp(P, h, phi)
    pr = PMLSeparablePricer(P, h, phi, core=2, wide=2, strata=True)
    assert pr.strata is not None
    gain = lambda R: _rc(R.T, phi, np.zeros(d))  # noqa: E731
    out = column_generation(P, gain, pr, P[:, None].copy(), start=chord_duals(h, phi))
    assert out.status == "optimal" and out.proven
    assert out.master.value <= opt + 1e-12 and out.bound >= opt - 1e-12
    assert out.bound - out.master.value <= 1e-10 * abs(opt)


@pytest.mark.parametrize("big", [False, True])
def test_seed_columns_are_private_posteriors(big):
    """The master's seeds (cutting-plane vertices and prior slices) lie in the PML box; with an input of mass above
    e^{−ε} (clipped at h = 1) the strata are off and there are none."""
    P = np.random.default_rng(24).dirichlet(np.full(24, 20.0))  # every mass near 1/24 < e^{-2}
    if big:
        P = np.concatenate([[0.3], 0.7 * P[1:] / P[1:].sum()])
    h = np.minimum(np.exp(2.0) * P, 1.0)
    assert (h == 1.0).any() == big
    pr = PMLSeparablePricer(P, h, _phi(P), strata=True)
    assert (pr.strata is None) == big  # a mass above e^{-ε}: no strata (the size argument needs every P_x < e^{-ε})
    R = pr.seed_columns()
    assert R.shape[1] >= 1 or big
    assert np.allclose(R.sum(axis=0), 1.0, atol=1e-12) and np.all(R >= 0)
    assert np.all(R <= h[:, None] * (1 + 1e-12))


@pytest.mark.slow
def test_d64_eps2_certified_below_the_chord_bound():
    """d = 64, ε = 2, Dirichlet(1) seed 64: no window cover exists; with K = 11 the strata's bound is ~5.4e-10 below
    ε and the run ends optimal (gap 7.9e-11 measured, ~2 minutes at load 5-7, 3.4 GB; benchmarks/RESULTS.md)."""
    import mechopt

    P = np.random.default_rng(64).dirichlet(np.ones(64))
    r = mechopt.design(prior=P, notion="pml", utility="mi", eps=2.0, solver="exact")
    assert r.extras["pricing"].endswith("stratified") and r.extras["seed_columns"] > 0
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-9 and r.violation <= 1e-12
    assert r.certificate.bound <= 2.0 - 2e-10  # proven below the chord bound (K = 9 alone reaches only 8.4e-11)


def _one_shot_tables(h: np.ndarray, k: int):
    """The strata tables by their definition: every set of at most k inputs, in level then lexicographic order,
    summed input by input from 0, then ``argsort(kind="stable")`` by sum once."""
    sets = [c for n in range(k + 1) for c in itertools.combinations(range(h.size), n)]
    sums = np.array([functools.reduce(lambda a, x: a + h[x], c, 0.0) for c in sets])
    order = np.argsort(sums, kind="stable")
    masks = np.array([sum(1 << x for x in c) for c in sets], np.uint64)
    low = np.array([min(c, default=h.size) for c in sets], np.int16)
    high = np.array([max(c, default=-1) for c in sets], np.int16)
    size = np.array([len(c) for c in sets], np.int8)
    return sums[order], masks[order], low[order], high[order], size[order]


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 12), k=st.integers(0, 4), piece=st.integers(1, 40), seed=st.integers(0, 10**6))
def test_piecewise_tables_equal_the_one_shot_build(d, k, piece, seed):
    """Built in pieces of any size (levels, sort ranges, gathers), the tables are the one-shot stable sort exactly:
    same order (ties included: repeated masses) and the same floating sums."""
    rng = np.random.default_rng(seed)
    h = rng.choice([0.05, 0.1, 0.125, 0.3], size=d) if seed % 2 else rng.dirichlet(np.ones(d)) * 3.0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(strata, "PIECE", piece)
        got = strata._subsets(h, min(k, d))
    want = _one_shot_tables(h, min(k, d))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


class _Clock:
    """A stand-in for ``strata.passed``: the deadline passes at its ``after``-th check."""

    def __init__(self, after: int) -> None:
        self.after, self.calls = after, 0

    def __call__(self, deadline) -> bool:
        self.calls += 1
        return deadline is not None and self.calls > self.after


@pytest.mark.parametrize("after", [0, 1, 3, 6, 12, 30])
def test_a_deadline_between_pieces_stops_the_build_and_proves_only_the_knapsack_bound(after, monkeypatch):
    """The deadline passing at any piece: no tables (none kept), and the pricing proves only L (not whole, nothing
    listed), a bound at or above every vertex's reduced cost; without the deadline the next build is whole."""
    d, eps = 12, 2.0
    P = np.random.default_rng(7).dirichlet(np.full(d, 10.0))
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = _phi(P)
    monkeypatch.setattr(strata, "PIECE", 4)
    clock = _Clock(after)
    monkeypatch.setattr(strata, "passed", clock)
    st_ = StrataPricer(h, phi, strata_k(h) or 4)
    nu = _near_chord(P, h, phi, np.random.default_rng(1), 1e-3)
    later = time.perf_counter() + 1e6  # only the stand-in clock passes it (the projection never does)
    out = st_.price(nu, 1e-12, deadline=later)
    assert clock.calls == after + 1 and st_._tables is None
    assert not out.whole and out.sets == -1 and out.points.shape[0] == 0
    V, _ = _vertices(h)
    assert out.bound >= _rc(V, phi, nu).max() - 1e-15
    full = st_.price(nu, 1e-12)  # no deadline: built whole
    assert full.sets >= 0 and st_._tables is not None and out.bound >= full.bound - 1e-15
    sb = StrataBound(StrataPricer(h, phi, strata_k(h) or 4), P)
    clock.calls = 0
    sb.seed(deadline=later)
    assert sb.pool.shape[0] == 0 and clock.calls == after + 1
    assert sb.run(rounds=5, deadline=1.0) == (math.inf, None) and not sb.done  # a past deadline: no round


def test_a_build_projected_past_the_deadline_is_given_up_once(monkeypatch):
    """Projected (from its first twentieth) to end past the deadline, the build stops early and later calls with
    that deadline answer None without building; without a deadline the tables are built."""
    h = np.full(16, 0.1)
    monkeypatch.setattr(strata, "PIECE", 8)
    monkeypatch.setattr(strata, "BUILD_FACTOR", 1e15)
    st_ = StrataPricer(h, lambda p, idx: p * p, 6)
    deadline = time.perf_counter() + 3600.0
    assert st_.tables(deadline) is None
    builds = []
    real = strata._subsets
    monkeypatch.setattr(strata, "_subsets", lambda *a: builds.append(a) or real(*a))
    assert st_.tables(deadline) is None and st_.tables(deadline - 1.0) is None and not builds
    assert st_.tables() is not None and len(builds) == 1


def test_time_limited_d64_ends_near_the_limit_with_an_audited_mechanism():
    """d = 64, ε = 2 (seed 64): the strata's tables take ~80 s; with a 2 s limit the build stops, the first master
    over the seeded slices is solved, and the answer is an audited private mechanism, status time_limit."""
    import mechopt

    P = np.random.default_rng(64).dirichlet(np.ones(64))
    r = mechopt.design(prior=P, notion="pml", utility="mi", eps=2.0, solver="exact", time_limit=2.0)
    assert r.status.value == "time_limit" and r.mechanism is not None
    assert r.violation is not None and r.violation <= 1e-12 and r.eps_audited <= 2.0 + 1e-9
    assert r.value is not None and 0.0 <= r.value <= r.certificate.bound
