"""``mechopt design``.

``design`` builds a problem in one of three ways and solves it:

* flags: ``--notion N --utility U --prior P --eps E [--values a,b,..] [--outputs b,..] [--graph FILE]
  [--eps-lower L]`` (``--notion alip --eps-upper U --eps-lower L``; ``--eps-upper`` is ``--eps``)
  (a :class:`~mechopt.problems.design.ChannelDesign`), or on places ``--coords FILE|grid:KxK [--norm N]
  --utility loss`` (a :class:`~mechopt.problems.geo.GeoDesign`; ``--outputs`` then names the reportable locations);
* a catalog problem: ``--problem ID --set key=value ...`` (strings passed to
  ``ProblemClass.from_params``);
* a TOML spec ``--spec FILE.toml``::

      problem = "design"          # optional, default "design"
      solver = "sqp"              # optional; --solver NAME wins (the options of another solver are then dropped)
      time_limit = 30             # optional, wall-clock seconds (default none)
      [params]                    # ProblemClass.from_params(**params)
      prior = "0.1,0.2,0.7"
      notion = "graph-ldp"
      utility = "mse"
      eps = 1.0
      graph = "line.edgelist"     # a policy-graph file, relative to the spec
      [options]                   # solver options
      n_starts = 8

A policy graph file is an edge list (``u v`` or ``u v weight`` per line,
``#`` comments), GraphML (``.graphml``), GML (``.gml``) or networkx
node-link JSON (``.json``); nodes are the input indices ``0..d-1``.

Examples
--------
>>> from mechopt.cli.design import parse_assignments
>>> parse_assignments(["eps=1", "prior=0.2,0.8"])
{'eps': '1', 'prior': '0.2,0.8'}
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import Any

from mechopt.cli.design_problem import build_problem, parse_assignments, parse_options
from mechopt.cli.graph_file import read_graph
from mechopt.errors import ParamError
from mechopt.results.result import Status, vocabulary

__all__ = ["register", "parse_assignments", "parse_options", "read_graph", "build_problem"]

#: Seconds a design runs before its status line appears by default (on a terminal, without --json).
PROGRESS_DELAY = 3.0

DESIGN_EPILOG = (
    "The result's status says what is proven: exact and search (certificate), conic (convex),\n"
    "spectral (eigenproblem) and a closed form inside its proven region (theorem) may say\n"
    "optimal; sqp and gd-penalty at best locally_optimal; greedy and anneal feasible.\n"
    "Exit code 1 when there is no mechanism or it fails its audit (infeasible_point).\n\n" + vocabulary()
)


def register(sub: Any) -> None:
    from mechopt.cli._common import positive_float
    from mechopt.cli._lp_flags import add_lp_flags

    p = sub.add_parser(
        "design",
        help="design a mechanism for a custom or catalog problem",
        description="Design a mechanism: from flags, from --problem ID --set k=v, or from --spec FILE.toml.",
        epilog=DESIGN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("problem (one of: flags, --problem, --spec)")
    src.add_argument("--problem", metavar="ID", help="a catalog problem id (mechopt.registry.problem_ids())")
    src.add_argument(
        "--set",
        dest="assign",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a from_params parameter of --problem (repeatable)",
    )
    src.add_argument("--spec", metavar="FILE.toml", help="a TOML design spec (or a built-in spec name)")
    src.add_argument("--notion", help="ldp, lip, mip, graph-ldp, metric-ldp, pml, alip")
    src.add_argument("--utility", help=utility_help())
    src.add_argument(
        "--prior",
        metavar="P",
        help="0.1,0.2,0.7 | uniform:d | a .npy, .txt or .csv file (numbers, or label,probability lines "
        "with an optional header: the labels name the inputs)",
    )
    src.add_argument("--eps", "--eps-upper", dest="eps", help="privacy level ε > 0 (alip: the upper level ε_u)")
    src.add_argument("--eps-lower", metavar="L", help="alip only: the lower level ε_l ≥ 0")
    src.add_argument(
        "--prior-set",
        metavar="SET",
        help='robust design over the hull of priors "p,..;p,.." or a .json list of priors (--utility mae, mi, '
        "mse, histogram; notion ldp, lip, pml, alip): private at every prior, the worst vertex optimised "
        "(mse/histogram: the worst of the vertices given, not of their hull)",
    )
    src.add_argument(
        "--prior-ball",
        metavar="R:KIND",
        help="robust design over {P : dist(P, --prior) <= R}, KIND tv or linf: exact vertices for d <= 10 (mae, "
        "mi, mse, histogram); above 10 the ball by its inequalities, --utility mae only (mi, mse, histogram "
        "refused: not certified there)",
    )
    src.add_argument("--prior-free", metavar="D", help="minimax design over every prior on D symbols (the simplex)")
    src.add_argument(
        "--prior-counts",
        metavar="N,N,...",
        help="(eps, delta) design from sample counts: private at every prior within the --bound radius of the "
        "empirical prior, so for the true prior with probability >= 1 - --delta over the samples (above 10 "
        "symbols: --utility mae only, as --prior-ball)",
    )
    src.add_argument("--delta", metavar="D", help="with --prior-counts: the probability in (0, 1) the set misses")
    src.add_argument("--bound", metavar="B", help="with --prior-counts: weissman (L1, default) or hoeffding (Linf)")
    src.add_argument(
        "--hull",
        action="store_const",
        const=True,
        default=None,
        help="with a prior set and --utility mse or histogram: the worst case over the set's hull (an interior "
        "prior can be worst), certified by adding worst priors to the set until the bounds meet",
    )
    src.add_argument("--values", metavar="a,b,...", help="input values for mse/mae (default 0,1,...,d-1)")
    src.add_argument(
        "--outputs",
        metavar="b,c,...",
        help="mae only: the fixed output estimates, one per output (default: the values)",
    )
    src.add_argument("--graph", metavar="FILE", help="policy graph (edge list, .graphml, .gml, node-link .json)")
    src.add_argument(
        "--coords",
        metavar="FILE|grid:KxK",
        help="locations (grid:KxK, grid:RxC, line:N, or a file of coordinates): a design on places "
        "(--utility loss, the distance to the reported location; --prior default uniform, or counts:FILE)",
    )
    src.add_argument("--norm", choices=["euclidean", "manhattan", "haversine"], help="with --coords: the distance")
    p.add_argument(
        "--solver",
        metavar="NAME",
        help="a registered solver (default: the spec's, else the first that "
        "applies); a spec's options for another solver are dropped with a note",
    )
    p.add_argument(
        "--opt",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a solver option, value parsed as JSON when it can be (repeatable)",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="wall-clock limit on the whole call, counted from the start of the process: reading the inputs, "
        "solving and auditing (default none: the solver stops on its own iteration cap); writing the answer "
        "comes after it (the --json of a structured 10^7-output mechanism is ~470 MB)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write the design document (the --json one: the mechanism as "
        '{"mechanism": {"Q", "inputs", "outputs", "prior"}, ...}) to FILE, or Q alone to '
        "FILE.npy (large designs); mechopt audit reads both",
    )
    p.add_argument(
        "--certificate",
        metavar="FILE",
        help="write the certificate (problem, Q, dual evidence; docs: howto/certificates) to FILE.json for "
        "'mechopt check FILE' or the standalone certcheck.py (exact solver; ldp, lip, graph-ldp, metric-ldp, "
        "cip with mse, histogram, mi; robust-lp and robust-rays over a prior set), or certball.py (robust-lp "
        "over a ball beyond 10 symbols)",
    )
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the mechanism (heatmap of Q with the prior and posteriors) to FILE (.png, .pdf, .svg)",
    )
    p.add_argument(
        "--compare-baselines",
        action="store_true",
        help="compare the design with GRR, OUE and the best k-subset at the same eps on this prior: the variance "
        "of each one's unbiased frequency estimate (or EM's squared bias, which no n removes, where none is "
        "unbiased) and the design's objective",
    )
    add_lp_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as one JSON document")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a status line on stderr while the solver works (column-generation rounds, columns, gap, "
        f"time); default: on a terminal after {PROGRESS_DELAY:g} s, never on a pipe or with --json",
    )
    p.add_argument("--list", action="store_true", help="list the registered problem ids and their parameters")
    p.set_defaults(handler=run_design)


def utility_help() -> str:
    """The ``--utility`` help: the designable utilities, then which solver designs them.

    >>> print(utility_help())
    mse, histogram, mi, mae, freq-var (mse, histogram, mi: exact, certified; under mip: sqp, local | mae: lp under
    ldp, lip, graph-/metric-ldp, else conic (LP or convex program), certified | freq-var: sqp, local: not convex)
    """
    from mechopt.utilities import DESIGNED_BY, UTILITIES

    groups: dict[str, list[str]] = {}
    for name in UTILITIES:
        groups.setdefault(DESIGNED_BY[name], []).append(name)
    return f"{', '.join(UTILITIES)} (" + " | ".join(f"{', '.join(names)}: {how}" for how, names in groups.items()) + ")"


# -- design ------------------------------------------------------------------------
def problem_table() -> list[dict[str, Any]]:
    """Every registered problem id with its paper, summary and ``from_params`` parameters.

    Examples
    --------
    >>> [p["params"] for p in problem_table() if p["id"] == "design"][0][:4]
    ['prior', 'notion', 'utility', 'eps']
    >>> [p["summary"][:75] for p in problem_table() if p["id"] == "robust-ball"]  # the docstring's reST dropped
    ['The worst expected loss (mae) or information (mi) over a BallSet, optimised']
    """
    import inspect
    import re

    from mechopt.registry import get_problem, problem_ids

    out = []
    for pid in problem_ids():
        cls = get_problem(pid)
        try:
            sig = inspect.signature(cls.from_params)
            params = [n for n, q in sig.parameters.items() if q.kind in (q.KEYWORD_ONLY, q.POSITIONAL_OR_KEYWORD)]
        except (TypeError, ValueError):
            params = []
        doc = (inspect.getdoc(cls) or "").strip().splitlines()
        summary = re.sub(r":\w+:`~?([^`]+)`", r"\1", doc[0] if doc else "").replace("``", "")  # plain text, no reST
        out.append({"id": pid, "paper": getattr(cls, "paper", "") or "", "summary": summary, "params": params})
    return out


def _check_not_input(args: argparse.Namespace) -> None:
    """Refuse an ``--out``, ``--plot`` or ``--certificate`` that is one of the run's inputs (prior, graph,
    spec or a file the spec names) or another of these outputs."""
    if not (args.out or args.certificate):
        return
    from mechopt.io.files import check_distinct, files_named

    inputs: dict[str, Any] = {
        "--prior file": args.prior,
        "--graph file": args.graph,
        "--coords file": getattr(args, "coords", None),
        "--set file": files_named(parse_assignments(args.assign).values()),
    }
    if args.spec:
        from mechopt.io.catalog import load_design_spec

        spec_path, spec = load_design_spec(args.spec)
        inputs["--spec file"] = spec_path
        inputs["file named in the spec"] = files_named([spec.get("params", {})], spec_path.parent)
    check_distinct({"--out": args.out, "--plot": args.plot, "--certificate": args.certificate}, inputs)


def _bounded_design(args: argparse.Namespace, notes: list[str], solve: Any, line: Any) -> tuple[Any, Any]:
    """Build, then solve within the time limit counted from the start of the process (or of the call,
    for a caller of :func:`mechopt.cli.main` with arguments; :mod:`mechopt.runtime.deadline`): reading
    the inputs (bounded by their size checks), choosing the solver, solving and auditing."""
    from mechopt.runtime import deadline

    problem, solver, options, tl = build_problem(args, notes)
    _check_certificate_size(args, problem)
    start = getattr(args, "started", None)  # set by mechopt.cli.main: the process's start, or the call's
    if args.json and options.get("verbose"):  # solver logs (cvxpy, Clarabel, HiGHS) print to stdout
        raise ParamError(
            "verbose=true prints the solver's log on stdout, which --json keeps for the JSON "
            "document only; drop --json or the verbose option"
        )
    if line.enabled:
        options["progress"] = line.update
    if tl is None:  # no limit: nothing to bound
        return problem, solve(problem, solver=solver, **options)
    options["time_limit"] = tl
    # the problem is read (its size checks are cheap): from here a stage past the deadline ends in a
    # result with the status time_limit (the SIGALRM backstop included), never in an error line
    t0 = time.perf_counter()
    try:
        with deadline.bounded(tl, start=start), deadline.alarm(deadline.ALARM_MARGIN_S):
            res = solve(problem, solver=solver, **options)
    except deadline.TimeLimitReached as exc:  # the backstop fired outside solve (the process was late already)
        from mechopt.api import time_limit_result

        res = time_limit_result(problem, solver, exc, t0)
    return problem, _wall_note(res, tl, t0 if start is None else start)


def _wall_note(res: Any, tl: float, start: float) -> Any:
    """A result past its time limit says how long the whole run took (its ``time_s`` is the solve's: --time-limit 2
    printed 1.74 s where the run took 3.5 s, reading the inputs and the first master's grace included)."""
    total = time.perf_counter() - start
    if total <= tl:
        return res
    note = f"the run took {total:.3g} s in all, counted from its start (the solve {res.time_s or 0.0:.3g} s)"
    msg = f"{res.message}; {note}" if res.message else note
    return res.replace(message=msg, extras={**res.extras, "wall_s": total})


def _check_certificate_size(args: argparse.Namespace, problem: Any) -> None:
    """``--certificate`` for a design whose file cannot be written, refused before the solve (not after a design
    of minutes): a prior above a checker's size."""
    from mechopt.errors import CertificateError
    from mechopt.problems.design import ChannelDesign
    from mechopt.problems.robust import BallDesign, RobustDesign
    from mechopt.results.certificate_file import check_checker_size

    if not args.certificate:
        return
    if isinstance(problem, ChannelDesign):
        check_checker_size(int((problem.prior > 0).sum()))
    elif isinstance(problem, BallDesign):
        from mechopt.certball import MAX_D

        d = problem.prior_set.d  # mi by vertex generation writes a file at any d (its bound checked to 10)
        if d > MAX_D:
            raise CertificateError(f"--certificate over a ball of {d} symbols: certball.py checks at most {MAX_D}; "
                                   "drop --certificate (the result's own bound stands)")  # fmt: skip
    elif isinstance(problem, RobustDesign):
        from mechopt.certcheck import MAX_D

        d = problem.prior_set.d
        if d > MAX_D:
            why = f"--certificate over a prior set on {d} symbols: certcheck.py checks at most {MAX_D}"
            raise CertificateError(why + "; drop --certificate (the result's own bound stands)")


def _status_line(args: argparse.Namespace) -> Any:
    """The ``--progress`` status line: asked for (shown at once), or by default on a terminal stderr without
    ``--json`` after :data:`PROGRESS_DELAY` seconds; never with ``--no-progress``."""
    from mechopt.runtime.progress import StatusLine

    asked = getattr(args, "progress", None)
    if asked is None:
        return StatusLine("design", enabled=None if not args.json else False, delay=PROGRESS_DELAY)
    return StatusLine("design", enabled=asked, delay=0.0)


def run_design(args: argparse.Namespace) -> int:
    from mechopt.api import solve
    from mechopt.cli._common import emit_json, table

    if args.list:
        rows = problem_table()
        if args.json:
            emit_json({"problems": rows})
        else:
            print(
                table(
                    ["id", "paper", "--set parameters", "summary"],
                    [[r["id"], r["paper"], ",".join(r["params"]), r["summary"][:60]] for r in rows],
                )
            )
        return 0

    from mechopt.cli._common import check_out_file, check_plot_format

    check_out_file(args.out)
    check_out_file(args.plot, "--plot")
    check_plot_format(args.plot)  # matplotlib there and able to write it, before the solve
    check_out_file(args.certificate, "--certificate")
    _check_not_input(args)
    if args.certificate and getattr(args, "hull", False):  # refused before the solve, not after it
        raise ParamError(
            "--certificate with --hull: a hull design's worst prior may lie inside the hull, which no certificate "
            "file proves; drop --certificate (the result's own bound stands) or --hull"
        )
    notes: list[str] = []
    with warnings.catch_warnings(record=True) as caught:  # printed as one "mechopt: warning:" line each
        warnings.simplefilter("always")
        with _status_line(args) as line:
            problem, res = _bounded_design(args, notes, solve, line)
    from mechopt.cli.design_report import show_warnings

    show_warnings(caught)
    stopped = res.message or f"status {res.status.value}"  # why, for a run that returned no mechanism
    for note in notes:  # after the solve: a failure stays one error line
        print(f"mechopt: note: {note}", file=sys.stderr)
    if notes:
        res = res.replace(message="; ".join(filter(None, [res.message, *notes])))
    from mechopt.cli.design_report import describe, design_document, write_out, write_plot

    as_json = args.json or (args.out and not args.out.lower().endswith(".npy"))
    doc = design_document(problem, res, notes) if as_json else None
    failed = res.status is Status.INFEASIBLE_POINT
    empty = res.mechanism is None and res.value is None and res.extras.get("plan") is None  # nothing returned
    if args.certificate and failed:  # exit 1 below: no file claims a bound for a mechanism that failed its audit
        print("mechopt: error: no certificate written: the mechanism failed its audit", file=sys.stderr)
    elif args.certificate:
        res.save_certificate(args.certificate)
    if args.out and failed and args.out.lower().endswith(".npy"):  # exit 1 below; the report still prints
        from mechopt.cli._common import printable
        from mechopt.cli.design_report import unsafe_npy

        print(f"mechopt: error: {printable(unsafe_npy(args.out))}", file=sys.stderr)
    elif empty:  # exit 1 below, with one line saying why; a file with no mechanism would be read as one
        from mechopt.cli._common import printable

        written = f"; nothing written to {args.out}" if args.out else ""
        print(f"mechopt: error: no mechanism: {printable(stopped)}{written}", file=sys.stderr)
    elif args.out:
        write_out(args.out, res, doc)
    if args.plot:
        write_plot(args.plot, problem, res)
    from mechopt.cli.design_report import baselines_document

    cmp = baselines_document(args, problem, res)
    if args.json:
        emit_json(doc if cmp is None else {**doc, "baselines": cmp})
    else:
        print(describe(problem, res))
        if cmp is not None:
            from mechopt.cli.design_report import baselines_table

            print(baselines_table(cmp))
    return 0 if res.status.has_solution and not failed and not empty else 1
