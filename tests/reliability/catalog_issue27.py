"""Bad-input catalog rows added by issue 27 (strict readers, options used or refused, messages).

Same layout as :mod:`catalog_issue19`: ``API_CASES`` rows are (entry point, bad input, call(files),
exception class, message fragment), ``CLI_CASES`` rows (subcommand, bad input, argv, message fragment)
with ``{name}`` placeholders for the files :func:`cli_files` makes. Every row was accepted (or crashed)
on main at 279f854: ASCII-looking numbers that Python's ``float()`` reads (``0.7_5``, Arabic-Indic and
fullwidth digits), options that were silently ignored (``--graph`` with ``ldp``, ``--values`` with
``freq-var``), a node-link multigraph whose weaker parallel edge won, a boolean prior, a mechanism
file whose own privacy claim was never read, JSON that readers disagree on, iteration counts below 1.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

import mechopt
from mechopt.cli.design import read_graph
from mechopt.errors import ParamError, PlatformError, ProblemError
from mechopt.io import mechfile
from mechopt.jobs.sweep.run import parse_spec
from mechopt.model.channel import validate_channel
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.notions import GraphLDP, check_eps, make_notion
from mechopt.registry import get_problem

_OK = dict(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0)
Q2 = [[0.75, 0.25], [0.25, 0.75]]  # ln 3-LDP


def _design(**kw: Any) -> Any:
    return mechopt.design(**{**_OK, **kw})


def _solve(solver: str, problem: str = "mip", **opts: Any) -> Any:
    prob = get_problem("design").from_params(prior="0.3,0.7", notion=problem, utility="mi", eps=1.0)
    return mechopt.solve(prob, solver=solver, **opts)


def _claim(eps: Any, notion: Any = "ldp") -> str:
    return json.dumps({"mechanism": {"Q": Q2}, "privacy": {"notion": notion, "eps": eps}})


def _node_link(edges: list[dict[str, Any]], multigraph: bool = False, directed: bool = False) -> str:
    nodes = [{"id": i} for i in range(3)]
    return json.dumps({"directed": directed, "multigraph": multigraph, "graph": {}, "nodes": nodes, "edges": edges})


def _graphml(weights: list[str]) -> str:
    edges = "".join(
        f'<edge source="0" target="1"><data key="w">{w}</data></edge>'
        if i == 0
        else f'<edge source="1" target="2"><data key="w">{w}</data></edge>'
        for i, w in enumerate(weights)
    )
    return (
        '<?xml version="1.0"?><graphml xmlns="http://graphml.graphdrawing.org/xmlns">'
        '<key id="w" for="edge" attr.name="weight" attr.type="double"/><graph edgedefault="undirected">'
        '<node id="0"/><node id="1"/><node id="2"/>' + edges + "</graph></graphml>"
    )


def _parallel_graphml() -> str:
    return _graphml(["1", "9"]).replace('<edge source="1" target="2">', '<edge source="0" target="1">')


def _spec(solvers: str, grid: str) -> str:
    return (
        f'problem = "design"\nsolvers = {solvers}\n[fixed]\nnotion = "lip"\nutility = "histogram"\n'
        f'prior = "0.3,0.7"\n[grid]\n{grid}\n'
    )


def _without_fcntl(f: dict[str, Path]) -> Any:
    import sys

    import mechopt.jobs.sweep.file as sweep_file

    saved, sys.modules["fcntl"] = sys.modules.get("fcntl"), None  # `import fcntl` raises where it is missing
    try:
        with sweep_file.SweepWriter(f["dir"] / "s27.jsonl", spec_id="a", problem="design", points=1):
            pass
    finally:
        sys.modules["fcntl"] = saved


def _without_fork(f: dict[str, Path]) -> Any:
    import multiprocessing

    from mechopt.jobs.compare import compare

    saved = multiprocessing.get_all_start_methods
    multiprocessing.get_all_start_methods = lambda: ["spawn"]
    try:
        compare(["design"], ["exact"], isolate=True, time_limit=5)
    finally:
        multiprocessing.get_all_start_methods = saved


TEXT = {
    "p_us.txt": "0.25,0.7_5\n",
    "p_ar.txt": "٠.٣,٠.٧\n",
    "p_3col.csv": "symbol,prob,count\na,0.3,3\nb,0.7,7\n",
    "p_ragged.csv": "symbol,prob\na,0.3\n0.7\n",
    "p_duplabel.csv": "symbol,prob\na,0.3\na,0.7\n",
    "p_header.csv": "symbol,prob\n",
    "p_text.npy": "0.3 0.7\n",
    "p_secret27.txt": "hunter2-password\n",
    "q_us.csv": "0.25,0.75\n0.7_5,0.25\n",
    "q_dup.json": '{"Q": [[1.0, 0.0], [0.0, 1.0]], "Q": [[0.5, 0.5], [0.5, 0.5]]}',
    "q_sur.json": '{"mechanism": {"Q": [[0.75, 0.25], [0.25, 0.75]], "inputs": ["\\ud800", "b"]}}',
    "q_dupinner.json": '{"mechanism": {"Q": [[0.75, 0.25], [0.25, 0.75]]}, "privacy": {"eps": 0.5, "eps": 2}}',
    "c_abc.json": _claim("abc"),
    "c_true.json": _claim(True),
    "c_neg.json": _claim(-1),
    "c_huge.json": _claim(1e308),
    "c_bigint.json": _claim(10**30),
    "c_list.json": _claim(1.2, ["ldp"]),
    "c_rdp.json": _claim(1.2, "rdp"),
    "c_nonotion.json": _claim(1.2, None),
    "c_lip.json": _claim(1.2, "lip"),
    "g_ok.edgelist": "0 1\n1 2\n",
    "g_us.edgelist": "0 1 1_0\n1 2\n",
    "g_ar.edgelist": "٠ 1\n1 2\n",
    "g_multi.json": _node_link(
        [{"source": 0, "target": 1, "weight": 1, "key": 0}, {"source": 0, "target": 1, "weight": 9, "key": 1}],
        multigraph=True,
    ),
    "G_MULTI.JSON": _node_link(
        [{"source": 0, "target": 1, "weight": 1, "key": 0}, {"source": 0, "target": 1, "weight": 9, "key": 1}],
        multigraph=True,
    ),
    "g_twice.json": _node_link([{"source": 0, "target": 1, "weight": 1}, {"source": 1, "target": 0, "weight": 9}]),
    "g_directed.json": _node_link(
        [{"source": 0, "target": 1, "weight": 1}, {"source": 1, "target": 0, "weight": 9}], directed=True
    ),
    "g_dupkey.json": '{"nodes": [{"id": 0}, {"id": 1}], '
    '"edges": [{"source": 0, "target": 1, "weight": 1, "weight": 9}]}',
    "g_nan.json": '{"nodes": [{"id": 0}, {"id": 1}], "edges": [{"source": 0, "target": 1, "weight": NaN}]}',
    "g_strweight.json": _node_link([{"source": 0, "target": 1, "weight": "1_0"}]),
    "g_us.graphml": _graphml(["1_0", "1"]),
    "g_par.graphml": _parallel_graphml(),
    "g_str.gml": 'graph [ node [ id 0 ] node [ id 1 ] edge [ source 0 target 1 weight "1_0" ] ]\n',
    "s_dupsolver.toml": _spec('["sqp", "sqp"]', "eps = [1.0]"),
    "s_dupgrid.toml": _spec('["sqp"]', "eps = [1.0, 0.5, 1]"),
    "s_dupprior.toml": _spec('["sqp"]', "eps = [1.0]")
    .replace('prior = "0.3,0.7"\n', "")
    .replace("eps = [1.0]", 'eps = [1.0]\nprior = ["0.3,0.7", "0.3,0.7"]'),
    "spec_us.toml": 'problem = "design"\nsolver = "exact"\n[params]\nprior = "0.3,0.7_0"\nnotion = "ldp"\n'
    'utility = "mi"\neps = 1.0\n',
    "spec_epsstr.toml": 'problem = "design"\nsolver = "exact"\n[params]\nprior = "0.3,0.7"\nnotion = "ldp"\n'
    'utility = "mi"\neps = "١"\n',
}


def _write(tmp: Path) -> dict[str, Path]:
    out: dict[str, Path] = {"dir": tmp}
    for name, text in TEXT.items():
        (tmp / name).write_text(text, encoding="utf-8")
        out[name.replace(".", "_")] = tmp / name
    np.save(tmp / "p_bool.npy", np.array([True, False]))
    np.save(tmp / "p_str.npy", np.array(["0.3", "0.7"]))
    (tmp / "P_BOOL.NPY").write_bytes((tmp / "p_bool.npy").read_bytes())
    (tmp / "p_bin.txt").write_bytes(b"\x00\xff\xfe0.3")
    np.savez(tmp / "p_npz.npz", p=np.array([0.3, 0.7]))
    (tmp / "p_npz.npy").write_bytes((tmp / "p_npz.npz").read_bytes())
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), " + " " * 200_000 + "}"
    header += " " * ((64 - (len(header) + 13) % 64) % 64) + "\n"
    (tmp / "q_bighdr.npy").write_bytes(
        b"\x93NUMPY\x02\x00" + len(header).to_bytes(4, "little") + header.encode() + np.eye(2).tobytes()
    )
    for name in ("p_bool.npy", "p_str.npy", "P_BOOL.NPY", "p_bin.txt", "p_npz.npy", "q_bighdr.npy"):
        out[name.replace(".", "_")] = tmp / name
    return out


def api_files(tmp: Path) -> dict[str, Path]:
    return _write(tmp)


API_CASES: list[tuple[str, str, Any, type, str]] = [
    # ---- numbers: ASCII decimal notation only ------------------------------------------------------------------
    ("parse_prior", "digit separator 0.7_0", lambda f: parse_prior("0.3,0.7_0"), ProblemError, "no '_' digit"),
    ("parse_prior", "Arabic-Indic digits", lambda f: parse_prior("٠.٣,٠.٧"), ProblemError, "ARABIC-INDIC DIGIT ZERO"),
    ("parse_prior", "fullwidth digits", lambda f: parse_prior("０.３,０.７"), ProblemError, "FULLWIDTH DIGIT ZERO"),
    ("parse_prior", "uniform:d in fullwidth", lambda f: parse_prior("uniform:１０"), ProblemError, "digits 0-9"),
    ("parse_prior", "uniform:1_0", lambda f: parse_prior("uniform:1_0"), ProblemError, "uniform:d with an integer"),
    (
        "parse_prior",
        "prior file with 0.7_5",
        lambda f: parse_prior(str(f["p_us_txt"])),
        ProblemError,
        "line 1, field 2 is not a decimal number",
    ),
    ("parse_prior", "prior file in Arabic-Indic", lambda f: parse_prior(str(f["p_ar_txt"])), ProblemError, "U+0660"),
    (
        "validate_prior",
        "a list of strings with 0.7_0",
        lambda f: validate_prior(["0.3", "0.7_0"]),
        ProblemError,
        "has an entry that is not a plain decimal number",
    ),
    (
        "validate_channel",
        "an Arabic-Indic digit in a string matrix",
        lambda f: validate_channel([["0.5", "0.5"], ["١", "0"]]),
        ProblemError,
        "U+0661 ARABIC-INDIC DIGIT ONE",
    ),
    ("check_eps", "eps '1_0' (was 10)", lambda f: check_eps("1_0"), ProblemError, "eps: '1_0' is not a decimal"),
    ("check_eps", "eps Arabic-Indic one", lambda f: check_eps("١"), ProblemError, "ARABIC-INDIC DIGIT ONE"),
    ("check_eps", "eps fullwidth one", lambda f: check_eps("１"), ProblemError, "FULLWIDTH DIGIT ONE"),
    ("check_eps", "a 402-digit integer eps", lambda f: check_eps(10**401), ProblemError, "(402 digits) is too large"),
    (
        "check_eps",
        "a 401-digit eps string (was 'eps = inf means ...')",
        lambda f: check_eps("1" + "0" * 400),
        ProblemError,
        "(401 digits) is too large",
    ),
    (
        "design",
        "values in fullwidth digits",
        lambda f: _design(utility="mse", values="０,１"),
        ProblemError,
        "FULLWIDTH",
    ),
    (
        "design",
        "values as strings with 1_0",
        lambda f: _design(utility="mse", values=["1_0", "2"]),
        ProblemError,
        "'_'",
    ),
    (
        "design",
        "mae outputs with 1_0",
        lambda f: _design(utility="mae", outputs="0,1_0"),
        ProblemError,
        "bad outputs: '1_0' is not a decimal",
    ),
    (
        "lip-binary",
        "p1 = '0.4_0'",
        lambda f: get_problem("lip-binary").from_params(p1="0.4_0", eps="1"),
        ProblemError,
        "no '_' digit separators",
    ),
    (
        "cip-binomial",
        "n_users = '1_0'",
        lambda f: get_problem("cip-binomial").from_params(n_users="1_0", p1="0.3", eps="1"),
        ProblemError,
        "bad n_users",
    ),
    (
        "fisher-interval",
        "b = '٢'",
        lambda f: get_problem("fisher-interval").from_params(b="٢"),
        ProblemError,
        "ARABIC-INDIC DIGIT TWO",
    ),
    (
        "gauss-tradeoff",
        "delta = '0.3_0'",
        lambda f: get_problem("gauss-tradeoff").from_params(dataset="1", delta="0.3_0"),
        ProblemError,
        "delta must be a number",
    ),
    ("read_graph", "edge-list weight 1_0", lambda f: read_graph(f["g_us_edgelist"]), ProblemError, "line 1: a node"),
    ("read_graph", "edge-list node ٠", lambda f: read_graph(f["g_ar_edgelist"]), ProblemError, "U+0660"),
    ("read_graph", "GraphML double '1_0'", lambda f: read_graph(f["g_us_graphml"]), ProblemError, "'1_0'"),
    ("read_graph", "GML string weight '1_0'", lambda f: read_graph(f["g_str_gml"]), ProblemError, "(no '_' digit"),
    (
        "read_graph",
        "node-link string weight '1_0'",
        lambda f: read_graph(f["g_strweight_json"]),
        ProblemError,
        "weight that is not a plain decimal number",
    ),
    ("read_mechanism", "CSV entry 0.7_5", lambda f: mechfile.read_mechanism(f["q_us_csv"]), ProblemError, "line 2 of"),
    # ---- every option used or refused -------------------------------------------------------------------------
    (
        "design",
        "graph with notion ldp (was ignored)",
        lambda f: _design(graph=nx.path_graph(2)),
        ProblemError,
        "a policy graph (--graph) belongs to notions graph-ldp and metric-ldp, not ldp",
    ),
    (
        "design",
        "graph with notion lip",
        lambda f: _design(notion="lip", graph=nx.path_graph(2)),
        ProblemError,
        "not lip",
    ),
    (
        "design",
        "values with freq-var (was ignored)",
        lambda f: _design(utility="freq-var", values="5,9"),
        ProblemError,
        "input values (--values) belong to utilities mse and mae, not freq-var",
    ),
    (
        "design",
        "values with histogram",
        lambda f: _design(utility="histogram", values="5,9"),
        ProblemError,
        "histogram",
    ),
    ("design", "values with mi", lambda f: _design(values="5,9"), ProblemError, "depends on the probabilities only"),
    ("make_notion", "users' priors p with ldp", lambda f: make_notion("ldp", 1.0, p=[0.5]), ProblemError, "notion cip"),
    # ---- policy graphs: one weight per pair -------------------------------------------------------------------
    (
        "read_graph",
        "node-link multigraph, weights 1 and 9 (9 won)",
        lambda f: read_graph(f["g_multi_json"]),
        ProblemError,
        "policy graph has parallel edges between 0 and 1",
    ),
    (
        "read_graph",
        "the same multigraph as G_MULTI.JSON (suffix in capitals)",
        lambda f: read_graph(f["G_MULTI_JSON"]),
        ProblemError,
        "parallel edges",
    ),
    (
        "read_graph",
        "node-link edge listed twice",
        lambda f: read_graph(f["g_twice_json"]),
        ProblemError,
        "listed twice",
    ),
    (
        "read_graph",
        "directed node-link, both directions",
        lambda f: read_graph(f["g_directed_json"]),
        ProblemError,
        "edges in both directions between",
    ),
    ("read_graph", "GraphML parallel edges", lambda f: read_graph(f["g_par_graphml"]), ProblemError, "parallel edges"),
    (
        "read_graph",
        "node-link duplicate key 'weight'",
        lambda f: read_graph(f["g_dupkey_json"]),
        ProblemError,
        'key "weight" appears twice',
    ),
    ("read_graph", "node-link NaN weight", lambda f: read_graph(f["g_nan_json"]), ProblemError, "NaN is not a number"),
    (
        "GraphLDP",
        "weight '2' (a string)",
        lambda f: GraphLDP(1.0, nx.Graph([(0, 1, {"weight": "2"})])),
        ProblemError,
        "a str, not a real number",
    ),
    (
        "GraphLDP",
        "complex weight",
        lambda f: GraphLDP(1.0, nx.Graph([(0, 1, {"weight": 2 + 0j})])),
        ProblemError,
        "a complex, not a real number",
    ),
    # ---- prior files ----------------------------------------------------------------------------------------------
    (
        "parse_prior",
        "boolean .npy (was read as 1, 0)",
        lambda f: parse_prior(str(f["p_bool_npy"])),
        ProblemError,
        "holds a boolean array, not probabilities",
    ),
    (
        "parse_prior",
        "boolean .NPY in capitals (was read as text)",
        lambda f: parse_prior(str(f["P_BOOL_NPY"])),
        ProblemError,
        "holds a boolean array",
    ),
    ("parse_prior", "string .npy", lambda f: parse_prior(str(f["p_str_npy"])), ProblemError, "not numbers"),
    ("validate_prior", "booleans", lambda f: validate_prior(np.array([True, False])), ProblemError, "holds booleans"),
    ("parse_prior", "CSV with 3 columns", lambda f: parse_prior(str(f["p_3col_csv"])), ProblemError, "has 3 fields"),
    (
        "parse_prior",
        "CSV rows of 2 and 1 fields",
        lambda f: parse_prior(str(f["p_ragged_csv"])),
        ProblemError,
        "line 3 has 1 field(s) where line 2 has 2",
    ),
    (
        "parse_prior",
        "CSV label given twice",
        lambda f: parse_prior(str(f["p_duplabel_csv"])),
        ProblemError,
        "line 3 repeats the label of line 2",
    ),
    ("parse_prior", "CSV header only", lambda f: parse_prior(str(f["p_header_csv"])), ProblemError, "has no numbers"),
    ("parse_prior", "text named .npy", lambda f: parse_prior(str(f["p_text_npy"])), ProblemError, "no NumPy header"),
    ("parse_prior", "binary .txt", lambda f: parse_prior(str(f["p_bin_txt"])), ProblemError, "not UTF-8 text"),
    ("parse_prior", ".npz named .npy", lambda f: parse_prior(str(f["p_npz_npy"])), ProblemError, ".npz archive"),
    # ---- mechanism files: ambiguous JSON, the file's own claim -----------------------------------------------------
    (
        "read_mechanism",
        'duplicate "Q" (the last won)',
        lambda f: mechfile.read_mechanism(f["q_dup_json"]),
        ProblemError,
        'ambiguous JSON: key "Q" appears twice',
    ),
    (
        "read_mechanism",
        'duplicate "eps" inside privacy',
        lambda f: mechfile.read_mechanism(f["q_dupinner_json"]),
        ProblemError,
        'key "eps" appears twice',
    ),
    (
        "read_mechanism",
        "lone surrogate in a label",
        lambda f: mechfile.read_mechanism(f["q_sur_json"]),
        ProblemError,
        "lone UTF-16 surrogate",
    ),
    ("read_mechanism", 'claim eps "abc"', lambda f: mechfile.read_mechanism(f["c_abc_json"]), ProblemError, "a str"),
    ("read_mechanism", "claim eps true", lambda f: mechfile.read_mechanism(f["c_true_json"]), ProblemError, "a bool"),
    ("read_mechanism", "claim eps -1", lambda f: mechfile.read_mechanism(f["c_neg_json"]), ProblemError, "[0, 700]"),
    ("read_mechanism", "claim eps 1e308", lambda f: mechfile.read_mechanism(f["c_huge_json"]), ProblemError, "1e+308"),
    ("read_mechanism", "claim eps 1e30", lambda f: mechfile.read_mechanism(f["c_bigint_json"]), ProblemError, "700"),
    (
        "read_mechanism",
        'claim notion ["ldp"]',
        lambda f: mechfile.read_mechanism(f["c_list_json"]),
        ProblemError,
        "has notion ['ldp'], a list",
    ),
    (
        "read_mechanism",
        'claim notion "rdp"',
        lambda f: mechfile.read_mechanism(f["c_rdp_json"]),
        ProblemError,
        "names notion 'rdp'",
    ),
    (
        "read_mechanism",
        "claim eps without a notion",
        lambda f: mechfile.read_mechanism(f["c_nonotion_json"]),
        ProblemError,
        "but no notion",
    ),
    (
        "read_mechanism",
        "a .npy header of 200 kB (was 'holds Python objects')",
        lambda f: mechfile.read_mechanism(f["q_bighdr_npy"]),
        ProblemError,
        "longer than numpy reads safely",
    ),
    (
        "write_mechanism",
        "tags={1, 2} (was a raw TypeError)",
        lambda f: mechfile.write_mechanism(f["dir"] / "w.json", Q2, tags={1, 2}),
        ParamError,
        "field 'tags' is a set",
    ),
    # ---- solver options ------------------------------------------------------------------------------------------
    ("solve", "sqp max_iter=-1 (was iteration_limit)", lambda f: _solve("sqp", max_iter=-1), ParamError, "is a count"),
    ("solve", "sqp maxiter=0 (old name)", lambda f: _solve("sqp", maxiter=0), ParamError, "'max_iter' of solver 'sqp'"),
    ("solve", "sqp n_starts=0", lambda f: _solve("sqp", n_starts=0), ParamError, "give an integer >= 1"),
    ("solve", "exact progress=3", lambda f: _solve("exact", "ldp", progress=3), ParamError, "must be a callable"),
    (
        "solve",
        "search max_evals=-1",
        lambda f: mechopt.solve(get_problem("gauss-dataset1").from_params(), solver="search", max_evals=-1),
        ParamError,
        "'max_evals' of solver 'search' is a count",
    ),
    # ---- sweep specs: each task once -------------------------------------------------------------------------------
    (
        "parse_spec",
        "solver listed twice (solved twice)",
        lambda f: parse_spec(TEXT["s_dupsolver.toml"], source="s.toml"),
        ProblemError,
        "names 'sqp' twice",
    ),
    (
        "parse_spec",
        "grid eps 1.0 and 1",
        lambda f: parse_spec(TEXT["s_dupgrid.toml"], source="s.toml"),
        ProblemError,
        "holds 1.0 and 1, the same value twice",
    ),
    (
        "parse_spec",
        "grid prior given twice",
        lambda f: parse_spec(TEXT["s_dupprior.toml"], source="s.toml"),
        ProblemError,
        "field 'grid.prior' holds '0.3,0.7'",
    ),
    # ---- backends and platforms --------------------------------------------------------------------------------------
    ("compare", "isolate=True without fork", _without_fork, PlatformError, "needs the POSIX 'fork' start method"),
]

DESIGN = ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1", "--prior"]
GRAPH = ["design", "--notion", "graph-ldp", "--utility", "mi", "--prior", "uniform:3", "--eps", "1", "--graph"]
FLAGS = ["design", "--notion", "ldp", "--prior", "0.3,0.7", "--eps", "1", "--utility"]
SQP = ["design", "--notion", "mip", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "1", "--solver", "sqp", "--opt"]


def cli_files(tmp: Path) -> dict[str, str]:
    return {k: str(v) for k, v in _write(tmp).items()}


CLI_CASES: list[tuple[str, str, list[str], str]] = [
    (
        "design",
        "--eps ١ (was 1)",
        ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.3,0.7", "--eps", "١"],
        "ARABIC-INDIC DIGIT ONE",
    ),
    ("design", "--eps 1_0 (was 10)", FLAGS[:6] + ["1_0", "--utility", "mi"], "'1_0' is not a decimal number"),
    ("design", "--eps ١٠", FLAGS[:6] + ["١٠", "--utility", "mi"], "eps: '١٠' is not a decimal number"),
    ("design", "--values ０,１ (was 0, 1)", FLAGS + ["mse", "--values", "０,１"], "FULLWIDTH DIGIT ZERO"),
    ("design", "--prior 0.3,0.7_0", DESIGN + ["0.3,0.7_0"], "no '_' digit separators"),
    ("design", "--prior file with 0.7_5", DESIGN + ["{p_us_txt}"], "line 1, field 2 is not a decimal number"),
    ("design", "--prior file in Arabic-Indic digits", DESIGN + ["{p_ar_txt}"], "ARABIC-INDIC DIGIT ZERO"),
    ("design", "--prior uniform:١٠", DESIGN + ["uniform:١٠"], "uniform:d with an integer d"),
    ("design", "--time-limit ١", DESIGN + ["0.3,0.7", "--time-limit", "١"], "expected a number of seconds (digits"),
    ("compare", "--jobs ١", ["compare", "--jobs", "١"], "expected a positive integer (digits 0-9)"),
    (
        "design",
        "--graph with --notion ldp (was ignored)",
        [
            "design",
            "--notion",
            "ldp",
            "--utility",
            "mi",
            "--prior",
            "uniform:3",
            "--eps",
            "1",
            "--graph",
            "{g_ok_edgelist}",
        ],
        "a policy graph (--graph) belongs to notions graph-ldp and metric-ldp, not ldp",
    ),
    (
        "design",
        "--graph with --notion lip (a valid graph)",
        [
            "design",
            "--notion",
            "lip",
            "--utility",
            "mi",
            "--prior",
            "uniform:3",
            "--eps",
            "1",
            "--graph",
            "{g_ok_edgelist}",
        ],
        "not lip: drop the graph",
    ),
    ("design", "--values with freq-var (was ignored)", FLAGS + ["freq-var", "--values", "5,9"], "not freq-var"),
    ("design", "--values with histogram", FLAGS + ["histogram", "--values", "5,9"], "not histogram"),
    ("design", "--values with mi", FLAGS + ["mi", "--values", "5,9"], "not mi"),
    ("design", "graph weight 1_0 (was 10)", GRAPH + ["{g_us_edgelist}"], "no '_' digit separators"),
    ("design", "node-link multigraph (weight 9 won)", GRAPH + ["{g_multi_json}"], "parallel edges between 0 and 1"),
    ("design", "node-link duplicate key", GRAPH + ["{g_dupkey_json}"], "ambiguous JSON"),
    ("design", "GraphML weight 1_0", GRAPH + ["{g_us_graphml}"], "is not a decimal number"),
    ("design", "boolean prior .npy (was 1, 0)", DESIGN + ["{p_bool_npy}"], "holds a boolean array"),
    ("design", "boolean prior P_BOOL.NPY (was read as text)", DESIGN + ["{P_BOOL_NPY}"], "holds a boolean array"),
    ("design", "prior CSV with 3 columns", DESIGN + ["{p_3col_csv}"], "two columns label,probability"),
    ("design", "prior CSV label twice", DESIGN + ["{p_duplabel_csv}"], "repeats the label of line 2"),
    ("design", "prior that is no prior (content not echoed)", DESIGN + ["{p_secret27_txt}"], "has no numbers (line 1"),
    ("audit", "CSV entry 0.7_5 (was 0.75)", ["audit", "{q_us_csv}"], "line 2 of"),
    ("audit", 'duplicate "Q" (the last won)', ["audit", "{q_dup_json}"], 'key "Q" appears twice'),
    ("audit", "lone surrogate", ["audit", "{q_sur_json}"], "lone UTF-16 surrogate"),
    ("audit", 'claim eps "abc" (was accepted)', ["audit", "{c_abc_json}"], "has eps 'abc', a str"),
    ("audit", "claim eps -1", ["audit", "{c_neg_json}"], "has eps = -1"),
    ("audit", "claim eps true", ["audit", "{c_true_json}"], "has eps True, a bool"),
    ("audit", "claim eps 1e308", ["audit", "{c_huge_json}"], "has eps = 1e+308"),
    ("audit", 'claim notion ["ldp"]', ["audit", "{c_list_json}"], "a list: give one name"),
    ("audit", "claim eps without notion", ["audit", "{c_nonotion_json}"], "but no notion"),
    ("audit", "claim lip without a prior", ["audit", "{c_lip_json}"], "needs the prior to be checked: give --prior P"),
    ("audit", "claim with --eps given too", ["audit", "{c_rdp_json}", "--eps", "2"], "names notion 'rdp'"),
    ("audit", ".npy header of 200 kB", ["audit", "{q_bighdr_npy}"], "longer than numpy reads safely"),
    (
        "design",
        "--opt max_iter=-1 (was iteration_limit)",
        SQP + ["max_iter=-1"],
        "'max_iter' of solver 'sqp' is a count",
    ),
    ("design", "--opt maxiter=0", SQP + ["maxiter=0"], "give an integer >= 1, got 0"),
    ("design", "--opt n_starts=0", SQP + ["n_starts=0"], "'n_starts' of solver 'sqp' is a count"),
    ("design", "a 401-digit eps", FLAGS[:6] + ["1" + "0" * 400, "--utility", "mi"], "(401 digits) is too large"),
    ("design", "spec prior '0.3,0.7_0'", ["design", "--spec", "{spec_us_toml}"], "no '_' digit separators"),
    ("design", "spec eps '١'", ["design", "--spec", "{spec_epsstr_toml}"], "ARABIC-INDIC DIGIT ONE"),
    (
        "design",
        "--set p1=0.4_0",
        ["design", "--problem", "lip-binary", "--set", "p1=0.4_0", "--set", "eps=1"],
        "bad p1: '0.4_0' is not a decimal number",
    ),
    (
        "design",
        "--set n_users=1_0",
        ["design", "--problem", "cip-binomial", "--set", "n_users=1_0", "--set", "p1=0.3", "--set", "eps=1"],
        "bad n_users",
    ),
    ("sweep", "a solver twice", ["sweep", "{s_dupsolver_toml}"], "names 'sqp' twice"),
    ("sweep", "a grid value twice", ["sweep", "{s_dupgrid_toml}"], "the same value twice"),
    (
        "design",
        "--out Q.npy of a Q that is not built (was 'a NoneType')",
        [
            "design",
            "--notion",
            "ldp",
            "--utility",
            "mi",
            "--prior",
            "uniform:1000000",
            "--eps",
            "1",
            "--out",
            "{dir}/big.npy",
        ],
        "was not built: it does not fit in memory",
    ),
]
