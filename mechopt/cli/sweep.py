"""``mechopt sweep`` and ``mechopt bench``.

``sweep SPEC.toml`` runs a grid × solvers (see :mod:`mechopt.jobs.sweep.run` for the
spec), writing one JSON line per finished point to ``--out``; ``--resume``
continues a killed run. The table shows each point's ``status`` and ``proof``; the
summary counts the statuses (``optimal`` split by proof, ``locally_optimal``,
``feasible``, ``infeasible_point`` = not private, limits). ``bench`` runs ``benchmarks/bench_*.py`` (see
:mod:`mechopt.jobs.bench`) and writes the markdown table (``benchmarks/RESULTS.md``
for a full run, ``--out`` otherwise).

Examples
--------
>>> from mechopt.cli import main
>>> main(["sweep", "/nonexistent/spec.toml"])
2
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register"]


def register(sub: Any) -> None:
    from mechopt.cli._common import positive_float, positive_int

    s = sub.add_parser(
        "sweep",
        help="run a parameter grid x solvers, one JSON line per point",
        description="Run a sweep spec; points are written as they finish; --resume continues.",
    )
    s.add_argument(
        "spec",
        metavar="SPEC.toml",
        help="a sweep spec file, or a built-in spec name (lip-tradeoff, ldp-vs-lip: mechopt/data/specs)",
    )
    s.add_argument("--out", metavar="FILE.jsonl", help="JSON-lines output (default: none, results printed)")
    s.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="local worker processes (joblib/loky)")
    s.add_argument("--scheduler", metavar="ADDRESS", help="a Dask distributed scheduler, e.g. tcp://host:8786")
    s.add_argument("--resume", action="store_true", help="skip the points already in --out")
    s.add_argument("--force", action="store_true", help="overwrite an existing --out instead of refusing")
    s.add_argument(
        "--solver",
        action="append",
        metavar="NAME",
        help="run this solver instead of the spec's (repeatable); options of the spec's other solvers "
        "are dropped with a note, shared ones (seed, time_limit, *_tol) kept",
    )
    s.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="wall-clock limit per point (overrides the spec; default none: every solver stops on its "
        "own iteration cap, so the numbers do not depend on the machine)",
    )
    s.add_argument("--plot", metavar="PNG", help="plot the tradeoff curves")
    s.add_argument("--progress", action="store_true", default=None)
    s.add_argument("--json", action="store_true", help='print {"lines": [...]} as one JSON document')
    s.set_defaults(handler=run_sweep)

    b = sub.add_parser(
        "bench",
        help="run the benchmark suite (source checkout)",
        description="Run benchmarks/bench_*.py and write the markdown results table.",
    )
    b.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    b.add_argument("--json", action="store_true")
    b.add_argument("--out", metavar="FILE.md", help="markdown output (default benchmarks/RESULTS.md for a full run)")
    b.add_argument("--dir", metavar="DIR", help="folder holding bench_*.py (default: the checkout's benchmarks/)")
    b.add_argument("--select", metavar="TEXT", help="only modules whose name contains TEXT")
    b.add_argument("--progress", action="store_true", default=None)
    b.set_defaults(handler=run_bench_cmd)


def run_sweep(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from mechopt.cli._common import emit_json, fmt, table
    from mechopt.errors import ParamError
    from mechopt.jobs.sweep.run import load_spec, plot_sweep, sweep
    from mechopt.results.words import status_counts

    if args.resume and not args.out:
        raise ParamError("--resume needs --out FILE.jsonl (the file to continue)")
    if args.scheduler and args.jobs != 1:
        raise ParamError("give either --jobs N (local) or --scheduler ADDRESS (Dask), not both")
    from mechopt.cli._common import check_out_file, check_plot_format

    check_out_file(args.out)
    check_out_file(args.plot, "--plot")
    from mechopt.io.catalog import read_toml, resolve_spec
    from mechopt.io.files import check_distinct, files_named

    spec_path = resolve_spec(args.spec)
    check_distinct(
        {"--out": args.out, "--plot": args.plot},
        {
            "sweep spec": spec_path,
            "file named in the spec": files_named(
                [read_toml(spec_path).get(k, {}) for k in ("fixed", "grid")], spec_path.parent
            ),
        },
    )
    check_plot_format(args.plot)  # before the run, not after it
    if args.plot:
        from mechopt.runtime.optional import require_matplotlib

        require_matplotlib()  # before the sweep, not after it
    spec = load_spec(args.spec)
    notes: list[str] = []
    if args.solver:
        from mechopt.jobs.sweep.spec import with_solvers
        from mechopt.registry import get_solver, solver_names

        for name in args.solver:
            if name not in solver_names():
                get_solver(name)  # SolverNotFound naming what exists
        spec, notes = with_solvers(spec, args.solver)
    if args.time_limit is not None:
        spec = replace(spec, time_limit=args.time_limit)
    lines = sweep(
        spec,
        args.out,
        jobs=args.jobs,
        scheduler=args.scheduler,
        resume=args.resume,
        overwrite=args.force,
        progress=args.progress,
    )
    if args.jobs > 1:
        from mechopt.jobs.workers import cap_jobs

        capped = cap_jobs(args.jobs, len(lines))[1]
        notes += [capped] if capped else []
    for note in notes:  # after the run: a failure stays one error line
        print(f"mechopt: note: {note}", file=sys.stderr)
    if args.plot:
        plot_sweep(lines, args.plot, spec.plot_x, spec.description or None)
    png = args.plot
    if args.json:
        emit_json({"lines": lines, "out": args.out, "plot": None if png is None else str(png), "notes": notes})
        return 0
    keys = list(spec.grid)
    rows = [
        [
            *(ln["point"].get(k) for k in keys),
            ln["solver"],
            fmt(ln["value"], 8),
            ln.get("unit") or "-",
            fmt(ln["violation"], 2),
            ln["status"],
            ln.get("proof") or "-",
            f"{ln['time_s']:.2f}",
        ]
        for ln in lines
    ]
    print(table([*keys, "solver", "value", "unit", "violation", "status", "proof", "time_s"], rows))
    print("\n" + status_counts(lines) + (f"; in {args.out}" if args.out else "") + (f"; plot {png}" if png else ""))
    return 0


def run_bench_cmd(args: argparse.Namespace) -> int:
    from mechopt.cli._common import check_out_file, emit_json, table
    from mechopt.io.writer import write_text
    from mechopt.jobs.bench import find_bench_dir, run_bench, to_markdown

    check_out_file(args.out)
    cmd = "mechopt bench" + (" --quick" if args.quick else "") + (f" --select {args.select}" if args.select else "")
    doc = run_bench(args.dir, quick=args.quick, select=args.select, progress=args.progress, command=cmd)
    out = args.out
    if out is None and not args.quick and not args.select:
        out = str(find_bench_dir(args.dir) / "RESULTS.md")
    if out:
        write_text(out, to_markdown(doc))
        doc["out"] = out
    if args.json:
        emit_json(doc)
        return 0
    rows = [
        [r["group"], r["case"], r["ours_s"], r["reference_s"], r["ratio"], (r["notes"] or "")[:50]] for r in doc["rows"]
    ]
    print(table(["group", "case", "ours_s", "reference_s", "ratio", "notes"], rows))
    print(f"\n{len(doc['rows'])} rows in {doc['wall_s']:.1f} s" + (f"; table written to {out}" if out else ""))
    return 0
