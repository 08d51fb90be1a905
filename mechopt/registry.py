"""String-keyed registries of solvers, problems, theorem claims and figures.

Each family lives in its own module that exposes a dict (``SOLVERS``,
``PROBLEMS``, ``CLAIMS``, ``FIGURES``); this module lists the modules and
imports them lazily. Third parties add entries with :func:`register_solver`
or :func:`register_problem`.

Examples
--------
>>> from mechopt import registry
>>> "exact" in registry.solver_names() and "sqp" in registry.solver_names()
True
>>> from mechopt.problems.design import ChannelDesign
>>> registry.solvers_for(ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0))[0]
'exact'
>>> registry.get_solver("nope")
Traceback (most recent call last):
...
mechopt.errors.SolverNotFound: unknown solver 'nope'; available: ...
"""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

from .errors import ProblemError, SolverNotFound

__all__ = ["solver_names", "get_solver", "register_solver", "solvers_for",
           "problem_ids", "get_problem", "register_problem", "claims", "figures"]

# Order is preference: the first installed solver that can_solve is the default.
_SOLVER_MODULES = ("exact", "spectral", "conic", "greedy", "sqp", "search", "baselines", "closed_form")
_PROBLEM_MODULES = ("design", "lip", "kss", "fisher", "gauss")
_PAPER_MODULES = ("lip", "kss", "fisher", "gauss")

_extra_solvers: dict[str, Any] = {}
_extra_problems: dict[str, Any] = {}


def _optional(module: str) -> Any | None:
    """Import ``module``; None only if that very module does not exist."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise


def _collect(package: str, names: tuple[str, ...], attr: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in names:
        mod = _optional(f"{package}.{name}")
        if mod is not None:
            out.update(getattr(mod, attr, {}))
    return out


# -- solvers ------------------------------------------------------------------
def _solvers() -> dict[str, Any]:
    return {**_collect("mechopt.solvers", _SOLVER_MODULES, "SOLVERS"), **_extra_solvers}


def solver_names() -> list[str]:
    """Names of the registered solvers, in order of preference."""
    return list(_solvers())


def get_solver(name: str) -> Any:
    """The solver instance registered under ``name``."""
    table = _solvers()
    if name not in table:
        raise SolverNotFound(f"unknown solver {name!r}; available: {', '.join(table)}")
    cls = table[name]
    if not cls.installed():
        raise SolverNotFound(f"solver {name!r} needs {', '.join(cls.requires)}: pip install 'mechopt[distributed]' or the named package")
    return cls()


def register_solver(name: str, cls: Any) -> None:
    """Add a solver class (a :class:`mechopt.solver.Solver` subclass) under ``name``."""
    _extra_solvers[name] = cls


def solvers_for(problem: Any) -> list[str]:
    """Installed solvers that can solve ``problem``, in order of preference."""
    return [n for n, cls in _solvers().items() if cls.installed() and cls().can_solve(problem)]


# -- problems -----------------------------------------------------------------
def _problems() -> dict[str, Any]:
    return {**_collect("mechopt.problems", _PROBLEM_MODULES, "PROBLEMS"), **_extra_problems}


def problem_ids() -> list[str]:
    return list(_problems())


def get_problem(pid: str) -> Any:
    """The problem class registered under the catalog id ``pid``."""
    table = _problems()
    if pid not in table:
        raise ProblemError(f"unknown problem {pid!r}; known: {', '.join(table)}")
    return table[pid]


def register_problem(pid: str, cls: Any) -> None:
    _extra_problems[pid] = cls


# -- theorem claims and figures -------------------------------------------------
def claims(paper: str | None = None) -> list[Any]:
    """The registered theorem claims (``mechopt.claims.<paper>.CLAIMS``)."""
    papers = _PAPER_MODULES if paper is None else (paper,)
    if paper is not None and paper not in _PAPER_MODULES:
        raise ProblemError(f"unknown paper {paper!r}; known: {', '.join(_PAPER_MODULES)}")
    out: list[Any] = []
    for name in papers:
        mod = _optional(f"mechopt.claims.{name}")
        if mod is not None:
            out.extend(getattr(mod, "CLAIMS", []))
    return out


def figures() -> dict[str, Callable[..., Any]]:
    """Figure/table reproductions by id (``mechopt.figures.<paper>.FIGURES``)."""
    return _collect("mechopt.figures", _PAPER_MODULES, "FIGURES")
