"""The ``lp`` solver's full essential-pairs LP path (method="full"): value, certificate and the auto rule.

References: the column-generation path of the same solver and the dense all-pairs LP of test_lp (scipy's
HiGHS on every ordered pair), which shares no code with the full path.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError, TooLargeError
from mechopt.geo import ExpectedLoss
from mechopt.problems.design import ChannelDesign
from mechopt.problems.geo import GeoDesign
from mechopt.registry import get_problem
from mechopt.results.result import Status
from mechopt.solvers.lp import solver as lp_solver
from mechopt.solvers.lp.cones import LDPCone, MetricCone
from mechopt.solvers.lp.full import DENSE_PAIRS_PER_POINT, choose, full_memory, proven_bound
from mechopt.solvers.lp.spanner import greedy_spanner
from tests.solvers.test_lp import _check, dense_lp


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), min_size=4, max_size=12, unique=True),
    st.sampled_from([0.1, 0.5, 1.5]),
)
def test_full_path_equals_column_generation_and_the_all_pairs_lp_on_random_points(xy, eps):
    xy = np.array(xy, float)
    w = 1.0 + np.arange(len(xy)) % 4
    prob = GeoDesign.from_params(coords=xy, eps=eps, prior=w / w.sum())
    ref = dense_lp(prob.prior, prob.utility.L, prob.notion)
    full = mechopt.solve(prob, solver="lp", method="full")
    _check(full, ref)
    assert full.extras["method"].startswith("full")
    _check(mechopt.solve(prob, solver="lp", method="colgen"), ref)
    gap = full.extras["relative_gap"]
    assert full.certificate.bound <= full.value and 0 <= gap <= 1e-7


@pytest.mark.parametrize("eps", [0.1, 0.5])
def test_auto_switches_from_stalled_column_generation_to_the_full_lp(eps, monkeypatch):
    prob = GeoDesign.from_params(coords="grid:4x4", eps=eps)
    ref = dense_lp(prob.prior, prob.utility.L, prob.notion)
    _check(mechopt.solve(prob, solver="lp"), ref)  # auto: whichever path it ends on, the same certified optimum
    monkeypatch.setattr(lp_solver, "STALL_PASSES", 1)  # "stalled" after one full pass without convergence
    auto = mechopt.solve(prob, solver="lp")
    _check(auto, ref)
    assert auto.extras["method"].startswith("full") and auto.extras["column_generation_first"]["full_passes"] == 1
    # a pair is essential iff no third grid point lies on its segment: coprime offsets (86 on 4x4, 3106 on 10x10)
    pts = [(i, j) for i in range(4) for j in range(4)]
    coprime = sum(math.gcd(abs(a - c), abs(b - d)) == 1 for (a, b), (c, d) in itertools.combinations(pts, 2))
    assert auto.extras["essential_pairs"] == coprime == 86
    colgen = mechopt.solve(prob, solver="lp", method="colgen")
    _check(colgen, ref)
    assert colgen.extras["method"].startswith("column generation")


def test_proven_bound_holds_for_any_row_prices():
    """Weak duality: Σ u + Σ_y min(0, β_y) ≤ OPT for random u, not only the LP's duals."""
    prob = GeoDesign.from_params(coords="grid:3x3", eps=0.4)
    C = prob.prior[:, None] * prob.utility.L
    ref = dense_lp(prob.prior, prob.utility.L, prob.notion)
    D = prob.notion.dist
    cone = MetricCone(D, 0.4, start=np.array(np.triu_indices(9, 1)).T, complete=True)
    rng = np.random.default_rng(3)
    bounds = [proven_bound(C, cone.start, cone, rng.normal(0.2, 0.3, 9))[0] for _ in range(20)]
    assert max(bounds) <= ref + 1e-12 and min(bounds) < ref - 1e-3  # valid, and not trivially tight


def test_auto_rule_picks_column_generation_on_sparse_cones_and_under_the_budget():
    grid = GeoDesign.from_params(coords="grid:4x4", eps=0.5, notion="graph-ldp")  # 24 edges: 1.5 per point
    r = mechopt.solve(grid, solver="lp")
    assert r.extras["method"].startswith("column generation")
    D = GeoDesign.from_params(coords="grid:4x4", eps=0.5).notion.dist
    cone = MetricCone(D, 0.5)
    method, pairs = choose("auto", cone, 16, 1e12)
    assert method == "stall" and len(pairs) > DENSE_PAIRS_PER_POINT * 16
    assert choose("auto", cone, 16, full_memory(16, 16, len(pairs)) - 1) == ("colgen", None)  # over the budget
    edges, DG = greedy_spanner(D, 1.5)  # the four neighbours: 24 edges, sparse
    assert choose("auto", MetricCone(DG, 0.5, start=edges, complete=True), 16, 1e12) == ("colgen", None)
    assert choose("auto", LDPCone(4, 1.0), 4, 1e12) == ("colgen", None)


def test_full_method_refusals_are_typed_one_line_errors():
    prob = GeoDesign.from_params(coords="grid:4x4", eps=0.5)
    with pytest.raises(TooLargeError, match="full_memory") as exc:
        mechopt.solve(prob, solver="lp", method="full", full_memory=1e6)
    assert "\n" not in str(exc.value)
    with pytest.raises(ParamError, match="method is one of"):
        mechopt.solve(prob, solver="lp", method="simplex")
    with pytest.raises(ParamError, match="full_memory"):
        mechopt.solve(prob, solver="lp", full_memory=-1.0)
    ldp = get_problem("design").from_params(prior=[0.5, 0.5], notion="ldp", utility="mae", eps=1.0)
    with pytest.raises(ParamError, match="graph- and metric-LDP"):
        mechopt.solve(ldp, solver="lp", method="full")


def test_full_path_with_a_dense_spanner_is_still_only_feasible():
    prob = GeoDesign.from_params(coords="grid:4x4", eps=0.5)
    r = mechopt.solve(prob, solver="lp", spanner=1.2, method="full")
    assert r.status.value == "feasible" and r.proof is None and r.eps_audited <= 0.5 * (1 + 1e-9)
    assert r.extras["method"].startswith("full")


def test_full_path_is_unit_free():
    """A loss ×1e-9 or ×1e9: the same channel, the value and the bound rescaled (the LP runs on the normalised loss)."""
    counts = "counts:" + ",".join(str(1 + (3 * i) % 5) for i in range(16))
    base = GeoDesign.from_params(coords="grid:4x4", eps=0.3, prior=counts)
    out = {}
    for s in (1e-9, 1.0, 1e9):
        prob = ChannelDesign(prior=base.prior, notion=base.notion, utility=ExpectedLoss(base.utility.L * s))
        out[s] = mechopt.solve(prob, solver="lp", method="full")
        assert out[s].status is Status.OPTIMAL and out[s].extras["relative_gap"] <= 1e-7
    for s in (1e-9, 1e9):
        assert np.allclose(out[s].Q, out[1.0].Q, atol=1e-9)
        assert out[s].value == pytest.approx(s * out[1.0].value, rel=1e-9)
        assert out[s].certificate.bound == pytest.approx(s * out[1.0].certificate.bound, rel=1e-8)


@pytest.mark.parametrize("method", ["full", "auto"])
def test_time_limit_on_the_full_path_is_a_status_with_a_private_mechanism(method):
    prob = GeoDesign.from_params(coords="grid:5x5", eps=0.1)
    r = mechopt.solve(prob, solver="lp", method=method, time_limit=1e-3)
    assert r.status in (Status.TIME_LIMIT, Status.OPTIMAL), r.message
    assert r.violation <= 1e-7 and np.allclose(r.Q.sum(axis=1), 1.0, atol=1e-12)
    if r.status is Status.TIME_LIMIT:
        assert r.proof is None and r.certificate.bound <= r.value
