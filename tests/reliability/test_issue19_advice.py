"""Issue 19: a "too large" message suggests only what would take the problem.

Input: ``mechopt design --notion ldp --utility histogram --prior uniform:10000000 --eps 1``.
Old: "... raise max_orbits if the prior values repeat (symmetry), or use solver='sqp'", and both decline
(sqp takes at most 10 000 NLP variables, d ≤ 100; symmetry answered "use method='colgen'"); the vertex
enumeration messages suggested solver='conic', which has no form for a channel design.
New: sqp is suggested exactly when it accepts the design; otherwise the message says no local solver does.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.errors import TooLargeError
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.conic import ConicSolver
from mechopt.solvers.sqp import SQPSolver


def _prior(d: int) -> str:
    p = np.random.default_rng(d).dirichlet(np.ones(d))
    return ",".join(f"{x:.17g}" for x in p / p.sum())


CASES = [  # (prior, notion, utility, exact options) that hit a TooLargeError
    ("uniform:10000000", "ldp", "histogram", {}),
    ("uniform:50", "ldp", "histogram", {"method": "colgen", "max_memory": 1e4}),
    ("uniform:200", "ldp", "histogram", {"method": "colgen", "max_memory": 1e4}),
    (_prior(30), "lip", "histogram", {"method": "enumerate", "max_memory": 1e3}),
    (_prior(150), "lip", "histogram", {"method": "enumerate", "max_memory": 1e3}),
]


@pytest.mark.parametrize(
    "prior, notion, utility, opts", CASES, ids=["ldp-1e7", "ldp-50", "ldp-200", "lip-30", "lip-150"]
)
def test_suggestions_are_accepted(prior, notion, utility, opts):
    prob = ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=1.0)
    with pytest.raises(TooLargeError) as err:
        mechopt.solve(prob, solver="exact", **opts)
    msg = str(err.value)
    assert ("solver='sqp'" in msg) == SQPSolver().can_solve(prob), msg
    assert ("no local solver takes it" in msg) == (not SQPSolver().can_solve(prob)), msg
    assert "conic" not in msg and not ConicSolver().can_solve(prob)


def test_the_uniform_ten_million_message(capsys):
    from mechopt.cli import main

    code = main(["design", "--notion", "ldp", "--utility", "histogram", "--prior", "uniform:10000000", "--eps", "1"])
    err = capsys.readouterr().err
    assert code == 2 and "no local solver takes it either (sqp takes d ≤ 100 symbols)" in err
    assert "solver='sqp'" not in err and "max_orbits" not in err
