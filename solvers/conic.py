"""``conic``: cvxpy with Clarabel (by default) on any problem's conic form.

Examples
--------
>>> import cvxpy as cp, numpy as np
>>> from mechopt.forms import ConicForm
>>> from mechopt.problem import Problem
>>> class Tiny(Problem):
...     def conic_form(self):
...         x = cp.Variable(2)
...         prob = cp.Problem(cp.Minimize(cp.sum_squares(x - 1)), [cp.sum(x) == 1])
...         return ConicForm(problem=prob, recover=lambda: x.value, sense="min", objective="sq")
>>> r = ConicSolver().solve(Tiny())
>>> r.status.value, round(r.value, 6)
('optimal', 0.5)
"""
from __future__ import annotations

from typing import Any

import cvxpy as cp

from mechopt.errors import ParamError, SolverError
from mechopt.result import Certificate, Result, Status
from mechopt.solver import Solver

__all__ = ["ConicSolver", "SOLVERS", "CVXPY_STATUS"]

CVXPY_STATUS = {
    cp.OPTIMAL: Status.OPTIMAL,
    cp.OPTIMAL_INACCURATE: Status.OPTIMAL_INACCURATE,
    cp.INFEASIBLE: Status.INFEASIBLE,
    cp.INFEASIBLE_INACCURATE: Status.INFEASIBLE,
    cp.UNBOUNDED: Status.UNBOUNDED,
    cp.UNBOUNDED_INACCURATE: Status.UNBOUNDED,
    cp.USER_LIMIT: Status.TIME_LIMIT,
    cp.SOLVER_ERROR: Status.SOLVER_ERROR,
}


class ConicSolver(Solver):
    """Solve ``problem.conic_form()`` with cvxpy; the backend is an option."""

    name = "conic"
    options = {"backend": "CLARABEL", "backend_options": None}
    requires = ("cvxpy", "clarabel")

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.conic_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        backend = str(opts["backend"]).upper()
        if backend not in cp.installed_solvers():
            raise ParamError(f"cvxpy backend {backend!r} is not installed; installed: {', '.join(cp.installed_solvers())}")
        form = problem.conic_form()
        kw = dict(opts["backend_options"] or {})
        if opts["time_limit"] is not None and backend == "CLARABEL":
            kw.setdefault("time_limit", float(opts["time_limit"]))
        try:
            form.problem.solve(solver=backend, verbose=bool(opts["verbose"]), **kw)
        except cp.error.SolverError as exc:
            raise SolverError(f"cvxpy/{backend} failed: {exc}") from exc
        status = CVXPY_STATUS.get(form.problem.status, Status.SOLVER_ERROR)
        stats = form.problem.solver_stats
        if form.problem.status == cp.USER_LIMIT:
            status = _which_limit(backend, kw, stats)
        if not status.has_solution:
            return Result(status=status, value=None, sense=form.sense, objective=form.objective,
                          message=f"cvxpy status {form.problem.status}")
        value = form.value_of(form.problem.value)
        # A convex program solved to optimality: the solver's duality gap is the certificate.
        cert = Certificate(bound=value, gap=0.0) if status is Status.OPTIMAL else None
        return Result(status=status, value=value, sense=form.sense, objective=form.objective,
                      mechanism=form.recover(), certificate=cert,
                      iterations=getattr(stats, "num_iters", None),
                      message=f"cvxpy/{backend}: {form.problem.status}" + _limit_note(status, kw),
                      extras={**form.extras, "solve_time_s": getattr(stats, "solve_time", None)})


def _which_limit(backend: str, kw: dict[str, Any], stats: Any) -> Status:
    """cvxpy reports every user limit as ``user_limit``: tell Clarabel's iteration limit from its time limit."""
    iters = getattr(stats, "num_iters", None)
    cap = kw.get("max_iter", CLARABEL_MAX_ITER if backend == "CLARABEL" else None)
    if iters is not None and cap is not None and iters >= cap and "time_limit" not in kw:
        return Status.ITERATION_LIMIT
    if iters is not None and cap is not None and iters >= cap:
        solve_time = getattr(stats, "solve_time", None) or 0.0
        return Status.TIME_LIMIT if solve_time >= float(kw["time_limit"]) else Status.ITERATION_LIMIT
    return Status.TIME_LIMIT


def _limit_note(status: Status, kw: dict[str, Any]) -> str:
    if status is Status.ITERATION_LIMIT:
        return f" (iteration limit max_iter={kw.get('max_iter', CLARABEL_MAX_ITER)}: last iterate, not converged)"
    if status is Status.TIME_LIMIT:
        return f" (time limit {kw.get('time_limit', '?')} s: last iterate, not converged)"
    return ""


CLARABEL_MAX_ITER = 200      # Clarabel's default ``max_iter`` (DefaultSettings)

SOLVERS = {"conic": ConicSolver}
