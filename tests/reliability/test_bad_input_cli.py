"""The bad-input catalog, command-line side (issue 11, part 1).

Each row is (subcommand, bad input, argv, expected message fragment). Every
row must exit with code 2, print exactly ONE line ``mechopt: error: ...`` on
stderr containing the fragment, print nothing on stdout, and show no
traceback. The ``{name}`` placeholders are files made by :func:`_files`.
This is the single source of truth for the CLI's bad-input behaviour (the
cases formerly in ``tests/cli/test_errors.py`` live here, with fragments).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mechopt.cli import main

FLAGS = ["design", "--notion", "lip", "--utility", "histogram", "--solver", "sqp"]
OK = ["--prior", "0.3,0.7", "--eps", "1"]
GAUSS = ["design", "--problem", "gauss-tradeoff", "--set", "cov_u=2,0.5;0.5,1", "--set", "n=1"]
SWEEP_HEAD = (
    'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\nutility = "histogram"\nprior = "0.3,0.7"\n'
)
SPEC_HEAD = 'problem = "design"\nsolver = "sqp"\n'
SPEC_PARAMS = '[params]\nprior = "0.3,0.7"\nnotion = "lip"\nutility = "histogram"\n'


def _files(tmp: Path) -> dict[str, str]:
    texts = {
        "good_q": json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]]}),
        "one_input": json.dumps({"Q": [[0.5, 0.5]]}),  # one row: read "composition needs d >= 2 inputs"
        "nan_q": '{"Q": [[NaN, 0.5], [0.5, 0.5]]}',
        "inf_q": '{"Q": [[Infinity, 0.5], [0.5, 0.5]]}',
        "rows": json.dumps({"Q": [[0.6, 0.6], [0.5, 0.5]]}),
        "neg": json.dumps({"Q": [[1.5, -0.5], [0.5, 0.5]]}),
        "ragged": json.dumps({"Q": [[1.0], [0.5, 0.5]]}),
        "noq": json.dumps({"P": [1]}),
        "badjson": "{not json",
        "deep": "[" * 50_000 + "]" * 50_000,
        "prior_mismatch": json.dumps({"Q": [[1.0, 0.0], [0.0, 1.0]], "prior": [0.2, 0.3, 0.5]}),
        "str_q": json.dumps({"Q": "identity"}),
        "badtoml": "problem = [unclosed\n",
        "spec_noparams": 'problem = "design"\n',
        "spec_unknown_key": SPEC_HEAD + "colour = 'red'\n" + SPEC_PARAMS + "eps = 1.0\n",
        "spec_eps_inf": SPEC_HEAD + SPEC_PARAMS + "eps = inf\n",
        "spec_eps_nan": SPEC_HEAD + SPEC_PARAMS + "eps = nan\n",
        "spec_eps_huge": SPEC_HEAD + SPEC_PARAMS + "eps = 1e300\n",
        "spec_prior_int": SPEC_HEAD + '[params]\nprior = 3\nnotion = "lip"\nutility = "histogram"\neps = 1.0\n',
        "spec_options": SPEC_HEAD + "options = 3\n" + SPEC_PARAMS + "eps = 1.0\n",
        "spec_solver": 'problem = "design"\nsolver = "nope"\n' + SPEC_PARAMS + "eps = 1.0\n",
        "spec_problem": 'problem = "nope-problem"\n[params]\neps = 1.0\n',
        "spec_graphdir": SPEC_HEAD + '[params]\nprior = "0.3,0.7"\nnotion = "graph-ldp"\nutility = "mi"\n'
        'eps = 1.0\ngraph = "."\n',
        "catalog_bad": '[[instance]]\nproblem = "design"\nname = "x"\nparams = { prior = "0.5,0.6", '
        'notion = "lip", utility = "histogram", eps = 1.0 }\n',
        "catalog_tl": '[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\ntime_limit = inf\n',
        "catalog_field": '[[instance]]\nproblem = "design"\nname = "x"\nparams = {}\ncolour = "red"\n',
        "catalog_problem": '[[instance]]\nproblem = "nope-problem"\nname = "x"\nparams = {}\n',
        "catalog_top": 'title = "not a catalog"\n',
        "sweep_bad": 'problem = "design"\nsolvers = ["sqp"]\n[grid]\neps = []\n',
        "sweep_eps0": SWEEP_HEAD + "[grid]\neps = [0.5, 0.0]\n",
        "sweep_inf": SWEEP_HEAD + "[grid]\neps = [1.0, inf]\n",
        "sweep_huge": SWEEP_HEAD + "[grid]\neps = { linspace = [0.1, 1, 1000000000000] }\n",
        "sweep_product": SWEEP_HEAD + "[grid]\neps = { linspace = [0.1, 1, 1000] }\nvalues = "
        "{ linspace = [0, 1, 1000] }\n",
        "sweep_solver": 'problem = "design"\nsolvers = ["nope"]\n[grid]\neps = [1.0]\n',
        "sweep_opts": SWEEP_HEAD + "[grid]\neps = [1.0]\n[options]\nsqp = 4\n",
        "sweep_save": 'save_mechanism = "yes"\n' + SWEEP_HEAD + "[grid]\neps = [1.0]\n",
        "sweep_misplaced": SWEEP_HEAD + "save_mechanism = true\n[grid]\neps = [1.0]\n",
        "sweep_badprior": SWEEP_HEAD.replace("0.3,0.7", "0.3,0.8") + "[grid]\neps = [1.0]\n",
        "sweep_ok": SWEEP_HEAD + "[grid]\neps = [1.0]\n[options.sqp]\nn_starts = 1\n",
        "prior_txt": "0.5 0.6\n",
        "graph_bad": "0 one\n",
        "graph_weight": "0 1 nan\n",
        "graph_oob": "0 7\n",
        "graphml_bad": "<graphml><graph",
    }
    suffix = {
        "badtoml": ".toml",
        "prior_txt": ".txt",
        "graph_bad": ".edgelist",
        "graph_weight": ".edgelist",
        "graph_oob": ".edgelist",
        "graphml_bad": ".graphml",
    }
    out = {"dir": str(tmp)}
    for name, text in texts.items():
        ext = suffix.get(name, ".toml" if name.startswith(("spec", "catalog", "sweep")) else ".json")
        p = tmp / f"{name}{ext}"
        p.write_text(text)
        out[name] = str(p)
    np.save(tmp / "pickled.npy", np.array([{"a": 1}], dtype=object), allow_pickle=True)
    out["pickled"] = str(tmp / "pickled.npy")
    (tmp / "binary.json").write_bytes(b"\xff\xfe\x00{")
    out["binary"] = str(tmp / "binary.json")
    return out


CASES: list[tuple[str, str, list[str], str]] = [
    # ---- design: priors ---------------------------------------------------------------------------
    ("design", "prior not summing to one", FLAGS + ["--prior", "0.3,0.8", "--eps", "1"], "sums to 1.1, not 1"),
    (
        "design",
        "negative prior read as a flag",
        FLAGS + ["--prior", "-0.2,1.2", "--eps", "1"],
        "argument --prior: expected one argument",
    ),
    ("design", "negative prior entry", FLAGS + ["--prior=-0.2,1.2", "--eps", "1"], "negative entry at index 0"),
    ("design", "NaN prior entry", FLAGS + ["--prior", "nan,0.5", "--eps", "1"], "non-finite entry at index 0"),
    ("design", "inf prior entry", FLAGS + ["--prior", "inf,0", "--eps", "1"], "non-finite entry at index 0"),
    ("design", "empty prior", FLAGS + ["--prior", "", "--eps", "1"], "the prior is empty"),
    ("design", "one-symbol prior", FLAGS + ["--prior", "1", "--eps", "1"], "at least 2 input symbols"),
    ("design", "uniform:0", FLAGS + ["--prior", "uniform:0", "--eps", "1"], "uniform:d needs d ≥ 1"),
    ("design", "uniform:10^11", FLAGS + ["--prior", "uniform:100000000000", "--eps", "1"], "at most 10000000 symbols"),
    (
        "design",
        "prior file not summing to one",
        FLAGS + ["--prior", "{prior_txt}", "--eps", "1"],
        "prior from prior_txt.txt sums to 1.1",
    ),
    ("design", "missing prior file", FLAGS + ["--prior", "{dir}/nope.npy", "--eps", "1"], "does not exist"),
    ("design", "prior path is a directory", FLAGS + ["--prior", "{dir}", "--eps", "1"], "is a directory"),
    (
        "design",
        "prior .npy with a pickled object",
        FLAGS + ["--prior", "{pickled}", "--eps", "1"],
        "it holds Python objects (a pickled array), which are not read (allow_pickle=False)",
    ),
    # ---- design: ε -----------------------------------------------------------------------------------
    ("design", "eps zero", FLAGS + ["--prior", "0.3,0.7", "--eps", "0"], "eps must be a finite number > 0"),
    ("design", "eps negative", FLAGS + ["--prior", "0.3,0.7", "--eps=-1"], "eps must be a finite number > 0"),
    ("design", "eps NaN", FLAGS + ["--prior", "0.3,0.7", "--eps", "nan"], "eps must be a finite number > 0"),
    ("design", "eps inf", FLAGS + ["--prior", "0.3,0.7", "--eps", "inf"], "eps = inf means no privacy constraint"),
    ("design", "eps 1000 (e^eps overflows)", FLAGS + ["--prior", "0.3,0.7", "--eps", "1000"], "use eps <= 700"),
    ("design", "eps not a number", FLAGS + ["--prior", "0.3,0.7", "--eps", "one"], "eps must be a number, got 'one'"),
    # ---- design: names and options ---------------------------------------------------------------------
    (
        "design",
        "unknown solver",
        ["design", "--notion", "lip", "--utility", "histogram", *OK, "--solver", "nope"],
        "unknown solver 'nope'; available:",
    ),
    (
        "design",
        "unknown notion",
        ["design", "--notion", "xdp", "--utility", "mse", *OK],
        "unknown privacy notion 'xdp'",
    ),
    ("design", "unknown utility", ["design", "--notion", "ldp", "--utility", "fun", *OK], "unknown utility 'fun'"),
    ("design", "unknown solver option", FLAGS + OK + ["--opt", "bogus=1"], "unknown option(s) ['bogus']"),
    (
        "design",
        "solver option of the wrong type",
        FLAGS + OK + ["--opt", "n_starts=many"],
        "option 'n_starts' of solver 'sqp' must be a number",
    ),
    ("design", "negative seed", FLAGS + OK + ["--opt", "seed=-1"], "integer >= 0 or a numpy.random.Generator"),
    ("design", "malformed --opt", FLAGS + OK + ["--opt", "n_starts"], "--opt expects KEY=VALUE"),
    ("design", "missing flags", ["design", "--notion", "ldp"], "missing --utility, --prior, --eps"),
    ("design", "two problem sources", ["design", "--problem", "design", "--notion", "ldp"], "give exactly one of"),
    ("design", "--set without --problem", FLAGS + OK + ["--set", "eps=1"], "--set goes with --problem ID"),
    ("design", "negative time limit", FLAGS + OK + ["--time-limit", "-3"], "expected a positive number of seconds"),
    ("design", "infinite time limit", FLAGS + OK + ["--time-limit", "inf"], "expected a positive number of seconds"),
    # ---- design: graph files --------------------------------------------------------------------------
    (
        "design",
        "bad edge list",
        [
            "design",
            "--notion",
            "graph-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{graph_bad}",
        ],
        "nodes must be integers and the weight a number",
    ),
    (
        "design",
        "NaN edge weight",
        [
            "design",
            "--notion",
            "metric-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{graph_weight}",
        ],
        "weights must be finite and > 0",
    ),
    (
        "design",
        "graph node outside 0..d-1",
        [
            "design",
            "--notion",
            "graph-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{graph_oob}",
        ],
        "nodes must be the integers 0..d-1",
    ),
    (
        "design",
        "broken GraphML",
        [
            "design",
            "--notion",
            "graph-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{graphml_bad}",
        ],
        "cannot read graph file",
    ),
    (
        "design",
        "missing graph file",
        [
            "design",
            "--notion",
            "graph-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{dir}/none.graphml",
        ],
        "does not exist",
    ),
    (
        "design",
        "graph path is a directory",
        [
            "design",
            "--notion",
            "graph-ldp",
            "--utility",
            "mse",
            "--prior",
            "uniform:2",
            "--eps",
            "1",
            "--graph",
            "{dir}",
        ],
        "is a directory",
    ),
    # ---- design --problem ID --set ---------------------------------------------------------------------
    ("design", "unknown problem id", ["design", "--problem", "nope-problem"], "unknown problem 'nope-problem'"),
    ("design", "malformed --set", ["design", "--problem", "design", "--set", "prior"], "--set expects KEY=VALUE"),
    (
        "design",
        "unknown --set parameter",
        ["design", "--problem", "kss-mi", "--set", "colour=red"],
        "unknown kss-mi parameter(s) ['colour']",
    ),
    ("design", "kss-mi eps inf", ["design", "--problem", "kss-mi", "--set", "eps=inf"], "no privacy constraint"),
    (
        "design",
        "lip-mimo one symbol",
        ["design", "--problem", "lip-mimo", "--set", "prior=1", "--set", "eps=1"],
        "at least 2 symbols",
    ),
    (
        "design",
        "lip-binary p1 > 1",
        ["design", "--problem", "lip-binary", "--set", "p1=1.5", "--set", "eps=1"],
        "p1 must be in [0, 1]",
    ),
    (
        "design",
        "cip n_users 10^9",
        ["design", "--problem", "cip-binomial", "--set", "n_users=1000000000", "--set", "p1=0.3", "--set", "eps=1"],
        "is too large",
    ),
    (
        "design",
        "fisher interval reversed",
        ["design", "--problem", "fisher-interval", "--set", "a=1", "--set", "b=-1"],
        "the support needs b > a",
    ),
    (
        "design",
        "fisher grid of 10^8 points",
        ["design", "--problem", "fisher-interval", "--set", "n=100000000"],
        "is too large (at most 1000000)",
    ),
    (
        "design",
        "fisher-lti A not square",
        ["design", "--problem", "fisher-lti", "--set", "A=1,2", "--set", "C=1"],
        "A must be n×n",
    ),
    ("design", "gauss covariance not symmetric", GAUSS + ["--set", "cov_p=2,1;0,1"], "is not symmetric"),
    (
        "design",
        "gauss covariance not PSD",
        [
            "design",
            "--problem",
            "gauss-tradeoff",
            "--set",
            "cov_p=1,0;0,-1",
            "--set",
            "cov_u=1,0.5;0.5,1",
            "--set",
            "n=1",
        ],
        "not positive definite",
    ),
    ("design", "gauss covariance NaN", GAUSS + ["--set", "cov_p=nan,1;1,1"], "non-finite entries"),
    ("design", "gauss covariance file pickled", GAUSS + ["--set", "cov_p={pickled}"], "holds Python objects"),
    ("design", "gauss dataset 2 as printed", ["design", "--problem", "gauss-dataset2"], 'pass psd="project"'),
    # ---- design --spec ------------------------------------------------------------------------------------
    ("design", "missing spec", ["design", "--spec", "{dir}/none.toml"], "no such file"),
    ("design", "spec is a directory", ["design", "--spec", "{dir}"], "is a directory"),
    ("design", "bad TOML spec", ["design", "--spec", "{badtoml}"], "invalid TOML"),
    ("design", "spec without params", ["design", "--spec", "{spec_noparams}"], "field 'params' is missing"),
    ("design", "spec with an unknown key", ["design", "--spec", "{spec_unknown_key}"], "unknown key(s) ['colour']"),
    ("design", "spec eps = inf", ["design", "--spec", "{spec_eps_inf}"], "no privacy constraint"),
    ("design", "spec eps = nan", ["design", "--spec", "{spec_eps_nan}"], "eps must be a finite number > 0"),
    ("design", "spec eps = 1e300", ["design", "--spec", "{spec_eps_huge}"], "e^eps overflows"),
    (
        "design",
        "spec prior an integer",
        ["design", "--spec", "{spec_prior_int}"],
        "prior must be a non-empty 1-D vector",
    ),
    ("design", "spec options not a table", ["design", "--spec", "{spec_options}"], "field 'options' must be a table"),
    ("design", "spec unknown solver", ["design", "--spec", "{spec_solver}"], "unknown solver 'nope'"),
    ("design", "spec unknown problem", ["design", "--spec", "{spec_problem}"], "unknown problem 'nope-problem'"),
    ("design", "spec graph path is a directory", ["design", "--spec", "{spec_graphdir}"], "is a directory"),
    # ---- design --out -------------------------------------------------------------------------------------
    ("design", "--out in a missing folder", FLAGS + OK + ["--out", "{dir}/no/such/dir/m.json"], "does not exist"),
    ("design", "--out is a directory", FLAGS + OK + ["--out", "{dir}"], "is a directory"),
    # ---- audit ----------------------------------------------------------------------------------------------
    ("audit", "missing file", ["audit", "{dir}/none.json", "--prior", "0.5,0.5"], "does not exist"),
    ("report", "one input", ["report", "{one_input}", "--json"], "one row per input value, at least 2"),
    ("account", "one input", ["account", "{one_input}", "--uses", "2", "--eps", "1"], "the mechanism has one input"),
    ("audit", "invalid JSON", ["audit", "{badjson}", "--prior", "0.5,0.5"], "is not valid JSON"),
    ("audit", "binary file", ["audit", "{binary}", "--prior", "0.5,0.5"], "cannot read mechanism file"),
    ("audit", "NaN in Q", ["audit", "{nan_q}", "--prior", "0.5,0.5"], "NaN is not a number"),
    ("audit", "Infinity in Q", ["audit", "{inf_q}", "--prior", "0.5,0.5"], "Infinity is not a number"),
    ("audit", "rows not probability vectors", ["audit", "{rows}", "--prior", "0.5,0.5"], "row 0 of Q in rows.json"),
    ("audit", "negative entry", ["audit", "{neg}", "--prior", "0.5,0.5"], "is negative"),
    ("audit", "ragged Q", ["audit", "{ragged}", "--prior", "0.5,0.5"], "rows of equal length"),
    ("audit", "Q a string", ["audit", "{str_q}", "--prior", "0.5,0.5"], "rows of equal length"),
    ("audit", "no Q", ["audit", "{noq}"], 'with a "Q" matrix'),
    ("audit", "deeply nested JSON", ["audit", "{deep}"], "nested too deeply"),
    ("audit", "file prior of the wrong size", ["audit", "{prior_mismatch}"], "has 3 symbols but Q has 2 rows"),
    ("audit", "rows do not match --prior", ["audit", "{good_q}", "--prior", "0.2,0.3,0.5"], "rows but the prior has 3"),
    ("audit", "bad --prior", ["audit", "{good_q}", "--prior", "0.2,0.3"], "sums to 0.5"),
    ("audit", "--prior is a directory", ["audit", "{good_q}", "--prior", "{dir}"], "is a directory"),
    ("audit", "mechanism path is a directory", ["audit", "{dir}", "--prior", "0.5,0.5"], "is a directory"),
    # ---- compare --------------------------------------------------------------------------------------------
    ("compare", "unknown solver", ["compare", "--solver", "nope"], "unknown solver 'nope'"),
    ("compare", "unknown problem", ["compare", "--problem", "nope-problem"], "unknown problem id(s) ['nope-problem']"),
    (
        "compare",
        "catalog with a bad prior",
        ["compare", "--catalog", "{catalog_bad}"],
        "catalog_bad.toml: instance 'x' (design): prior sums to 1.1",
    ),
    (
        "compare",
        "catalog with an infinite time limit",
        ["compare", "--catalog", "{catalog_tl}"],
        "'time_limit' must be > 0",
    ),
    ("compare", "catalog with an unknown field", ["compare", "--catalog", "{catalog_field}"], "unknown field 'colour'"),
    (
        "compare",
        "catalog with an unknown problem",
        ["compare", "--catalog", "{catalog_problem}"],
        "unknown problem id 'nope-problem'",
    ),
    ("compare", "not a catalog", ["compare", "--catalog", "{catalog_top}"], "unknown top-level key(s) ['title']"),
    ("compare", "bad TOML catalog", ["compare", "--catalog", "{badtoml}"], "invalid TOML"),
    ("compare", "missing catalog", ["compare", "--catalog", "{dir}/none.toml"], "no such file"),
    ("compare", "catalog is a directory", ["compare", "--catalog", "{dir}"], "is a directory"),
    (
        "compare",
        "--plot is a file",
        ["compare", "--problem", "lip-binary", "--plot", "{good_q}"],
        "is a file, not a folder",
    ),
    (
        "compare",
        "--budget with --jobs",
        ["compare", "--problem", "lip-binary", "--budget", "5", "--jobs", "2"],
        "--budget works with --jobs 1 only",
    ),
    # ---- verify, reproduce -------------------------------------------------------------------------------------
    ("verify", "unknown paper", ["verify", "--paper", "nope"], "invalid choice: 'nope'"),
    ("verify", "unknown claim", ["verify", "--claim", "nope.thm1"], "unknown claim id(s) ['nope.thm1']"),
    ("reproduce", "unknown figure", ["reproduce", "nope.fig1", "--out", "{dir}/figs"], "unknown figure id(s)"),
    (
        "reproduce",
        "figure id with a path",
        ["reproduce", "../../escape", "--out", "{dir}/figs"],
        "unknown figure id(s)",
    ),
    ("reproduce", "nothing to reproduce", ["reproduce", "--out", "{dir}/figs"], "name at least one FIGURE_ID"),
    ("reproduce", "--out is a file", ["reproduce", "all", "--out", "{good_q}"], "is a file, not a folder"),
    # ---- sweep ----------------------------------------------------------------------------------------------------
    ("sweep", "missing spec", ["sweep", "{dir}/none.toml"], "no such file"),
    ("sweep", "spec is a directory", ["sweep", "{dir}"], "is a directory"),
    ("sweep", "bad TOML", ["sweep", "{badtoml}"], "invalid TOML"),
    ("sweep", "empty grid", ["sweep", "{sweep_bad}"], "field 'grid.eps' is an empty list"),
    ("sweep", "eps 0 in the grid", ["sweep", "{sweep_eps0}"], "field 'grid.eps'"),
    ("sweep", "inf in the grid", ["sweep", "{sweep_inf}"], "give finite numbers"),
    ("sweep", "linspace of 10^12 points", ["sweep", "{sweep_huge}"], "integer count in 1..100000"),
    ("sweep", "grid product of 10^6 points", ["sweep", "{sweep_product}"], "more than 100000"),
    ("sweep", "unknown solver", ["sweep", "{sweep_solver}"], "unknown solver 'nope'"),
    ("sweep", "solver options not a table", ["sweep", "{sweep_opts}"], "'options.sqp' must be a table"),
    ("sweep", "save_mechanism a string", ["sweep", "{sweep_save}"], "must be true or false"),
    (
        "sweep",
        "top-level key inside [fixed]",
        ["sweep", "{sweep_misplaced}"],
        "grid point (eps=1.0): unknown design parameter(s) ['save_mechanism']",
    ),
    ("sweep", "bad prior in [fixed]", ["sweep", "{sweep_badprior}"], "grid point (eps=1.0): prior sums to 1.1"),
    ("sweep", "resume without out", ["sweep", "{sweep_bad}", "--resume"], "--resume needs --out"),
    ("sweep", "bad jobs", ["sweep", "{sweep_bad}", "--jobs", "0"], "expected a positive integer"),
    ("sweep", "--out is a directory", ["sweep", "{sweep_ok}", "--out", "{dir}"], "is a directory"),
    ("sweep", "--out in a missing folder", ["sweep", "{sweep_ok}", "--out", "{dir}/none/s.jsonl"], "does not exist"),
    ("sweep", "--plot is a directory", ["sweep", "{sweep_ok}", "--plot", "{dir}"], "is a directory"),
    ("sweep", "--out exists without --resume", ["sweep", "{sweep_ok}", "--out", "{good_q}"], "pass --resume"),
    # ---- bench, general -------------------------------------------------------------------------------------------
    ("bench", "missing dir", ["bench", "--dir", "{dir}/none", "--quick"], "no benchmarks folder"),
    ("bench", "--out is a directory", ["bench", "--quick", "--out", "{dir}"], "is a directory"),
    ("mechopt", "unknown command", ["frobnicate"], "invalid choice: 'frobnicate'"),
    ("audit", "unknown flag", ["audit", "{good_q}", "--frob"], "unrecognized arguments: --frob"),
    # ---- check ------------------------------------------------------------------------------------------------
    ("check", "missing file", ["check", "{dir}/none.json"], "does not exist"),
    ("check", "a directory", ["check", "{dir}"], "is a directory"),
    ("check", "invalid JSON", ["check", "{badjson}"], "cannot read"),
    ("check", "a mechanism file, not a certificate", ["check", "{good_q}"], '"format": "mechopt-certificate"'),
    ("check", "bad tolerance", ["check", "{good_q}", "--gap", "x"], "a tolerance is a number in [0, 1], got 'x'"),
    ("design", "--certificate is a directory", FLAGS + OK + ["--certificate", "{dir}"], "is a directory"),
    ("design", "--certificate for a local solver", FLAGS + OK + ["--certificate", "{dir}/c.json"], "no certificate"),
]


import sys  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))  # the shared issue-19 rows (tests/ is not a package)
from catalog_issue19 import CLI_CASES, cli_files  # noqa: E402  (issue 19 rows)
from catalog_issue27 import CLI_CASES as CLI_CASES_27  # noqa: E402  (issue 27 rows)
from catalog_issue27 import cli_files as cli_files_27  # noqa: E402

CASES += CLI_CASES + CLI_CASES_27


def _run(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_catalog_is_large_and_covers_every_subcommand():
    assert len(CASES) >= 60
    assert {c[0] for c in CASES} >= {"design", "audit", "check", "compare", "verify", "reproduce", "sweep", "bench"}


@pytest.mark.parametrize("cmd,what,argv,fragment", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, cmd, what, argv, fragment):
    files = {**_files(tmp_path), **cli_files(tmp_path), **cli_files_27(tmp_path)}
    args = [a.format(**files) for a in argv]
    if args[0] in ("design", "audit"):
        args.append("--json")  # --json must not turn an error into a JSON document
    code, out, err = _run(capsys, args)
    assert code == 2, (code, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mechopt: error: "), err
    assert "Traceback" not in err and out == ""
    assert fragment in lines[0], f"{lines[0]!r} lacks {fragment!r}"


def test_errors_leave_no_partial_output(capsys, tmp_path):
    """A refused run writes nothing: no half mechanism file, no empty sweep file."""
    files = _files(tmp_path)
    before = set(tmp_path.rglob("*"))
    for argv in (
        FLAGS + ["--prior", "0.3,0.8", "--eps", "1", "--out", "{dir}/m.json"],
        ["sweep", "{sweep_eps0}", "--out", "{dir}/s.jsonl"],
        ["reproduce", "nope.fig1", "--out", "{dir}/figs"],
    ):
        code, _, _ = _run(capsys, [a.format(**files) for a in argv])
        assert code == 2
    assert set(tmp_path.rglob("*")) == before
