"""The multi-level columns of the posterior-box cone (several priors tied at an extreme) and their local search."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.cone import faces
from mechopt.solvers.robust.cone.box import BoxMIPricer
from mechopt.solvers.robust.cone.faces import face_search, solve_states
from mechopt.solvers.robust.cone.vertices import rho, two_level, vertex_search
from tests.solvers.test_robust_boxprice import NOTIONS, _cone, _duals
from tests.solvers.test_robust_vertices import _in_cone


def _tied_state(V, lo, hi, r, rel=1e-9):
    """(A, F, I, J) of a ray read off its values: the priors within ``rel`` of min t and of max t, the coordinates
    at U = hi·min t, those at L = lo·max t, the rest free."""
    t = V @ r
    U, L = hi * t.min(), lo * t.max()
    I = tuple(int(i) for i in np.flatnonzero(np.isclose(t, t.min(), rtol=rel)))
    J = tuple(int(j) for j in np.flatnonzero(np.isclose(t, t.max(), rtol=rel)))
    A = np.isclose(r, U, rtol=rel)
    B = np.isclose(r, L, rtol=rel, atol=1e-12) & ~A
    return A, tuple(int(x) for x in np.flatnonzero(~A & ~B)), I, J


@pytest.mark.parametrize("notion", ["lip", "alip"])
@pytest.mark.parametrize("d", [5, 7])
def test_rays_with_tied_priors_are_solved_back_from_their_state(notion, d):
    """Every enumerated ray whose free coordinates number |I| + |J| − 1 (I, J disjoint) is the solution of its
    square system; some of them have two or more free coordinates (out of reach of the two-level search)."""
    V, lo, hi, R = _cone(notion, d, seed=d)
    solved, multi = 0, 0
    for r in R.T:
        A, F, I, J = _tied_state(V, lo, hi, r)
        if set(I) & set(J) and len(I) < V.shape[0]:
            continue
        if set(I) & set(J):  # every t tied: I all priors, any one j gives L
            J = J[:1]
        if len(F) != len(I) + len(J) - 1 or not F:
            continue
        Q, ok = solve_states(V, lo, hi, [(A, F, I, J)])
        assert ok[0] and np.allclose(Q[:, 0], r, rtol=1e-8, atol=1e-12)
        solved += 1
        multi += len(F) > 1
    assert solved >= 0.25 * R.shape[1] and multi >= 1


@pytest.mark.parametrize("notion", list(NOTIONS))
def test_one_free_coordinate_is_the_two_level_solve(notion):
    V, lo, hi, _ = _cone(notion, 6, seed=1)
    rng = np.random.default_rng(0)
    A = rng.random((600, 6)) < 0.5
    f, i, j = rng.integers(0, 6, 600), rng.integers(0, 3, 600), rng.integers(0, 3, 600)
    if lo == 0:
        j[:] = 0
    Q2, ok2 = two_level(V, lo, hi, A, f, i, j)
    QF, okF = solve_states(V, lo, hi, [(A[m], (int(f[m]),), (int(i[m]),), (int(j[m]),)) for m in range(600)])
    assert ok2.any() and np.array_equal(ok2, okF) and np.allclose(Q2, QF, rtol=1e-10, atol=1e-14)


@settings(deadline=None, max_examples=12)  # no timing assertion (shared machine)
@given(st.sampled_from(sorted(NOTIONS)), st.integers(0, 2**31 - 1))
def test_the_search_ends_in_the_cone_never_above_the_best_ray(notion, seed):
    """Every column found is in K on the slice P̄q = 1 and not above the best enumerated ray (ρ convex), and the
    climb never ends below its two-level start."""
    d = 6
    V, lo, hi, R = _cone(notion, d, seed=3)
    rng = np.random.default_rng(seed)
    lam, mu = rng.dirichlet(np.ones(3)), rng.normal(0.0, 0.3, d)
    starts = R[:, rng.choice(R.shape[1], 3, replace=False)]
    Q = face_search(V, lo, hi, lam, mu, starts)
    assert Q.shape[1] >= 1 and np.all(_in_cone(V, lo, hi, Q)) and np.allclose(V.mean(axis=0) @ Q, 1.0)
    assert rho(V, lam, mu, Q).max() <= rho(V, lam, mu, R).max() + 1e-9


def test_a_solve_without_the_cone_check_is_caught(monkeypatch):
    """Mutation: every solved state taken as a column; some are then outside the cone."""
    V, lo, hi, _ = _cone("lip", 6, seed=2)
    rng = np.random.default_rng(0)
    states = [(rng.random(6) < 0.5, (int(f),), (int(i),), (int(j),)) for f, i, j in rng.integers(0, 3, (200, 3))]
    states += [(rng.random(6) < 0.5, (0, 1), (int(i),), (int(j), int(j) + 1)) for i, j in rng.integers(0, 2, (200, 2))]
    states += [(rng.random(6) < 0.5, (2, 3, 4), (0, 1, 2), (0,)) for _ in range(100)]
    Q, ok = solve_states(V, lo, hi, states)
    assert ok.any() and np.all(_in_cone(V, lo, hi, Q[:, ok]))
    monkeypatch.setattr(faces, "admissible", lambda V, lo, hi, Q: np.ones(Q.shape[1], bool))
    Q, ok = solve_states(V, lo, hi, states)
    assert not np.all(_in_cone(V, lo, hi, Q[:, ok]))


def _run_pricer(V, lo, hi, rounds=6):
    """Columns a pricer returns over a few rounds at the same random duals (its heuristic stage first)."""
    pr = BoxMIPricer(V, lo, hi, multi_level=True)
    pr.history = list(pr.seed_rays().T)
    lam, mu = _duals(0, V.shape[0], V.shape[1])
    return np.hstack([pr.price(lam, mu).rays for _ in range(rounds)])


def test_a_pricer_that_forgets_what_it_returned_is_caught(monkeypatch):
    """The pricer returns no column twice over rounds (ascent, both searches and tree together); mutation: the
    columns found are taken without the record of those returned."""
    V, lo, hi, _ = _cone("lip", 7, seed=1)
    got = _run_pricer(V, lo, hi)
    keys = {np.round(q, 12).tobytes() for q in got.T}
    assert got.shape[1] > 1 and len(keys) == got.shape[1] and np.all(_in_cone(V, lo, hi, got))
    monkeypatch.setattr(BoxMIPricer, "_take", lambda self, Q: Q[:, : self.batch])
    got = _run_pricer(V, lo, hi)
    assert len({np.round(q, 12).tobytes() for q in got.T}) < got.shape[1]


def test_the_stage_finds_a_tied_column_where_the_two_level_search_finds_none():
    """Late-round duals (random, μ shifted so that the best enumerated ray is just above ρ = 0): from the same starts
    the multi-level search often finds an improving column where the two-level one ends below 0 (20 of 40 here)."""
    V, lo, hi, R = _cone("lip", 8, seed=5)
    rng = np.random.default_rng(7)
    hits = 0
    for _ in range(40):
        lam, mu = rng.dirichlet(np.ones(3)), rng.normal(0.0, 0.3, 8)
        mu += rho(V, lam, mu, R).max() * 0.999 * V.mean(axis=0)  # the best ray just above 0: a late round
        starts = R[:, rng.choice(R.shape[1], 6, replace=False)]
        two = rho(V, lam, mu, vertex_search(V, lo, hi, lam, mu, starts)).max()
        multi = rho(V, lam, mu, face_search(V, lo, hi, lam, mu, starts)).max()
        hits += two <= 0 < multi
    assert hits >= 10


@pytest.mark.parametrize(("notion", "d"), [("lip", 8), ("alip", 7)])
def test_the_box_route_with_the_multi_level_search_equals_the_enumerated_rays(notion, d):
    V = np.random.default_rng(d).dirichlet(np.ones(d), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility="mi", eps=1.0, **NOTIONS[notion])
    rays = mechopt.solve(prob, solver="robust-rays", cone_pricer="rays")
    box = mechopt.solve(prob, solver="robust-rays", cone_pricer="box", multi_level=True)
    assert rays.status.value == box.status.value == "optimal" and box.proof == "certificate"
    assert box.value == pytest.approx(rays.value, rel=1e-8) and box.violation <= 1e-9


def test_a_multi_level_word_that_is_not_a_bool_is_refused():
    prob = RobustDesign.from_params(prior_set=np.random.default_rng(0).dirichlet(np.ones(12), size=3), notion="lip",
                                    utility="mi", eps=1.0)  # fmt: skip
    with pytest.raises(ParamError, match="multi_level.*must be true or false"):
        mechopt.solve(prob, solver="robust-rays", multi_level="yes")
