"""``mechopt compare``, ``mechopt verify`` and ``mechopt reproduce``: their flags, and compare and reproduce.

``verify`` runs every registered claim (:func:`mechopt.registry.claims`) through
:mod:`mechopt.cli.claims`, which says how a crashed check is reported (a ``fails``
verdict, never a crash).

Examples
--------
>>> from mechopt.cli import run, claims
>>> run.run_claims is claims.run_claims   # verify's runner, kept importable from here
True
>>> run.COMPARE_LEGEND.split(":")[0]     # compare's table legend opens with the value column
'value'
"""

from __future__ import annotations

import argparse
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from mechopt.cli.claims import CLAIM_FIELDS, run_claims, run_verify

__all__ = ["register", "run_claims", "CLAIM_FIELDS"]  # run_claims, CLAIM_FIELDS: mechopt.cli.claims

CERTIFIED_NOTE = (
    "* certified = status optimal with a machine-checked proof (a certificate within the gap "
    "tolerance, a convex program solved to its tolerances, or a global eigenproblem); a closed "
    "form is a claim under test and never certified"
)
COMPARE_LEGEND = (
    "value: the objective in its unit, minimised (sense min: an MSE, a Fisher trace) or maximised (max: "
    "a mutual information); violation: nats of eps by which the audited mechanism exceeds the privacy "
    "level (0 = private); gap: relative gap between the value and the certificate's bound (- = no certificate)"
)
COMPARE_EPILOG = textwrap.fill(
    f"output: one row per (instance, solver); {CERTIFIED_NOTE}. A discretised row (a grid) is compared "
    "within its error estimate (--json: error_estimate), never by its raw value. Under the table: the "
    "closed forms that fail their claim (counterexamples, with the claim id, why and by how much), then "
    f"those used outside the region where their theorem is proven (not counterexamples). {COMPARE_LEGEND}.",
    width=90,
    break_on_hyphens=False,
)


def register(sub: Any) -> None:
    from mechopt.cli._common import positive_float, positive_int
    from mechopt.jobs.flags import legend
    from mechopt.registry import papers

    c = sub.add_parser(
        "compare",
        help="run the catalog through every applicable solver and the closed forms",
        description="Run catalog instances through every applicable solver and the closed form; "
        "judge each row against its instance's certified rows (within their error "
        "estimates) and each closed form against its verify claim.",
        epilog=COMPARE_EPILOG + "\n\n" + legend(width=90),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    c.add_argument("--problem", action="append", metavar="ID", help="keep this catalog id (repeatable)")
    c.add_argument("--solver", action="append", metavar="NAME", help="keep this solver (repeatable)")
    c.add_argument(
        "--catalog",
        action="append",
        metavar="FILE.toml",
        help="use this catalog file instead of the built-in one (repeatable)",
    )
    c.add_argument(
        "--time-limit",
        type=positive_float,
        default=None,
        metavar="SECONDS",
        help="per-row wall-clock limit (default: none, every solver stops on its own iteration "
        "cap, so rows do not depend on the machine; a catalog instance's own time_limit wins)",
    )
    c.add_argument("--jobs", type=positive_int, default=1, metavar="N", help="rows in parallel (local processes)")
    c.add_argument(
        "--budget",
        type=positive_float,
        metavar="SECONDS",
        help="total time; rows not started when it is used up are reported as skipped",
    )
    c.add_argument(
        "--isolate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="run each row in a forked process killed at 2 x its time limit + 2 s "
        "(default: on where fork exists, with --jobs 1 and a time limit)",
    )
    c.add_argument("--plot", metavar="DIR", help="write one PNG per problem into DIR")
    c.add_argument("--progress", action="store_true", default=None, help="progress bar even when stderr is not a TTY")
    c.add_argument("--list", action="store_true", help="list the catalog instances and exit")
    c.add_argument("--json", action="store_true")
    c.set_defaults(handler=run_compare)

    v = sub.add_parser(
        "verify",
        help="check the papers' theorems numerically",
        description="Run the theorem catalog; exit 0 whatever the verdicts (holds, fails, "
        "holds-in-region, holds-after-correction, not-checkable).",
    )
    v.add_argument("--paper", choices=papers())
    v.add_argument("--claim", action="append", metavar="ID", help="only this claim id (repeatable)")
    v.add_argument("--progress", action="store_true", default=None)
    v.add_argument("--json", action="store_true")
    v.set_defaults(handler=run_verify)

    r = sub.add_parser(
        "reproduce",
        help="reproduce the papers' figures and tables",
        description="Run figure/table reproductions (PNG + CSV/JSON into --out).",
    )
    r.add_argument("figures", nargs="*", metavar="FIGURE_ID", help="figure ids, or 'all'")
    r.add_argument(
        "--out",
        default="mechopt-figures",
        metavar="DIR",
        help="folder for each figure's PNG and its data (CSV/JSON); created if missing (default: %(default)s)",
    )
    r.add_argument("--list", action="store_true", help="list the registered figures and exit")
    r.add_argument("--quick", action="store_true", help="smaller grids, fewer samples")
    r.add_argument("--progress", action="store_true", default=None)
    r.add_argument("--json", action="store_true")
    r.set_defaults(handler=run_reproduce)


# -- compare -------------------------------------------------------------------------
def run_compare(args: argparse.Namespace) -> int:
    from mechopt.cli._common import check_out_dir, emit_json, fmt, short, table
    from mechopt.io.catalog import load_catalog
    from mechopt.jobs.compare import DEFAULT_TIME_LIMIT, ROW_FIELDS, can_isolate, compare, plot_compare
    from mechopt.jobs.flags import summary_lines
    from mechopt.registry import problem_ids

    check_out_dir(args.plot, "--plot")
    if args.plot:
        from mechopt.runtime.optional import require_matplotlib

        require_matplotlib()  # before the solves, not after them
    instances = None
    if args.catalog:
        known = problem_ids()
        instances = [i for path in args.catalog for i in load_catalog(path, known=known)]
    if args.list:
        from mechopt.io.catalog import builtin_catalog

        insts = instances if instances is not None else builtin_catalog(args.problem)
        items = [
            {"problem": i.problem, "instance": i.name, "params": i.params, "source": i.source}
            for i in insts
            if not args.problem or i.problem in args.problem
        ]
        if args.json:
            emit_json({"instances": items})
        else:
            print(
                table(
                    ["problem", "instance", "params", "file"],
                    [
                        [
                            i["problem"],
                            i["instance"],
                            short(", ".join(f"{k}={v}" for k, v in i["params"].items()), 70),
                            i["source"],
                        ]
                        for i in items
                    ],
                )
            )
        return 0
    tl = DEFAULT_TIME_LIMIT if args.time_limit is None else args.time_limit
    t0 = time.perf_counter()
    if args.budget is not None and args.jobs != 1:
        from mechopt.errors import ParamError

        raise ParamError("--budget works with --jobs 1 only")
    limited = tl is not None or any(i.time_limit is not None for i in instances or [])
    isolate = args.isolate if args.isolate is not None else (can_isolate() and args.jobs == 1 and limited)
    rows = compare(
        args.problem,
        args.solver,
        instances=instances,
        time_limit=tl,
        jobs=args.jobs,
        progress=args.progress,
        budget=args.budget,
        isolate=isolate,
    )
    wall = time.perf_counter() - t0
    if args.jobs > 1:
        from mechopt.jobs.workers import cap_jobs

        note = cap_jobs(args.jobs, len(rows))[1]
        if note:
            print(f"mechopt: note: {note}", file=sys.stderr)
    figs = plot_compare(rows, args.plot) if args.plot else {}
    files = [Path(args.plot) / f"compare_{pid}.png" for pid in figs]
    if args.json:
        emit_json({"rows": rows, "wall_s": wall, "plots": [str(f) for f in files]})
        return 0
    if not rows:
        print("no catalog instance matched (see --problem / --solver)")
        return 0
    body = []
    for r in rows:
        mark = "*" if r["certified"] else " "
        body.append(
            [
                r["problem"],
                r["instance"],
                mark + r["solver"],
                fmt(r["value"], 8),
                r.get("sense") or "-",
                r.get("unit") or "-",
                fmt(r["violation"], 2),
                fmt(r["gap"], 2),
                r["status"],
                f"{r['time_s']:.2f}",
                r["flag"],
            ]
        )
    print(table([*ROW_FIELDS[:4], "sense", *ROW_FIELDS[4:-1], "flag"], body))
    flagged = [r for r in rows if set(r["flag"].split(",")) - {"", "certified"}]
    print(
        f"\n{len(rows)} rows, {sum(r['certified'] for r in rows)} certified (*), {len(flagged)} flagged "
        f"(flags: mechopt compare --help); {wall:.1f} s" + (f"; plots in {args.plot}" if files else "")
    )
    print(CERTIFIED_NOTE)
    print(COMPARE_LEGEND)
    for line in summary_lines(rows):
        print(line)
    for r in rows:
        if r["status"] == "solver_error" or r["flag"] == "error":
            print(f"  error {r['problem']}/{r['instance']}/{r['solver']}: {r['message']}")
    return 0


# -- reproduce ---------------------------------------------------------------------------
def run_reproduce(args: argparse.Namespace) -> int:
    from mechopt.cli._common import emit_json, table
    from mechopt.jobs.reproduce import list_figures, reproduce

    if args.list:
        figs = list_figures()
        if args.json:
            emit_json({"figures": figs})
        else:
            print(
                table(["id", "paper", "title"], [[f["id"], f["paper"], f["title"]] for f in figs])
                if figs
                else "no figures registered"
            )
        return 0
    from mechopt.cli._common import check_out_dir

    check_out_dir(args.out)
    reports = reproduce(args.figures, args.out, quick=args.quick, progress=args.progress)
    if args.json:
        emit_json({"figures": reports, "out": args.out})
    else:
        for r in reports:
            print(f"{r['id']}: {r['status']} ({r['time_s']:.1f} s) {r['title']}")
            for f in r["files"]:
                print(f"  wrote {f}")
            for n in r["notes"]:
                print(f"  note: {n}")
            if r["error"]:
                print(f"  error: {r['error']}", file=sys.stderr)
    return 1 if any(r["status"] != "ok" for r in reports) else 0
