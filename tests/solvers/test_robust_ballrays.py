"""Mutual information over a TV prior ball by vertex generation (``robust-rays`` on a BallDesign): the ball's
vertices in closed form, equality with the full-vertex route, and the whole-ball check that makes it a proof."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ProblemError
from mechopt.problems.robust import BallDesign, BallSet, EmpiricalPrior, PriorSet, RobustDesign
from mechopt.solvers.robust import ballrays


def _counts(d: int) -> str:
    return ",".join(str(50 * (d - i)) for i in range(d))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.one_of(st.just(0.0), st.floats(1e-6, 0.95)), st.booleans(), st.integers(0, 2**31 - 1))
def test_the_closed_form_vertices_hold_qhulls_and_the_greedy_minimum(d, r, zero, seed):
    """Every vertex Qhull finds is in the closed-form list, every listed prior is in the ball, and the greedy
    min of P·q over the ball (closed form) equals the brute-force minimum over the list."""
    rng = np.random.default_rng(seed)
    c = rng.dirichlet(np.ones(d) * 0.7)
    if zero:
        c[rng.integers(d)] = 0.0
        c = c / c.sum()
    B = BallSet(c, r, "tv")
    V, W = B.all_vertices(), PriorSet.ball(c, r, "tv").vertices
    assert np.abs(W[:, None, :] - V[None, :, :]).max(axis=2).min(axis=1).max() <= 1e-9
    assert all(B.contains(P, 1e-12) for P in V)
    q = rng.normal(size=d)
    assert B.extreme(q) @ q == pytest.approx((V @ q).min(), abs=1e-12)


def test_the_vertex_count_and_its_limit():
    """126 vertices at d = 8 (as Qhull), 1328 at d = 16; above the limit a TooLargeError, an L∞ ball refused."""
    from mechopt.errors import TooLargeError

    assert len(EmpiricalPrior.from_counts(_counts(8), 1e-3).ball().all_vertices()) == 126
    assert len(EmpiricalPrior.from_counts(_counts(8), 1e-3).prior_set().vertices) == 126
    assert len(EmpiricalPrior.from_counts(_counts(16), 1e-3).ball().all_vertices()) == 1328
    with pytest.raises(TooLargeError, match="more than 100 vertices"):
        EmpiricalPrior.from_counts(_counts(16), 1e-3).ball().all_vertices(limit=100)
    with pytest.raises(ProblemError, match="mi over a prior ball on 4 symbols is not certified.*TV ball"):
        BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts="4,3,2,1", delta=0.1,
                               bound="hoeffding")  # fmt: skip


@pytest.mark.parametrize("d, notion", [(4, "pml"), (6, "pml"), (4, "lip")])
def test_vertex_generation_equals_the_full_vertex_route(d, notion):
    """The ball by its inequalities (a few of its priors generated) and by all its vertices (Qhull) give one value."""
    E = EmpiricalPrior.from_counts(_counts(d), 1e-3)
    ball = mechopt.solve(BallDesign.from_params(prior_set=E, notion=notion, utility="mi", eps=1.0),
                         solver="robust-rays")  # fmt: skip
    full = mechopt.solve(RobustDesign.from_params(prior_set=E, notion=notion, utility="mi", eps=1.0),
                         solver="robust-rays")  # fmt: skip
    assert ball.status.value == full.status.value == "optimal" and ball.proof == "certificate"
    assert ball.value == pytest.approx(full.value, rel=1e-9)
    assert ball.extras["priors_generated"] < ball.extras["ball_vertices"] or d == 4
    verts = RobustDesign.from_params(prior_set=E, notion=notion, utility="mi", eps=1.0)
    assert verts.levels(ball.Q).max() <= 1.0 + 1e-9  # private at every vertex of the ball, audited independently
    assert verts.evaluate(ball.Q) == pytest.approx(ball.value, rel=1e-12)


def test_a_mutant_that_skips_the_whole_ball_check_is_not_optimal(monkeypatch):
    """With no prior generated (the loop trusts the first ray LP, over the center and an inner prior only), the
    verdict's audit over every vertex of the ball still refuses to call the answer optimal."""
    prob = BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts=_counts(6), delta=1e-3)
    monkeypatch.setattr(ballrays, "new_priors", lambda *a, **k: np.zeros((0, 6)))
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.status.value != "optimal" and r.proof is None and "not certified" in r.message
    assert r.extras["priors_generated"] == 2 and r.extras["eps_audited"] > 1.0 + 1e-6


@pytest.mark.parametrize("batch", ["abc", True, 0, 2.5])
def test_a_bad_ball_batch_is_a_param_error(batch):
    from mechopt.errors import ParamError

    prob = BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts="120,80,40,20", delta=1e-3)
    with pytest.raises(ParamError, match="ball_batch"):
        mechopt.solve(prob, solver="robust-rays", ball_batch=batch)


def test_a_time_limit_ends_time_limit_not_optimal():
    prob = BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts=_counts(8), delta=1e-3)
    r = mechopt.solve(prob, solver="robust-rays", time_limit=2)  # where it stops depends on the load: any stop
    assert r.status.value in ("time_limit", "infeasible_point") and r.proof is None
    if r.status.value == "time_limit" and r.mechanism is not None:
        assert prob.audit_channel(r.Q).violation <= 1e-9


def test_the_same_input_gives_the_same_numbers():
    prob = BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts="120,80,40,20", delta=1e-3)
    a, b = mechopt.solve(prob, solver="robust-rays"), mechopt.solve(prob, solver="robust-rays")
    assert a.value == b.value and np.array_equal(a.Q, b.Q) and a.certificate.bound == b.certificate.bound


@pytest.mark.slow
def test_pml_mi_over_the_ball_at_d_8_is_certified():
    """d = 8 (126 vertices): the full-vertex route did not certify in 120 s; vertex generation does (87–91 s, 35
    priors, at load 6–7)."""
    prob = BallDesign.from_params(notion="pml", utility="mi", eps=1.0, prior_counts=_counts(8), delta=1e-3)
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.status.value == "optimal" and r.extras["relative_gap"] <= 1e-7 and r.extras["ball_vertices"] == 126
    assert r.value == pytest.approx(0.80817646446, rel=1e-9)
