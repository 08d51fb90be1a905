"""Fuzzing the file loaders (issue 11, part 5): only MechoptError may escape.

Every loader that reads user files — design spec files, sweep specs, catalog
files (and the ``from_params`` of every registered problem they feed), mechanism
files, prior files and policy-graph files — gets arbitrary bytes, arbitrary
text, and structured-but-wrong documents: the right keys with values of the
wrong type, missing keys, nested junk, huge integers, NaN/±inf literals and
unicode. A loader may accept the input or raise a :class:`MechoptError`
(one line); any other exception is a bug.

Budgets: ``FUZZ`` examples per loader in the default suite (fast), and
``FUZZ_SLOW`` (≥ 1000) per loader in the ``@pytest.mark.slow`` twins
(``python -m pytest -m slow tests/reliability/test_fuzz_loaders.py``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mechopt.cli.design import build_problem, read_graph
from mechopt.errors import MechoptError
from mechopt.io.catalog import parse_catalog
from mechopt.io.mechfile import read_mechanism
from mechopt.jobs.sweep.run import parse_spec
from mechopt.model.priors import parse_prior
from mechopt.registry import get_problem, problem_ids

FUZZ = int(os.environ.get("MECHOPT_FUZZ_EXAMPLES", "40"))
FUZZ_SLOW = 1000
_COMMON = dict(
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture],
)
FAST = settings(max_examples=FUZZ, **_COMMON)
SLOW = settings(max_examples=FUZZ_SLOW, **_COMMON)

# ---- strategies ---------------------------------------------------------------------------------
KEYS = [
    "problem",
    "name",
    "params",
    "solver",
    "solvers",
    "options",
    "time_limit",
    "grid",
    "fixed",
    "plot",
    "save_mechanism",
    "description",
    "instance",
    "prior",
    "eps",
    "notion",
    "utility",
    "values",
    "graph",
    "n",
    "a",
    "b",
    "x",
    "Q",
    "inputs",
    "outputs",
    "linspace",
    "logspace",
    "sqp",
    "n_starts",
    "é",
    "k y",
]
NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.sampled_from([0, 1, -1, 2**63, 10**400, -(10**400)]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([math.nan, math.inf, -math.inf, 1e308, -1e-320, 0.0]),
)
WORDS = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        [
            "0.2,0.8",
            "uniform:3",
            "uniform:0",
            "uniform:-1",
            "1",
            "",
            "nan,1",
            "inf",
            "-1",
            "lip",
            "ldp",
            "mip",
            "mse",
            "mi",
            "histogram",
            "graph-ldp",
            "sqp",
            "exact",
            "design",
            "lip-binary",
            "kss-mi",
            "fisher-interval",
            "gauss-tradeoff",
            "2,1;1,1",
            "1,2;3",
            "average:1,1",
            "variance:3:0:1",
            "exp:2",
            "../../etc/passwd",
            "∞",
            "ε",
        ]
    ),
)
SCALARS = st.one_of(NUMBERS, WORDS, st.booleans())


def _values(depth: int = 3) -> st.SearchStrategy[Any]:
    return st.recursive(
        SCALARS,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.sampled_from(KEYS), inner, max_size=4)),
        max_leaves=12,
    )


VALUES = _values()
DOCS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=6)


def _toml_key(k: str) -> str:
    return k if k.replace("_", "").replace("-", "").isalnum() and k.isascii() else json.dumps(k)


def _toml_value(v: Any) -> str:
    """A TOML inline value (floats keep nan/inf literals; ints may exceed 64 bits: the parser must cope)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf") if math.isinf(v) else repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v if x is not None) + "]"
    return "{" + ", ".join(f"{_toml_key(k)} = {_toml_value(x)}" for k, x in v.items() if x is not None) + "}"


def to_toml(doc: dict[str, Any]) -> str:
    """TOML text of ``doc``; ``None`` (TOML has no null) drops the key, as a missing field."""
    return "".join(f"{_toml_key(k)} = {_toml_value(v)}\n" for k, v in doc.items() if v is not None)


def _valid_bases() -> list[dict[str, Any]]:
    return [
        {"problem": "design", "params": {"prior": "0.3,0.7", "notion": "lip", "utility": "histogram", "eps": 1.0}},
        {"problem": "lip-binary", "params": {"p1": 0.3, "eps": 1.0}},
        {"problem": "gauss-tradeoff", "params": {"dataset": "1"}},
        {"problem": "fisher-interval", "params": {"a": -1, "b": 1, "n": 50}},
    ]


@st.composite
def mutated(draw: Callable, bases: list[dict[str, Any]]) -> dict[str, Any]:
    """A valid document with 1-3 fields replaced by junk, deleted, or junk fields added (nested too)."""
    doc = json.loads(json.dumps(draw(st.sampled_from(bases))))
    for _ in range(draw(st.integers(1, 3))):
        target = doc
        if isinstance(doc.get("params"), dict) and draw(st.booleans()):
            target = doc["params"]
        action = draw(st.sampled_from(["replace", "delete", "add"]))
        keys = list(target)
        if action == "add" or not keys:
            target[draw(st.sampled_from(KEYS))] = draw(VALUES)
        elif action == "delete":
            del target[draw(st.sampled_from(keys))]
        else:
            target[draw(st.sampled_from(keys))] = draw(VALUES)
    return doc


def only_mechopt_errors(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    try:
        fn(*args, **kwargs)
    except MechoptError as exc:
        assert "\n" not in str(exc), f"multi-line message: {exc!r}"


TEXT = st.one_of(st.text(max_size=200), st.text(alphabet="[]{}=,\"'.#\n 0123456789aeinfptrul-+_:;", max_size=200))
BYTES = st.binary(max_size=200)

# ---- the loaders -----------------------------------------------------------------------------------


def _write(tmp: Path, name: str, data: str | bytes) -> Path:
    p = tmp / name
    p.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
    return p


def load_design_spec(tmp: Path, data: str | bytes) -> None:
    path = _write(tmp, "spec.toml", data)
    args = argparse.Namespace(
        problem=None,
        spec=str(path),
        assign=[],
        opt=[],
        solver=None,
        time_limit=None,
        notion=None,
        utility=None,
        prior=None,
        eps=None,
        values=None,
        graph=None,
    )
    build_problem(args)


def load_sweep_spec(tmp: Path, data: str | bytes) -> None:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    parse_spec(text, source="fuzz.toml")


def load_catalog_and_build(tmp: Path, data: str | bytes) -> None:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    for inst in parse_catalog(text, source="fuzz.toml", known=problem_ids()):
        try:
            inst.build()
        except MechoptError:
            pass


def load_mechanism(tmp: Path, data: str | bytes) -> None:
    read_mechanism(_write(tmp, "m.json", data))


def load_prior_file(tmp: Path, data: str | bytes) -> None:
    parse_prior(str(_write(tmp, "p.txt", data)))
    parse_prior(str(_write(tmp, "p.npy", data if isinstance(data, bytes) else data.encode("utf-8", "replace"))))


def load_graph_files(tmp: Path, data: str | bytes) -> None:
    for suffix in (".edgelist", ".json", ".gml", ".graphml"):
        try:
            read_graph(_write(tmp, "g" + suffix, data), d=3)
        except MechoptError:
            pass


LOADERS = {
    "design-spec": load_design_spec,
    "sweep-spec": load_sweep_spec,
    "catalog": load_catalog_and_build,
    "mechanism": load_mechanism,
    "prior-file": load_prior_file,
    "graph-file": load_graph_files,
}


def _structured(name: str) -> st.SearchStrategy[str]:
    """Structured-but-wrong documents for each loader, serialised as its file format."""
    if name == "design-spec":
        return st.one_of(mutated(_valid_bases()), DOCS).map(to_toml)
    if name == "sweep-spec":
        base = [
            {
                "problem": "design",
                "solvers": ["sqp"],
                "fixed": {"notion": "lip", "utility": "histogram", "prior": "0.3,0.7"},
                "grid": {"eps": [0.5, 1.0]},
            }
        ]
        return st.one_of(mutated(base), DOCS).map(to_toml)
    if name == "catalog":
        inst = st.one_of(
            mutated([{"problem": b["problem"], "name": "x", "params": b["params"]} for b in _valid_bases()]), DOCS
        )
        return st.lists(inst, max_size=3).map(lambda xs: "".join("[[instance]]\n" + to_toml(x) for x in xs))
    if name == "mechanism":
        base = [{"Q": [[0.75, 0.25], [0.25, 0.75]], "prior": [0.5, 0.5], "notion": "ldp", "eps": 1.0}]
        return st.one_of(mutated(base), DOCS, VALUES).map(lambda d: json.dumps(d, allow_nan=True))
    if name == "prior-file":
        return st.lists(st.one_of(NUMBERS.map(str), WORDS), max_size=8).map(" ".join)
    return st.one_of(
        st.lists(st.tuples(SCALARS, SCALARS, st.one_of(st.just(""), SCALARS.map(str))), max_size=6).map(
            lambda es: "\n".join(f"{u} {v} {w}" for u, v, w in es)
        ),
        st.fixed_dictionaries(
            {
                "nodes": st.lists(st.dictionaries(st.sampled_from(["id", "x"]), SCALARS), max_size=4),
                "links": st.lists(
                    st.dictionaries(st.sampled_from(["source", "target", "weight"]), SCALARS), max_size=4
                ),
            }
        ).map(json.dumps),
    )


ANY_INPUT = {name: st.one_of(TEXT, BYTES, _structured(name)) for name in LOADERS}


def _fuzz_once(name: str, data: st.DataObject) -> None:
    import tempfile

    sample = data.draw(ANY_INPUT[name], label=name)
    with tempfile.TemporaryDirectory(prefix="mechopt-fuzz-") as tmp:
        only_mechopt_errors(LOADERS[name], Path(tmp), sample)


@pytest.mark.parametrize("name", list(LOADERS))
@FAST
@given(data=st.data())
def test_fuzz_loader(name, data):
    _fuzz_once(name, data)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(LOADERS))
@SLOW
@given(data=st.data())
def test_fuzz_loader_slow(name, data):
    _fuzz_once(name, data)


# ---- every problem's from_params with wrong-typed parameters ----------------------------------------


def _param_names(pid: str) -> list[str]:
    import inspect

    cls = get_problem(pid)
    names = [
        n
        for n, q in inspect.signature(cls.from_params).parameters.items()
        if q.kind in (q.KEYWORD_ONLY, q.POSITIONAL_OR_KEYWORD)
    ]
    extra = {
        "fisher-interval": ["a", "b", "n", "query"],
        "fisher-box": ["lower", "upper", "n"],
        "fisher-output": ["y_lo", "y_hi", "f_lo", "f_hi", "n"],
        "fisher-weighted": ["a", "b", "c", "d", "weight", "nw"],
        "fisher-gaussian": ["m", "sigma2", "xi", "n", "width"],
        "fisher-lti": ["A", "C", "T", "xi", "dt"],
    }
    return names + extra.get(pid, []) + ["junk_key"]


VALID_PARAMS: dict[str, dict[str, Any]] = {
    "design": {"prior": "0.3,0.7", "notion": "lip", "utility": "mse", "eps": 1.0, "values": "0,1"},
    "geo": {"coords": "grid:2x3", "eps": 1.0, "prior": "counts:1,2,3,1,1,1", "norm": "euclidean", "power": 1.0},
    "robust": {"prior_set": "0.2,0.8;0.5,0.5", "notion": "lip", "utility": "mae", "eps": 1.0, "values": "0,1"},
    "robust-ball": {"prior_counts": "40,25,20,15", "delta": 1e-3, "notion": "pml", "utility": "mae", "eps": 1.0},
    "lip-binary": {"p1": 0.3, "eps": 1.0, "notion": "lip"},
    "lip-mimo": {"prior": "0.3,0.7", "eps": 1.0, "values": "0,2", "notion": "ldp"},
    "lip-weighted-sum": {"prior": "0.3,0.7", "eps": 1.0, "weight": 2.0, "offset": 1.0},
    "lip-histogram": {"prior": "0.2,0.3,0.5", "eps": 1.0},
    "cip-binomial": {"n_users": 3, "p1": 0.3, "eps": 1.0, "program": "cip"},
    "kss-mi": {"prior": "uniform:4", "eps": 1.0},
    "kss-l2": {"prior": "uniform:4", "eps": 1.0, "n": 100, "outputs": 6},
    "fisher-interval": {"a": -1.0, "b": 1.0, "n": 50, "query": "average:1,1"},
    "fisher-box": {"lower": "-1,-1", "upper": "1,1", "n": "5,5"},
    "fisher-output": {"y_lo": 0.0, "y_hi": 10.0, "f_lo": 2.0, "f_hi": 6.0, "n": 50},
    "fisher-weighted": {"a": -1.0, "b": 1.0, "c": 0.0, "d": 4.0, "weight": "exp:2", "nw": 5},
    "fisher-gaussian": {"m": 2, "sigma2": 1.0, "n": 50, "width": 12.0},
    "fisher-lti": {"A": "1,1;0,1", "C": "1,0", "T": 3, "xi": 1.0},
    "gauss-tradeoff": {"cov_p": "2,1;1,1", "cov_u": "2,0.5;0.5,1", "n": 1, "delta": 0.3, "utility": "mi"},
    "gauss-dataset1": {"delta": 0.3, "gamma": 0.0},
    "gauss-dataset2": {"psd": "project", "delta": 0.3},
}


@st.composite
def problem_params(draw: Callable) -> tuple[str, dict[str, Any]]:
    """Either arbitrary keywords for a problem, or its valid keywords with 1-3 values replaced by junk."""
    pid = draw(st.sampled_from(problem_ids()))
    names = _param_names(pid)
    if pid in VALID_PARAMS and draw(st.booleans()):
        params = dict(VALID_PARAMS[pid])
        for _ in range(draw(st.integers(1, 3))):
            key = draw(st.sampled_from(sorted(params) + ["junk_key"]))
            if draw(st.integers(0, 5)) == 0:
                params.pop(key, None)
            else:
                params[key] = draw(VALUES)
        return pid, params
    return pid, draw(st.dictionaries(st.sampled_from(names), VALUES, max_size=4))


def test_valid_params_cover_every_problem():
    for pid in problem_ids():
        get_problem(pid).from_params(**VALID_PARAMS[pid])


def _from_params(case: tuple[str, dict[str, Any]]) -> None:
    pid, params = case
    try:
        get_problem(pid).from_params(**params)
    except TypeError as exc:  # a missing/unknown keyword: the CLI and catalog turn this into ProblemError
        assert "argument" in str(exc), exc


@FAST
@given(case=problem_params())
def test_fuzz_from_params(case):
    only_mechopt_errors(_from_params, case)


@pytest.mark.slow
@SLOW
@given(case=problem_params())
def test_fuzz_from_params_slow(case):
    only_mechopt_errors(_from_params, case)


def test_fuzz_helpers_emit_valid_toml():
    """The serialiser the fuzzers rely on writes TOML that parses back to the document."""
    import tomllib

    doc = {"problem": "design", "params": {"prior": "0.3,0.7", "eps": math.inf, "k y": [1, 2.5, "é"]}}
    back = tomllib.loads(to_toml(doc))
    assert back["params"]["eps"] == math.inf and back["params"]["k y"] == [1, 2.5, "é"]


JUNK = [
    10**400,
    -(10**400),
    2**63,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    0,
    1e308,
    1e-320,
    True,
    None,
    "",
    "∞",
    "1e999",
    "nan",
    "-1",
    "0",
    [],
    [[]],
    [1, [2]],
    ["a"],
    {},
    {"x": 1},
    "uniform:0",
    "2,1;1",
    "../x",
]


def test_from_params_mutation_matrix():
    """Deterministic sweep: every problem, every parameter, every junk value; only MechoptError may escape."""
    tried, bugs = 0, []
    for pid in problem_ids():
        for key in sorted(VALID_PARAMS[pid]):
            for junk in JUNK:
                tried += 1
                try:
                    only_mechopt_errors(_from_params, (pid, {**VALID_PARAMS[pid], key: junk}))
                except Exception as exc:  # collect them all: the report lists every escape at once
                    bugs.append(f"{pid} {key}={str(junk)[:20]!r}: {type(exc).__name__}: {str(exc)[:80]}")
    assert tried > 1000
    assert not bugs, "\n".join(bugs)


MATRIX_BASES: dict[str, tuple[dict[str, Any], Callable[[dict[str, Any]], str]]] = {
    "design-spec": (
        {
            "problem": "design",
            "solver": "sqp",
            "time_limit": 5,
            "options": {"n_starts": 2},
            "params": {"prior": "0.3,0.7", "notion": "lip", "utility": "histogram", "eps": 1.0},
        },
        to_toml,
    ),
    "sweep-spec": (
        {
            "problem": "design",
            "solvers": ["sqp"],
            "time_limit": 5,
            "save_mechanism": False,
            "description": "d",
            "options": {"sqp": {"n_starts": 2}},
            "plot": {"x": "eps"},
            "fixed": {"notion": "lip", "utility": "histogram", "prior": "0.3,0.7"},
            "grid": {"eps": [0.5, 1.0]},
        },
        to_toml,
    ),
    "catalog": (
        {
            "problem": "lip-binary",
            "name": "x",
            "params": {"p1": 0.3, "eps": 1.0},
            "solvers": ["exact"],
            "skip": ["sqp"],
            "options": {"exact": {}},
            "time_limit": 5,
            "note": "n",
        },
        lambda d: "[[instance]]\n" + to_toml(d),
    ),
    "mechanism": (
        {
            "Q": [[0.75, 0.25], [0.25, 0.75]],
            "prior": [0.5, 0.5],
            "inputs": [0, 1],
            "outputs": [0, 1],
            "notion": "ldp",
            "eps": 1.0,
        },
        lambda d: json.dumps(d, allow_nan=True),
    ),
}


def _leaf_paths(doc: dict[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    out = []
    for k, v in doc.items():
        out.append(prefix + (k,))
        if isinstance(v, dict):
            out += _leaf_paths(v, prefix + (k,))
    return out


def _set(doc: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    new = json.loads(json.dumps(doc))
    target = new
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return new


@pytest.mark.parametrize("name", list(MATRIX_BASES))
def test_loader_mutation_matrix(name):
    """Deterministic sweep: every field (nested ones too) of a valid file set to every junk value."""
    import tempfile

    base, dump = MATRIX_BASES[name]
    tried, bugs = 0, []
    with tempfile.TemporaryDirectory(prefix="mechopt-matrix-") as tmp:
        LOADERS[name](Path(tmp), dump(base))  # the base document itself is valid
        for path in _leaf_paths(base):
            for junk in [*JUNK, [[math.nan]], {"deep": {"deeper": [1e308, -1e308]}}]:
                tried += 1
                try:
                    only_mechopt_errors(LOADERS[name], Path(tmp), dump(_set(base, path, junk)))
                except Exception as exc:
                    bugs.append(f"{'.'.join(path)}={str(junk)[:20]!r}: {type(exc).__name__}: {str(exc)[:80]}")
    assert tried > 100
    assert not bugs, "\n".join(bugs)
