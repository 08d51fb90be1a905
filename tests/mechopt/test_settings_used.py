"""The tolerances moved into ``mechopt.settings`` are read at call time: overriding one changes behaviour."""

from __future__ import annotations

from dataclasses import fields

import numpy as np

import mechopt
from mechopt import settings
from mechopt.problems.design import ChannelDesign
from mechopt.programs.nlp import _clean
from mechopt.results.result import Status

PRIOR = "0.05,0.07,0.1,0.12,0.15,0.2,0.31"


def _colgen(**tol):
    prob = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="histogram", eps=1.0)
    with settings.override(**tol):
        return mechopt.solve(prob, solver="exact", method="colgen")


def test_reduced_cost_and_gap_tolerances_steer_column_generation():
    exact = _colgen()
    assert exact.status is Status.OPTIMAL and exact.certificate.gap <= settings.tolerance("gap")
    # a coarse reduced-cost tolerance stops pricing early: the bound stays valid but the gap opens
    coarse = _colgen(reduced_cost=1e-2)
    assert coarse.status is Status.OPTIMAL_INACCURATE and "certificate gap" in coarse.message
    assert coarse.certificate.gap > 1e-4
    assert coarse.certificate.bound <= exact.value + 1e-12  # MSE is minimised: bound below the optimum
    # the same run with a gap tolerance above that gap is reported optimal
    loose = _colgen(reduced_cost=1e-2, gap=1.0)
    assert loose.status is Status.OPTIMAL
    assert loose.value == coarse.value


def test_dust_tolerance_decides_which_columns_survive():
    Q = np.array([[0.5, 0.5 - 1e-5, 1e-5], [0.4, 0.6 - 1e-5, 1e-5]])
    assert _clean(Q).shape == (2, 3)  # default dust 1e-6 keeps the 1e-5 column
    with settings.override(dust=1e-4):
        kept = _clean(Q)
    assert kept.shape[1] == 2 and np.allclose(kept.sum(axis=1), 1.0)


def test_every_tolerance_is_documented():
    doc = settings.Tolerances.__doc__
    missing = [f.name for f in fields(settings.Tolerances) if f.name not in doc]
    assert not missing, missing


def test_tol_options_of_solve_reach_the_solver_and_the_audit():
    prob = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="histogram", eps=1.0)
    coarse = mechopt.solve(prob, solver="exact", method="colgen", reduced_cost_tol=1e-2)
    assert coarse.status is Status.OPTIMAL_INACCURATE and coarse.certificate.gap > 1e-4
    loose = mechopt.solve(prob, solver="exact", method="colgen", reduced_cost_tol=1e-2, gap_tol=1.0)
    assert loose.status is Status.OPTIMAL and loose.value == coarse.value
    assert settings.tolerance("reduced_cost") == settings.DEFAULTS.reduced_cost  # only for that call
