"""The column pool of the posterior-box cone: the vertex search's neighbours, priced each round (heuristic batches)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.cone.box import BoxMIPricer
from mechopt.solvers.robust.cone.pool import ColumnPool, key
from mechopt.solvers.robust.cone.vertices import neighbours, rho, vertex_search
from tests.solvers.test_robust_boxprice import NOTIONS, _cone, _duals
from tests.solvers.test_robust_vertices import _in_cone


@pytest.mark.parametrize("notion", list(NOTIONS))
@pytest.mark.parametrize("d", [5, 7])
def test_the_neighbours_are_columns_of_the_cone_never_above_the_best_ray(notion, d):
    """Every neighbour is in K on the slice P̄q = 1, so its ρ is at most the best enumerated ray's (ρ convex)."""
    V, lo, hi, R = _cone(notion, d, seed=d)
    for s in range(3):
        lam, mu = _duals(s, 3, d)
        N = neighbours(V, lo, hi, vertex_search(V, lo, hi, lam, mu, R[:, :: max(1, R.shape[1] // 4)]))
        assert N.shape[1] > d and np.all(_in_cone(V, lo, hi, N)) and np.allclose(V.mean(axis=0) @ N, 1.0)
        assert rho(V, lam, mu, N).max() <= rho(V, lam, mu, R).max() + 1e-9


@settings(deadline=None, max_examples=40)  # no timing assertion (shared machine)
@given(st.integers(0, 2**31 - 1), st.integers(1, 12), st.integers(2, 20))
def test_best_is_the_sorted_filter_of_unseen_improving_columns(seed, limit, cap):
    """pool.best against the brute-force rule: ρ > tol, key not seen, best first, at most ``limit``; the pool keeps
    the ``cap`` newest distinct columns."""
    rng = np.random.default_rng(seed)
    V = rng.dirichlet(np.ones(4), size=3)
    Q = rng.uniform(0.2, 2.0, (4, 25))
    Q[:, 5] = Q[:, 3]  # a repeat is held once
    pool = ColumnPool(V, cap=cap)
    pool.add(Q[:, :10])
    pool.add(Q[:, 10:])
    held = np.unique(Q, axis=1, return_index=True)[1]
    newest = [j for j in range(25) if j in set(held)][-cap:]
    assert pool.size == len(newest) and np.array_equal(pool.Q, Q[:, newest])
    lam, mu = rng.dirichlet(np.ones(3)), rng.normal(0.0, 0.5, 4)
    seen = {key(Q[:, j]) for j in rng.choice(25, 6, replace=False)}
    val = rho(V, lam, mu, pool.Q)
    want = [j for j in np.argsort(-val, kind="stable") if val[j] > 0.01 and key(pool.Q[:, j]) not in seen][:limit]
    assert np.array_equal(pool.best(lam, mu, seen, limit, 0.01), pool.Q[:, want])


def _run_pricer(V, lo, hi, rounds=6):
    """Columns a pricer returns over a few rounds at the same random duals (its heuristic stage first)."""
    pr = BoxMIPricer(V, lo, hi)
    pr.history = list(pr.seed_rays().T)
    out = []
    for _ in range(rounds):
        lam, mu = _duals(0, V.shape[0], V.shape[1])
        out.append(pr.price(lam, mu).rays)
    return np.hstack(out)


def test_a_pricer_that_forgets_what_it_returned_is_caught(monkeypatch):
    """The pricer returns no column twice over rounds (pool, ascent, climb and tree together); mutation: the
    columns offered are taken without the record of those returned."""
    V, lo, hi, _ = _cone("lip", 7, seed=1)
    got = _run_pricer(V, lo, hi)
    assert got.shape[1] > 7 and len({key(q) for q in got.T}) == got.shape[1]
    monkeypatch.setattr(BoxMIPricer, "_take", lambda self, Q: Q[:, : self.batch])
    got = _run_pricer(V, lo, hi)
    assert len({key(q) for q in got.T}) < got.shape[1]


def test_the_pool_adds_columns_a_round():
    """At the same duals a climb with the pool returns more distinct improving columns than the climb alone."""
    V, lo, hi, _ = _cone("lip", 8, seed=2)
    pr = BoxMIPricer(V, lo, hi)
    pr.history = list(pr.seed_rays().T)
    lam, mu = np.full(3, 1 / 3), np.zeros(8)
    alone = vertex_search(V, lo, hi, lam, mu, np.array(pr.history).T)
    Q = pr._climb(lam, mu)
    assert Q.shape[1] > len({key(q) for q in alone.T}) and np.all(pr.rho(Q, lam, mu) > 0)
    assert np.all(_in_cone(V, lo, hi, Q))


@pytest.mark.parametrize("notion", ["lip", "pml"])
def test_the_box_route_with_the_pool_equals_the_enumerated_rays_at_d_9(notion):
    V = np.random.default_rng(9).dirichlet(np.ones(9), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility="mi", eps=1.0, **NOTIONS[notion])
    rays = mechopt.solve(prob, solver="robust-rays", cone_pricer="rays")
    box = mechopt.solve(prob, solver="robust-rays", cone_pricer="box")
    assert rays.status.value == box.status.value == "optimal" and box.proof == "certificate"
    assert box.value == pytest.approx(rays.value, rel=1e-8) and box.violation <= 1e-9
