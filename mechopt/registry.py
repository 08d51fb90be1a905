"""String-keyed registries of solvers, problems, theorem claims and figures.

Solvers and problems are installed entry points (:mod:`mechopt.entry_points`: the built-ins, then
third-party packages), followed by what :func:`register_solver` / :func:`register_problem` add in
this process (they replace a name in place). Nothing is imported until asked for:
:func:`solver_names` and :func:`problem_ids` read metadata only, :func:`get_solver` imports one
module, and :func:`solvers_for` asks a solver class for its cheap class-level pre-check
(:meth:`mechopt.model.solver.Solver.may_apply`) before building any form.

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
import warnings
from collections.abc import Callable, Iterator
from typing import Any

from mechopt.entry_points import BUILTIN_PROBLEMS, BUILTIN_SOLVERS, PROBLEM_GROUP, SOLVER_GROUP, load, ordered, refresh
from mechopt.errors import ProblemError, SolverNotFound

__all__ = [
    "solver_names",
    "get_solver",
    "register_solver",
    "register_notion",
    "unregister_notion",
    "solvers_for",
    "applicable",
    "default_solver",
    "split_options",
    "dropped_note",
    "problem_ids",
    "get_problem",
    "register_problem",
    "claims",
    "figures",
    "refresh",
    "SOLVER_GROUP",
    "PROBLEM_GROUP",
    "BUILTIN_SOLVERS",
    "BUILTIN_PROBLEMS",
]

_PAPER_MODULES = ("lip", "kss", "fisher", "gauss", "pml", "kairouz")

_extra_solvers: dict[str, Any] = {}  # register_solver (in-process; tests patch these dicts)
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


def _classes() -> Iterator[tuple[str, Any]]:
    """(name, class) of every solver in order, importing as it goes.

    A plugin that fails to load is skipped with a warning.
    """
    for name, cls in ordered(SOLVER_GROUP, _extra_solvers).items():
        if cls is None:
            try:
                cls = load(SOLVER_GROUP, name)
            except SolverNotFound as exc:
                warnings.warn(str(exc), stacklevel=3)
                continue
        yield name, cls


# -- solvers ------------------------------------------------------------------
def _solvers() -> dict[str, Any]:
    """Every solver class by name, in order of preference (imports every solver module)."""
    return dict(_classes())


def _solver_class(name: str) -> Any:
    table = ordered(SOLVER_GROUP, _extra_solvers)
    if name not in table:
        raise SolverNotFound(f"unknown solver {name!r}; available: {', '.join(table)}")
    return table[name] if table[name] is not None else load(SOLVER_GROUP, name)


def solver_names() -> list[str]:
    """Names of the registered solvers, in order of preference (reads metadata; imports nothing)."""
    return list(ordered(SOLVER_GROUP, _extra_solvers))


def get_solver(name: str) -> Any:
    """The solver instance registered under ``name`` (imports that solver's module only)."""
    cls = _solver_class(name)
    if not cls.installed():
        raise SolverNotFound(
            f"solver {name!r} needs {', '.join(cls.requires)}: pip install 'mechopt[distributed]' or the named package"
        )
    return cls()


def register_solver(name: str, cls: Any) -> None:
    """Add a solver class (a :class:`mechopt.model.solver.Solver` subclass) under ``name``, in this process.

    A package adds one for every user instead by declaring an entry point in the group
    ``mechopt.solvers`` (``name = "package.module:SolverClass"``).
    """
    _extra_solvers[name] = cls


def register_notion(name: str, cls: Any) -> None:
    """Add a privacy notion class under ``name``, in this process, for ``make_notion``, ``design`` and the CLI.

    ``cls`` is a :class:`~mechopt.notions.base.PrivacyNotion` subclass built as ``cls(eps)``; the
    built-in names (``ldp``, ``lip``, ``mip``, ``graph-ldp``, ``metric-ldp``, ``cip``) cannot be taken.

    >>> from mechopt.notions import LDP, make_notion
    >>> class Twice(LDP):
    ...     name = "twice-ldp"
    >>> register_notion("twice-ldp", Twice)
    >>> type(make_notion("twice-ldp", 1.0)).__name__
    'Twice'
    >>> unregister_notion("twice-ldp")
    """
    from mechopt import notions

    key = str(name).lower()
    if key in notions.BUILTIN_NAMES:
        raise ProblemError(f"notion name {name!r} is built in; register yours under another name")
    if not (isinstance(cls, type) and issubclass(cls, notions.PrivacyNotion)):
        raise ProblemError(f"register_notion({name!r}, ...) needs a PrivacyNotion subclass, got {cls!r}")
    notions.REGISTERED[key] = cls


def unregister_notion(name: str) -> None:
    """Remove a notion added with :func:`register_notion` (no error if there is none)."""
    from mechopt import notions

    notions.REGISTERED.pop(str(name).lower(), None)


def applicable(problem: Any) -> Iterator[str]:
    """The installed solvers that can solve ``problem``, in order of preference, one at a time
    (later solvers are neither imported nor asked until needed)."""
    from mechopt.runtime.deadline import check

    for name, cls in _classes():
        check("choosing the solver")  # a time limit bounds the selection too (can_solve may build a form)
        may = getattr(cls, "may_apply", None)
        if cls.installed() and (may is None or may(problem)) and cls().can_solve(problem):
            yield name


def solvers_for(problem: Any) -> list[str]:
    """Installed solvers that can solve ``problem``, in order of preference."""
    return list(applicable(problem))


def default_solver(problem: Any) -> str | None:
    """The first installed solver that can solve ``problem`` (None if none); later solvers are not imported.

    >>> from mechopt.problems.design import ChannelDesign
    >>> default_solver(ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="mse", eps=1.0))
    'exact'
    """
    return next(applicable(problem), None)


def split_options(
    solver: str, options: dict[str, Any], written_for: str | None = None
) -> tuple[dict[str, Any], dict[str, list[str]]]:
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

    from mechopt import settings

    for name in (solver, written_for):
        if name is not None:
            _solver_class(name)  # raises SolverNotFound naming what exists
    table = _solvers()
    cls = table[solver]
    tolerances = {f.name for f in fields(settings.Tolerances)}
    kept: dict[str, Any] = {}
    dropped: dict[str, list[str]] = {}
    from mechopt.model.solver import RENAMED_OPTIONS

    for key, val in options.items():
        shared = key in cls.common_options or key.removesuffix("_tol") in tolerances
        name = RENAMED_OPTIONS.get(key, key)  # a deprecated spelling belongs where its new name does
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
def problem_ids() -> list[str]:
    """Catalog ids of the registered problems, in registry order (reads metadata; imports nothing)."""
    return list(ordered(PROBLEM_GROUP, _extra_problems))


def get_problem(pid: str) -> Any:
    """The problem class registered under the catalog id ``pid`` (imports its module only)."""
    table = ordered(PROBLEM_GROUP, _extra_problems)
    if pid not in table:
        raise ProblemError(f"unknown problem {pid!r}; known: {', '.join(table)}")
    return table[pid] if table[pid] is not None else load(PROBLEM_GROUP, pid)


def _problems() -> dict[str, Any]:
    """Every problem class by id (imports every problem module)."""
    return {pid: get_problem(pid) for pid in problem_ids()}


def register_problem(pid: str, cls: Any) -> None:
    """Add a problem class under the catalog id ``pid``, in this process (or declare a
    ``mechopt.problems`` entry point in a package)."""
    _extra_problems[pid] = cls


# -- theorem claims and figures -------------------------------------------------
def papers() -> tuple[str, ...]:
    """The papers whose claims ``mechopt verify`` runs, in report order (``mechopt.claims.<paper>``).

    >>> papers()[:2]
    ('lip', 'kss')
    """
    return _PAPER_MODULES


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
