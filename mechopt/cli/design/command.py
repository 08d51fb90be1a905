"""Running ``mechopt design``: the checks before the solve, the solve bounded by ``--time-limit``, the report.

:func:`run_design` is the handler that :mod:`mechopt.cli.design.flags` registers: it refuses outputs that would
overwrite an input (or a certificate no file can hold) before the solve, builds the problem
(:func:`~mechopt.cli.design_problem.build_problem`), solves it within the time limit counted from the start of the
process, with a status line on a terminal, then prints and writes the result (:mod:`mechopt.cli.design_report`).

Examples
--------
>>> [p["id"] for p in problem_table()][:2]
['design', 'geo']
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from typing import Any

from mechopt.cli.design_problem import build_problem, parse_assignments
from mechopt.errors import ParamError
from mechopt.results.result import Status

__all__ = ["run_design", "problem_table", "PROGRESS_DELAY"]

#: Seconds a design runs before its status line appears by default (on a terminal, without --json).
PROGRESS_DELAY = 3.0


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
