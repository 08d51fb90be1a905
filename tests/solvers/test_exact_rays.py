"""Ray enumerators of the exact solver, each checked against generic vertex enumeration."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.notions import CIP, LDP, LIP, GraphLDP
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status
from mechopt.solvers.exact.rays import (
    dd_rays,
    dedupe,
    ldp_rays,
    lip_vertex_count,
    lip_vertices,
    single_statistic,
    two_point_vertices,
)
from mechopt.utilities import SumMSE


def same_columns(A: np.ndarray, B: np.ndarray, tol: float = 1e-8) -> bool:
    if A.shape != B.shape:
        return False
    ka = sorted(map(tuple, np.round(A.T / tol)))
    kb = sorted(map(tuple, np.round(B.T / tol)))
    return np.allclose(np.array(ka) * tol, np.array(kb) * tol, atol=10 * tol)


def brute_vertices(A: np.ndarray) -> np.ndarray:
    """Vertices of {p ∈ Δ : A p ≥ 0} by brute force over d-subsets of tight constraints (tiny d)."""
    d = A.shape[1]
    M = np.vstack([np.eye(d), A])
    out = []
    for rows in itertools.combinations(range(M.shape[0]), d - 1):
        S = np.vstack([M[list(rows)], np.ones(d)])
        if abs(np.linalg.det(S)) < 1e-12:
            continue
        p = np.linalg.solve(S, np.eye(d)[-1])
        if np.all(M @ p >= -1e-10):
            out.append(np.clip(p, 0, None))
    return dedupe(np.array(out).T)


@pytest.mark.parametrize("seed", range(3))
def test_ldp_and_lip_rays_match_double_description(seed: int) -> None:
    rng = np.random.default_rng(seed)
    P, eps = rng.dirichlet(np.ones(5)), float(rng.uniform(0.2, 2))
    assert same_columns(dedupe(ldp_rays(P, eps)[:, 1:]), dd_rays(LDP(eps).cone(P)))
    L = lip_vertices(P, eps)
    assert same_columns(L, dd_rays(LIP(eps).cone(P)))
    assert lip_vertex_count(P, eps) == L.shape[1]


def test_double_description_matches_brute_force_on_policy_graph() -> None:
    P = np.array([0.1, 0.2, 0.3, 0.4])
    notion = GraphLDP(0.7, nx.path_graph(4))
    assert same_columns(dd_rays(notion.cone(P)), brute_vertices(notion.cone(P)))


@pytest.mark.parametrize("n,p1,eps", [(3, 0.3, 0.5), (4, 0.5, 1.0), (5, 0.2, 0.3)])
def test_cip_binomial_vertices_are_point_masses_and_two_point_mixtures(n: int, p1: float, eps: float) -> None:
    notion = CIP.binomial(eps, n, p1)
    A = notion.cone(notion.prior())
    assert single_statistic(A)
    V = two_point_vertices(A)
    assert same_columns(V, dd_rays(A))
    assert same_columns(V, brute_vertices(A))
    assert np.all((V > 1e-12).sum(axis=0) <= 2)


def test_cip_general_statistics_need_more_than_two_points() -> None:
    notion = CIP(0.3, [0.1, 0.5, 0.9])
    A = notion.cone(notion.prior())
    assert not single_statistic(A)
    V = dd_rays(A)
    assert same_columns(V, brute_vertices(A))
    assert V.shape[1] > two_point_vertices(A).shape[1]  # vertices with support ≥ 3 exist


@pytest.mark.parametrize("p", [[0.3] * 4, [0.1, 0.5, 0.9]])
def test_cip_exact_is_certified_and_private(p) -> None:
    notion = CIP(0.5, p)
    prob = ChannelDesign(prior=notion.prior(), notion=notion, utility=SumMSE(np.arange(len(p) + 1.0)))
    r = mechopt.solve(prob, solver="exact")
    s = mechopt.solve(prob, solver="sqp", n_starts=4)
    assert r.status is Status.OPTIMAL and r.proof == "certificate" and r.certificate.gap <= 1e-9 and r.violation <= 1e-7
    assert r.value <= s.value + 1e-9 + 10 * (s.violation or 0.0)


def test_graph_ldp_exact_beats_complete_graph_and_sqp() -> None:
    P = np.array([0.1, 0.2, 0.3, 0.25, 0.15])
    util = SumMSE(np.arange(5.0))
    path = mechopt.solve(ChannelDesign(prior=P, notion=GraphLDP(1.0, nx.path_graph(5)), utility=util), solver="exact")
    full = mechopt.solve(ChannelDesign(prior=P, notion=LDP(1.0), utility=util), solver="exact")
    assert path.status is Status.OPTIMAL and path.violation <= 1e-7 and path.certificate.gap <= 1e-9
    assert path.value <= full.value + 1e-12  # fewer constraints, lower MSE


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(3, 7), metric=st.booleans())
def test_essential_weights_keep_the_graph_ldp_cone(seed, d, metric) -> None:
    """Dropping the pairs implied by shorter paths leaves the same rays (metric-LDP on a graph is
    graph-LDP on its edges); random connected graphs with random weights."""
    from mechopt.solvers.exact.pricing.tree import essential_weights
    from mechopt.solvers.exact.rays import graph_ldp_rays

    rng = np.random.default_rng(seed)
    G = nx.gnm_random_graph(d, int(rng.integers(d - 1, d * (d - 1) // 2 + 1)), seed=int(rng.integers(1 << 30)))
    G.add_edges_from((i, i + 1) for i in range(d - 1))  # connected
    for a, b in G.edges:
        G[a][b]["weight"] = float(rng.choice([1.0, 2.0, rng.uniform(0.5, 2.0)]))
    W = GraphLDP(1.0, G, metric=metric).pair_weights(d)
    full, fewer = graph_ldp_rays(W, 1.0), graph_ldp_rays(essential_weights(W), 1.0)
    assert full.shape == fewer.shape
    key = lambda R: sorted(map(tuple, np.round(R.T, 9)))  # noqa: E731
    assert np.allclose(np.array(key(full)), np.array(key(fewer)), atol=1e-9)
