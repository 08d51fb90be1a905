"""``sqp``: scipy's SLSQP or trust-constr from many starts, on any problem's NLP form.

A local method: it returns the best KKT point found over ``n_starts`` starts
(drawn from ``seed``), with no certificate of global optimality
(``certificate`` is None). Its status is ``locally_optimal`` when that start
converged, ``iteration_limit`` when it stopped at ``max_iter``, never
``optimal`` (see ``docs/status``).

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5)
>>> r = mechopt.solve(prob, solver="sqp", n_starts=4)
>>> r.status.value, r.certificate is None, r.violation <= 1e-7
('locally_optimal', True, True)
>>> r.proof is None, r.message.startswith("best local optimum of 4 starts")
(True, True)
"""
from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
from scipy.optimize import minimize

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.result import Result, Status
from mechopt.solver import Solver

__all__ = ["SQPSolver", "SOLVERS", "MAX_VARIABLES"]

#: Most NLP variables sqp takes on: SLSQP works with dense n × n matrices (n = 40 000 is 12.8 GB).
MAX_VARIABLES = 10_000


MAX_STARTS = 10_000
"""Most random starts one sqp solve takes."""


class SQPSolver(Solver):
    """Multi-start SLSQP / trust-constr.

    Options: ``n_starts``, ``method``, ``max_iter`` (per start; the old spelling ``maxiter`` is
    accepted for one release, with a deprecation note in the result message), ``ftol`` (SLSQP), ``gtol``
    and ``xtol`` (trust-constr); a local solution is kept when it satisfies the
    constraints within the ``nlp_feasibility`` tolerance.
    """

    name = "sqp"
    forms = ("nlp_form",)
    guarantee = "local"
    options = {"n_starts": 20, "method": "SLSQP", "max_iter": 500, "ftol": 1e-12, "gtol": 1e-10, "xtol": 1e-12}

    def can_solve(self, problem: Any) -> bool:
        """Whether the problem has an NLP form of at most ``MAX_VARIABLES`` variables; decided from
        ``problem.nlp_size()`` without building the form when the problem offers it."""
        size = getattr(problem, "nlp_size", None)
        if size is not None:
            try:
                n = size()
            except Exception:
                return False
            return n is not None and n <= MAX_VARIABLES
        try:
            return problem.nlp_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        method = opts["method"]
        if method not in ("SLSQP", "trust-constr"):
            raise ParamError(f"method must be 'SLSQP' or 'trust-constr', got {method!r}")
        n = int(opts["n_starts"])
        if n < 1:
            raise ParamError(f"n_starts must be ≥ 1, got {n}")
        if n > MAX_STARTS:                  # the starts are drawn as one array: 1e9 of them is ~30 GiB
            raise ParamError(f"n_starts = {n} is more than {MAX_STARTS} starts; give n_starts <= {MAX_STARTS} "
                             "(or solver='exact' for a certified optimum)")
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        form = problem.nlp_form()
        rng = np.random.default_rng(opts["seed"])
        fun, jac = _bounded(form.fun, deadline), _bounded(form.jac, deadline)
        best, best_x, iters, tried, hit_limit, best_capped = np.inf, None, 0, 0, False, False
        for x0 in form.starts(rng, n):
            if deadline is not None and time.perf_counter() > deadline:
                hit_limit = True
                break
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                kw = {"ftol": opts["ftol"]} if method == "SLSQP" else {"gtol": opts["gtol"], "xtol": opts["xtol"]}
                try:
                    sol = minimize(fun, x0, jac=jac, bounds=form.bounds, constraints=form.constraints,
                                   method=method, options={"maxiter": int(opts["max_iter"]), **kw})
                except _Deadline:   # the limit bounds a start too, not only the gaps between starts
                    hit_limit = True
                    break
            tried += 1
            iters += int(getattr(sol, "nit", 0) or 0)
            if np.isfinite(sol.fun) and sol.fun < best and _feasible(form, sol.x):
                best, best_x, best_capped = float(sol.fun), sol.x, _hit_maxiter(method, sol)
        if best_x is None:
            status = Status.TIME_LIMIT if hit_limit else Status.NUMERICAL_ERROR
            why = f"time limit reached before start {tried + 1} finished; " if hit_limit else ""
            return Result(status=status, value=None, sense=form.sense, objective=form.objective,
                          message=f"{why}no feasible local solution from {tried} finished starts")
        status = Status.TIME_LIMIT if hit_limit else Status.ITERATION_LIMIT if best_capped else Status.LOCALLY_OPTIMAL
        what = (f"best point of {tried} starts ({method}); it stopped at max_iter={int(opts['max_iter'])} before "
                "converging" if best_capped else f"best local optimum of {tried} starts ({method})")
        return Result(status=status, value=form.value_of(best_x), sense=form.sense, objective=form.objective,
                      mechanism=form.recover(best_x), iterations=iters,
                      message=f"{what}; no certificate of global optimality",
                      extras={"starts": tried, "method": method})


class _Deadline(Exception):
    """Raised inside an objective evaluation once the time limit has passed."""


def _bounded(fn: Any, deadline: float | None) -> Any:
    """``fn`` that raises :class:`_Deadline` after ``deadline`` (every SLSQP / trust-constr iteration
    evaluates the objective or its gradient, so the check runs once per iteration at least)."""
    if deadline is None:
        return fn

    def wrapped(x: np.ndarray) -> Any:
        if time.perf_counter() > deadline:
            raise _Deadline
        return fn(x)

    return wrapped


def _hit_maxiter(method: str, sol: Any) -> bool:
    """Whether scipy stopped this start at its iteration limit (SLSQP status 9, trust-constr status 0)."""
    return int(getattr(sol, "status", -1)) == (9 if method == "SLSQP" else 0)


def _feasible(form, x: np.ndarray, tol: float | None = None) -> bool:
    """Whether x satisfies the form's constraints within ``tol`` (default ``nlp_feasibility``)."""
    from scipy.optimize import LinearConstraint, NonlinearConstraint

    tol = settings.resolve(tol, "nlp_feasibility")
    for c in form.constraints:
        if isinstance(c, LinearConstraint):
            v = c.A @ x
        elif isinstance(c, NonlinearConstraint):
            v = np.atleast_1d(c.fun(x))
        else:
            v = np.atleast_1d(c["fun"](x))
            if c["type"] == "eq":
                if np.any(np.abs(v) > tol):
                    return False
                continue
            if np.any(v < -tol):
                return False
            continue
        if np.any(v < np.asarray(c.lb) - tol) or np.any(v > np.asarray(c.ub) + tol):
            return False
    return True


SOLVERS = {"sqp": SQPSolver}
