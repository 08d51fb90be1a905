"""The conic Fisher grid values carry an honest error estimate: it bounds the distance to the
continuous optimum (the closed form) on several grids, and the extrapolated value is closer still."""

from __future__ import annotations

import math

import pytest

import mechopt
from mechopt import settings
from mechopt.errors import ParamError
from mechopt.problems.fisher.extrapolate import coarser_grids, grid_estimate, richardson
from mechopt.problems.fisher.weighted import FisherWeighted
from mechopt.registry import get_problem

# (problem id, params): grids from 15 to 2000 points, queries, a box with unequal axes, the
# unbounded problems (grid + truncation error)
CASES = [
    ("fisher-interval", {"a": "-1", "b": "1", "n": "15"}),
    ("fisher-interval", {"a": "-1", "b": "1", "n": "60"}),
    ("fisher-interval", {"a": "-1", "b": "1", "n": "400"}),
    ("fisher-interval", {"a": "-1", "b": "1", "n": "2000"}),
    ("fisher-interval", {"a": "0", "b": "3", "n": "400", "query": "average:0.2,0.3,0.5"}),
    ("fisher-interval", {"a": "-1", "b": "1", "n": "300", "query": "variance:10:0:1"}),
    ("fisher-output", {"y_lo": "0", "y_hi": "10", "f_lo": "2", "f_hi": "6", "n": "400"}),
    ("fisher-box", {"lower": "-1,0", "upper": "1,3", "n": "20,20"}),
    ("fisher-box", {"lower": "-1,0", "upper": "1,3", "n": "9,30"}),
    ("fisher-gaussian", {"m": "2", "sigma2": "4", "n": "400"}),
    ("fisher-gaussian", {"m": "1", "xi": "4", "n": "60"}),
    ("fisher-gaussian", {"m": "1", "xi": "4", "n": "400"}),
    ("fisher-gaussian", {"m": "3", "sigma2": "1", "n": "150"}),
]


@pytest.mark.parametrize("pid, params", CASES, ids=[f"{p}-{'-'.join(v for v in q.values())}" for p, q in CASES])
def test_error_estimate_bounds_the_distance_to_the_closed_form(pid: str, params: dict) -> None:
    prob = get_problem(pid).from_params(**params)
    grid = mechopt.solve(prob, solver="conic")
    exact = prob.closed_form().value
    est = grid.extras["error_estimate"]
    true = abs(exact - grid.value)
    assert true > 0 and true <= est  # it bounds the distance ...
    # ... and is not vacuous: at most twice the distance plus the solver allowance (grid_noise)
    assert est <= 2 * true + 3 * settings.tolerance("grid_noise") * abs(exact)
    assert abs(grid.extras["extrapolated"] - exact) <= grid.extras["extrapolated_error"]
    assert abs(grid.extras["extrapolated"] - exact) < true  # extrapolation to zero mesh helps
    if pid == "fisher-gaussian":  # the truncation to [-R, R] is part of it
        assert 0 < grid.extras["truncation_error"] < est


def test_a_narrow_truncation_window_is_seen_by_the_estimate() -> None:
    """width 4 (R = 4 standard deviations): the truncation, not the grid, dominates the error."""
    prob = get_problem("fisher-gaussian").from_params(m="1", xi="4", n="400", width="4")
    grid = mechopt.solve(prob, solver="conic")
    true = abs(grid.value - 4.0)
    assert true > 1e-3 and grid.extras["truncation_error"] >= true
    assert grid.extras["error_estimate"] >= true


def test_too_coarse_a_grid_has_no_estimate_and_says_why() -> None:
    prob = get_problem("fisher-box").from_params(lower="0,0,0", upper="1,2,3", n="7,7,7")
    extras = mechopt.solve(prob, solver="conic").extras
    assert "error_estimate" not in extras and "cannot be coarsened twice" in extras["error_note"]


def test_weighted_program_converges_at_first_order_and_the_estimate_uses_it() -> None:
    prob = FisherWeighted.from_params(a="-1", b="1", c="0", d="4", weight="exp:0.5", nw="11")
    v = {nw: prob._grid_value(nw) for nw in (11, 23, 47)}
    order = math.log2((v[11] - v[23]) / (v[23] - v[47]))
    assert FisherWeighted.grid_order == 1 and abs(order - 1) < 0.1
    res = mechopt.solve(prob, solver="conic")
    assert res.value == pytest.approx(v[11], rel=1e-5)
    # the optimum decreases with h toward the continuum: v(11) − v(47) is a lower bound of the error
    assert res.extras["error_estimate"] >= v[11] - v[47]
    assert res.extras["richardson_grids"] == [11, 5, 3]


def test_richardson_is_exact_on_a_quadratic_in_h_squared() -> None:
    h = [0.05, 0.1, 0.2]
    vals = [2.0 + 3 * s**2 - 5 * s**4 for s in h]
    out = richardson(vals, h, noise=0.0)
    r01 = vals[0] + (vals[0] - vals[1]) / 3
    assert out["extrapolated"] == pytest.approx(r01)
    assert abs(out["extrapolated"] - 2.0) <= out["extrapolated_error"]
    assert abs(vals[0] - 2.0) <= out["error_estimate"] <= 1.1 * abs(vals[0] - 2.0)
    with pytest.raises(ParamError, match="increase"):
        richardson(vals, h[::-1])
    with pytest.raises(ParamError, match="three grids"):
        richardson(vals[:2], h[:2])


def test_grid_estimate_reports_a_failed_coarse_solve() -> None:
    out = grid_estimate(lambda m: None if m < 100 else 1.0, 400, 1.0)
    assert "error_estimate" not in out and "did not solve" in out["error_note"]
    assert coarser_grids(8) == [] and "cannot be coarsened" in grid_estimate(lambda m: 1.0, 8)["error_note"]
