"""``search``: certified global reference for the Gaussian tradeoff with n ≤ 3 features.

Exhaustive search over a grid in the scaled parameter s ∈ [0, 1]ⁿ
(s_i = σ_i/√(σ_i² + v_i); the grid contains s = 0, infinite noise, and
s = 1, no noise), followed by branch-and-bound refinement of the cells that
can still hold the optimum. Reads ``problem.search_form()``.

Bound. The privacy P(s) = I(X_p; Y) and the utility U(s) (I(X_u; Y) or the
Fisher information) are nondecreasing in every s_i: more noise on one
coordinate garbles Y, and mutual and Fisher information obey data
processing. Hence on a cell [a, b]:

* no point is δ-feasible if U(b) < U_thr (prune);
* no point is γ-feasible if P(a) − γ U(b) > P_X − γ U_X (prune), since
  P − γU ≥ P(a) − γU(b) on the cell;
* otherwise every point has P ≥ P(a).

The minimum of P(a) over the unpruned cells is a proven lower bound on the
optimum; the best grid vertex satisfying both constraints exactly is the
returned (feasible) point. Cells whose bound is within ``gap_tol`` of the
incumbent (in the certificate's gap, :func:`mechopt.results.certificate.relative_gap`) are closed; the
others are split in 2ⁿ until the gap closes or ``max_evals`` is spent. The result carries
``Certificate(bound, gap)`` and states its grid (initial cells per axis, finest cell width) in ``extras``.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.gauss.problem import GaussProblem
>>> r = mechopt.solve(GaussProblem.from_params(dataset="1", delta="0.3"), solver="search")
>>> r.status.value, r.proof, r.certificate.gap <= 1e-7, r.extras["grid"]
('optimal', 'certificate', True, 16)
"""

from __future__ import annotations

import itertools
import math
import time
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError, TooLargeError
from mechopt.model.problem import value_gap
from mechopt.model.solver import Solver
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Certificate, Result, Status
from mechopt.runtime.deadline import passed

__all__ = ["SearchSolver", "SOLVERS"]

_FEAS_TOL = 1e-12  # pruning slack for rounding in the monotone bounds (never used for the incumbent)


class _Cache:
    """P and U at grid vertices, keyed by exact dyadic coordinates."""

    def __init__(self, form: Any) -> None:
        self.form, self.data = form, {}

    def fill(self, pts: np.ndarray) -> None:
        keys = [tuple(p) for p in pts]
        new = [k for k in dict.fromkeys(keys) if k not in self.data]
        if new:
            P, U = self.form.evaluate(np.array(new))
            for k, p, u in zip(new, P, U):
                self.data[k] = (float(p), float(u))

    def __getitem__(self, pt: np.ndarray) -> tuple[float, float]:
        return self.data[tuple(pt)]


def _box_bound(form: Any, cache: _Cache, lo: np.ndarray, hi: np.ndarray) -> float | None:
    """Lower bound of P on the box, or None when no point of it is feasible."""
    p_lo, _ = cache[lo]
    _, u_hi = cache[hi]
    if u_hi < form.u_thr - _FEAS_TOL:
        return None
    if form.gamma > 0 and p_lo - form.gamma * u_hi > form.p_full - form.gamma * form.u_full + _FEAS_TOL:
        return None
    return p_lo


def _feasible(form: Any, p: float, u: float) -> bool:
    return u >= form.u_thr and (form.p_full - p) - form.gamma * (form.u_full - u) >= 0.0


def _split(lo: np.ndarray, hi: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    mid = (lo + hi) / 2
    out = []
    for corner in itertools.product((0, 1), repeat=lo.size):
        c = np.array(corner, dtype=bool)
        out.append((np.where(c, mid, lo), np.where(c, hi, mid)))
    return out


def _snap_to_suppression(form: Any, s: np.ndarray, p: float, width: float) -> np.ndarray:
    """Set coordinates within one cell of 0 to exactly 0 (infinite noise) when that stays feasible.

    P is nondecreasing in s, so the snapped point is never worse; it is kept
    only if both constraints still hold exactly.
    """
    for i in np.flatnonzero((s > 0) & (s <= 2 * width)):
        cand = s.copy()
        cand[i] = 0.0
        P, U = form.evaluate(cand[None, :])
        if P[0] <= p and _feasible(form, float(P[0]), float(U[0])):
            s, p = cand, float(P[0])
    return s


class SearchSolver(Solver):
    """Grid search + monotone branch-and-bound with a certificate (module docstring)."""

    name = "search"
    forms = ("search_form",)
    options = {"grid": 16, "gap_tol": 1e-8, "max_evals": 400_000, "max_dim": 3}

    def can_solve(self, problem: Any) -> bool:
        try:
            form = problem.search_form()
        except Exception:
            return False
        return form is not None and form.n <= 3

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        m, tol = int(opts["grid"]), float(opts["gap_tol"])
        if m < 1 or m & (m - 1):
            raise ParamError(f"grid must be a power of two ≥ 1 (cells per axis), got {opts['grid']!r}")
        if not (tol >= 0 and math.isfinite(tol)):
            raise ParamError(f"gap_tol must be a non-negative number, got {opts['gap_tol']!r}")
        form = problem.search_form()
        if form.n > int(opts["max_dim"]):
            raise TooLargeError(
                f"search is exhaustive and limited to n ≤ {opts['max_dim']} features "
                f"(got n = {form.n}); use sqp or greedy for larger problems"
            )
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        cache = _Cache(form)
        axis = np.linspace(0.0, 1.0, m + 1)
        cache.fill(np.array(list(itertools.product(axis, repeat=form.n))))
        boxes = [
            (np.array(c, dtype=float) / m, (np.array(c, dtype=float) + 1) / m)
            for c in itertools.product(range(m), repeat=form.n)
        ]
        best_p, best_s = math.inf, None
        closed_lb, width, rounds, stop = math.inf, 1.0 / m, 0, "gap"
        while True:
            for key, (p, u) in cache.data.items():
                if p < best_p and _feasible(form, p, u):
                    best_p, best_s = p, np.array(key)
            active = []
            for lo, hi in boxes:
                lb = _box_bound(form, cache, lo, hi)
                if lb is None:
                    continue
                if lb >= best_p or relative_gap(best_p, lb) <= tol:  # the gap of the certificate (no scale: stricter)
                    closed_lb = min(closed_lb, lb)
                else:
                    active.append((lb, lo, hi))
            if not active:
                break
            if len(cache.data) >= int(opts["max_evals"]) or passed(deadline):
                stop = "max_evals" if len(cache.data) >= int(opts["max_evals"]) else "time_limit"
                closed_lb = min(closed_lb, min(a[0] for a in active))
                break
            active.sort(key=lambda a: a[0])
            budget = max(1, (int(opts["max_evals"]) - len(cache.data)) // (3**form.n - 2**form.n))
            boxes = [c for _, lo, hi in active[:budget] for c in _split(lo, hi)]
            boxes += [(lo, hi) for _, lo, hi in active[budget:]]
            cache.fill(np.array([b for box in boxes for b in box]))
            width, rounds = min(width, float((boxes[0][1] - boxes[0][0]).max())), rounds + 1
        if best_s is None:  # cannot happen: s = 1 (no noise) is always feasible
            return Result(
                status=Status.INFEASIBLE,
                value=None,
                sense=form.sense,
                objective=form.objective,
                message="no feasible grid vertex",
            )
        best_s = _snap_to_suppression(form, best_s, best_p, width)
        bound = min(closed_lb, best_p)
        value = form.value_of(best_s)
        status = {"gap": Status.OPTIMAL, "max_evals": Status.ITERATION_LIMIT}.get(stop, Status.TIME_LIMIT)
        mech = form.recover(best_s)
        gap = value_gap(problem, mech, value, bound)
        note = ""
        if status is Status.OPTIMAL and gap > settings.tolerance("gap"):  # gap_tol looser than settings' gap
            status, note = Status.OPTIMAL_INACCURATE, f"; certificate gap {gap:.3g} above tolerance"
        return Result(
            status=status,
            value=value,
            sense=form.sense,
            objective=form.objective,
            mechanism=mech,
            certificate=Certificate(bound, gap),
            proof="certificate" if status is Status.OPTIMAL else None,
            iterations=rounds,
            message=(
                f"grid {m}^{form.n} in s ∈ [0,1] (0 = infinite noise, 1 = none) refined {rounds} times "
                f"to cell width {width:.3g}; monotone lower bound, stopped on {stop}{note}"
            ),
            extras={
                "grid": m,
                "finest_cell": width,
                "evaluations": len(cache.data),
                "rounds": rounds,
                "stop": stop,
                "parameter": "s_i = sigma_i / sqrt(sigma_i^2 + v_i)",
            },
        )


SOLVERS = {"search": SearchSolver}
