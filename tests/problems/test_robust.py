"""Robust and prior-free design over a prior set: vertex reduction, exact balls, the LP against cvxpy, k-RR."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechopt
from mechopt.errors import ProblemError
from mechopt.geo.loss import ExpectedLoss
from mechopt.notions import make_notion
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import PriorSet, RobustDesign, robust_levels


def _solve(vertices, notion, eps=1.0):
    return mechopt.solve(RobustDesign.from_params(prior_set=vertices, notion=notion, utility="mae", eps=eps),
                         solver="robust-lp")  # fmt: skip


@pytest.mark.parametrize("notion", ["lip", "pml", "alip"])
def test_private_at_vertices_is_private_at_convex_combinations(notion):
    rng = np.random.default_rng(1)
    V = rng.dirichlet(np.ones(4), size=3)
    kw = {"eps_lower": 0.5} if notion == "alip" else {}
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility="mae", eps=1.0, **kw)
    r = mechopt.solve(prob, solver="robust-lp")
    assert r.status.value == "optimal" and r.violation <= 1e-9
    N = prob.notion
    for w in rng.dirichlet(np.ones(3), size=200):
        assert N.epsilon(r.Q, w @ V) <= N.eps + 1e-9  # the hull is private
        loss = float(w @ prob.losses(r.Q))
        assert loss <= r.value + 1e-12  # and no prior of the hull is worse than the worst vertex


def test_one_violated_vertex_is_caught():
    V = np.array([[0.2, 0.3, 0.5], [0.4, 0.4, 0.2]])
    r = _solve(V, "lip", eps=0.5)
    extra = np.array([0.9, 0.05, 0.05])
    lv = robust_levels(make_notion("lip", 0.5), r.Q, np.vstack([V, extra]))
    assert lv[:2].max() <= 0.5 + 1e-9 and lv[2] > 0.5 + 1e-3  # the new vertex is the one that fails
    big = RobustDesign.from_params(prior_set=np.vstack([V, extra]), notion="lip", utility="mae", eps=0.5)
    assert big.audit_channel(r.Q).violation == pytest.approx(lv[2] - 0.5)


@pytest.mark.parametrize("notion", ["ldp", "lip", "pml"])
def test_single_vertex_equals_the_ordinary_certified_design(notion):
    P = [0.1, 0.2, 0.3, 0.4]
    a = _solve([P], notion, eps=0.7)
    b = mechopt.solve(ChannelDesign.from_params(prior=P, notion=notion, utility="mae", eps=0.7), solver="lp")
    assert a.status.value == b.status.value == "optimal"
    assert a.value == pytest.approx(b.value, rel=1e-9)


@pytest.mark.parametrize("notion", ["ldp", "lip", "pml"])
def test_robust_lp_equals_cvxpy_clarabel(notion):
    cp = pytest.importorskip("cvxpy")
    V = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1], [0.25, 0.25, 0.25, 0.25]])
    r = _solve(V, notion, eps=0.8)
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility="mae", eps=0.8)
    L, N = prob.loss_matrix(), prob.notion
    Q = cp.Variable(L.shape, nonneg=True)
    cons = [cp.sum(Q, axis=1) == 1]
    for P in V:
        cons += N.cvxpy_constraints(Q, P)
    obj = cp.Minimize(cp.max(cp.hstack([P @ cp.sum(cp.multiply(Q, L), axis=1) for P in V])))
    val = cp.Problem(obj, cons).solve(solver=cp.CLARABEL)
    assert r.status.value == "optimal" and r.value == pytest.approx(val, rel=1e-6)
    assert r.certificate.bound <= r.value


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_k_rr_is_minimax_for_the_0_1_loss(d, eps):
    S = PriorSet.simplex(d)
    prob = RobustDesign(prior_set=S, notion=make_notion("ldp", eps), utility=ExpectedLoss(1.0 - np.eye(d)))
    r = mechopt.solve(prob, solver="robust-lp")
    closed = (d - 1) / (math.exp(eps) + d - 1)  # k-RR's error at every input
    krr = (math.exp(eps) * np.eye(d) + (1 - np.eye(d))) / (math.exp(eps) + d - 1)
    assert r.status.value == "optimal" and r.value == pytest.approx(closed, rel=1e-9)
    assert prob.evaluate(krr) == pytest.approx(closed, rel=1e-12)


def test_prior_free_ldp_mae_at_d64_is_certified():
    r = _solve(PriorSet.simplex(64), "ldp", eps=1.0)
    assert r.status.value == "optimal" and r.extras["relative_gap"] <= 1e-9 and r.violation == 0.0


@pytest.mark.parametrize("kind", ["tv", "linf"])
def test_ball_vertices_are_exact(kind):
    from scipy.optimize import linprog

    c, rad = np.array([0.4, 0.3, 0.2, 0.1]), 0.15
    B = PriorSet.ball(c, rad, kind)
    V = B.vertices
    dist = 0.5 * np.abs(V - c).sum(axis=1) if kind == "tv" else np.abs(V - c).max(axis=1)
    assert np.all(dist <= rad + 1e-12) and np.all(V >= 0)
    rng = np.random.default_rng(3)
    d = c.size
    for g in rng.normal(size=(20, d)):  # max of a linear function over the ball = its max over the vertices
        # variables P (d) and u (d) with u >= |P - c| (tv) ; P in simplex
        if kind == "tv":
            A = np.block([[np.eye(d), -np.eye(d)], [-np.eye(d), -np.eye(d)], [np.zeros((1, d)), np.ones((1, d))]])
            b = np.r_[c, -c, 2 * rad]
            res = linprog(np.r_[-g, np.zeros(d)], A_ub=A, b_ub=b, A_eq=np.r_[np.ones(d), np.zeros(d)][None],
                          b_eq=[1.0], bounds=[(0, None)] * d + [(None, None)] * d, method="highs")  # fmt: skip
        else:
            res = linprog(-g, A_eq=np.ones((1, d)), b_eq=[1.0],
                          bounds=[(max(0, ci - rad), ci + rad) for ci in c], method="highs")  # fmt: skip
        assert float((V @ g).max()) == pytest.approx(-res.fun, abs=1e-12)


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: PriorSet.parse("0.2,0.9;0.5,0.5"), "sums to"),
        (lambda: PriorSet.parse("0.2,0.8;0.3,0.3,0.4"), "different lengths"),
        (lambda: PriorSet.parse("a,b"), "not priors"),
        (lambda: PriorSet.ball([0.5, 0.5], 0.1, "l2"), "kind"),
        (lambda: PriorSet.ball([0.5, 0.5], 2, "tv"), "radius"),
        (lambda: PriorSet.ball(np.full(11, 1 / 11), 0.1, "tv"), "vertices"),
        (lambda: RobustDesign.from_params(prior_set="0.5,0.5", notion="mip", utility="mae", eps=1), "notion"),
        (lambda: RobustDesign.from_params(prior_set="0.5,0.5", notion="lip", utility="freq-var", eps=1), "mae, mi"),
    ],
)
def test_bad_input_is_a_typed_one_line_error(make, words):
    with pytest.raises(ProblemError, match=words) as info:
        make()
    assert "\n" not in str(info.value)


def test_pml_over_three_priors_at_d64_is_certified():
    V = np.random.default_rng(0).dirichlet(np.ones(64), size=3)
    r = _solve(V, "pml", eps=1.0)
    assert r.status.value == "optimal" and r.extras["relative_gap"] <= 1e-9 and r.violation <= 1e-9
    assert r.certificate.bound <= r.value and max(r.extras["vertex_losses"]) == pytest.approx(r.value, rel=1e-12)


def test_answers_are_unit_free():
    V = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]])
    rs = [mechopt.solve(RobustDesign.from_params(prior_set=V, notion="lip", utility="mae", eps=0.8,
                                                 values=np.arange(4) * s), solver="robust-lp")  # fmt: skip
          for s in (1e-12, 1.0, 1e12)]  # fmt: skip
    assert all(r.status.value == "optimal" for r in rs)
    assert rs[0].value * 1e12 == pytest.approx(rs[1].value, rel=1e-9)
    assert rs[2].value * 1e-12 == pytest.approx(rs[1].value, rel=1e-9)


def test_too_large_prior_free_designs_are_refused_before_any_work():
    """The hostile run: --prior-free 20000 took 15.7 GB (a dense k·n·m loss block) and 10^8 raised MemoryError
    in np.eye; both are a TooLargeError now, the LP's before it is built (robust-lp's max_memory)."""
    import mechopt
    from mechopt.errors import TooLargeError
    from mechopt.problems.robust import PriorSet, RobustDesign
    from mechopt.problems.robust.priorsets import MAX_SIMPLEX

    with pytest.raises(TooLargeError, match="limit is"):
        PriorSet.simplex(MAX_SIMPLEX + 1)
    prob = RobustDesign.from_params(prior_set=PriorSet.simplex(40), notion="ldp", utility="mae", eps=1.0)
    with pytest.raises(TooLargeError, match="max_memory"):
        mechopt.solve(prob, "robust-lp", max_memory=1e5)  # it needs ~6e5 bytes
    assert mechopt.solve(prob, "robust-lp").status.value == "optimal"  # the default limit lets it through


def test_a_zero_loss_optimum_is_certified_not_gap_one():
    """Two equal point-mass vertices: the optimum 0 had a dual bound of -4e-15, so gap 1 (optimal_inaccurate);
    every expected loss is at least the least loss (0 here), a valid bound that proves it."""
    prob = RobustDesign.from_params(prior_set="1,0;1,0", notion="ldp", utility="mae", eps=1.0, values="0,1")
    r = mechopt.solve(prob, "robust-lp")
    assert r.status.value == "optimal" and r.value == 0.0 and r.certificate.bound == 0.0
