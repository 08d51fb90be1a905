"""Issue 19: the master LP's certificate reaches the gap floor (objectives below it are certified ``optimal``).

The problems below were found by hypothesis (tests/reliability/test_properties.py): with the master's
costs unscaled, HiGHS's absolute dual tolerance (1e-10) left |bound − value| = 1.2e-10 to 2.4e-10, a gap of
1.2e-7 to 2.4e-7 below the floor (1e-3), and the answers were ``optimal_inaccurate`` (the fourth only
after costs were scaled by 100).
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status

SKEWED = [7.729766194478664e-10, 1.5173920531582358e-07, 9.75684736042963e-06, 0.9992507957528376, 0.000739294887620064]
CASES = [
    dict(
        prior=SKEWED,
        notion="graph-ldp",
        graph=nx.star_graph(4),
        utility="mse",
        values=[2.0, 1.0, 0.0, -1.0, -2.0],
        eps=1.0,
    ),
    dict(
        prior=SKEWED,
        notion="graph-ldp",
        graph=nx.star_graph(4),
        utility="mse",
        values=[2.0, 0.0, 0.0, -1.0, -2.0],
        eps=1.0,
    ),
    dict(
        prior=[2.2905457304290004e-11, 0.0, 0.9999999998284987, 1.4859589209755863e-10],
        notion="ldp",
        utility="mi",
        eps=1.0,
    ),
    # costs × 100 still left 1.8e-10 here (an MSE of 7.5e-8 is a master value near 1): re-solved × 100²
    dict(
        prior=[0.4999996666198643, 0.4999996666198643, 6.667602715121061e-07],
        notion="ldp",
        utility="histogram",
        eps=17.78279410038923,
    ),
    # the basis duals solved in mechanism scale left 3.9e-9 and HiGHS's 1.3e-10 (optimal_inaccurate, gap 1.3e-7):
    # solved in the original scale they close the gap (found by hypothesis in a full-suite run)
    dict(
        prior=[0.49999975, 0.49999975, 5e-7], notion="graph-ldp", graph=nx.complete_graph(3), utility="mse", eps=22.07
    ),
    dict(
        prior=[0.49999975, 0.49999975, 5e-7],
        notion="graph-ldp",
        graph=nx.complete_graph(3),
        utility="histogram",
        eps=22.07,
    ),
]


@pytest.mark.parametrize(
    "kw",
    CASES,
    ids=[
        "graph-mse-a",
        "graph-mse-b",
        "ldp-mi-point-mass",
        "ldp-histogram-eps17.8",
        "graph-mse-eps22",
        "graph-histogram-eps22",
    ],
)
def test_objectives_below_the_gap_floor_are_certified(kw: dict) -> None:
    P = np.asarray(kw["prior"], float)
    prob = ChannelDesign.from_params(**{**kw, "prior": P / P.sum()})
    r = mechopt.solve(prob, solver="exact")
    assert r.status is Status.OPTIMAL and r.proof == "certificate"
    assert abs(r.certificate.bound - r.value) <= 1e-12


def test_master_duals_that_overflow_in_mechanism_scale_become_zero_without_a_warning() -> None:
    """Hostile run: a prior entry of 1e-300 makes the row scale 1/P = 1e300, and HiGHS's marginals times it
    overflowed (12 raw RuntimeWarnings, inf duals). Any finite ν gives a valid bound, so an overflow is 0."""
    import warnings
    from types import SimpleNamespace

    from mechopt.solvers.exact import lp

    P = np.array([1e-300, 0.5, 0.5 - 1e-300])
    R = np.array([[1e-300, 0.0], [0.25, 0.25], [0.25, 0.25]]) * 2
    res = SimpleNamespace(x=np.array([0.5, 0.5]), eqlin=SimpleNamespace(marginals=np.array([-1e10, -1.0, -2.0])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, nu = lp._extract(R, P, res, True, 1.0, 0.0)
    assert np.all(np.isfinite(nu)) and nu[0] == 0.0 and nu[1] == pytest.approx(2.0) and nu[2] == pytest.approx(4.0)
    assert np.isfinite(lp.dual_bound(nu, P, R, np.array([0.1, 0.2])))
