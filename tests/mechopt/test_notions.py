import math

import cvxpy as cp
import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.errors import ProblemError
from mechopt.model.info import mutual_information
from mechopt.notions import CIP, LDP, LIP, MIP, GraphLDP, audit_all, make_notion
from mechopt.testing import eps_values, prior_and_channel


def krr(d: int, keep: float) -> np.ndarray:
    Q = np.full((d, d), (1 - keep) / (d - 1))
    np.fill_diagonal(Q, keep)
    return Q


@pytest.mark.parametrize("d, p", [(2, 0.3), (4, 0.2), (10, 0.5), (7, 0.05)])
def test_krr_ldp_epsilon_exact(d, p):
    # k-RR keeps the input with probability 1 - p: ε = ln((1-p)(d-1)/p)
    assert math.isclose(LDP(1).audit(krr(d, 1 - p)).eps, math.log((1 - p) * (d - 1) / p), rel_tol=1e-12)


def test_constant_channel_is_zero_private():
    Q = np.tile([0.2, 0.5, 0.3], (4, 1))
    P = np.array([0.1, 0.2, 0.3, 0.4])
    for n in (LDP(0.0), LIP(0.0), MIP(0.0)):
        a = n.audit(Q, P)
        assert a.eps == pytest.approx(0.0, abs=1e-15) and a.private


def test_identity_is_not_private_for_any_finite_eps():
    P = np.array([0.3, 0.7])
    assert LDP(5).audit(np.eye(2)).eps == math.inf
    assert LIP(5).audit(np.eye(2), P).eps == math.inf
    assert LDP(5).audit(np.eye(2)).violation == math.inf
    assert audit_all(np.eye(2), P)["ldp"]["eps"] is None


@settings(max_examples=60, deadline=None)
@given(st.floats(0.05, 0.95), st.floats(0.01, 0.99), st.floats(0.01, 0.99))
def test_binary_lip_matches_eq19_ratios(P1, q0, q1):
    # LIP paper eq. (19): q0 = P(Y=1|X=0), q1 = P(Y=0|X=1), F1..F4 = λ0/q1, λ1/(1-q1), λ0/(1-q0), λ1/q0
    Q = np.array([[1 - q0, q0], [q1, 1 - q1]])
    lam0 = (1 - P1) * (1 - q0) + P1 * q1
    lam1 = 1 - lam0
    F = np.array([lam0 / q1, lam1 / (1 - q1), lam0 / (1 - q0), lam1 / q0])
    assert LIP(1).audit(Q, [1 - P1, P1]).eps == pytest.approx(np.max(np.abs(np.log(F))), rel=1e-10, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(prior_and_channel(max_size=4, max_outputs=4))
def test_lip_ldp_relations_theorem1(pc):
    # LIP paper Theorem 1: ε-LDP ⇒ ε-LIP ⇒ 2ε-LDP; Proposition 1: ε-LIP ⇒ ε-MIP
    P, Q = pc
    e_ldp, e_lip = LDP(1).audit(Q).eps, LIP(1).audit(Q, P).eps
    assert e_lip <= e_ldp + 1e-12
    assert e_ldp <= 2 * e_lip + 1e-12
    assert mutual_information(P, Q) <= e_lip + 1e-12


@settings(max_examples=60, deadline=None)
@given(prior_and_channel(max_size=4, max_outputs=3), eps_values(0.1, 2.0))
def test_cone_membership_agrees_with_audit(pc, eps):
    P, Q = pc
    C = P[:, None] * Q
    for n in (LDP(eps), LIP(eps)):
        inside = bool(np.all(n.cone(P) @ C >= -1e-12))
        audited = n.audit(Q, P).eps <= eps + 1e-12
        if abs(n.audit(Q, P).eps - eps) > 1e-9:  # away from the boundary the two must agree
            assert inside == audited


@settings(max_examples=25, deadline=None)
@given(prior_and_channel(max_size=3, max_outputs=3), eps_values(0.1, 2.0))
def test_cvxpy_constraints_agree_with_audit(pc, eps):
    P, Q = pc
    for n in (LDP(eps), LIP(eps), MIP(eps)):
        X = cp.Variable(Q.shape)
        X.value = Q
        ok = all(bool(np.all(c.violation() <= 1e-9)) for c in n.cvxpy_constraints(X, P))
        e = n.audit(Q, P).eps
        if abs(e - eps) > 1e-7:
            assert ok == (e <= eps)


def test_graph_ldp_complete_graph_is_ldp_and_path_is_weaker():
    rng = np.random.default_rng(3)
    Q = rng.dirichlet(np.ones(3), size=4)
    assert GraphLDP(1, nx.complete_graph(4)).audit(Q).eps == pytest.approx(LDP(1).audit(Q).eps)
    assert GraphLDP(1, nx.path_graph(4)).audit(Q).eps <= LDP(1).audit(Q).eps + 1e-12
    metric = GraphLDP(1, nx.path_graph(4), metric=True)
    # metric privacy: |log q_x/q_x'| ≤ ε |x - x'| on the path
    e = metric.audit(Q).eps
    for x in range(4):
        for xp in range(x + 1, 4):
            assert np.max(np.abs(np.log(Q[x] / Q[xp]))) <= e * (xp - x) + 1e-12


def test_graph_ldp_cone_only_constrains_edges():
    n = GraphLDP(1.0, nx.path_graph(3))
    assert n.cone(np.full(3, 1 / 3)).shape == (4, 3)  # 2 edges × 2 directions
    with pytest.raises(ProblemError, match="integers 0..d-1"):
        GraphLDP(1.0, nx.Graph([("a", "b")]))
    with pytest.raises(ProblemError, match="weight"):
        GraphLDP(1.0, nx.Graph([(0, 1, {"weight": -1})]))


def test_mip_is_mutual_information():
    P = np.array([0.2, 0.8])
    Q = np.array([[0.7, 0.3], [0.1, 0.9]])
    a = MIP(0.01).audit(Q, P)
    assert a.eps == pytest.approx(mutual_information(P, Q))
    assert a.violation == pytest.approx(a.eps - 0.01)


def test_cip_statistics_binomial_are_s_over_n():
    n = CIP.binomial(1.0, 5, 0.3)
    G = n.stats(n.prior())
    assert np.allclose(G[0], np.arange(6) / 5) and np.allclose(G[1], 1 - np.arange(6) / 5)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0.1, 0.9), min_size=2, max_size=4), eps_values(0.1, 2), st.integers(0, 2**31))
def test_lip_on_sum_implies_cip_theorem6(p, eps, seed):
    # LIP paper Theorem 6: ε-LIP on S ⇒ centralized IP (Definition 4)
    n = CIP(eps, p)
    PS = n.prior()
    rng = np.random.default_rng(seed)
    Q = rng.dirichlet(np.ones(3), size=PS.size)
    e_lip = LIP(eps).audit(Q, PS).eps
    assert n.audit(Q, PS).eps <= e_lip + 1e-10


def test_make_notion_and_errors():
    assert isinstance(make_notion("LDP", 1), LDP)
    with pytest.raises(ProblemError, match="unknown privacy notion"):
        make_notion("dp", 1)
    with pytest.raises(ProblemError, match="policy graph"):
        make_notion("graph-ldp", 1)
    for bad in (0, -1, float("nan"), float("inf"), "x"):
        with pytest.raises(ProblemError, match="eps"):
            from mechopt.notions.base import check_eps

            check_eps(bad)
    with pytest.raises(ProblemError, match="needs the prior"):
        LIP(1).audit(np.eye(2))
    with pytest.raises(ProblemError, match="rows are inputs"):
        LIP(1).audit(np.eye(2), [0.2, 0.3, 0.5])
