"""``conic``: cvxpy with Clarabel (by default) on any problem's conic form.

Examples
--------
>>> import cvxpy as cp, numpy as np
>>> from mechopt.model.forms import ConicForm
>>> from mechopt.model.problem import Problem
>>> class Tiny(Problem):
...     def conic_form(self):
...         x = cp.Variable(2)
...         prob = cp.Problem(cp.Minimize(cp.sum_squares(x - 1)), [cp.sum(x) == 1])
...         return ConicForm(problem=prob, recover=lambda: x.value, sense="min", objective="sq",
...                          bound_of=float)
>>> r = ConicSolver().solve(Tiny())
>>> r.status.value, r.proof, round(r.value, 6)
('optimal', 'convex', 0.5)
>>> r.certificate.gap < 1e-7          # Clarabel's dual objective bounds the optimum from below
True

Statuses: a convex program that Clarabel solves to its tolerances is
``optimal`` with ``proof="convex"``; a form with a ``scope`` (a density on a
grid) is proven for that discretised program only, and the message says so.
Clarabel's "inaccurate" is ``optimal_inaccurate``; its limits are
``iteration_limit`` / ``time_limit``.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

import numpy as np

from mechopt.errors import ParamError, SolverError
from mechopt.model.problem import value_gap
from mechopt.model.solver import Solver
from mechopt.results.result import Certificate, Result, Status

__all__ = ["ConicSolver", "SOLVERS", "CVXPY_STATUS"]

# cvxpy's status strings (cvxpy.settings.OPTIMAL, ...), spelled out so that importing this module does not
# import cvxpy: the registry loads solver classes to ask them, and cvxpy costs ~1 s of cold start.
CVXPY_STATUS = {
    "optimal": Status.OPTIMAL,
    "optimal_inaccurate": Status.OPTIMAL_INACCURATE,
    "infeasible": Status.INFEASIBLE,
    "infeasible_inaccurate": Status.INFEASIBLE,
    "unbounded": Status.UNBOUNDED,
    "unbounded_inaccurate": Status.UNBOUNDED,
    "user_limit": Status.TIME_LIMIT,
    "solver_error": Status.SOLVER_ERROR,
}


class ConicSolver(Solver):
    """Solve ``problem.conic_form()`` with cvxpy; the backend is an option."""

    name = "conic"
    options = {"backend": "CLARABEL", "backend_options": None, "max_iter": None}
    requires = ("cvxpy", "clarabel")
    forms = ("conic_form",)

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.conic_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        import cvxpy as cp

        backend = str(opts["backend"]).upper()
        if backend not in cp.installed_solvers():
            raise ParamError(
                f"cvxpy backend {backend!r} is not installed; installed: {', '.join(cp.installed_solvers())}"
            )
        form = problem.conic_form()
        kw = {**(form.clarabel if backend == "CLARABEL" else {}), **dict(opts["backend_options"] or {})}
        if opts["max_iter"] is not None:  # the one iteration-limit name, passed under the backend's own
            kw.update(_max_iter_option(backend, opts["max_iter"], kw))
        if opts["time_limit"] is not None and backend == "CLARABEL":
            kw.setdefault("time_limit", float(opts["time_limit"]))
        try:
            form.problem.solve(
                solver=_dual_clarabel()() if backend == "CLARABEL" else backend, verbose=bool(opts["verbose"]), **kw
            )
        except cp.error.SolverError as exc:
            raise SolverError(f"cvxpy/{backend} failed{_hint(problem)}: {_own_words(exc)}") from exc
        status = CVXPY_STATUS.get(form.problem.status, Status.SOLVER_ERROR)
        stats = form.problem.solver_stats
        if form.problem.status == "user_limit":
            status = _which_limit(backend, kw, stats)
        if not status.has_solution:
            return Result(
                status=status,
                value=None,
                sense=form.sense,
                objective=form.objective,
                message=f"cvxpy status {form.problem.status}",
            )
        value = form.value_of(form.problem.value)
        extras = {**form.extras, "solve_time_s": getattr(stats, "solve_time", None)}
        bound = _dual_bound(form, stats) if status is Status.OPTIMAL else None
        cert, note, mech = None, "", form.recover()
        if bound is not None:
            extras["program_bound"] = bound
            if form.bound_of is not None:
                cert = _certificate(problem, mech, value, form.bound_of(bound))
            else:
                note = "; no certificate: the value is evaluated on the recovered mechanism (program bound in extras)"
        elif status is Status.OPTIMAL:
            note = f"; no certificate: cvxpy/{backend} reports no dual objective"
        proof = None
        if status is Status.OPTIMAL:
            proof = "convex"
            note += (
                f"; convex program solved to {backend}'s tolerances: optimum of {form.scope}, "
                "not of the continuous problem"
                if form.scope
                else f"; convex program solved to {backend}'s tolerances"
            )
        return Result(
            status=status,
            value=value,
            sense=form.sense,
            objective=form.objective,
            mechanism=mech,
            certificate=cert,
            proof=proof,
            iterations=getattr(stats, "num_iters", None),
            message=f"cvxpy/{backend}: {form.problem.status}" + _limit_note(status, kw) + note,
            extras=extras,
        )


@cache
def _own_words(exc: Exception) -> str:
    """cvxpy's message without its advice to try another solver (mechopt's registry says which apply).

    >>> _own_words(Exception("Solver 'X' failed. Try another solver, or solve with verbose=True for more information."))
    "Solver 'X' failed; rerun with the option verbose=true for its log"
    """
    text = str(exc).split(". Try another solver", 1)[0].rstrip(".")
    return text + ("; rerun with the option verbose=true for its log" if "verbose" in str(exc) else "")


def _hint(problem: Any) -> str:
    """What makes the program numerically hard, when the data shows it: e^eps or values near the double range.

    >>> from mechopt.problems.design import ChannelDesign
    >>> "e^eps = 1.01e+304" in _hint(ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mae", eps=700))
    True
    """
    eps = getattr(getattr(problem, "notion", None), "eps", None)
    if isinstance(eps, float) and eps > 50:
        return (
            f" (e^eps = {math.exp(eps):.3g} with eps = {eps:g}: coefficients beyond what an interior-point "
            "method resolves; use eps <= 50)"
        )
    util = getattr(problem, "utility", None)
    data = [np.abs(np.asarray(getattr(util, k), float)) for k in ("a", "b") if getattr(util, k, None) is not None]
    top = max((float(v.max()) for v in data if v.size), default=0.0)
    if top > 1e150:
        return f" (values or outputs up to {top:.3g}: their squares overflow double precision; rescale them)"
    return ""


def _dual_clarabel() -> type:
    """cvxpy's Clarabel interface, keeping Clarabel's primal and dual objective values in ``extra_stats``.

    Built on first use (it subclasses a cvxpy class, and cvxpy is imported only when a conic form is solved).
    """
    import cvxpy as cp
    from cvxpy.reductions.solvers.conic_solvers.clarabel_conif import CLARABEL

    class _DualClarabel(CLARABEL):
        def name(self) -> str:
            return "MECHOPT_CLARABEL"  # cvxpy requires custom solvers to have a name of their own

        def invert(self, solution: Any, inverse_data: Any) -> Any:
            out = super().invert(solution, inverse_data)
            out.attr[cp.settings.EXTRA_STATS] = {"obj_val": solution.obj_val, "obj_val_dual": solution.obj_val_dual}
            return out

    return _DualClarabel


def _dual_bound(form: Any, stats: Any) -> float | None:
    """The bound on cvxpy's optimal value from Clarabel's dual objective (valid up to Clarabel's tolerances, ~1e-8).

    Clarabel's duality gap |primal − dual| moves cvxpy's optimal value to the
    bound side: down for a minimisation, up for a maximisation. None when the
    backend reports no dual objective.
    """
    extra = getattr(stats, "extra_stats", None)
    if not isinstance(extra, dict) or extra.get("obj_val_dual") is None:
        return None
    slack = abs(float(extra["obj_val"]) - float(extra["obj_val_dual"]))
    raw = float(form.problem.value)
    import cvxpy as cp  # already imported: the form was just solved

    bound = raw + slack if isinstance(form.problem.objective, cp.Maximize) else raw - slack
    return bound if math.isfinite(bound) else None


def _certificate(problem: Any, mechanism: Any, value: float, bound: float) -> Certificate | None:
    """A certificate for ``value`` from a bound in the problem's units (None if not finite), its gap by
    :func:`~mechopt.model.problem.value_gap`."""
    if not math.isfinite(bound):
        return None
    return Certificate(bound=bound, gap=value_gap(problem, mechanism, value, bound))


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


CLARABEL_MAX_ITER = 200  # Clarabel's default ``max_iter`` (DefaultSettings)

#: The iteration-limit keyword of each cvxpy backend (``max_iter`` is passed under it).
_ITER_KEYWORD = {"CLARABEL": "max_iter", "OSQP": "max_iter", "SCS": "max_iters", "ECOS": "max_iters"}


def _max_iter_option(backend: str, max_iter: Any, given: dict[str, Any]) -> dict[str, int]:
    """``{backend's keyword: max_iter}``; ParamError for a non-integer, a clash or a backend without one.

    >>> _max_iter_option("SCS", 50, {})
    {'max_iters': 50}
    """
    if isinstance(max_iter, bool) or not hasattr(max_iter, "__index__") or max_iter < 1:  # int or numpy integer
        raise ParamError(f"max_iter must be an integer ≥ 1, got {max_iter!r}")
    key = _ITER_KEYWORD.get(backend)
    if key is None:
        raise ParamError(f"max_iter is not known for cvxpy backend {backend!r}; set its own limit in backend_options")
    if key in given:
        raise ParamError(f"max_iter and backend_options[{key!r}] are the same limit: give only max_iter")
    return {key: int(max_iter)}


SOLVERS = {"conic": ConicSolver}
