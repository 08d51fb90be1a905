"""Bad-input catalog rows added by issue 19 ("Also found"), shared by the API and CLI catalogs.

``API_CASES`` rows are (entry point, bad input, call(files), exception class, message fragment),
``CLI_CASES`` rows (subcommand, bad input, argv, message fragment) with ``{name}`` placeholders
for the files :func:`cli_files` adds. Every tolerance is refused when infinite (it would switch
its check off, e.g. ``privacy_tol=inf`` disabled the audit), NaN, negative or a boolean.
"""

from __future__ import annotations

import math
from dataclasses import fields
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

import mechopt
from mechopt import settings
from mechopt.cli.design import read_graph
from mechopt.errors import ParamError, ProblemError, TooLargeError
from mechopt.jobs.sweep.file import read_lines
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.programs.nlp import channel_constraints
from mechopt.registry import get_problem

TOLS = [f.name for f in fields(settings.Tolerances)]
_OK = dict(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0)


def _design(**kw: Any) -> Any:
    return mechopt.design(**{**_OK, **kw})


def _override(**kw: Any) -> Any:
    with settings.override(**kw):
        pass


def _sweep_file(f: dict[str, Path], text: str) -> Path:
    p = f["dir"] / "s19.jsonl"
    p.write_text(text)
    return p


def _graph(*edges: Any, nodes: int | None = None, multi: bool = False) -> Any:
    G = nx.MultiGraph() if multi else nx.Graph()
    if nodes:
        G.add_nodes_from(range(nodes))
    G.add_edges_from(edges)
    return G


def _ldp_big(f: Any) -> Any:
    """SLSQP on a d = 40 LDP design: its constraints are built sparse (O(nnz)), SLSQP would densify them."""
    prog = get_problem("design").from_params(prior="uniform:40", notion="ldp", utility="mi", eps=1)
    assert channel_constraints(prog.column_program(), 40)[1].A.nnz == 124_800
    return mechopt.solve(prog, solver="sqp", n_starts=1)


HEAD = '{"mechopt_sweep":1,"spec":"x","problem":"design","points":1}\n'
LINE = '{"key":"k","solver":"sqp","point":{"eps":1},"status":"optimal","value":%s,"time_s":0.1}\n'

API_CASES: list[tuple[str, str, Any, type, str]] = [
    *[
        (
            "settings.override",
            f"{name} = inf",
            (lambda f, n=name: _override(**{n: math.inf})),
            ParamError,
            "an infinite tolerance switches its check off",
        )
        for name in TOLS
    ],
    *[
        (
            "settings.override",
            f"{name} = True",
            (lambda f, n=name: _override(**{n: True})),
            ParamError,
            f"tolerance {name} must be a finite non-negative number",
        )
        for name in TOLS
    ],
    (
        "solve",
        "privacy_tol = inf (disabled the audit)",
        lambda f: _design(privacy_tol=math.inf),
        ParamError,
        "tolerance privacy must be a finite non-negative number, got inf",
    ),
    ("solve", "gap_tol = nan", lambda f: _design(gap_tol=math.nan), ParamError, "tolerance gap must be"),
    ("solve", "prior_sum_tol = -1", lambda f: _design(prior_sum_tol=-1), ParamError, "tolerance prior_sum must be"),
    (
        "solve",
        "time_limit = True (was read as 1 s)",
        lambda f: _design(solver="sqp", time_limit=True),
        ParamError,
        "time_limit must be a positive number of seconds, got True",
    ),
    (
        "solve",
        "time_limit = -inf",
        lambda f: _design(solver="sqp", time_limit=-math.inf),
        ParamError,
        "time_limit must be",
    ),
    (
        "solve",
        "n_starts = 1e9 (tried 29.8 GiB)",
        lambda f: _design(solver="sqp", n_starts=1e9),
        ParamError,
        "give n_starts <= 10000",
    ),
    (
        "solve",
        "sqp (SLSQP) on a d = 40 LDP design (62440 x 1600 dense)",
        _ldp_big,
        TooLargeError,
        "use method='trust-constr' (keeps them sparse) or solver='exact'",
    ),
    (
        "validate_prior",
        "complex ndarray (was cast to real)",
        lambda f: validate_prior(np.array([0.5 + 0j, 0.5])),
        ProblemError,
        "vector of numbers",
    ),
    (
        "validate_prior",
        "subnormal mass",
        lambda f: validate_prior([0.5, 0.5, 1e-320]),
        ProblemError,
        "subnormal entry at index 2",
    ),
    (
        "parse_prior",
        "2-D .npy prior (was flattened)",
        lambda f: parse_prior(str(f["p2"])),
        ProblemError,
        "not a 1-D vector",
    ),
    ("parse_prior", "complex .npy prior", lambda f: parse_prior(str(f["pc"])), ProblemError, "vector of numbers"),
    ("parse_prior", "0-D .npy prior", lambda f: parse_prior(str(f["p0"])), ProblemError, "not a 1-D vector"),
    (
        "design",
        "graph with parallel edges (weaker weight won)",
        lambda f: _design(notion="graph-ldp", graph=_graph((0, 1, {"weight": 1}), (0, 1, {"weight": 9}), multi=True)),
        ProblemError,
        "parallel edges between 0 and 1",
    ),
    (
        "design",
        "graph weight 1e300 (HiGHS overflow)",
        lambda f: _design(notion="graph-ldp", graph=_graph((0, 1, {"weight": 1e300}))),
        ProblemError,
        "> 700 overflows",
    ),
    (
        "design",
        "graph weight True",
        lambda f: _design(notion="graph-ldp", graph=_graph((0, 1, {"weight": True}))),
        ProblemError,
        "weights must be finite and > 0",
    ),
    ("read_graph", "edge listed twice", lambda f: read_graph(f["dup"]), ProblemError, "is listed twice"),
    (
        "read_graph",
        "a text file that is not a graph (content not echoed)",
        lambda f: read_graph(f["secret"]),
        ProblemError,
        "got 4 fields",
    ),
    (
        "read_lines",
        "resume file that is not a sweep file",
        lambda f: read_lines(_sweep_file(f, "my notes\n"), repair=True),
        ParamError,
        "is not a mechopt sweep file",
    ),
    (
        "read_lines",
        "sweep file of another spec",
        lambda f: read_lines(_sweep_file(f, HEAD), spec="y"),
        ParamError,
        "holds the results of another spec",
    ),
    (
        "read_lines",
        "NaN edited into a line",
        lambda f: read_lines(_sweep_file(f, HEAD + LINE % "NaN" + LINE % "1")),
        ProblemError,
        "NaN is not a number",
    ),
    (
        "read_lines",
        "unknown status in a line",
        lambda f: read_lines(_sweep_file(f, HEAD + LINE.replace("optimal", "great") % "1" + LINE % "1")),
        ProblemError,
        "unknown status 'great'",
    ),
    (
        "read_lines",
        "line without solver",
        lambda f: read_lines(_sweep_file(f, HEAD + '{"key":"k"}\n' + LINE % "1")),
        ProblemError,
        "no solver or point",
    ),
    (
        "read_lines",
        "value a string",
        lambda f: read_lines(_sweep_file(f, HEAD + LINE % '"1"' + LINE % "1")),
        ProblemError,
        "value is not a finite number",
    ),
]


def api_files(tmp: Path) -> dict[str, Path]:
    np.save(tmp / "p2.npy", np.full((2, 2), 0.25))
    np.save(tmp / "pc.npy", np.array([0.5 + 0j, 0.5]))
    np.save(tmp / "p0.npy", np.array(1.0))
    (tmp / "dup.edgelist").write_text("0 1 1\n1 0 5\n")
    (tmp / "secret.txt").write_text("secret words here now\n")
    return {
        "p2": tmp / "p2.npy",
        "pc": tmp / "pc.npy",
        "p0": tmp / "p0.npy",
        "dup": tmp / "dup.edgelist",
        "secret": tmp / "secret.txt",
    }


SPEC = 'problem = "design"\nsolver = "sqp"\n'
PARAMS = '[params]\nprior = "0.3,0.7"\nnotion = "ldp"\nutility = "mi"\neps = 1.0\n'
SWEEP = (
    'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\nutility = "histogram"\nprior = "0.3,0.7"\n'
    "[grid]\neps = [1.0]\n[options.sqp]\nn_starts = 1\n"
)
DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1", "--prior"]


def cli_files(tmp: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    texts = {f"tol_{n}.toml": SPEC + f"options = {{ {n}_tol = inf }}\n" + PARAMS for n in TOLS}
    texts.update(
        {
            "tl_true.toml": SPEC + "options = { time_limit = true }\n" + PARAMS,
            "starts.toml": SPEC + "options = { n_starts = 1000000000 }\n" + PARAMS,
            "date.toml": SWEEP.replace("eps = [1.0]", "eps = [1979-05-27]"),
            "ok19.toml": SWEEP,
            "notes.jsonl": "my notes\n",
            "other.jsonl": HEAD,
            "secret.txt": "root:x:0:0:root:/root:/bin/bash\n",
            "dup.edgelist": "0 1\n0 1 3\n",
            "g_secret.toml": SPEC + PARAMS.replace('notion = "ldp"', 'notion = "graph-ldp"') + 'graph = "secret.txt"\n',
            "ctrl\x1bname.txt": "0.5,0.6\n",
        }
    )
    for name, text in texts.items():
        if text is not None:
            (tmp / name).write_text(text)
        out[name.rsplit(".", 1)[0].replace("\x1b", "")] = str(tmp / name)
    np.save(tmp / "p2.npy", np.full((2, 2), 0.25))
    np.save(tmp / "pc.npy", np.array([0.5 + 0j, 0.5]))
    np.save(tmp / "psub.npy", np.array([0.5, 0.5, 1e-320]))
    out.update(p2=str(tmp / "p2.npy"), pc=str(tmp / "pc.npy"), psub=str(tmp / "psub.npy"))
    return out


CLI_CASES: list[tuple[str, str, list[str], str]] = [
    *[
        ("design", f"spec with {n}_tol = inf", ["design", "--spec", "{tol_%s}" % n], "an infinite tolerance")
        for n in TOLS
    ],
    ("design", "time_limit = true in a spec", ["design", "--spec", "{tl_true}"], "got True"),
    ("design", "n_starts = 1e9 in a spec", ["design", "--spec", "{starts}"], "give n_starts <= 10000"),
    ("design", "2-D .npy prior", DESIGN + ["{p2}"], "not a 1-D vector"),
    ("design", "complex .npy prior", DESIGN + ["{pc}"], "vector of numbers"),
    ("design", "subnormal prior mass in a file", DESIGN + ["{psub}"], "subnormal entry at index 2"),
    ("design", "subnormal prior mass", DESIGN + ["0.5,0.5,1e-320"], "subnormal entry"),
    (
        "design",
        "spec graph naming a non-graph file (content not echoed)",
        ["design", "--spec", "{g_secret}"],
        "got 1 fields",
    ),
    (
        "design",
        "graph edge listed twice",
        ["design", "--notion", "graph-ldp", "--utility", "mi", "--eps", "1", "--prior", "0.3,0.7", "--graph", "{dup}"],
        "is listed twice",
    ),
    ("design", "control characters in a file name", DESIGN + ["{ctrlname}"], "\\x1b"),
    ("sweep", "TOML date in the grid", ["sweep", "{date}"], "eps must be a number"),
    (
        "sweep",
        "--plot out.txt (failed after the whole sweep)",
        ["sweep", "{ok19}", "--plot", "{dir}/out.txt"],
        "matplotlib cannot write '.txt' files",
    ),
    (
        "sweep",
        "--plot with an unknown suffix",
        ["sweep", "{ok19}", "--plot", "{dir}/out.docx"],
        "matplotlib cannot write '.docx' files",
    ),
    (
        "sweep",
        "--resume on a one-line non-sweep file (was truncated)",
        ["sweep", "{ok19}", "--out", "{notes}", "--resume"],
        "is not a mechopt sweep file",
    ),
    (
        "sweep",
        "--resume with another spec",
        ["sweep", "{ok19}", "--out", "{other}", "--resume"],
        "holds the results of another spec",
    ),
]
