"""The ``lp`` solver's δ-spanner option and its Laplace-only start on policy graphs, against independent LPs.

The spanner's design must be ε-private in the audit (never presented as the optimum at ε) and lie
between the exact optima at ε and at ε/δ, computed by the dense all-pairs LP of test_lp.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError
from mechopt.geo import points
from mechopt.notions import MetricLDP
from mechopt.problems.geo import GeoDesign
from mechopt.results.result import Status
from mechopt.solvers.lp.spanner import greedy_spanner
from tests.solvers.test_lp import _check, dense_lp


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 8)), min_size=3, max_size=12, unique=True),
    st.sampled_from([1.2, 1.5, 2.0]),
)
def test_greedy_spanner_stretches_no_pair_beyond_the_dilation(xy, dilation):
    D = points(np.array(xy, float)).distances()
    edges, DG = greedy_spanner(D, dilation)
    assert np.all(DG <= dilation * D * (1 + 1e-12) + 1e-12)  # the spanner property, every pair
    assert np.allclose(DG[edges[:, 0], edges[:, 1]], D[edges[:, 0], edges[:, 1]])  # each edge is a shortest path
    assert len(edges) <= len(xy) * (len(xy) - 1) // 2


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 6), st.integers(0, 6)), min_size=4, max_size=10, unique=True),
    st.sampled_from([0.3, 1.0]),
    st.sampled_from([1.3, 2.0]),
)
def test_spanner_design_is_private_at_eps_and_no_worse_than_the_optimum_at_eps_over_delta(xy, eps, dilation):
    xy = np.array(xy, float)
    P = np.arange(1.0, len(xy) + 1) / np.arange(1.0, len(xy) + 1).sum()
    prob = GeoDesign.from_params(coords=xy, eps=eps, prior=P)
    r = mechopt.solve(prob, solver="lp", spanner=dilation)
    assert r.status is Status.FEASIBLE and r.proof is None and r.certificate is None  # never "optimal" at ε
    assert r.eps_audited <= eps * (1 + 1e-9) and r.violation <= 1e-7  # the audit at ε, not at ε/δ
    info = r.extras["spanner"]
    assert info["dilation"] == dilation and info["eps_guarantee"] == pytest.approx(eps / dilation)
    exact = dense_lp(P, prob.utility.L, prob.notion)
    relaxed = dense_lp(P, prob.utility.L, MetricLDP(eps / dilation, prob.notion.dist))
    tol = 1e-7 * max(1.0, exact)
    assert exact - tol <= r.value <= relaxed + (r.value - info["spanner_bound"]) + tol
    assert info["spanner_bound"] <= r.value + tol


def test_spanner_refuses_a_dilation_of_one_or_another_notion():
    prob = GeoDesign.from_params(coords="grid:3x3", eps=0.5)
    for bad in (1.0, 0.5, float("inf"), "2", True):
        with pytest.raises(ParamError, match="dilation"):
            mechopt.solve(prob, solver="lp", spanner=bad)
    graph = GeoDesign.from_params(coords="grid:3x3", eps=0.5, notion="graph-ldp")
    with pytest.raises(ParamError, match="metric-ldp"):
        mechopt.solve(graph, solver="lp", spanner=1.5)


@pytest.mark.parametrize("eps", [0.05, 0.3])
def test_grid_graph_from_laplace_columns_only_matches_the_dense_lp(eps):
    """Policy graphs start from the Laplace columns e^{−ε d(x, c)} alone (no plateaus): same certified optimum."""
    counts = "counts:" + ",".join(str(1 + (3 * i) % 5) for i in range(20))
    prob = GeoDesign.from_params(coords="grid:4x5", eps=eps, prior=counts, notion="graph-ldp")
    r = mechopt.solve(prob, solver="lp")
    _check(r, dense_lp(prob.prior, prob.utility.L, prob.notion))
