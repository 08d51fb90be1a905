"""The solver interface: one signature for every backend.

Examples
--------
>>> from mechopt.model.solver import Solver
>>> sorted(Solver.common_options)
['progress', 'seed', 'time_limit', 'verbose']
"""

from __future__ import annotations

import math
import time
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from mechopt.errors import MechoptError, ParamError, SolverError
from mechopt.results.result import Result, Status
from mechopt.runtime import deadline
from mechopt.runtime.threads import single_threaded

__all__ = ["Solver", "check_options", "RENAMED_OPTIONS"]

#: Options that count iterations, starts, evaluations or rounds: a value below 1 is refused, never read as
#: "stop at once" (every solver's own checks come after these).
COUNT_OPTIONS = frozenset({"max_iter", "max_evals", "n_starts", "n_iter", "rounds", "levels", "max_orbits"})

#: Old option names still accepted for one release: old → new. ``Solver.solve`` renames them and says so
#: in the result message; giving both spellings is a ParamError.
RENAMED_OPTIONS = {"maxiter": "max_iter"}


def rename_options(name: str, given: dict[str, Any], allowed: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Map deprecated spellings (:data:`RENAMED_OPTIONS`) to the current ones; return the options and notes.

    >>> rename_options("sqp", {"maxiter": 5}, {"max_iter": 500})
    ({'max_iter': 5}, ["option 'maxiter' is deprecated: use 'max_iter' (one iteration-limit name for every solver)"])
    """
    out, notes = dict(given), []
    for old, new in RENAMED_OPTIONS.items():
        if old in out and new in allowed and old not in allowed:
            if new in out:
                raise ParamError(
                    f"options {old!r} and {new!r} of solver {name!r} are the same limit: give only {new!r}"
                )
            out[new] = out.pop(old)
            notes.append(f"option {old!r} is deprecated: use {new!r} (one iteration-limit name for every solver)")
    return out, notes


def check_options(name: str, given: dict[str, Any], allowed: dict[str, Any]) -> dict[str, Any]:
    """Merge ``given`` over the defaults ``allowed``; unknown keys raise ParamError."""
    bad = sorted(set(given) - set(allowed))
    if bad:
        raise ParamError(f"unknown option(s) {bad} for solver {name!r}; allowed: {sorted(allowed)}")
    for key, val in given.items():
        _check_type(name, key, val, allowed[key])
        if key in COUNT_OPTIONS and val is not None and val < 1:  # maxiter=-1 read as "stop at once"
            raise ParamError(f"option {key!r} of solver {name!r} is a count: give an integer >= 1, got {val!r}")
    opts = dict(allowed)
    opts.update(given)
    if opts.get("progress") is not None and not callable(opts["progress"]):
        raise ParamError(
            f"option 'progress' of solver {name!r} must be a callable (given a dict a round), got {opts['progress']!r}"
        )
    tl = opts.get("time_limit")
    if tl is not None and (isinstance(tl, bool) or not (isinstance(tl, (int, float)) and tl > 0 and math.isfinite(tl))):
        raise ParamError(f"time_limit must be a positive number of seconds, got {tl!r}")
    return opts


def _check_type(solver: str, key: str, val: Any, default: Any) -> None:
    """An option value must have its default's kind (bool, integer, number, string); seed may be a Generator."""
    import numpy as np

    def bad(kind: str) -> ParamError:
        return ParamError(f"option {key!r} of solver {solver!r} must be {kind}, got {val!r}")

    if key == "seed":
        if val is None or isinstance(val, np.random.Generator):
            return
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, (int, np.integer)) or val < 0:
            raise bad("an integer >= 0 or a numpy.random.Generator")
        return
    if default is None or val is None:
        return
    if isinstance(default, bool):
        if not isinstance(val, (bool, np.bool_)):
            raise bad("true or false")
    elif isinstance(default, (int, float)):
        if isinstance(val, (bool, np.bool_)) or not isinstance(val, (int, float, np.integer, np.floating)):
            raise bad("a number")
        if not math.isfinite(val):
            raise bad("a finite number")
        if isinstance(default, int) and not float(val).is_integer():
            raise bad("an integer")
    elif isinstance(default, str) and not isinstance(val, str):
        raise bad("a string")


class Solver(ABC):
    """A backend. Subclasses set ``name``, ``options`` and implement two methods.

    ``can_solve(problem)`` says whether the backend applies (it reads the
    problem's forms); ``_solve(problem, opts)`` returns a Result. ``solve``
    checks options, times the call, runs it with single-threaded BLAS
    (:func:`mechopt.runtime.threads.single_threaded`: the numbers do not depend on the
    thread count), and wraps backend crashes in SolverError.
    """

    name: ClassVar[str]
    #: What the method can prove: ``"global"`` (may return ``optimal`` with a proof),
    #: ``"local"`` (a converged answer is ``locally_optimal``), ``"heuristic"`` (``feasible``).
    guarantee: ClassVar[str] = "global"
    options: ClassVar[dict[str, Any]] = {}
    #: ``progress``: a callable given a dict after every round of an iterative method (the exact
    #: solver's column generation: ``round``, ``columns``, ``value``, ``bound``, ``gap``); methods
    #: without rounds never call it.
    common_options: ClassVar[dict[str, Any]] = {"time_limit": None, "seed": 0, "verbose": False, "progress": None}
    requires: ClassVar[tuple[str, ...]] = ()  # importable modules the backend needs
    #: The problem methods ``can_solve`` reads (``"column_program"``, ``"conic_form"``, ...): the
    #: registry's cheap class-level pre-check (:meth:`may_apply`). Empty: no pre-check.
    forms: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def may_apply(cls, problem: Any) -> bool:
        """False when the problem's class offers none of ``forms`` (no form is built, nothing imported).

        A method a problem class inherits unchanged from :class:`mechopt.model.problem.Problem`
        (which returns None) does not count as offered.

        >>> from mechopt.problems.design import ChannelDesign
        >>> from mechopt.solvers.exact.solver import ExactSolver
        >>> from mechopt.solvers.search import SearchSolver
        >>> prob = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mi", eps=1.0)
        >>> ExactSolver.may_apply(prob), SearchSolver.may_apply(prob)
        (True, False)
        """
        if not cls.forms:
            return True
        from mechopt.model.problem import Problem

        kind = type(problem)
        return any(
            getattr(kind, f, None) is not None and getattr(kind, f) is not getattr(Problem, f, None) for f in cls.forms
        )

    @classmethod
    def installed(cls) -> bool:
        import importlib.util

        return all(importlib.util.find_spec(m) is not None for m in cls.requires)

    @abstractmethod
    def can_solve(self, problem: Any) -> bool:
        """Whether this backend applies to the problem."""

    @abstractmethod
    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        """Solve with checked options."""

    def solve(self, problem: Any, **options: Any) -> Result:
        allowed = {**self.common_options, **self.options}
        options, renamed = rename_options(self.name, options, allowed)
        opts = check_options(self.name, options, allowed)
        t0 = time.perf_counter()
        try:
            with single_threaded():  # one BLAS thread: the same numbers whatever the machine (mechopt.runtime.threads)
                res = self._solve(problem, opts)
        except MechoptError:
            raise
        except Exception as exc:  # any backend crash (IndexError from scipy included) is a SolverError
            raise SolverError(f"solver {self.name!r} failed: {type(exc).__name__}: {exc}") from exc
        elapsed = time.perf_counter() - t0
        res = _honest(res, self.guarantee)
        changes: dict[str, Any] = {
            "solver": res.solver or self.name,
            "problem": res.problem or getattr(problem, "id", None),
        }
        if not res.time_s:
            changes["time_s"] = elapsed
        tl = opts.get("time_limit")
        notes = [res.message] if res.message else []
        if tl is not None and elapsed > tl and res.status.has_solution:  # tl: what the call's deadline left
            given = deadline.limit() or tl  # the limit the user gave (counted from the call's or process's start)
            notes.append(f"finished {elapsed - tl:.2g} s past the {given:g} s time limit")
        if renamed or notes[bool(res.message) :]:  # a note added (it was lost when the solver said nothing)
            changes["message"] = "; ".join(notes + renamed)
        return res.replace(**changes)


_CEILING = {
    "local": {Status.OPTIMAL: Status.LOCALLY_OPTIMAL, Status.OPTIMAL_INACCURATE: Status.FEASIBLE},
    "heuristic": {
        Status.OPTIMAL: Status.FEASIBLE,
        Status.OPTIMAL_INACCURATE: Status.FEASIBLE,
        Status.LOCALLY_OPTIMAL: Status.FEASIBLE,
    },
}


def _honest(res: Result, guarantee: str) -> Result:
    """A local method's or a heuristic's answer is never ``optimal``, whatever it returned.

    >>> r = Result(status="optimal", value=1.0, sense="min", objective="mse")
    >>> _honest(r, "local").status.value, _honest(r, "heuristic").status.value
    ('locally_optimal', 'feasible')
    """
    status = _CEILING.get(guarantee, {}).get(res.status)
    return res if status is None else res.replace(status=status, proof=None)
