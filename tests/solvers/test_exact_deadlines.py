"""The exact master LP keeps one time limit across its refinement re-solves (solvers/exact/lp.py).

Found by a hostile pass: ε-PML mutual information on a d = 48 prior with entries 1e-300 and 1e-200 and
three zeros (no window cover) ran 211 s under ``time_limit=60`` (25 s under 10): the master's first solve
spent its whole limit in HiGHS (IPM without presolve stalls there), then each of the 3 refinement
re-solves was given the *same* full limit again, so the call took 4× its limit.
"""

from __future__ import annotations

import time

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


def test_random_faces_stop_at_the_deadline(monkeypatch):
    """The PML pricer's random faces stop at the run's deadline, not only after ``RANDOM_FACES``.

    Found by a hostile pass: PML MI, d = 64 Dirichlet(1) seed 64, ε = 1, ``time_limit=3`` ran 5.9 s, 2.3 s of
    it in one call of ``_random_faces`` that started near the deadline (its own 3 s budget ignored it).
    """
    from mechopt.solvers.exact.pricing import pml
    from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals, separable_phi
    from mechopt.utilities import MutualInfo

    P = np.random.default_rng(64).dirichlet(np.ones(40))
    h = np.minimum(np.e * P, 1.0)
    phi = separable_phi(MutualInfo(P))
    pr = PMLSeparablePricer(P, h, phi, core=3, wide=4)
    searched = []

    def no_improving_face(nu, fl, fh, lam, core, deadline, rng=None):  # instant, nothing improving
        searched.append(core)
        return np.zeros((0, P.size)), None

    monkeypatch.setattr(pr, "_search", no_improving_face)
    nu = chord_duals(h, phi)
    fl, fh = phi(pr.lo, pr.idx) - nu * pr.lo, phi(h, pr.idx) - nu * h
    pr._random_faces(nu, fl, fh, 0.0, deadline=time.perf_counter() - 1.0, tol=1e-10)
    assert len(searched) == 1  # was RANDOM_FACES (32): the deadline had passed before the first face
    searched.clear()
    pr._random_faces(nu, fl, fh, 0.0, deadline=None, tol=1e-10)
    assert len(searched) == pml.RANDOM_FACES  # no deadline: every face (each instant here)


def test_interior_point_attempts_have_an_iteration_cap(monkeypatch):
    """Every interior-point master attempt carries ``maxiter``; one that reaches it is a failed attempt, not a
    time limit, and the next attempt runs.

    Found by a hostile pass: ``mechopt design --notion pml --utility mi --eps 1`` on a d = 48 prior with entries
    1e-300 and 1e-200 and three zeros, no ``--time-limit``: killed after 300 s, HiGHS's IPX without presolve
    spinning on a 45 x 16 master (323 783 iterations in 8 s, no convergence; 10 000 take 0.44 s).
    """
    from scipy.optimize import OptimizeResult

    seen = []

    def fake_highs(R, mu, P, mode, method, opts, cost, sigma):
        seen.append((method, opts.get("maxiter")))
        if method == "highs-ipm":  # IPX spinning: stops only at its iteration limit
            return OptimizeResult(status=1, x=np.array([0.5, 0.5]), nit=opts["maxiter"], message="Iteration limit")
        return OptimizeResult(status=4, x=None, nit=0, message="HiGHS status not set")  # simplex: no answer

    monkeypatch.setattr(lp, "_highs", fake_highs)
    R, P = np.array([[0.5, 0.5], [0.5, 0.5]]), np.array([0.5, 0.5])
    m = lp._solve_costs(R, np.array([1.0, 0.5]), P, None, centred=False)
    assert all(cap == lp.IPM_MAX_ITER for meth, cap in seen if meth == "highs-ipm")
    assert all(cap is None for meth, cap in seen if meth == "highs-ds")  # simplex runs as before
    assert len(seen) == 9  # every attempt tried: the stalled ones did not end the loop
    assert m.status == "failed"  # no time limit was given: not "time_limit"
