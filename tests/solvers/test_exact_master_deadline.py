"""The exact master LP keeps one time limit across its refinement re-solves (solvers/exact/lp.py).

Found by a hostile pass: ε-PML mutual information on a d = 48 prior with entries 1e-300 and 1e-200 and
three zeros (no window cover) ran 211 s under ``time_limit=60`` (25 s under 10): the master's first solve
spent its whole limit in HiGHS (IPM without presolve stalls there), then each of the 3 refinement
re-solves was given the *same* full limit again, so the call took 4× its limit.
"""

from __future__ import annotations

import numpy as np

from mechopt.solvers.exact import lp
from mechopt.solvers.exact.lp import Master


class Clock:
    """A fake ``time.perf_counter`` that advances only when a (fake) HiGHS run spends its limit."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_refinements_share_the_master_time_limit(monkeypatch):
    clock, limits = Clock(), []

    def spend_the_limit(R, mu, P, time_limit, centred):  # a stalled HiGHS: runs to its limit, tiny value
        limits.append(time_limit)
        clock.now += time_limit
        return Master("optimal", np.full(R.shape[1], 0.5), np.zeros(P.size), 1e-9, "stalled")

    monkeypatch.setattr(lp.time, "perf_counter", clock)
    monkeypatch.setattr(lp, "_solve_costs", spend_the_limit)
    monkeypatch.setattr(lp, "_settled", lambda *a: False)  # never settled: every refinement round would run
    monkeypatch.setattr(lp, "dual_bound", lambda *a: 2e-9)  # far below the costs' unit: refine (REFINE_BELOW)
    monkeypatch.setattr(lp, "best_duals", lambda R, mu, P, theta, nu: nu)
    R, P = np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([0.5, 0.5])
    start = clock.now
    m = lp.solve_master(R, np.array([1.0, 0.5]), P, time_limit=10.0)
    assert clock.now - start <= 10.0  # was 20.0: the refinement had the full 10 s again
    assert limits[0] == 10.0 and all(t <= 10.0 - sum(limits[:i]) for i, t in enumerate(limits))
    assert m.status == "optimal" and np.isfinite(m.value)


def test_without_a_limit_every_refinement_runs(monkeypatch):
    """Mutation guard: with no limit the refinement rounds still run (REFINE_ROUNDS of them)."""
    calls = []

    def solve(R, mu, P, time_limit, centred):
        calls.append(time_limit)
        return Master("optimal", np.full(R.shape[1], 0.5), np.zeros(P.size), 1e-9, "")

    monkeypatch.setattr(lp, "_solve_costs", solve)
    monkeypatch.setattr(lp, "_better", lambda a, b, *rest: a)  # the value stays tiny: every round refines
    monkeypatch.setattr(lp, "_settled", lambda *a: False)
    monkeypatch.setattr(lp, "dual_bound", lambda *a: 2e-9)
    monkeypatch.setattr(lp, "best_duals", lambda R, mu, P, theta, nu: nu)
    lp.solve_master(np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([1.0, 0.5]), np.array([0.5, 0.5]))
    assert calls == [None] * (1 + lp.REFINE_ROUNDS)
