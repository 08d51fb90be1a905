"""The TV ball carried exactly in mi's box pricer (``ball_exact``, :mod:`mechopt.solvers.robust.cone.ballbox`):
its cone is the ball's privacy cone (every column it returns private at every prior of the ball), its bound is
proven (at least ρ of every column it returns, and of every column private over the ball), and vertex generation
with it reaches the value of the generated-priors route with fewer priors (information-worst ones only)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError
from mechopt.problems.robust import BallDesign, BallSet
from mechopt.solvers.robust.cone.ballbox import BallMIPricer


def _counts(d: int) -> str:
    return ",".join(str(50 * (d - i)) for i in range(d))


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 7), st.floats(1e-4, 0.9), st.integers(0, 2**31 - 1))
def test_the_pricers_m_and_M_are_the_min_and_max_over_the_vertices(d, r, seed):
    """m(q) and M(q) of the pricer (the ball's extreme priors) equal the brute-force min and max over every vertex."""
    rng = np.random.default_rng(seed)
    B = BallSet(rng.dirichlet(np.ones(d)), r, "tv")
    pr, q, V = BallMIPricer(B.center[None, :], B, 0.0, np.e, early=False), rng.normal(size=d), B.all_vertices()
    assert pr.low(q) == pytest.approx((V @ q).min(), abs=1e-12)
    assert pr.high(q) == pytest.approx((V @ q).max(), abs=1e-12)


@settings(max_examples=12, deadline=None)
@given(st.integers(3, 5), st.floats(0.02, 0.3), st.sampled_from(["pml", "alip"]), st.integers(0, 2**31 - 1))
def test_the_pricer_prices_over_the_balls_cone_and_its_bound_holds(d, r, notion, seed):
    """Every column returned is private at every vertex of the ball; the proven bound is at least ρ of those
    columns and of random columns of the ball's cone (mixed in from random columns)."""
    rng = np.random.default_rng(seed)
    B = BallSet(rng.dirichlet(np.ones(d) * 2), r, "tv")
    lo, hi = (0.0, np.e) if notion == "pml" else (np.exp(-0.5), np.e)
    Vb = B.all_vertices()
    V = Vb[rng.choice(len(Vb), size=min(3, len(Vb)), replace=False)]
    pr = BallMIPricer(V, B, lo, hi, early=False)
    lam, mu = rng.dirichlet(np.ones(len(V))), rng.normal(scale=0.1, size=d)
    out = pr.price(lam, mu)
    assert out.bound is not None
    R = np.hstack([out.rays, np.array([pr.into_cone(q) for q in rng.exponential(size=(20, d))]).T])
    T = Vb @ R  # P·q at every vertex, every column
    assert np.all(R <= hi * T.min(axis=0) * (1 + 1e-9)) and np.all(R >= lo * T.max(axis=0) * (1 - 1e-9))
    assert np.allclose(B.center @ R, 1.0)
    assert pr.rho(R, lam, mu).max() <= out.bound + 1e-9


@pytest.mark.parametrize("d, notion", [(4, "pml"), (5, "pml"), (4, "lip")])
def test_the_exact_ball_gives_the_generated_priors_value_with_fewer_priors(d, notion):
    """ball_exact='always' (the ball in the pricer at any d) and 'never' (privacy priors generated, the ray LP over
    enumerated rays) certify one value; the first generates no privacy prior, so fewer priors in all."""
    prob = BallDesign.from_params(notion=notion, eps=1.0, utility="mi", prior_counts=_counts(d), delta=1e-3)
    ball, gen = (mechopt.solve(prob, solver="robust-rays", ball_exact=w) for w in ("always", "never"))
    assert ball.status.value == gen.status.value == "optimal" and ball.proof == "certificate"
    assert ball.value == pytest.approx(gen.value, rel=1e-9)
    assert "ball's own privacy cone" in ball.extras["pricing"] and "enumerated" in gen.extras["pricing"]
    assert ball.extras["priors_generated"] <= gen.extras["priors_generated"]
    assert prob.audit_channel(ball.Q).violation <= 1e-9


@pytest.mark.parametrize(
    ("d", "exact", "pricer", "want"),
    [
        (8, "auto", "auto", (True, "auto")),  # d ≤ 8: the enumerated rays of W's cone (the ball unused below cone_max)
        (9, "auto", "auto", (True, "box")),  # 9 ≤ d ≤ cone_max: the ball in the box pricer
        (10, "auto", "auto", (True, "box")),
        (10, "auto", "rays", (True, "rays")),  # the caller's cone_pricer is kept
        (12, "auto", "auto", (True, "auto")),  # above cone_max the box pricer runs anyway, with the ball
        (4, "always", "auto", (True, "box")),
        (10, "never", "auto", (False, "auto")),
    ],
)
def test_the_ball_route_by_ball_exact_and_size(d, exact, pricer, want):
    """Where ball_exact puts the ball in the box pricer: ``auto`` above EXACT_ABOVE = 8 symbols (measured: d = 9
    certified in 37 s against 491 s for the enumerated rays, benchmarks/RESULTS.md), ``always``, never ``never``."""
    from mechopt.solvers.robust.ballrays import EXACT_ABOVE, ball_route
    from mechopt.solvers.robust.rays import RobustRaysSolver

    opts = {**RobustRaysSolver.options, "ball_exact": exact, "cone_pricer": pricer}
    B = BallSet(np.full(d, 1.0 / d), 0.05, "tv")
    inner = ball_route(B, opts)
    assert EXACT_ABOVE == 8 and ("_ball" in inner, inner["cone_pricer"]) == want


@pytest.mark.parametrize("bad", [True, "yes", 1])
def test_a_bad_ball_exact_is_a_param_error(bad):
    prob = BallDesign.from_params(notion="pml", eps=1.0, utility="mi", prior_counts="120,80,40,20", delta=1e-3)
    with pytest.raises(ParamError, match="ball_exact"):
        mechopt.solve(prob, solver="robust-rays", ball_exact=bad)
