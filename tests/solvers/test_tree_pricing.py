"""Exact pricing of policy-graph ε-LDP rays for mutual information on trees (``_tree_pricing``).

The pricer's maximum and bound equal the maximum over every ray of ``graph_ldp_rays`` (the
enumeration it replaces); the rays of a tree are exactly its 2^(d−1) edge orientations; a
d = 20 path design is certified with ≤ d outputs and passes an independent audit; a graph with a
cycle keeps the enumeration (and says why it does not scale).
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import TooLargeError
from mechopt.notions import GraphLDP
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact.lp import solve_master
from mechopt.solvers.exact.pricing.tree import TreeLDPMIPricer, essential_forest
from mechopt.solvers.exact.rays import graph_ldp_rays
from mechopt.utilities import MutualInfo


def policy(seed: int, d: int, shape: str, weights: str, eps: float) -> GraphLDP:
    """A random tree / path (weights 1 or random in [0.3, 2]); ``metric`` = metric-LDP on it."""
    rng = np.random.default_rng(seed)
    G = nx.path_graph(d) if shape in ("path", "metric") or d < 3 else nx.random_labeled_tree(d, seed=seed)
    for u, v in G.edges:
        G[u][v]["weight"] = 1.0 if weights == "unit" else float(rng.uniform(0.3, 2.0))
    return GraphLDP(eps, G, metric=shape == "metric")


CASES = dict(
    shape=st.sampled_from(["path", "tree", "metric"]),
    weights=st.sampled_from(["unit", "random"]),
    eps=st.floats(0.2, 3.0),
    duals=st.sampled_from(["master", "random"]),
    scale=st.sampled_from([0.01, 1.0, 10.0]),
    own_prior=st.booleans(),
    seed=st.integers(0, 10**6),
)


@settings(max_examples=50, deadline=None)
@given(d=st.integers(2, 9), **CASES)
def test_tree_pricing_equals_enumeration(d, shape, weights, eps, duals, scale, own_prior, seed) -> None:
    check_against_enumeration(d, shape, weights, eps, duals, scale, own_prior, seed)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(d=st.integers(10, 12), **CASES)
def test_tree_pricing_equals_enumeration_d12(d, shape, weights, eps, duals, scale, own_prior, seed) -> None:
    check_against_enumeration(d, shape, weights, eps, duals, scale, own_prior, seed)


def check_against_enumeration(d, shape, weights, eps, duals, scale, own_prior, seed) -> None:
    """Bound and best column of the pricer (exact mode) against the maximum over every enumerated ray."""
    rng = np.random.default_rng(seed)
    notion = policy(seed, d, shape, weights, eps)
    P = rng.dirichlet(np.ones(d))
    Pu = P if own_prior else rng.dirichlet(np.ones(d))  # the MI's prior may differ from P
    W = notion.pair_weights(d)
    R = P[:, None] * graph_ldp_rays(W, eps)
    R /= R.sum(axis=0)
    gain = MutualInfo(Pu).gain
    mu = gain(R)
    if duals == "master":  # duals at the optimum: many ties at rc = 0
        nu = solve_master(R, mu, P).nu
    else:
        nu = scale * rng.normal(size=d)
    best = float((mu - nu @ R).max())
    out = TreeLDPMIPricer(P, eps, W, Pu, early=False, target=-np.inf).price(nu)
    assert out.bound is not None
    assert best - 1e-12 <= out.bound <= best + 1e-10 * max(1.0, abs(best)), (out.bound, best)
    if best > 1e-9:
        rc = gain(out.rays) - nu @ out.rays
        assert abs(rc[0] - best) <= 1e-10 * max(1.0, abs(best))
        assert np.all(rc > 0)


@pytest.mark.parametrize("shape", ["path", "tree", "metric"])
def test_tree_rays_are_the_edge_orientations(shape) -> None:
    d, eps = 7, 0.8
    notion = policy(3, d, shape, "random", eps)
    forest = essential_forest(notion.pair_weights(d))
    assert forest is not None and len(forest) == 1 and len(forest[0]) == d - 1
    Q = graph_ldp_rays(notion.pair_weights(d), eps)
    assert Q.shape[1] == 2 ** (d - 1)
    for a, b, w in forest[0]:  # every essential edge tight one way
        assert np.allclose(np.abs(np.log(Q[a] / Q[b])), eps * w)


def test_essential_forest_drops_implied_edges_and_sees_cycles() -> None:
    G = nx.Graph([(0, 1), (1, 2), (0, 2, {"weight": 2.0})])  # the long edge is implied by 0-1-2
    assert essential_forest(GraphLDP(1.0, G).pair_weights(3)) == [[(0, 1, 1.0), (1, 2, 1.0)]]
    G[0][2]["weight"] = 1.5  # now shorter than the path: a cycle
    assert essential_forest(GraphLDP(1.0, G).pair_weights(3)) is None


def audit(Q: np.ndarray, P: np.ndarray, G: nx.Graph, eps: float) -> float:
    """Independent check: rows stochastic, every edge ratio ≤ e^{εw} (+1e-9); returns I(X;Y) recomputed."""
    assert np.all(Q >= 0) and np.allclose(Q.sum(axis=1), 1.0, atol=1e-9)
    for u, v, w in G.edges(data="weight", default=1.0):
        live = (Q[u] > 0) | (Q[v] > 0)
        assert np.all(Q[u][live] > 0) and np.all(Q[v][live] > 0)
        assert np.max(np.abs(np.log(Q[u][live] / Q[v][live]))) <= eps * w + 1e-9
    J = P[:, None] * Q
    py = J.sum(axis=0)
    m = J > 0
    return float(np.sum(J[m] * np.log(J[m] / (P[:, None] * py[None, :])[m])))


def test_path20_design_is_certified_with_at_most_d_outputs() -> None:
    d, eps = 20, 1.0
    P = np.random.default_rng(20).dirichlet(np.ones(d))
    G = nx.path_graph(d)
    r = mechopt.design(prior=P, notion="graph-ldp", graph=G, utility="mi", eps=eps)
    assert r.status.value == "optimal" and r.proof == "certificate"
    assert r.extras["method"] == "colgen" and r.extras["pricing"] == "tree branch and bound"
    assert r.Q.shape[0] == d and r.Q.shape[1] <= d
    assert r.certificate.gap <= 1e-8
    assert abs(audit(r.Q, P, G, eps) - r.value) <= 1e-9
    # the complete graph is stricter, so its optimum cannot exceed the path's
    full = mechopt.design(prior=P, notion="ldp", utility="mi", eps=eps)
    assert full.value <= r.value + 1e-9


def test_path12_tree_pricing_matches_enumeration() -> None:
    d, eps = 12, 1.5
    P = np.random.default_rng(12).dirichlet(np.ones(d))
    prob = ChannelDesign.from_params(prior=P, notion="graph-ldp", graph=nx.path_graph(d), utility="mi", eps=eps)
    cg = mechopt.solve(prob, solver="exact", method="colgen")
    en = mechopt.solve(prob, solver="exact", method="enumerate")
    assert cg.status.value == en.status.value == "optimal"
    assert abs(cg.value - en.value) <= 1e-9
    big = ChannelDesign.from_params(
        prior="uniform:16", notion="graph-ldp", graph=nx.path_graph(16), utility="mi", eps=1.0
    )
    with pytest.raises(TooLargeError, match=r"\(got 16\): use method='colgen' or 'auto' \(exact tree pricing"):
        mechopt.solve(big, solver="exact", method="enumerate")
    other = ChannelDesign.from_params(
        prior="uniform:16", notion="graph-ldp", graph=nx.path_graph(16), utility="histogram", eps=1.0
    )
    with pytest.raises(TooLargeError, match="exact tree pricing covers mutual information, not"):
        mechopt.solve(other, solver="exact")


def test_graph_with_a_cycle_keeps_enumeration_and_says_why() -> None:
    d = 16
    G = nx.cycle_graph(d)
    prob = ChannelDesign.from_params(prior=f"uniform:{d}", notion="graph-ldp", graph=G, utility="mi", eps=1.0)
    with pytest.raises(TooLargeError, match=r"limited to d ≤ 14 \(got 16\): the policy graph has cycles.*sqp"):
        mechopt.solve(prob, solver="exact")
    small = ChannelDesign.from_params(
        prior="uniform:5", notion="graph-ldp", graph=nx.cycle_graph(5), utility="mi", eps=1.0
    )
    r = mechopt.solve(small, solver="exact")
    assert r.extras["method"] == "enumerate" and r.status.value == "optimal"
    assert math.isfinite(r.value)


def test_forest_with_components_and_an_isolated_input_matches_enumeration() -> None:
    G = nx.Graph([(0, 1), (2, 3), (3, 4), (6, 7, {"weight": 0.5})])
    G.add_node(5)  # unprotected: its ray is e_5
    P = np.random.default_rng(3).dirichlet(np.ones(8))
    with pytest.warns(UserWarning, match="no edge"):
        prob = ChannelDesign.from_params(prior=P, notion="graph-ldp", graph=G, utility="mi", eps=1.3)
    cg = mechopt.solve(prob, solver="exact", method="colgen")
    en = mechopt.solve(prob, solver="exact", method="enumerate")
    assert cg.status.value == en.status.value == "optimal" and cg.extras["pricing"] == "tree branch and bound"
    assert abs(cg.value - en.value) <= 1e-9


def test_incommensurate_weights_beyond_the_table_limit_say_what_scales() -> None:
    G = nx.path_graph(40)
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.uniform(0.5, 2.0))
    prob = ChannelDesign.from_params(prior="uniform:40", notion="graph-ldp", graph=G, utility="mi", eps=1.0)
    with pytest.raises(TooLargeError, match=r"\(node, height\) entries.*common grid, or use solver='sqp'"):
        mechopt.solve(prob, solver="exact")
