"""A prior ball by its inequalities: the closed-form worst priors against the ball's vertices, and its audit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.errors import ProblemError
from mechopt.problems.robust import BallDesign, BallSet, EmpiricalPrior, PriorSet, RobustDesign


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.floats(0.0, 0.6), st.sampled_from(["tv", "linf"]), st.integers(0, 2**31 - 1))
def test_the_greedy_worst_prior_is_the_minimum_over_the_vertices(d, r, kind, seed):
    """min_{P∈ball} P·q in closed form equals the minimum over the exact vertex list (Qhull), and is in the ball."""
    rng = np.random.default_rng(seed)
    c = rng.dirichlet(np.ones(d))
    q = rng.normal(size=d)
    B, V = BallSet(c, r, kind), PriorSet.ball(c, r, kind).vertices
    P = B.extreme(q)
    assert P.min() >= -1e-15 and abs(P.sum() - 1) <= 1e-12
    dist = 0.5 * np.abs(P - B.center).sum() if kind == "tv" else np.abs(P - B.center).max()
    assert dist <= r + 1e-12
    assert P @ q == pytest.approx((V @ q).min(), abs=1e-9)


def test_the_ball_audit_equals_the_vertex_audit():
    """The worst ε and the worst loss of a channel over the ball, by worst priors, equal those over its vertices."""
    rng = np.random.default_rng(3)
    E = EmpiricalPrior.from_counts("40,25,20,10,5", 1e-3)
    Q = rng.dirichlet(np.ones(5), size=5)  # 5 outputs: the mae estimates are the values
    for notion, kw in (("pml", {}), ("lip", {}), ("alip", {"eps_lower": 0.4})):
        ball = BallDesign.from_params(prior_set=E, notion=notion, eps=1.0, **kw)
        verts = RobustDesign.from_params(prior_set=E, notion=notion, utility="mae", eps=1.0, **kw)
        assert ball.levels(Q).max() == pytest.approx(verts.levels(Q).max(), rel=1e-12)
        assert ball.evaluate(Q) == pytest.approx(verts.evaluate(Q), rel=1e-12)


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        (dict(center=[0.5, 0.6], radius=0.1), "center must be a prior"),
        (dict(center=[0.5, 0.5], radius="wide"), "radius must be a finite number"),
        (dict(center=[0.5, 0.5], radius=0.1, kind="l2"), "use 'tv' or 'linf'"),
    ],
)
def test_bad_balls_are_problem_errors(kw, words):
    with pytest.raises(ProblemError, match=words):
        BallSet(np.asarray(kw.pop("center")), **kw)


def test_a_ball_design_takes_mae_only():
    E = EmpiricalPrior.from_counts(",".join(["10"] * 12), 1e-3)
    with pytest.raises(ProblemError, match="takes utility mae"):
        BallDesign.from_params(prior_set=E, notion="pml", utility="mi", eps=1.0)
    with pytest.raises(ProblemError, match="above 10"):
        E.prior_set()  # the vertex form stops at 10 symbols and says where to go
    assert E.ball().d == 12 and E.ball().source.startswith("empirical:weissman:n=120")
