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


def _greedy_loop(B: BallSet, q: np.ndarray) -> np.ndarray:
    """The reference: BallSet.extreme as it was, a Python loop over the symbols (kept here only)."""
    if B.kind == "tv":  # take up to r from the dearest symbols, put it on the cheapest
        P, budget = B.center.copy(), B.radius
        for x in np.argsort(-q, kind="stable"):
            take = min(P[x], budget)
            P[x] -= take
            budget -= take
        P[int(np.argmin(q))] += B.radius - budget
        return P
    lo, hi = B.box
    P, left = lo.copy(), 1.0 - float(lo.sum())
    for x in np.argsort(q, kind="stable"):
        add = min(hi[x] - lo[x], max(left, 0.0))
        P[x] += add
        left -= add
    return P


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 7),
    st.sampled_from(["tv", "linf"]),
    st.one_of(st.just(0.0), st.just(1.0), st.floats(1e-6, 0.9)),
    st.booleans(),
    st.booleans(),
    st.integers(0, 2**31 - 1),
)
def test_the_vectorised_extreme_is_the_greedy_loops_prior_and_attains_the_min_and_max(d, kind, r, zeros, ties, seed):
    """extreme(q) and extreme(−q) are the old loop's priors to the bit (the same one among ties: q on a few
    integers), points of the ball, and attain min and max of P·q over it (brute force: every TV vertex, or the L∞
    ball's LP)."""
    from scipy.optimize import linprog

    rng = np.random.default_rng(seed)
    c = rng.dirichlet(np.ones(d))
    if zeros:  # centers with empty symbols (the ball then reaches them only by its radius)
        c[rng.random(d) < 0.4] = 0.0
        c = c / c.sum() if c.sum() > 0 else np.eye(d)[0]
    q = rng.integers(-2, 3, size=d).astype(float) if ties else rng.normal(size=d)
    B = BallSet(c, r, kind)
    low, high = B.extreme(q), B.extreme(-q)
    assert np.array_equal(low, _greedy_loop(B, q)) and np.array_equal(high, _greedy_loop(B, -q))  # to the bit
    assert B.contains(low) and B.contains(high)
    if kind == "tv":
        values = B.all_vertices() @ q
        lo_best, hi_best = values.min(), values.max()
    else:
        box, eq = list(zip(*B.box)), dict(A_eq=np.ones((1, d)), b_eq=[1.0])
        lo_best, hi_best = linprog(q, bounds=box, **eq).fun, -linprog(-q, bounds=box, **eq).fun
    assert low @ q == pytest.approx(lo_best, abs=1e-9) and high @ q == pytest.approx(hi_best, abs=1e-9)


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
        (dict(center=[0.5, 0.5], radius="wide"), r"radius must be a number in \[0, 1\]"),
        (dict(center=[0.5, 0.5], radius=1.5), r"radius must be a number in \[0, 1\]"),
        (dict(center=[0.5, 0.5], radius=float("nan")), r"radius must be a number in \[0, 1\]"),
        (dict(center=[0.5, 0.5], radius=-0.1), r"radius must be a number in \[0, 1\]"),
        (dict(center=[0.5, 0.5], radius=1e-320), "subnormal"),  # held as 9.99989e-321 (and named so)
        (dict(center=[0.5, 0.5], radius="4e-324", kind="linf"), "subnormal"),
        (dict(center=[0.5, 0.5], radius=0.1, kind="l2"), "use 'tv' or 'linf'"),
    ],
)
def test_bad_balls_are_problem_errors(kw, words):
    with pytest.raises(ProblemError, match=words):
        BallSet(np.asarray(kw.pop("center")), **kw)


def test_a_ball_design_takes_mae_or_mi_over_a_tv_ball():
    E = EmpiricalPrior.from_counts(",".join(["10"] * 12), 1e-3)
    assert BallDesign.from_params(prior_set=E, notion="pml", utility="mi", eps=1.0).utility.name == "mi"
    H = EmpiricalPrior.from_counts(",".join(["10"] * 12), 1e-3, "hoeffding")  # an L∞ ball: vertices not enumerated
    with pytest.raises(ProblemError, match="mi over a prior ball on 12 symbols is not certified"):
        BallDesign.from_params(prior_set=H, notion="pml", utility="mi", eps=1.0)
    with pytest.raises(ProblemError, match="above 10"):
        E.prior_set()  # the vertex form stops at 10 symbols and says where to go
    assert E.ball().d == 12 and E.ball().source.startswith("empirical:weissman:n=120")


def test_robust_ball_is_registered_and_its_params_round_trip():
    """``robust-ball`` is a problem id; from counts, from R:KIND with a center, and from its own params()."""
    from mechopt import registry

    assert registry.get_problem("robust-ball") is BallDesign and "robust-ball" in registry.problem_ids()
    counts = "300,220,180,120,90,40,30,20,10,6,3,1"
    a = BallDesign.from_params(notion="pml", eps=1.0, prior_counts=counts, delta=1e-3)
    E = EmpiricalPrior.from_counts(counts, 1e-3)
    assert a.prior_set.origin is not None and a.prior_set.radius == pytest.approx(E.radius / 2, rel=1e-15)
    b = BallDesign.from_params(**a.params())
    assert np.array_equal(b.prior_set.center, a.prior_set.center) and b.prior_set.radius == a.prior_set.radius
    Q = np.full((12, 12), 1 / 12)
    assert b.evaluate(Q) == a.evaluate(Q) and b.notion.eps == a.notion.eps
    c = BallDesign.from_params(notion="lip", eps=0.5, prior_ball="0.02:linf", prior=",".join(["0.25"] * 4))
    assert (c.prior_set.kind, c.prior_set.radius, c.prior_set.d) == ("linf", 0.02, 4)


@pytest.mark.parametrize(
    "kw, words",
    [
        (dict(prior_counts="3,2,1"), "needs delta"),
        (dict(prior_counts="3,2,1", delta=0.1, prior_ball="0.1:tv"), "one of prior_set"),
        (dict(prior_ball="0.1", prior="0.5,0.5"), "R:KIND"),
        (dict(prior_ball="0.1:tv"), "R:KIND"),
        (dict(prior_set=PriorSet.simplex(3)), "BallSet or an EmpiricalPrior"),
        (
            dict(prior_counts="3,2,1", delta=0.1, utility="mi", bound="hoeffding"),
            "mi over a prior ball on 3 symbols is not certified",
        ),
        (dict(prior_counts="3,2,1", delta=0.1, utility="mse"), "may be interior"),
        (dict(prior_counts="3,2,1", delta=0.1, hull=True), "no hull"),
    ],
)
def test_bad_ball_designs_are_typed_errors(kw, words):
    with pytest.raises(ProblemError, match=words.replace("(", r"\(")):
        BallDesign.from_params(notion="pml", eps=1.0, **kw)


@pytest.mark.parametrize("r", [1e-10, 4.264e-8, 0.1])
def test_a_tiny_ball_at_a_center_with_a_zero_entry_has_the_mass_moves_as_vertices(r):
    """TV ball ∩ simplex about (0.5, 0.5, 0): the vertices move mass r from a positive entry to another entry. At
    r = 1e-10 (or the weissman radius of 2^52 samples) Qhull failed on the unscaled set ("feasible point is not
    clearly inside halfspace", an internal error in the CLI)."""
    c = np.array([0.5, 0.5, 0.0])
    V = PriorSet.ball(c, r, "tv").vertices
    moves = [c + r * (np.eye(3)[j] - np.eye(3)[i]) for i in (0, 1) for j in range(3) if j != i]
    assert len(V) == 4
    for m in moves:
        assert np.min(np.abs(V - m).max(axis=1)) <= 1e-16 + 1e-9 * r
