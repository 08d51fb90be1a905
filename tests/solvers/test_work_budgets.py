"""Without a time limit the exact and robust searches stop on work budgets, not the clock: a run on a machine whose
clock races (each ``time.perf_counter()`` 100 s after the last, a very slow or loaded machine) gives the same
numbers as a normal run (same Q, value, status and certificate gap)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.exact import box as exact_box
from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing import bnb, cover, flips, mitm, pml, strata_bound
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals
from mechopt.solvers.robust.cone import box as boxprice
from mechopt.solvers.robust.cone import ratio as coneratio
from tests.solvers.test_exact_pml_pricing import _box, _phi, _sep_gain

BUDGETED = (pml, bnb, flips, mitm, strata_bound, cover, exact_box, boxprice, coneratio)


def _racing_clock(monkeypatch) -> list[int]:
    """Make ``time.perf_counter()`` in the budgeted modules jump 100 s per call; returns the call counter."""
    calls = [0]

    def perf_counter() -> float:
        calls[0] += 1
        return 100.0 * calls[0]

    fake = types.SimpleNamespace(perf_counter=perf_counter)
    for mod in BUDGETED:
        if hasattr(mod, "time"):
            monkeypatch.setattr(mod, "time", fake)
    return calls


def _same(a, b) -> None:
    assert a.status == b.status
    assert np.array_equal(a.Q, b.Q) and a.value == b.value
    assert getattr(a.certificate, "gap", None) == getattr(b.certificate, "gap", None)


@pytest.mark.parametrize("fallback", [None, 30])
def test_pml_pricer_searches_do_not_depend_on_the_clock(fallback, monkeypatch):
    """Faces of 2 coordinates: the random faces, the branch and bound (and with 30 nodes, the flip sets) run (PML MI,
    d = 12, ε = 2); on main their 3 s / 5 s / 30 s clock budgets made the racing run stop them at once."""
    P = np.random.default_rng(912).dirichlet(np.ones(12))
    lo, h = _box(P, 2.0, None)
    phi = _phi("mi", P)
    if fallback is not None:  # a small budget: the flip sets run too
        monkeypatch.setattr(pml, "FALLBACK_NODES", fallback)

    def run():
        pr = PMLSeparablePricer(P, h, phi, core=2, wide=2, lo=lo)
        out = column_generation(
            P, _sep_gain(phi, 12), pr, P[:, None].copy(), start=chord_duals(h, phi, lo), smoothing=0.9
        )
        return pr, out

    pr, out = run()
    assert pr.calls_fallback > 0 and (fallback is None or pr.calls_flips > 0)  # the searches under test ran
    _racing_clock(monkeypatch)
    pr2, out2 = run()
    assert (pr2.calls_fallback, pr2.calls_flips, pr2.nodes) == (pr.calls_fallback, pr.calls_flips, pr.nodes)
    assert out2.master.value == out.master.value and out2.bound == out.bound
    assert out2.status == out.status and np.array_equal(out2.R, out.R) and out2.iterations == out.iterations


def test_pml_window_cover_run_does_not_depend_on_the_clock(monkeypatch):
    """PML MI, d = 64 > ``MITM_MAX_D``, ε = 1: the window cover starts the master (its 60 s clock budget on main)."""
    prior = np.random.default_rng(64).dirichlet(np.ones(64))
    prob = ChannelDesign.from_params(prior=prior, notion="pml", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="exact")
    assert ref.status.value == "optimal" and ref.extras.get("cover_columns")
    _racing_clock(monkeypatch)
    _same(mechopt.solve(prob, solver="exact"), ref)


def test_robust_box_pricer_run_does_not_depend_on_the_clock(monkeypatch):
    """LIP MI over 3 priors, d = 8, the posterior-box branch and bound (600 s per call on main)."""
    V = np.random.default_rng(8).dirichlet(np.ones(8), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="robust-rays", cone_pricer="box")
    assert ref.status.value == "optimal"
    _racing_clock(monkeypatch)
    _same(mechopt.solve(prob, solver="robust-rays", cone_pricer="box"), ref)


@pytest.mark.parametrize("mod", [pml, boxprice, exact_box])
def test_no_wall_clock_budget_is_left(mod):
    """The replaced budgets are gone (a count each now)."""
    assert not [n for n in vars(mod) if n.endswith("_SECONDS")]
