"""The two-level columns of the posterior-box cone and their local search, against the enumerated rays."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.solvers.robust.cone import vertices
from mechopt.solvers.robust.cone.box import BoxMIPricer
from mechopt.solvers.robust.cone.vertices import _state, rho, two_level, vertex_search
from tests.solvers.test_robust_boxprice import NOTIONS, _cone


def _in_cone(V, lo, hi, Q):
    t = V @ Q
    return np.all(Q <= hi * t.min(axis=0) * (1 + 1e-9), axis=0) & np.all(Q >= lo * t.max(axis=0) * (1 - 1e-9), axis=0)


@pytest.mark.parametrize("notion", list(NOTIONS))
@pytest.mark.parametrize("d", [5, 7])
def test_every_two_level_ray_is_solved_back_from_its_state(notion, d):
    """A ray with at most one coordinate off both levels is the unique solution of its 3 × 3 system."""
    V, lo, hi, R = _cone(notion, d, seed=d)
    solved = 0
    for r in R.T:
        t = V @ r
        off = ~np.isclose(r, hi * t.min(), rtol=1e-9) & ~np.isclose(r, lo * t.max(), rtol=1e-9, atol=1e-12)
        if off.sum() > 1 or np.isclose(t.min(), t.max(), rtol=1e-9):
            continue
        A, f, i, j = _state(V, lo, hi, r)
        Q, ok = two_level(V, lo, hi, A[None], np.array([f]), np.array([i]), np.array([j]))
        assert ok[0] and np.allclose(Q[:, 0], r, rtol=1e-8, atol=1e-12)
        solved += 1
    assert solved >= 0.25 * R.shape[1]  # a good share of the rays are two-level


@pytest.mark.parametrize("notion", list(NOTIONS))
def test_the_search_climbs_to_columns_of_the_cone_never_above_the_best_ray(notion):
    d = 6
    V, lo, hi, R = _cone(notion, d, seed=3)
    rng = np.random.default_rng(1)
    for _ in range(4):
        lam, mu = rng.dirichlet(np.ones(3)), rng.normal(0.0, 0.3, d)
        starts = R[:, rng.choice(R.shape[1], 5, replace=False)]
        Q = vertex_search(V, lo, hi, lam, mu, starts)
        assert Q.shape[1] == 5 and np.all(_in_cone(V, lo, hi, Q)) and np.allclose(V.mean(axis=0) @ Q, 1.0)
        got, best = rho(V, lam, mu, Q), rho(V, lam, mu, R).max()
        own = two_level(V, lo, hi, *[np.array([x]) for x in _state(V, lo, hi, starts[:, 0])])[0][:, 0]
        if np.allclose(own, starts[:, 0]):  # a two-level start: the climb never goes below it
            assert got[0] >= rho(V, lam, mu, starts[:, :1])[0] - 1e-12
        assert got.max() <= best + 1e-9  # max ρ over the cone is at a ray


def test_a_solve_without_the_cone_check_is_caught(monkeypatch):
    """Mutation: every solved state taken as a column; some are then outside the cone (the check above fails)."""
    V, lo, hi, R = _cone("lip", 6, seed=2)
    rng = np.random.default_rng(0)
    A = rng.random((200, 6)) < 0.5
    f, i, j = rng.integers(0, 6, 200), rng.integers(0, 3, 200), rng.integers(0, 3, 200)
    Q, ok = two_level(V, lo, hi, A, f, i, j)
    assert ok.any() and np.all(_in_cone(V, lo, hi, Q[:, ok]))
    monkeypatch.setattr(vertices, "admissible", lambda V, lo, hi, Q: np.ones(Q.shape[1], bool))  # no cone check
    Q, ok = two_level(V, lo, hi, A, f, i, j)
    assert not np.all(_in_cone(V, lo, hi, Q[:, ok]))


def test_the_pricer_search_returns_new_improving_columns_only():
    """BoxMIPricer's heuristic stage: columns it returns improve (ρ above the reduced-cost tolerance), are in the
    cone and are not returned twice."""
    V, lo, hi, R = _cone("pml", 6, seed=4)
    pr = BoxMIPricer(V, lo, hi)
    pr.history = list(pr.seed_rays().T)
    lam, mu = np.full(3, 1 / 3), np.zeros(6)
    Q = pr._climb(lam, mu)
    assert Q.shape[1] >= 1 and np.all(pr.rho(Q, lam, mu) > 0) and np.all(_in_cone(V, lo, hi, Q))
    assert pr._climb(lam, mu).shape[1] == 0 or not np.any(
        np.all(np.isclose(pr._climb(lam, mu)[:, :, None], Q[:, None, :]), axis=0)
    )
