"""Sweep specs: the TOML format of :mod:`mechopt.jobs.sweep.run`, validated field by field.

:func:`parse_spec` turns a spec (TOML text or the parsed table) into a
:class:`SweepSpec`, raising :class:`~mechopt.io.catalog.CatalogError` (one line,
naming the file and the field) for anything wrong: unknown or mistyped fields,
empty or non-finite grids, linspace counts and grids beyond :data:`MAX_POINTS`
tasks, ε outside (0, 700] in ``[fixed]``/``[grid]``, unknown problems or
solvers, and a spec of which no grid point builds a valid problem.

Examples
--------
>>> from mechopt.jobs.sweep.spec import parse_spec
>>> spec = parse_spec('problem = "design"\\nsolvers = ["sqp"]\\n[fixed]\\nnotion = "lip"\\n'
...                   'utility = "histogram"\\nprior = "0.3,0.7"\\n[grid]\\neps = { linspace = [0.5, 1.5, 3] }')
>>> spec.grid["eps"]
[0.5, 1.0, 1.5]
>>> parse_spec('problem = "design"\\nsolvers = ["sqp"]\\n[grid]\\neps = [0.5, inf]', source="s.toml")
Traceback (most recent call last):
...
mechopt.io.catalog.CatalogError: s.toml: field 'grid.eps' holds inf: give finite numbers
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.io.catalog import CatalogError, is_seconds, read_toml, resolve_spec

__all__ = ["SweepSpec", "parse_spec", "load_spec", "with_solvers", "MAX_POINTS"]

_KEYS = {"problem", "solvers", "time_limit", "save_mechanism", "fixed", "grid", "options", "plot", "description"}


@dataclass(frozen=True)
class SweepSpec:
    """A validated sweep: problem id, fixed params, grid (ordered), solvers, options."""

    problem: str
    solvers: tuple[str, ...]
    grid: dict[str, list[Any]]
    fixed: dict[str, Any] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    time_limit: float | None = None
    save_mechanism: bool = False
    plot_x: str | None = None
    source: str = "<spec>"
    description: str = ""


MAX_POINTS = 100_000
"""Most (grid point, solver) tasks a sweep spec may describe."""


def _axis(source: str, name: str, val: Any) -> list[Any]:
    if isinstance(val, list):
        if not val:
            raise CatalogError(f"{source}: field 'grid.{name}' is an empty list")
        for v in val:
            if isinstance(v, float) and not np.isfinite(v):
                raise CatalogError(f"{source}: field 'grid.{name}' holds {v!r}: give finite numbers")
        return val
    if isinstance(val, dict) and len(val) == 1 and next(iter(val)) in ("linspace", "logspace"):
        kind, args = next(iter(val.items()))
        if not (
            isinstance(args, list)
            and len(args) == 3
            and all(isinstance(a, (int, float)) and not isinstance(a, bool) and np.isfinite(a) for a in args)
            and isinstance(args[2], int)
            and 1 <= args[2] <= MAX_POINTS
        ):
            raise CatalogError(
                f"{source}: field 'grid.{name}.{kind}' must be [start, stop, count] with finite "
                f"start, stop and an integer count in 1..{MAX_POINTS}"
            )
        fn = np.linspace if kind == "linspace" else np.logspace
        with np.errstate(over="ignore"):
            out = [float(v) for v in fn(args[0], args[1], int(args[2]))]
        if not all(np.isfinite(out)):
            raise CatalogError(
                f"{source}: field 'grid.{name}.{kind}' = {args} overflows: keep 10^start and 10^stop finite"
            )
        return out
    raise CatalogError(f"{source}: field 'grid.{name}' must be a list or {{ linspace = [a, b, n] }}")


def _repeat(values: list[Any]) -> tuple[Any, Any] | None:
    """The first value equal to an earlier one (1 and 1.0 are equal), with that earlier one; None if all differ.

    >>> _repeat([0.5, 1.0, 1]), _repeat(["a", "b"])
    ((1.0, 1), None)
    """
    import json

    seen: dict[str, Any] = {}
    for v in values:
        key = repr(float(v)) if isinstance(v, (int, float)) and not isinstance(v, bool) else json.dumps(v, default=str)
        if key in seen:
            return seen[key], v
        seen[key] = v
    return None


def _check_values(source: str, grid: dict[str, list[Any]], fixed: dict[str, Any]) -> None:
    """ε in [fixed] or [grid] must be a valid level (the CLI rule: finite, > 0, at most MAX_EPS)."""
    from mechopt.notions import check_eps

    for where, vals in (("fixed.eps", [fixed["eps"]] if "eps" in fixed else []), ("grid.eps", grid.get("eps", []))):
        for v in vals:
            if isinstance(v, (int, float, str)) and not isinstance(v, bool):
                try:
                    check_eps(v)
                except ProblemError as exc:
                    raise CatalogError(f"{source}: field {where!r}: {exc}") from None
    for k, v in fixed.items():
        if isinstance(v, float) and not np.isfinite(v):
            raise CatalogError(f"{source}: field 'fixed.{k}' is {v!r}: give a finite number")


def _check_points(source: str, problem: str, grid: dict[str, list[Any]], fixed: dict[str, Any]) -> None:
    """Build every grid point's problem once (``from_params`` validates, it does not solve).

    When NO point is valid the spec is wrong (a typo in [fixed], a misplaced
    key): refuse it, naming the first point's error. Otherwise the invalid
    points stay in the sweep and become ``solver_error`` lines, so a grid may
    mix, say, priors of different sizes with matching value lists.
    """
    from mechopt.errors import MechoptError
    from mechopt.registry import get_problem

    cls = get_problem(problem)
    names = list(grid)
    first = None
    for combo in itertools.product(*(grid[n] for n in names)):
        point = dict(zip(names, combo))
        try:
            cls.from_params(**{**fixed, **point})
            return
        except (MechoptError, TypeError) as exc:
            if first is None:
                where = ", ".join(f"{k}={v!r}" for k, v in point.items())
                first = f"grid point ({where}): {' '.join(str(exc).split())}"
    raise CatalogError(f"{source}: no grid point is a valid {problem!r} problem; {first}")


def parse_spec(data: str | dict[str, Any], *, source: str = "<spec>") -> SweepSpec:
    """Validate a sweep spec (TOML text or parsed dict); errors name the file and field."""
    from mechopt.registry import get_solver, problem_ids, solver_names

    if isinstance(data, str):
        from mechopt.io.catalog import loads_toml

        data = loads_toml(data, source)
    if not isinstance(data, dict):
        raise CatalogError(f"{source}: a sweep spec is a TOML document (a table), got {type(data).__name__}")
    bad = sorted(set(data) - _KEYS)
    if bad:
        raise CatalogError(f"{source}: unknown field(s) {bad}; known: {', '.join(sorted(_KEYS))}")
    for key, typ, kind in (
        ("problem", str, "a string"),
        ("solvers", list, "an array of solver names"),
        ("grid", dict, "a table"),
    ):
        if not isinstance(data.get(key), typ):
            raise CatalogError(f"{source}: field {key!r} is missing or not {kind}")
    if data["problem"] not in problem_ids():
        raise CatalogError(
            f"{source}: field 'problem': unknown problem id {data['problem']!r}; known: {', '.join(problem_ids())}"
        )
    if not data["solvers"] or not all(isinstance(s, str) for s in data["solvers"]):
        raise CatalogError(f"{source}: field 'solvers' must be a non-empty array of solver names")
    for s in data["solvers"]:
        if s not in solver_names():
            get_solver(s)  # SolverNotFound naming what exists
    twice = _repeat(data["solvers"])
    if twice is not None:
        raise CatalogError(f"{source}: field 'solvers' names {twice[0]!r} twice: give each solver once")
    for key in ("fixed", "options", "plot"):
        if not isinstance(data.get(key, {}), dict):
            raise CatalogError(f"{source}: field {key!r} must be a table")
    for sname, sopts in data.get("options", {}).items():
        if not isinstance(sopts, dict):
            raise CatalogError(f"{source}: field 'options.{sname}' must be a table of solver options")
    for key, typ, kind in (("save_mechanism", bool, "true or false"), ("description", str, "a string")):
        if key in data and not isinstance(data[key], typ):
            raise CatalogError(f"{source}: field {key!r} must be {kind}, got {data[key]!r}")
    if not data["grid"]:
        raise CatalogError(f"{source}: field 'grid' is empty: give at least one parameter list")
    both = sorted(set(data["grid"]) & set(data.get("fixed", {})))
    if both:
        raise CatalogError(f"{source}: parameter(s) {both} are both in [fixed] and [grid]")
    tl = data.get("time_limit")
    if tl is not None and not is_seconds(tl):
        raise CatalogError(f"{source}: field 'time_limit' must be a finite number of seconds > 0")
    grid = {k: _axis(source, k, v) for k, v in data["grid"].items()}
    for name, values in grid.items():  # the same point twice would be solved twice and written twice
        twice = _repeat(values)
        if twice is not None:
            same = f"{twice[0]!r}" if repr(twice[0]) == repr(twice[1]) else f"{twice[0]!r} and {twice[1]!r}"
            raise CatalogError(f"{source}: field 'grid.{name}' holds {same}, the same value twice: give each once")
    _check_values(source, grid, data.get("fixed", {}))
    n_tasks = len(data["solvers"]) * int(np.prod([len(v) for v in grid.values()], dtype=float))
    if n_tasks > MAX_POINTS:
        raise CatalogError(
            f"{source}: the grid has {n_tasks:g} (point, solver) tasks, more than {MAX_POINTS}; "
            "split the sweep or use coarser grids"
        )
    plot_x = data.get("plot", {}).get("x")
    if plot_x is not None and not isinstance(plot_x, str):
        raise CatalogError(f"{source}: field 'plot.x' must be the name of a grid parameter, got {plot_x!r}")
    if plot_x is not None and plot_x not in grid:
        raise CatalogError(f"{source}: field 'plot.x' = {plot_x!r} is not a grid parameter")
    _check_points(source, data["problem"], grid, data.get("fixed", {}))
    return SweepSpec(
        problem=data["problem"],
        solvers=tuple(data["solvers"]),
        grid=grid,
        fixed=dict(data.get("fixed", {})),
        options={k: dict(v) for k, v in data.get("options", {}).items()},
        time_limit=None if tl is None else float(tl),
        save_mechanism=bool(data.get("save_mechanism", False)),
        plot_x=plot_x,
        source=source,
        description=str(data.get("description", "")),
    )


def load_spec(path: str | Path) -> SweepSpec:
    """Read and validate a sweep spec file (or a built-in spec by name, see
    :func:`mechopt.io.catalog.spec_files`)."""
    p = resolve_spec(path)
    return parse_spec(read_toml(p), source=str(path))


def with_solvers(spec: SweepSpec, solvers: list[str] | tuple[str, ...]) -> tuple[SweepSpec, list[str]]:
    """The spec run with other ``solvers`` (``mechopt sweep --solver NAME``), and one note per dropped table.

    Each named solver keeps its own ``[options.NAME]`` table; the tables of
    the spec's other solvers are dropped, except their shared options
    (``time_limit``, ``seed``, ``verbose``, ``<name>_tol``), which carry over
    where the solver's own table does not set them
    (:func:`mechopt.registry.split_options`).

    Examples
    --------
    >>> spec = SweepSpec(problem="design", solvers=("sqp",), grid={"eps": [1.0]},
    ...                  options={"sqp": {"n_starts": 4, "seed": 3}}, source="s.toml")
    >>> new, notes = with_solvers(spec, ["exact"])
    >>> new.solvers, new.options, notes
    (('exact',), {'exact': {'seed': 3}}, ['--solver exact: dropped option n_starts of [options.sqp] in s.toml
    (for sqp, not exact)'])
    """
    from mechopt.registry import dropped_note, solver_names, split_options

    names = tuple(dict.fromkeys(solvers))
    if not names:
        raise CatalogError(f"{spec.source}: give at least one solver")
    options: dict[str, dict[str, Any]] = {}
    notes: list[str] = []
    for name in names:
        opts = dict(spec.options.get(name, {}))
        for other, table in spec.options.items():
            if other in names or other not in solver_names():  # a table of no solver was never used
                continue
            kept, dropped = split_options(name, table, written_for=other)
            for key, val in kept.items():
                opts.setdefault(key, val)
            note = dropped_note(name, dropped, f"[options.{other}] in {spec.source}")
            if note:
                notes.append(note)
        if opts:
            options[name] = opts
    return replace(spec, solvers=names, options=options), notes
