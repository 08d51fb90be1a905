"""The bad-input catalog, Python API side (issue 11, part 1).

Each row is (entry point, bad input, expected exception class, expected message
fragment). Every row must raise exactly that typed :class:`MechoptError`
subclass, with a ONE-line message containing the fragment (what is wrong, and
how to fix it). A raw ValueError / KeyError / OverflowError escaping, a NaN,
or a silent acceptance is a bug.

Decisions this catalog pins down:

* ε = ∞ (no privacy constraint) is rejected by every constructor with a
  message saying so: every cone and closed form uses e^ε.
* ε > 700 is rejected (e^ε overflows a double at ≈ 709.8), naming the limit.
* ε < 0 is rejected everywhere; ε = 0 is rejected by ``design``, ``kss-*``
  and the CLI, and accepted by ``lip-*`` / ``cip-binomial`` constructors,
  where it is the well-defined perfect-privacy limit of the paper.
* A one-symbol prior is rejected by every channel design (nothing to hide).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np
import pytest

import mechopt
from mechopt.cli.design import read_graph
from mechopt.errors import MechoptError, ParamError, ProblemError, SolverNotFound, TooLargeError
from mechopt.io import mechfile
from mechopt.io.catalog import CatalogError, Instance, load_catalog, parse_catalog, resolve_spec
from mechopt.jobs.reproduce import reproduce
from mechopt.jobs.sweep.run import load_spec, parse_spec
from mechopt.model.channel import Channel, validate_channel
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.notions import LIP, audit_all, make_notion
from mechopt.registry import claims, get_problem, get_solver

F = dict[str, Path]


def _files(tmp: Path) -> F:
    f: F = {"dir": tmp}
    texts = {
        "prior_txt": "0.5 0.6\n",
        "prior_bin.txt": None,
        "q_deep.json": "[" * 50_000 + "]" * 50_000,
        "q_nan.json": '{"Q": [[NaN, 1.0]]}',
        "q_rows.json": json.dumps({"Q": [[0.6, 0.6], [0.5, 0.5]]}),
        "q_noq.json": json.dumps({"R": 1}),
        "q_list.json": "[1, 2]",
        "q_bool.json": '{"Q": [[true]]}',
        "q_prior.json": json.dumps({"Q": [[1.0, 0.0], [0.0, 1.0]], "prior": [0.2, 0.3, 0.5]}),
        "q_bigint.json": '{"Q": [[' + "9" * 400 + "]]}",
        "q_bad.json": "{not json",
        "bad.toml": "problem = [unclosed\n",
        "g.graphml": "<graphml",
        "g.json": "[1, 2]",
        "g_weight.edgelist": "0 1 heavy\n",
        "cov.npy": None,
    }
    for name, text in texts.items():
        p = tmp / name
        if text is not None:
            p.write_text(text)
        f[name.split(".")[0] if name != "prior_txt" else name] = p
    f["prior_bin"].write_bytes(b"\xff\xfe\x00\x01")
    np.save(tmp / "cov.npy", np.array([{"pickled": 1}], dtype=object), allow_pickle=True)
    return f


P = get_problem
OK_DESIGN = dict(prior="0.3,0.7", notion="lip", utility="mse")
SPEC = 'problem = "design"\nsolvers = ["sqp"]\n'


def design(**kw: Any) -> Any:
    return P("design").from_params(**{**OK_DESIGN, "eps": 1.0, **kw})


def gauss(**kw: Any) -> Any:
    return P("gauss-tradeoff").from_params(**{"cov_p": "2,1;1,1", "cov_u": "2,0.5;0.5,1", "n": "1", **kw})


def solve_design(**opts: Any) -> Any:
    return mechopt.solve(design(), **opts)


Case = tuple[str, str, Callable[[F], Any], type, str]
CASES: list[Case] = [
    # ---- ε ------------------------------------------------------------------------------
    ("design", "eps = inf", lambda f: design(eps=math.inf), ProblemError, "no privacy constraint"),
    ("design", "eps = 'inf' string", lambda f: design(eps="inf"), ProblemError, "no privacy constraint"),
    ("design", "eps = 1000 (e^eps overflows)", lambda f: design(eps=1000), ProblemError, "use eps <= 700"),
    ("design", "eps = 0", lambda f: design(eps=0), ProblemError, "finite number > 0"),
    ("design", "eps negative", lambda f: design(eps=-1), ProblemError, "finite number > 0"),
    ("design", "eps NaN", lambda f: design(eps=float("nan")), ProblemError, "finite number > 0"),
    ("design", "eps a word", lambda f: design(eps="one"), ProblemError, "eps must be a number"),
    ("design", "eps a list", lambda f: design(eps=[1, 2]), ProblemError, "eps must be a number"),
    ("design", "eps a boolean", lambda f: design(eps=True), ProblemError, "eps must be a number"),
    (
        "lip-mimo",
        "eps = inf",
        lambda f: P("lip-mimo").from_params(prior="0.3,0.7", eps="inf"),
        ProblemError,
        "no privacy constraint",
    ),
    (
        "lip-binary",
        "eps = 1000",
        lambda f: P("lip-binary").from_params(eps=1000, p1=0.3),
        ProblemError,
        "e^eps overflows",
    ),
    (
        "lip-histogram",
        "eps negative",
        lambda f: P("lip-histogram").from_params(prior="0.3,0.7", eps=-0.5),
        ProblemError,
        "finite number > 0",
    ),
    (
        "cip-binomial",
        "eps = 1e6",
        lambda f: P("cip-binomial").from_params(eps=1e6, n_users=3, p1=0.3),
        ProblemError,
        "e^eps overflows",
    ),
    ("kss-mi", "eps = inf", lambda f: P("kss-mi").from_params(eps="inf"), ProblemError, "no privacy constraint"),
    ("kss-l2", "eps = 0", lambda f: P("kss-l2").from_params(eps=0), ProblemError, "finite number > 0"),
    ("make_notion", "eps = inf", lambda f: make_notion("ldp", math.inf), ProblemError, "no privacy constraint"),
    ("make_notion", "eps = 800", lambda f: make_notion("mip", 800), ProblemError, "use eps <= 700"),
    ("LIP", "eps negative", lambda f: LIP(-1.0), ProblemError, "finite number > 0"),
    # ---- priors ---------------------------------------------------------------------------
    ("design", "prior not summing to one", lambda f: design(prior="0.3,0.8"), ProblemError, "normalise it"),
    ("design", "negative prior entry", lambda f: design(prior="-0.2,1.2"), ProblemError, "negative entry"),
    ("design", "NaN prior entry", lambda f: design(prior="nan,0.5"), ProblemError, "non-finite entry"),
    ("design", "inf prior entry", lambda f: design(prior=[math.inf, 0.0]), ProblemError, "non-finite entry"),
    ("design", "empty prior string", lambda f: design(prior=""), ProblemError, "the prior is empty"),
    ("design", "one-symbol prior", lambda f: design(prior="1"), ProblemError, "at least 2 input symbols"),
    ("design", "prior as a matrix", lambda f: design(prior=[[0.5, 0.5]]), ProblemError, "1-D vector"),
    ("design", "prior of words", lambda f: design(prior=["a", "b"]), ProblemError, "vector of numbers"),
    (
        "lip-mimo",
        "one-symbol prior",
        lambda f: P("lip-mimo").from_params(prior="1", eps=1),
        ProblemError,
        "at least 2 symbols",
    ),
    (
        "kss-mi",
        "one-symbol prior",
        lambda f: P("kss-mi").from_params(prior="uniform:1"),
        ProblemError,
        "at least 2 symbols",
    ),
    ("kss-mi", "uniform:0", lambda f: P("kss-mi").from_params(prior="uniform:0"), ProblemError, "d ≥ 1"),
    (
        "parse_prior",
        "uniform:10^20 (too many symbols)",
        lambda f: parse_prior("uniform:" + "1" + "0" * 20),
        ProblemError,
        "at most 10000000 symbols",
    ),
    ("parse_prior", "uniform:x", lambda f: parse_prior("uniform:x"), ProblemError, "integer d ≥ 1"),
    ("parse_prior", "only commas", lambda f: parse_prior(","), ProblemError, "non-empty 1-D vector"),
    ("parse_prior", "1e400 overflows to inf", lambda f: parse_prior("1e400,0"), ProblemError, "non-finite entry"),
    ("parse_prior", "missing file", lambda f: parse_prior(str(f["dir"] / "none.npy")), ProblemError, "does not exist"),
    ("parse_prior", "a directory", lambda f: parse_prior(str(f["dir"])), ProblemError, "is a directory"),
    ("parse_prior", "file not summing to one", lambda f: parse_prior(str(f["prior_txt"])), ProblemError, "sums to 1.1"),
    (
        "parse_prior",
        "binary .txt file",
        lambda f: parse_prior(str(f["prior_bin"])),
        ProblemError,
        "cannot read prior file",
    ),
    (
        "parse_prior",
        ".npy holding a pickled object",
        lambda f: parse_prior(str(f["cov"])),
        ProblemError,
        "holds Python objects",
    ),
    (
        "validate_prior",
        "huge entries overflow the sum",
        lambda f: validate_prior([1e308, 1e308]),
        ProblemError,
        "sums to inf",
    ),
    (
        "validate_prior",
        "an integer too large for a float",
        lambda f: validate_prior([10**400, 0]),
        ProblemError,
        "vector of numbers",
    ),
    ("validate_prior", "complex entries", lambda f: validate_prior([0.5 + 1j, 0.5]), ProblemError, "vector of numbers"),
    # ---- channels ----------------------------------------------------------------------------
    (
        "validate_channel",
        "rows not summing to one",
        lambda f: validate_channel([[0.6, 0.6], [0.5, 0.5]]),
        ProblemError,
        "row 0 of Q sums to 1.2",
    ),
    ("validate_channel", "negative entry", lambda f: validate_channel([[1.5, -0.5]]), ProblemError, "is negative"),
    ("validate_channel", "NaN entry", lambda f: validate_channel([[math.nan, 1.0]]), ProblemError, "not finite"),
    ("validate_channel", "a vector", lambda f: validate_channel([0.5, 0.5]), ProblemError, "2-D matrix"),
    (
        "validate_channel",
        "ragged rows",
        lambda f: validate_channel([[1.0], [0.5, 0.5]]),
        ProblemError,
        "matrix of numbers",
    ),
    ("validate_channel", "empty matrix", lambda f: validate_channel([[]]), ProblemError, "non-empty 2-D"),
    (
        "validate_channel",
        "rows do not match the prior",
        lambda f: validate_channel(np.eye(2), n_inputs=3),
        ProblemError,
        "rows are inputs",
    ),
    ("Channel", "labels of the wrong length", lambda f: Channel([[1.0]], inputs=(1, 2)), ProblemError, "inputs labels"),
    (
        "audit_all",
        "prior of the wrong size",
        lambda f: audit_all(np.eye(2), [1 / 3] * 3),
        ProblemError,
        "2 rows but the prior has 3",
    ),
    (
        "mechfile.audit",
        "prior of the wrong size",
        lambda f: mechfile.audit(np.eye(2), "0.2,0.3,0.5"),
        ProblemError,
        "rows but the prior has 3",
    ),
    # ---- notions, utilities, options --------------------------------------------------------
    ("design", "unknown notion", lambda f: design(notion="xdp"), ProblemError, "unknown privacy notion 'xdp'"),
    ("design", "unknown utility", lambda f: design(utility="fun"), ProblemError, "unknown utility 'fun'"),
    ("design", "unknown parameter", lambda f: design(foo=1), ProblemError, "unknown design parameter(s) ['foo']"),
    (
        "design",
        "values of the wrong length",
        lambda f: design(values="1,2,3"),
        ProblemError,
        "3 values but the prior has 2",
    ),
    ("design", "values that are not numbers", lambda f: design(values="a,b"), ProblemError, "comma-separated numbers"),
    ("design", "graph-ldp without a graph", lambda f: design(notion="graph-ldp"), ProblemError, "needs a policy graph"),
    (
        "design",
        "graph with a NaN weight",
        lambda f: design(notion="metric-ldp", graph=nx.Graph([(0, 1, {"weight": math.nan})])),
        ProblemError,
        "weights must be finite and > 0",
    ),
    (
        "design",
        "graph with nodes outside 0..d-1",
        lambda f: design(notion="graph-ldp", graph=nx.Graph([(0, 5)])),
        ProblemError,
        "nodes must be the integers 0..d-1",
    ),
    (
        "make_notion",
        "cip without user priors",
        lambda f: make_notion("cip", 1.0),
        ProblemError,
        "needs the users' priors p",
    ),
    ("solve", "unknown solver", lambda f: solve_design(solver="nope"), SolverNotFound, "unknown solver 'nope'"),
    (
        "solve",
        "unknown solver option",
        lambda f: solve_design(solver="sqp", bogus=1),
        ParamError,
        "unknown option(s) ['bogus']",
    ),
    (
        "solve",
        "option of the wrong type",
        lambda f: solve_design(solver="sqp", n_starts="x"),
        ParamError,
        "option 'n_starts' of solver 'sqp' must be a number",
    ),
    (
        "solve",
        "non-integer count option",
        lambda f: solve_design(solver="sqp", max_iter=2.5),
        ParamError,
        "must be an integer",
    ),
    (
        "solve",
        "seed that is not an integer",
        lambda f: solve_design(solver="sqp", seed="x"),
        ParamError,
        "numpy.random.Generator",
    ),
    (
        "solve",
        "boolean option given a number",
        lambda f: solve_design(solver="sqp", verbose=3),
        ParamError,
        "true or false",
    ),
    (
        "solve",
        "NaN time limit",
        lambda f: solve_design(solver="sqp", time_limit=math.nan),
        ParamError,
        "positive number of seconds",
    ),
    (
        "solve",
        "solver that does not apply",
        lambda f: mechopt.solve(P("fisher-interval").from_params(n=50), solver="exact"),
        SolverNotFound,
        "cannot solve FisherInterval",
    ),
    ("get_problem", "unknown problem id", lambda f: P("nope-problem"), ProblemError, "unknown problem 'nope-problem'"),
    (
        "solve",
        "a problem id instead of a Problem",
        lambda f: mechopt.solve("design"),
        ProblemError,
        "solve() takes a Problem, got str",
    ),
    (
        "solve",
        "exact ray enumeration beyond its memory budget",  # uniform:5000000 now returns an audited plan
        lambda f: mechopt.solve(
            P("design").from_params(
                prior=",".join(str(k / 820) for k in range(1, 41)), notion="ldp", utility="mi", eps=1
            ),
            solver="exact",
            method="enumerate",
        ),
        TooLargeError,
        "enumerating the 2^40 ε-LDP patterns needs",
    ),
    ("get_solver", "unknown solver name", lambda f: get_solver("nope"), SolverNotFound, "available:"),
    # ---- family parameters -----------------------------------------------------------------
    (
        "lip-binary",
        "p1 outside [0, 1]",
        lambda f: P("lip-binary").from_params(eps=1, p1="2"),
        ProblemError,
        "p1 must be in [0, 1]",
    ),
    (
        "lip-binary",
        "neither prior nor p1",
        lambda f: P("lip-binary").from_params(eps=1),
        ProblemError,
        "exactly one of prior",
    ),
    (
        "lip-weighted-sum",
        "weight NaN",
        lambda f: P("lip-weighted-sum").from_params(prior="0.3,0.7", eps=1, weight="nan"),
        ProblemError,
        "give a finite number",
    ),
    (
        "cip-binomial",
        "n_users zero",
        lambda f: P("cip-binomial").from_params(eps=1, n_users=0, p1=0.3),
        ProblemError,
        "positive integer",
    ),
    (
        "cip-binomial",
        "n_users 10^9 (too large)",
        lambda f: P("cip-binomial").from_params(eps=1, n_users=10**9, p1=0.3),
        ProblemError,
        "n_users = 1000000000 is too large",
    ),
    (
        "cip-binomial",
        "unknown program",
        lambda f: P("cip-binomial").from_params(eps=1, n_users=3, p1=0.3, program="z"),
        ProblemError,
        "program must be 'cip'",
    ),
    ("kss-l2", "n not an integer", lambda f: P("kss-l2").from_params(n="nan"), ProblemError, "positive integer"),
    ("fisher-interval", "b <= a", lambda f: P("fisher-interval").from_params(a=1, b=-1), ProblemError, "needs b > a"),
    (
        "fisher-interval",
        "a infinite",
        lambda f: P("fisher-interval").from_params(a="-inf"),
        ProblemError,
        "must be finite",
    ),
    (
        "fisher-interval",
        "grid too small",
        lambda f: P("fisher-interval").from_params(n=2),
        ProblemError,
        "n must be >= 3",
    ),
    (
        "fisher-interval",
        "unknown query",
        lambda f: P("fisher-interval").from_params(query="junk"),
        ProblemError,
        "unknown query 'junk'",
    ),
    (
        "fisher-interval",
        "grid of 10^8 points",
        lambda f: P("fisher-interval").from_params(n="100000000"),
        ProblemError,
        "at most 1000000",
    ),
    (
        "fisher-gaussian",
        "dimension 10^5",
        lambda f: P("fisher-gaussian").from_params(m=100000),
        ProblemError,
        "at most 1000",
    ),
    (
        "fisher-box",
        "fractional grid size",
        lambda f: P("fisher-box").from_params(n="5,2.5"),
        ProblemError,
        "n must be an integer, got 2.5",
    ),
    (
        "fisher-box",
        "mismatched bounds",
        lambda f: P("fisher-box").from_params(lower="0,0", upper="1,1,1"),
        ProblemError,
        "vectors of one length",
    ),
    ("fisher-box", "NaN grid size", lambda f: P("fisher-box").from_params(n="nan,3"), ProblemError, "finite"),
    (
        "fisher-output",
        "output set too narrow",
        lambda f: P("fisher-output").from_params(y_lo=0, y_hi=1, f_lo=0, f_hi=5),
        ProblemError,
        "too narrow",
    ),
    (
        "fisher-weighted",
        "unknown weight",
        lambda f: P("fisher-weighted").from_params(weight="junk"),
        ProblemError,
        "unknown weight 'junk'",
    ),
    (
        "fisher-gaussian",
        "sigma2 negative",
        lambda f: P("fisher-gaussian").from_params(sigma2=-1),
        ProblemError,
        "sigma2 must be > 0",
    ),
    (
        "geo",
        "an empty grid",
        lambda f: P("geo").from_params(coords="grid:0x0", eps=1.0),
        ProblemError,
        "a grid needs at least 2 points",
    ),
    (
        "geo",
        "eps < 0",
        lambda f: P("geo").from_params(coords="grid:3x3", eps=-1),
        ProblemError,
        "eps must be a finite number > 0",
    ),
    (
        "robust",
        "a prior-set vertex that is not a distribution",
        lambda f: P("robust").from_params(prior_set="0.2,0.9;0.5,0.5", notion="lip", utility="mae", eps=1.0),
        ProblemError,
        "sums to",
    ),
    (
        "robust-ball",
        "a negative ball radius",
        lambda f: P("robust-ball").from_params(
            prior="0.2,0.8", prior_ball="-0.1:tv", notion="pml", utility="mae", eps=1.0
        ),  # fmt: skip
        ProblemError,
        "radius",
    ),
    (
        "robust",
        "prior-set vertices of different lengths",
        lambda f: P("robust").from_params(prior_set="0.2,0.8;0.3,0.3,0.4", notion="pml", utility="mae", eps=1.0),
        ProblemError,
        "different lengths",
    ),
    (
        "fisher-lti",
        "A not square",
        lambda f: P("fisher-lti").from_params(A="1,2", C="1"),
        ProblemError,
        "A must be n×n",
    ),
    (
        "fisher-lti",
        "A with NaN",
        lambda f: P("fisher-lti").from_params(A="nan,0;0,1"),
        ProblemError,
        "finite 2-D matrix",
    ),
    (
        "fisher-lti",
        "unobservable system",
        lambda f: P("fisher-lti").from_params(A="1,0;0,1", C="1,0", T=3).closed_form(),
        ProblemError,
        "full column rank",
    ),
    ("gauss-tradeoff", "covariance not symmetric", lambda f: gauss(cov_p="2,1;0,1"), ProblemError, "not symmetric"),
    (
        "gauss-tradeoff",
        "covariance not PSD",
        lambda f: gauss(cov_p="1,0;0,-1", cov_u="1,0.5;0.5,1"),
        ProblemError,
        "not positive definite",
    ),
    ("gauss-tradeoff", "covariance with NaN", lambda f: gauss(cov_p="nan,1;1,1"), ProblemError, "non-finite entries"),
    ("gauss-tradeoff", "ragged covariance", lambda f: gauss(cov_p="2,1;1"), ProblemError, "must be rows 'a,b;c,d'"),
    (
        "gauss-tradeoff",
        "nested junk covariance",
        lambda f: gauss(cov_p=[[1, [2]], [3, 4]]),
        ProblemError,
        "square matrix of numbers",
    ),
    (
        "gauss-tradeoff",
        "covariance .npy with a pickled object",
        lambda f: gauss(cov_p=str(f["cov"])),
        ProblemError,
        "holds Python objects",
    ),
    (
        "gauss-tradeoff",
        "covariance file that is a directory",
        lambda f: gauss(cov_p=str(f["dir"]) + "/sub.npy"),
        ProblemError,
        "not found",
    ),
    ("gauss-tradeoff", "n out of range", lambda f: gauss(n="5"), ProblemError, "must be an integer in [1, 1]"),
    ("gauss-tradeoff", "delta negative", lambda f: gauss(delta=-1), ProblemError, "finite number ≥ 0"),
    (
        "gauss-tradeoff",
        "unknown dataset",
        lambda f: P("gauss-tradeoff").from_params(dataset=3),
        ProblemError,
        "dataset must be one of",
    ),
    (
        "gauss-dataset1",
        "gamma infinite",
        lambda f: P("gauss-dataset1").from_params(gamma="inf"),
        ProblemError,
        "gamma must be a finite number",
    ),
    (
        "gauss-dataset2",
        "printed dataset 2 is not PSD",
        lambda f: P("gauss-dataset2").from_params(),
        ProblemError,
        'pass psd="project"',
    ),
    # ---- mechanism files -------------------------------------------------------------------
    (
        "read_mechanism",
        "missing file",
        lambda f: mechfile.read_mechanism(f["dir"] / "none.json"),
        ProblemError,
        "does not exist",
    ),
    ("read_mechanism", "a directory", lambda f: mechfile.read_mechanism(f["dir"]), ProblemError, "is a directory"),
    ("read_mechanism", "invalid JSON", lambda f: mechfile.read_mechanism(f["q_bad"]), ProblemError, "not valid JSON"),
    (
        "read_mechanism",
        "NaN literal",
        lambda f: mechfile.read_mechanism(f["q_nan"]),
        ProblemError,
        "NaN is not a number",
    ),
    (
        "read_mechanism",
        "rows not probability vectors",
        lambda f: mechfile.read_mechanism(f["q_rows"]),
        ProblemError,
        "each row must be a probability vector",
    ),
    ("read_mechanism", "no Q", lambda f: mechfile.read_mechanism(f["q_noq"]), ProblemError, 'with a "Q" matrix'),
    ("read_mechanism", "a JSON array", lambda f: mechfile.read_mechanism(f["q_list"]), ProblemError, "JSON object"),
    (
        "read_mechanism",
        "boolean entry",
        lambda f: mechfile.read_mechanism(f["q_bool"]),
        ProblemError,
        "non-numeric entry",
    ),
    (
        "read_mechanism",
        "prior of the wrong size",
        lambda f: mechfile.read_mechanism(f["q_prior"]),
        ProblemError,
        "has 3 symbols but Q has 2 rows",
    ),
    (
        "read_mechanism",
        "deeply nested arrays",
        lambda f: mechfile.read_mechanism(f["q_deep"]),
        ProblemError,
        "nested too deeply",
    ),
    (
        "read_mechanism",
        "integer too large for a float",
        lambda f: mechfile.read_mechanism(f["q_bigint"]),
        ProblemError,
        "matrix of numbers",
    ),
    (
        "write_mechanism",
        "path is a directory",
        lambda f: mechfile.write_mechanism(f["dir"], [[1.0]]),
        ProblemError,
        "cannot write",
    ),
    # ---- catalog and spec files -------------------------------------------------------------
    ("load_catalog", "missing file", lambda f: load_catalog(f["dir"] / "none.toml"), CatalogError, "no such file"),
    ("load_catalog", "a directory", lambda f: load_catalog(f["dir"]), CatalogError, "is a directory"),
    ("load_catalog", "malformed TOML", lambda f: load_catalog(f["bad"]), CatalogError, "invalid TOML"),
    ("parse_catalog", "not a document", lambda f: parse_catalog(3), CatalogError, "a catalog is a TOML document"),
    (
        "parse_catalog",
        "instance is a table",
        lambda f: parse_catalog("[instance]\nproblem = 'x'"),
        CatalogError,
        "must be an array of tables",
    ),
    (
        "parse_catalog",
        "missing params",
        lambda f: parse_catalog('[[instance]]\nproblem="design"\nname="x"'),
        CatalogError,
        "field 'params' is missing",
    ),
    (
        "parse_catalog",
        "infinite time limit",
        lambda f: parse_catalog('[[instance]]\nproblem="design"\nname="x"\nparams={}\ntime_limit=inf'),
        CatalogError,
        "(finite seconds)",
    ),
    (
        "parse_catalog",
        "unknown problem id",
        lambda f: parse_catalog('[[instance]]\nproblem="nope"\nname="x"\nparams={}', known=["design"]),
        CatalogError,
        "unknown problem id 'nope'",
    ),
    (
        "Instance.build",
        "bad prior in params",
        lambda f: Instance("design", "x", {**OK_DESIGN, "prior": "0.5,0.6", "eps": 1}, source="c.toml").build(),
        CatalogError,
        "sums to 1.1",
    ),
    (
        "Instance.build",
        "wrong keyword",
        lambda f: Instance("fisher-interval", "x", {"zz": 1}, source="c.toml").build(),
        CatalogError,
        "unknown parameter(s) ['zz']",
    ),
    ("resolve_spec", "missing spec", lambda f: resolve_spec(f["dir"] / "none.toml"), CatalogError, "no such file"),
    ("load_spec", "a directory", lambda f: load_spec(f["dir"]), CatalogError, "is a directory"),
    ("load_spec", "malformed TOML", lambda f: load_spec(f["bad"]), CatalogError, "invalid TOML"),
    ("parse_spec", "empty grid list", lambda f: parse_spec(SPEC + "[grid]\neps = []"), CatalogError, "empty list"),
    (
        "parse_spec",
        "linspace with a NaN count",
        lambda f: parse_spec(SPEC + "[grid]\neps = {linspace = [0, 1, nan]}"),
        CatalogError,
        "integer count",
    ),
    (
        "parse_spec",
        "linspace with 10^12 points",
        lambda f: parse_spec(SPEC + "[grid]\neps = {linspace = [0, 1, 1000000000000]}"),
        CatalogError,
        "integer count in 1..100000",
    ),
    (
        "parse_spec",
        "logspace overflowing",
        lambda f: parse_spec(SPEC + "[grid]\neps = {logspace = [0, 400, 3]}"),
        CatalogError,
        "overflows",
    ),
    (
        "parse_spec",
        "grid product too large",
        lambda f: parse_spec(SPEC + "[grid]\na = {linspace = [0, 1, 100000]}\nb = {linspace = [0, 1, 100000]}"),
        CatalogError,
        "more than 100000",
    ),
    (
        "parse_spec",
        "eps = 0 in the grid",
        lambda f: parse_spec(SPEC + "[grid]\neps = [0.5, 0]"),
        CatalogError,
        "field 'grid.eps'",
    ),
    (
        "parse_spec",
        "eps = inf in [fixed]",
        lambda f: parse_spec(SPEC + "[fixed]\neps = inf\n[grid]\nprior = ['0.5,0.5']"),
        CatalogError,
        "no privacy constraint",
    ),
    (
        "parse_spec",
        "NaN in the grid",
        lambda f: parse_spec(SPEC + "[grid]\nvalues = [nan]"),
        CatalogError,
        "give finite numbers",
    ),
    (
        "parse_spec",
        "solver options not a table",
        lambda f: parse_spec(SPEC + "[options]\nsqp = 3\n[grid]\neps = [1]"),
        CatalogError,
        "'options.sqp' must be a table",
    ),
    (
        "parse_spec",
        "save_mechanism a string",
        lambda f: parse_spec(SPEC + 'save_mechanism = "no"\n[grid]\neps = [1]'),
        CatalogError,
        "true or false",
    ),
    (
        "parse_spec",
        "plot.x an array",
        lambda f: parse_spec(SPEC + "[plot]\nx = [1]\n[grid]\neps = [1]"),
        CatalogError,
        "name of a grid parameter",
    ),
    (
        "parse_spec",
        "unknown solver",
        lambda f: parse_spec('problem = "design"\nsolvers = ["nope"]\n[grid]\neps = [1]'),
        SolverNotFound,
        "unknown solver 'nope'",
    ),
    (
        "parse_spec",
        "unknown problem",
        lambda f: parse_spec('problem = "nope"\nsolvers = ["sqp"]\n[grid]\neps = [1]'),
        CatalogError,
        "unknown problem id 'nope'",
    ),
    # ---- graph files ---------------------------------------------------------------------------
    ("read_graph", "a directory", lambda f: read_graph(f["dir"]), ProblemError, "is a directory"),
    ("read_graph", "missing file", lambda f: read_graph(f["dir"] / "none.edgelist"), ProblemError, "does not exist"),
    (
        "read_graph",
        "broken GraphML",
        lambda f: read_graph(f["g"].with_suffix(".graphml")),
        ProblemError,
        "cannot read graph file",
    ),
    (
        "read_graph",
        "JSON that is not node-link",
        lambda f: read_graph(f["g"].with_suffix(".json")),
        ProblemError,
        "cannot read graph file",
    ),
    ("read_graph", "non-numeric weight", lambda f: read_graph(f["g_weight"]), ProblemError, "the weight a number"),
    # ---- verify / reproduce lookups ------------------------------------------------------------
    ("claims", "unknown paper", lambda f: claims("nope"), ProblemError, "unknown paper 'nope'"),
    (
        "reproduce",
        "unknown figure id",
        lambda f: reproduce(["nope.fig1"], f["dir"] / "figs"),
        ParamError,
        "unknown figure id(s) ['nope.fig1']",
    ),
    ("reproduce", "no figure id", lambda f: reproduce([], f["dir"] / "figs"), ParamError, "at least one FIGURE_ID"),
    (
        "reproduce",
        "output folder is a file",
        lambda f: reproduce(["all"], f["q_bad"]),
        ParamError,
        "cannot create output folder",
    ),
]


import sys  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # the shared issue-19 rows (tests/ is not a package)
from catalog_issue19 import API_CASES, api_files  # noqa: E402  (issue 19 rows)
from catalog_issue27 import API_CASES as API_CASES_27  # noqa: E402  (issue 27 rows)
from catalog_issue27 import api_files as api_files_27  # noqa: E402

CASES += API_CASES + API_CASES_27


def test_catalog_is_large_and_covers_every_entry_point():
    entry = {c[0] for c in CASES}
    assert len(CASES) >= 60
    families = {
        "design",
        "lip-binary",
        "lip-mimo",
        "lip-weighted-sum",
        "lip-histogram",
        "cip-binomial",
        "kss-mi",
        "kss-l2",
        "fisher-interval",
        "fisher-box",
        "fisher-output",
        "fisher-weighted",
        "fisher-gaussian",
        "fisher-lti",
        "gauss-tradeoff",
        "gauss-dataset1",
        "gauss-dataset2",
        "geo",
        "robust",
        "robust-ball",
    }
    assert families == set(__import__("mechopt.registry").registry.problem_ids())
    assert families <= entry
    assert {"solve", "read_mechanism", "load_catalog", "parse_spec", "read_graph", "reproduce", "claims"} <= entry


@pytest.mark.parametrize("entry,what,call,exc,fragment", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_raises_typed_one_line_error(tmp_path, entry, what, call, exc, fragment):
    files = {**_files(tmp_path), **api_files(tmp_path), **api_files_27(tmp_path)}
    with pytest.raises(MechoptError) as info:
        call(files)
    err = info.value
    assert type(err) is exc or isinstance(err, exc), f"{entry} / {what}: got {type(err).__name__}: {err}"
    msg = str(err)
    assert fragment in msg, f"{entry} / {what}: {msg!r} lacks {fragment!r}"
    assert "\n" not in msg and msg.strip(), f"{entry} / {what}: message is not one line: {msg!r}"


def test_eps_at_the_limit_is_accepted_and_private():
    """The other side of the ε > 700 rule: ε = 700 designs fine (no overflow, audited private)."""
    res = mechopt.solve(P("design").from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=700))
    assert res.status.has_solution and res.violation <= 1e-7
    assert math.isfinite(res.value) and abs(res.value - (-(0.3 * math.log(0.3) + 0.7 * math.log(0.7)))) < 1e-6


def test_eps_zero_is_perfect_privacy_for_lip_constructors():
    """ε = 0 is accepted by the LIP families (the paper's limit): the optimal channel reveals nothing."""
    res = mechopt.solve(P("lip-binary").from_params(eps=0, p1=0.3), solver="closed-form")
    Q = np.asarray(res.mechanism)
    assert np.allclose(Q[0], Q[1]) and res.value == pytest.approx(0.3 * 0.7)
