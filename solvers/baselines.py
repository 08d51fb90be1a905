"""The two baselines of Sharma & Amariucai, Section V: penalised gradient descent and annealing.

Both turn the constrained problem into an unconstrained one with quadratic
penalties, as the paper describes (footnote 1):

    Φ(x) = P(x) + μ [max(0, U_thr − U(x))² + max(0, −g_γ(x))²],

with P = I(X_p; Y), U the utility and g_γ = (P_X − P) − γ (U_X − U) the
γ-slack; they read ``problem.search_form()`` (batched P, U in s).

* ``gd-penalty`` — gradient descent with a finite-difference gradient on the
  normalised noise variances x_i = v_i/σ_i² ≥ 0 (projected onto x ≥ 0, the
  constraint Σ_N ≥ 0 of eq. (3)), Armijo backtracking, μ increased ×100
  per round (``mu0``, ``rounds``).
* ``anneal`` — simulated annealing on s ∈ [0, 1]ⁿ (s_i = σ_i/√(σ_i²+v_i)):
  a neighbour moves one coordinate by a Gaussian step shrinking with the
  temperature, or (probability ``p_jump``) to exactly 0 (infinite noise) or 1
  (no noise); geometric cooling; seeded. The best *feasible* point visited is
  returned.

Penalty methods approach the feasible set from outside; with
``restore=True`` (default) the final point is pulled back along the segment
to the zero-noise point (always feasible) by bisection, so the returned
mechanism satisfies both constraints exactly. Neither has a certificate.

Statuses: ``gd-penalty`` is a local method: ``locally_optimal`` when gradient
descent converged on a point that satisfies both constraints as it stands,
``feasible`` when that point needed a restoration move (the restored point
is not a stationary point of anything), ``infeasible_point`` when it is
infeasible and ``restore=False``. ``anneal`` is a heuristic: ``feasible``
(``infeasible_point`` if it visited no feasible point and ``restore=False``);
``time_limit`` / ``iteration_limit`` when a limit stopped either.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.gauss.problem import GaussProblem
>>> p = GaussProblem.from_params(dataset="1", delta="0.3")
>>> r = mechopt.solve(p, solver="anneal", seed=1, n_iter=500)
>>> r.status.value, r.violation == 0.0, r.certificate is None
('feasible', True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mechopt.errors import ParamError
from mechopt.model.solver import Solver
from mechopt.results.result import Result, Status
from mechopt.runtime.deadline import passed

__all__ = ["GDPenaltySolver", "AnnealSolver", "SOLVERS"]


def _penalised(form: Any, S: np.ndarray, mu: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(Φ, P, feasible) at the rows of S."""
    P, U = form.evaluate(S)
    vd = np.maximum(0.0, form.u_thr - U)
    g = (form.p_full - P) - form.gamma * (form.u_full - U)
    vg = np.maximum(0.0, -g)
    return P + mu * (vd**2 + vg**2), P, (vd == 0) & (vg == 0)


def _restore(form: Any, s: np.ndarray, iters: int = 60) -> np.ndarray:
    """Pull s back toward 1 (no noise, always feasible) until both constraints hold."""
    if _is_feasible(form, s):
        return s
    lo, hi = 0.0, 1.0  # t: s(t) = 1 − t (1 − s); t = 0 feasible, t = 1 infeasible
    for _ in range(iters):
        t = (lo + hi) / 2
        if _penalised(form, (1 - t * (1 - s))[None, :], 0.0)[2][0]:
            lo = t
        else:
            hi = t
    return 1 - lo * (1 - s)


def _is_feasible(form: Any, s: np.ndarray) -> bool:
    """Whether s satisfies both constraints exactly (no penalty)."""
    return bool(_penalised(form, s[None, :], 0.0)[2][0])


def _s_of_x(x: np.ndarray) -> np.ndarray:
    return 1.0 / np.sqrt(1.0 + x)


def _result(form: Any, s: np.ndarray, name: str, iters: int, msg: str, extras: dict, status: Status) -> Result:
    return Result(
        status=status,
        value=form.value_of(s),
        sense=form.sense,
        objective=form.objective,
        mechanism=form.recover(s),
        iterations=iters,
        message=msg + "; no certificate",
        extras=extras,
    )


def _check_common(opts: dict[str, Any], keys: tuple[str, ...]) -> None:
    for key in keys:
        val = opts[key]
        if not (isinstance(val, (int, float)) and val > 0 and math.isfinite(val)):
            raise ParamError(f"{key} must be a positive number, got {val!r}")


class GDPenaltySolver(Solver):
    """Finite-difference gradient descent on quadratic penalties (module docstring)."""

    name = "gd-penalty"
    forms = ("search_form",)
    guarantee = "local"
    options = {"mu0": 100.0, "rounds": 3, "max_iter": 300, "fd_step": 1e-7, "restore": True}

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.search_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        _check_common(opts, ("mu0", "rounds", "max_iter", "fd_step"))
        form = problem.search_form()
        rng = np.random.default_rng(opts["seed"])
        x = rng.uniform(0.0, 0.01, form.n)  # near zero noise (the feasible start)
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        mu, iters, h, stop = float(opts["mu0"]), 0, float(opts["fd_step"]), "converged"
        for _ in range(int(opts["rounds"])):
            stop = "max_iter"
            for _ in range(int(opts["max_iter"])):
                if passed(deadline):
                    stop = "time_limit"
                    break
                iters += 1
                steps = h * np.maximum(1.0, x)
                pts = np.vstack([x, x + np.diag(steps), np.maximum(0.0, x - np.diag(steps))])
                phi = _penalised(form, _s_of_x(pts), mu)[0]
                grad = (phi[1 : form.n + 1] - phi[form.n + 1 :]) / (pts[1 : form.n + 1] - pts[form.n + 1 :]).diagonal()
                t, f0, moved = max(1.0, float(np.abs(x).max())), phi[0], False
                while t > 1e-12 * max(1.0, float(np.abs(x).max())):
                    cand = np.maximum(0.0, x - t * grad)
                    if _penalised(form, _s_of_x(cand)[None, :], mu)[0][0] <= f0 - 1e-4 * grad @ (x - cand):
                        moved = not np.allclose(cand, x, rtol=1e-12, atol=1e-15)
                        x = cand
                        break
                    t /= 2
                if not moved:
                    stop = "converged"
                    break
            mu *= 100.0
            if stop == "time_limit":
                break
        s0 = _s_of_x(x)
        s = _restore(form, s0) if opts["restore"] else s0
        moved = bool(np.any(s != s0))
        status, note = _gd_status(stop, _is_feasible(form, s0), moved, int(opts["max_iter"]))
        return _result(
            form,
            s,
            self.name,
            iters,
            f"penalised finite-difference gradient descent, final mu={mu / 100:g}{note}",
            {"mu_final": mu / 100, "restored": bool(opts["restore"]), "restoration_moved": moved},
            status,
        )


def _gd_status(stop: str, stationary_feasible: bool, moved: bool, max_iter: int) -> tuple[Status, str]:
    """Status and message note of gd-penalty from how it stopped and whether its point needed restoring.

    >>> _gd_status("converged", True, False, 300)[0].value
    'locally_optimal'
    >>> _gd_status("converged", False, True, 300)
    (<Status.FEASIBLE: 'feasible'>, '; the converged point violated a constraint and was restored onto the
    feasible set (no local optimality claimed)')
    """
    if stop == "time_limit":
        return Status.TIME_LIMIT, ""
    if stop == "max_iter":
        return Status.ITERATION_LIMIT, f"; the last round stopped at max_iter={max_iter}"
    if stationary_feasible:
        return Status.LOCALLY_OPTIMAL, "; converged on a feasible point (a local optimum of the penalised program)"
    if moved:
        return (
            Status.FEASIBLE,
            "; the converged point violated a constraint and was restored onto the feasible set "
            "(no local optimality claimed)",
        )
    return Status.INFEASIBLE_POINT, "; the converged point violates a constraint (restore=False)"


class AnnealSolver(Solver):
    """Simulated annealing on s ∈ [0, 1]ⁿ with quadratic penalties (module docstring)."""

    name = "anneal"
    forms = ("search_form",)
    guarantee = "heuristic"
    options = {"n_iter": 4000, "T0": 0.1, "T_end": 1e-5, "step": 0.3, "p_jump": 0.1, "mu": 1e4, "restore": True}

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.search_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        _check_common(opts, ("n_iter", "T0", "T_end", "step", "mu"))
        if not 0 <= opts["p_jump"] <= 1:
            raise ParamError(f"p_jump must be in [0, 1], got {opts['p_jump']!r}")
        form = problem.search_form()
        rng = np.random.default_rng(opts["seed"])
        n_iter, mu = int(opts["n_iter"]), float(opts["mu"])
        alpha = (opts["T_end"] / opts["T0"]) ** (1.0 / max(1, n_iter - 1))
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        s = np.ones(form.n)
        e, p, feas = (a[0] for a in _penalised(form, s[None, :], mu))
        best_s, best_p = s.copy(), p if feas else math.inf
        T, it = float(opts["T0"]), 0
        for it in range(1, n_iter + 1):
            if passed(deadline):
                break
            cand = s.copy()
            i = int(rng.integers(form.n))
            if rng.random() < opts["p_jump"]:
                cand[i] = float(rng.integers(2))
            else:
                cand[i] = np.clip(cand[i] + rng.normal(0.0, opts["step"] * max(T / opts["T0"], 1e-3)), 0.0, 1.0)
            e2, p2, f2 = (a[0] for a in _penalised(form, cand[None, :], mu))
            if e2 <= e or rng.random() < math.exp(-(e2 - e) / T):
                s, e = cand, e2
                if f2 and p2 < best_p:
                    best_s, best_p = cand.copy(), p2
            T *= alpha
        msg = "simulated annealing with quadratic penalties (best feasible visited); a heuristic"
        if not math.isfinite(best_p):
            best_s = _restore(form, s) if opts["restore"] else s
            msg = "simulated annealing with quadratic penalties visited no feasible point; " + (
                "the last point was restored" if opts["restore"] else "the last point is returned (restore=False)"
            )
        status = (
            Status.TIME_LIMIT
            if it < n_iter
            else Status.FEASIBLE
            if _is_feasible(form, best_s)
            else Status.INFEASIBLE_POINT
        )
        return _result(form, best_s, self.name, it, msg, {"n_iter": n_iter, "T_end": opts["T_end"]}, status)


SOLVERS = {"gd-penalty": GDPenaltySolver, "anneal": AnnealSolver}
