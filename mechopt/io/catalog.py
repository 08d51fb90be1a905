"""The built-in catalog of problem instances (package data, TOML) and its loader.

Each paper contributes ``mechopt/data/catalog/<paper>.toml``; ``mechopt compare``
runs every instance through every applicable solver, and ``mechopt design
--problem ID`` reads the problem classes the catalog refers to.

Notes
-----
The file format, field by field. A catalog file holds an array of tables ``[[instance]]``; nothing else is
allowed at the top level except the optional string ``description``.

``problem`` (string, required)
    A catalog id registered in ``mechopt.problems.<family>.PROBLEMS``
    (``mechopt.registry.problem_ids()``), e.g. ``"lip-mimo"`` or ``"design"``.
``name`` (string, required)
    A short label, unique within the problem id in this file
    (``"p=0.1,0.2,0.7 eps=1"``).
``params`` (table, required)
    Keyword arguments of ``ProblemClass.from_params(**params)``. Values are
    TOML strings, numbers, booleans or arrays; the CLI passes strings
    (``--set key=value``), so ``from_params`` accepts both. One conversion is
    made: ``graph`` given as an array of edges ``[[u, v], [u, v, weight], ...]``
    becomes a networkx policy graph (:func:`graph_from_edges`).
``solvers`` (array of strings, optional)
    Restrict ``compare`` to these registered solvers (default: every
    installed solver that ``can_solve`` the instance, and the closed form).
``skip`` (array of strings, optional)
    Solvers ``compare`` must not run on this instance (e.g. a local method
    known to be hopeless at this size).
``options`` (table of tables, optional)
    Per-solver options, ``options.sqp = { n_starts = 4 }``; checked by the
    solver (unknown keys raise :class:`~mechopt.errors.ParamError`).
``time_limit`` (number > 0, optional)
    Per-row time limit in seconds for this instance (overrides the
    ``--time-limit`` default of ``compare``).
``claim`` (string, optional)
    The ``mechopt verify`` claim id that the instance's closed form checks
    (``"lip.thm2"``, ``"fisher.cor1"``): ``compare`` links its closed-form row
    to that claim (the field ``claim`` of the row) and names it when the closed
    form is shown wrong. Without it the closed form's own ``extras["claim"]`` is used.
``note`` (string, optional)
    Free text shown nowhere but kept in :attr:`Instance.note`.

A loading error names the file, the instance (by index and problem id) and
the field in one line, as a :class:`CatalogError` (a ``ProblemError``).

Examples
--------
>>> from mechopt.io.catalog import parse_catalog
>>> text = '''
... [[instance]]
... problem = "design"
... name = "binary lip"
... params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
... '''
>>> [inst.label for inst in parse_catalog(text, source="demo.toml")]
['design: binary lip']
>>> parse_catalog('[[instance]]\\nproblem = "design"\\nname = "x"', source="demo.toml")
Traceback (most recent call last):
...
mechopt.io.catalog.CatalogError: demo.toml: instance 1 (design): field 'params' is missing
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from mechopt.errors import MechoptError, ProblemError

__all__ = [
    "Instance",
    "CatalogError",
    "parse_catalog",
    "load_catalog",
    "catalog_files",
    "builtin_catalog",
    "read_toml",
    "loads_toml",
    "is_seconds",
    "graph_from_edges",
    "spec_files",
    "resolve_spec",
    "load_design_spec",
]

_REQUIRED = {"problem": str, "name": str, "params": dict}
_OPTIONAL = {"solvers": list, "skip": list, "options": dict, "time_limit": (int, float), "claim": str, "note": str}
_CLAIM_ID = re.compile(r"[a-z][a-z0-9]*\.[A-Za-z0-9_]+")


#: Largest spec or catalog file read (specs are a few hundred bytes).
MAX_TOML_BYTES = 4 * 1024 * 1024


class CatalogError(ProblemError):
    """A catalog (or spec) file is unreadable or has a bad field."""


@dataclass(frozen=True)
class Instance:
    """One catalog entry: a problem id, a label and the ``from_params`` keywords."""

    problem: str
    name: str
    params: dict[str, Any]
    solvers: tuple[str, ...] | None = None
    skip: tuple[str, ...] = ()
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    time_limit: float | None = None
    note: str = ""
    source: str = ""
    claim: str | None = None

    @property
    def label(self) -> str:
        return f"{self.problem}: {self.name}"

    def build(self) -> Any:
        """The problem object, ``ProblemClass.from_params(**params)``."""
        from mechopt.registry import get_problem

        cls = get_problem(self.problem)
        params = dict(self.params)
        try:
            if isinstance(params.get("graph"), list):
                params["graph"] = graph_from_edges(params["graph"])
            return cls.from_params(**params)
        except MechoptError as exc:
            raise CatalogError(f"{self.source}: instance {self.name!r} ({self.problem}): {exc}") from None
        except TypeError as exc:  # wrong keywords for from_params
            raise CatalogError(
                f"{self.source}: instance {self.name!r} ({self.problem}): field 'params': {exc}"
            ) from None


def graph_from_edges(edges: list[Any]) -> Any:
    """A networkx graph from ``[[u, v], [u, v, weight], ...]`` (nodes are input indices).

    Examples
    --------
    >>> sorted(graph_from_edges([[0, 1], [1, 2, 2.0]]).edges(data="weight"))
    [(0, 1, 1.0), (1, 2, 2.0)]
    """
    import networkx as nx

    G = nx.Graph()
    for e in edges:
        if not (
            isinstance(e, list)
            and len(e) in (2, 3)
            and all(isinstance(v, (int, float)) for v in e)
            and all(isinstance(v, int) for v in e[:2])
        ):
            raise ProblemError(f"graph edge {e!r} must be [u, v] or [u, v, weight] with integer nodes")
        G.add_edge(e[0], e[1], weight=float(e[2]) if len(e) == 3 else 1.0)
    return G


def read_toml(path: str | Path) -> dict[str, Any]:
    """Read a TOML file; unreadable, non-regular, oversized or malformed files raise :class:`CatalogError`."""
    from mechopt.io.files import read_input

    p = Path(path)
    if not p.exists():
        raise CatalogError(f"{p}: no such file")
    data = read_input(p, "TOML file", MAX_TOML_BYTES, error=CatalogError)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise CatalogError(f"{p}: not a UTF-8 text file") from None
    return loads_toml(text, str(p))


def loads_toml(text: str, source: str) -> dict[str, Any]:
    """Parse TOML text; malformed or absurdly nested text raises :class:`CatalogError` naming ``source``.

    Examples
    --------
    >>> loads_toml("a = [1, 2]", "x.toml")
    {'a': [1, 2]}
    """
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"{source}: invalid TOML: {exc}") from None
    except RecursionError:
        raise CatalogError(f"{source}: invalid TOML: arrays or tables nested too deeply") from None


def is_seconds(value: Any) -> bool:
    """Whether ``value`` is a usable time limit: a real number, finite and > 0 (huge integers are not).

    Examples
    --------
    >>> is_seconds(2.5), is_seconds(float("inf")), is_seconds(10 ** 400), is_seconds(True)
    (True, False, False, False)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return 0 < float(value) < float("inf")
    except OverflowError:
        return False


def _check_field(where: str, key: str, val: Any, typ: Any) -> None:
    if isinstance(val, bool) and typ in ((int, float),):
        raise CatalogError(f"{where}: field {key!r} must be a number, got {val!r}")
    if not isinstance(val, typ):
        kind = {str: "a string", dict: "a table", list: "an array"}.get(typ, "a number")
        raise CatalogError(f"{where}: field {key!r} must be {kind}, got {val!r}")


def _instance(entry: Any, i: int, source: str, known: set[str] | None) -> Instance:
    if not isinstance(entry, dict):
        raise CatalogError(f"{source}: instance {i} must be a table [[instance]]")
    where = f"{source}: instance {i} ({entry.get('problem', '?')})"
    for key, typ in _REQUIRED.items():
        if key not in entry:
            raise CatalogError(f"{where}: field {key!r} is missing")
        _check_field(where, key, entry[key], typ)
    for key, val in entry.items():
        if key in _OPTIONAL:
            _check_field(where, key, val, _OPTIONAL[key])
        elif key not in _REQUIRED:
            raise CatalogError(f"{where}: unknown field {key!r}; known: {', '.join([*_REQUIRED, *_OPTIONAL])}")
    if known is not None and entry["problem"] not in known:
        raise CatalogError(
            f"{where}: field 'problem': unknown problem id {entry['problem']!r}; known: {', '.join(sorted(known))}"
        )
    for key in ("solvers", "skip"):
        if key in entry and not all(isinstance(s, str) for s in entry[key]):
            raise CatalogError(f"{where}: field {key!r} must be an array of solver names")
    opts = entry.get("options", {})
    for sname, sopts in opts.items():
        if not isinstance(sopts, dict):
            raise CatalogError(f"{where}: field 'options.{sname}' must be a table of solver options")
    tl = entry.get("time_limit")
    if tl is not None and not is_seconds(tl):
        raise CatalogError(f"{where}: field 'time_limit' must be > 0 (finite seconds), got {tl!r}")
    claim = entry.get("claim")
    if claim is not None and not _CLAIM_ID.fullmatch(claim):
        raise CatalogError(f"{where}: field 'claim' must be a verify claim id like 'lip.thm2', got {claim!r}")
    return Instance(
        problem=entry["problem"],
        name=entry["name"],
        params=dict(entry["params"]),
        solvers=tuple(entry["solvers"]) if "solvers" in entry else None,
        skip=tuple(entry.get("skip", ())),
        options={k: dict(v) for k, v in opts.items()},
        time_limit=None if tl is None else float(tl),
        note=entry.get("note", ""),
        source=source,
        claim=claim,
    )


def parse_catalog(
    data: str | dict[str, Any], *, source: str = "<catalog>", known: Iterable[str] | None = None
) -> list[Instance]:
    """Validate a catalog document (TOML text or the parsed dict) into instances.

    ``known`` is the set of registered problem ids to check ``problem`` against
    (None: do not check).
    """
    if isinstance(data, str):
        data = loads_toml(data, source)
    if not isinstance(data, dict):
        raise CatalogError(f"{source}: a catalog is a TOML document of [[instance]] tables, got {type(data).__name__}")
    extra = sorted(set(data) - {"instance", "description"})
    if extra:
        raise CatalogError(f"{source}: unknown top-level key(s) {extra}; a catalog has [[instance]] tables")
    entries = data.get("instance", [])
    if not isinstance(entries, list):
        raise CatalogError(f"{source}: 'instance' must be an array of tables [[instance]]")
    known_set = None if known is None else set(known)
    out = [_instance(e, i + 1, source, known_set) for i, e in enumerate(entries)]
    seen: set[tuple[str, str]] = set()
    for inst in out:
        if (inst.problem, inst.name) in seen:
            raise CatalogError(f"{source}: instance {inst.name!r} ({inst.problem}): field 'name' is not unique")
        seen.add((inst.problem, inst.name))
    return out


def load_catalog(path: str | Path, *, known: Iterable[str] | None = None) -> list[Instance]:
    """Load and validate one catalog file."""
    p = Path(path)
    return parse_catalog(read_toml(p), source=p.name, known=known)


def catalog_files() -> list[Path]:
    """The built-in catalog files ``mechopt/data/catalog/*.toml``, sorted by name.

    Examples
    --------
    >>> "design.toml" in [p.name for p in catalog_files()]
    True
    """
    root = resources.files("mechopt") / "data" / "catalog"
    try:
        return sorted(Path(str(f)) for f in root.iterdir() if f.name.endswith(".toml"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def spec_files() -> list[Path]:
    """The built-in sweep and design specs ``mechopt/data/specs/*.toml``.

    Examples
    --------
    >>> "lip-tradeoff" in [p.stem for p in spec_files()]
    True
    """
    root = resources.files("mechopt") / "data" / "specs"
    try:
        return sorted(Path(str(f)) for f in root.iterdir() if f.name.endswith(".toml"))
    except (FileNotFoundError, NotADirectoryError):
        return []


def resolve_spec(name: str | Path) -> Path:
    """A spec file path, or the name of a built-in spec (``lip-tradeoff``).

    Examples
    --------
    >>> resolve_spec("lip-tradeoff").name
    'lip-tradeoff.toml'
    """
    p = Path(name)
    if p.exists():
        return p
    builtin = {f.stem: f for f in spec_files()}
    key = p.name.removesuffix(".toml")
    if p.parent == Path(".") and key in builtin:
        return builtin[key]
    raise CatalogError(f"{p}: no such file (built-in specs: {', '.join(builtin) or 'none'})")


_DESIGN_SPEC_KEYS = ("problem", "solver", "time_limit", "params", "options", "description")


def load_design_spec(name: str | Path) -> tuple[Path, dict[str, Any]]:
    """A ``mechopt design --spec`` file (or built-in spec name): its path and its checked table.

    The fields are those of :mod:`mechopt.cli.design`'s spec: ``params`` (a table, required),
    ``problem``, ``solver`` (strings), ``time_limit`` (seconds > 0), ``options`` (a table),
    ``description``; any other key is refused.

    Examples
    --------
    >>> path, spec = load_design_spec("design-metric")
    >>> path.name, spec["params"]["notion"]
    ('design-metric.toml', 'metric-ldp')
    >>> load_design_spec("lip-tradeoff")  # a sweep spec  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    mechopt.io.catalog.CatalogError: lip-tradeoff: unknown key(s) ['fixed', 'grid', 'plot', 'solvers']; known: ...
    """
    path = resolve_spec(name)
    spec = read_toml(path)
    bad = sorted(set(spec) - set(_DESIGN_SPEC_KEYS))
    if bad:
        raise CatalogError(f"{name}: unknown key(s) {bad}; known: {', '.join(_DESIGN_SPEC_KEYS)}")
    if not isinstance(spec.get("params"), dict):
        raise CatalogError(f"{name}: field 'params' is missing or not a table")
    if not isinstance(spec.get("options", {}), dict):
        raise CatalogError(f"{name}: field 'options' must be a table")
    for key, ok, kind in (
        ("problem", lambda v: isinstance(v, str), "a problem id string"),
        ("solver", lambda v: isinstance(v, str), "a solver name string"),
        ("time_limit", is_seconds, "a finite number of seconds > 0"),
    ):
        if key in spec and not ok(spec[key]):
            raise CatalogError(f"{name}: field {key!r} must be {kind}, got {spec[key]!r}")
    return path, spec


def builtin_catalog(problems: Iterable[str] | None = None) -> list[Instance]:
    """Every built-in instance (of the given problem ids), validated against the registry.

    Examples
    --------
    >>> {i.problem for i in builtin_catalog(["design"])}
    {'design'}
    """
    from mechopt.registry import problem_ids

    known = problem_ids()
    wanted = None if problems is None else set(problems)
    if wanted is not None:
        unknown = sorted(wanted - set(known))
        if unknown:
            raise CatalogError(f"unknown problem id(s) {unknown}; known: {', '.join(known)}")
    out: list[Instance] = []
    for path in catalog_files():
        out += [i for i in load_catalog(path, known=known) if wanted is None or i.problem in wanted]
    return out
