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

__all__ = ["solver_names", "get_solver", "register_solver", "solvers_for", "split_options", "dropped_note",
           "problem_ids", "get_problem", "register_problem", "claims", "figures"]

# Order is preference: the first installed solver that can_solve is the default.
_SOLVER_MODULES = ("exact", "spectral", "conic", "greedy", "sqp", "search", "baselines", "closed_form")
_PROBLEM_MODULES = ("design", "lip", "cip", "kss", "kss_l2", "fisher", "gauss")
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


def split_options(solver: str, options: dict[str, Any],
                  written_for: str | None = None) -> tuple[dict[str, Any], dict[str, list[str]]]:
    """Split ``options`` into those to pass to ``solver`` and those that belong to another solver.

    Always kept: the options every solver shares (``time_limit``, ``seed``,
    ``verbose``) and tolerance overrides ``<name>_tol`` (:func:`mechopt.solve`).
    When the options were ``written_for`` another solver (a spec's
    ``solver``), its own options are dropped, even where ``solver`` has an
    option of the same name (``method`` means different things to ``sqp`` and
    ``exact``). Otherwise a key is dropped when some other registered solver
    takes it and ``solver`` does not. Keys no registered solver knows are kept,
    so the solve names the typo.

    Parameters
    ----------
    solver : str
        A registered solver name (unknown names raise :class:`SolverNotFound`).
    options : dict
        Options written for some solver (a spec's ``[options]`` table).
    written_for : str, optional
        The solver the options were written for.

    Returns
    -------
    kept : dict
    dropped : dict of str to list of str
        ``{key: [solvers that take it]}``.

    Examples
    --------
    >>> split_options("exact", {"n_starts": 8, "seed": 1, "gap_tol": 1e-9, "max_iter": 50})
    ({'seed': 1, 'gap_tol': 1e-09, 'max_iter': 50}, {'n_starts': ['sqp']})
    >>> split_options("exact", {"method": "SLSQP", "seed": 1}, written_for="sqp")
    ({'seed': 1}, {'method': ['sqp']})
    """
    from dataclasses import fields

    from . import settings

    table = _solvers()
    for name in (solver, written_for):
        if name is not None and name not in table:
            get_solver(name)   # raises SolverNotFound naming what exists
    cls = table[solver]
    tolerances = {f.name for f in fields(settings.Tolerances)}
    kept: dict[str, Any] = {}
    dropped: dict[str, list[str]] = {}
    from .solver import RENAMED_OPTIONS

    for key, val in options.items():
        shared = key in cls.common_options or key.removesuffix("_tol") in tolerances
        name = RENAMED_OPTIONS.get(key, key)     # a deprecated spelling belongs where its new name does
        if written_for is not None and written_for != solver:
            owners = [] if shared or name not in table[written_for].options else [written_for]
        else:
            owners = [] if shared or name in cls.options else [n for n, c in table.items() if name in c.options]
        if owners:
            dropped[key] = owners
        else:
            kept[key] = val
    return kept, dropped


def dropped_note(solver: str, dropped: dict[str, list[str]], where: str = "the spec") -> str:
    """One line saying which options :func:`split_options` dropped for ``solver`` (empty when none).

    >>> dropped_note("exact", {"n_starts": ["sqp"], "method": ["sqp"]}, "lip.toml")
    '--solver exact: dropped options method, n_starts of lip.toml (for sqp, not exact)'
    """
    if not dropped:
        return ""
    keys = ", ".join(sorted(dropped))
    owners = ", ".join(sorted({o for names in dropped.values() for o in names}))
    plural = "s" if len(dropped) > 1 else ""
    return f"--solver {solver}: dropped option{plural} {keys} of {where} (for {owners}, not {solver})"


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
