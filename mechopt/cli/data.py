"""``mechopt randomize`` and ``mechopt estimate``: a mechanism applied to a column of a data file, and its estimate.

``mechopt randomize MECH DATA --column COL [--seed S] --out REPORTS`` reads
the column ``COL`` of ``DATA`` (.csv or .parquet; the ``data`` extra), maps
each value to the mechanism's input of the same name, draws one report per
row (:meth:`mechopt.Mechanism.randomize_indices`, one seeded stream over the
whole file: the reports do not depend on ``--chunk-rows``) and writes the
reports as the column ``COL`` of ``REPORTS`` — only that column. A value that
is not an input stops the command (exit 2) naming its row. The output is
written to a temporary file and renamed at the end: never half-written.

``mechopt estimate MECH REPORTS --column COL --method linear|em|posterior
[--consistency clip|norm-sub|project] [--ci 0.95] [--json]`` counts the
reports per output and prints the estimated input distribution
(:meth:`mechopt.mechanism.inference.Inference.estimate_counts`), with standard errors and
intervals when asked.

MECH is a mechanism file: ``mechopt design --out`` (JSON with ``Q``,
``inputs``, ``outputs``) or :meth:`mechopt.Mechanism.save`.

Examples
--------
>>> from mechopt.cli import main
>>> main(["estimate", "/nonexistent.json", "r.csv", "--column", "x"])
2
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

import numpy as np

__all__ = ["register", "run_randomize", "run_estimate", "CHUNK_ROWS"]

CHUNK_ROWS = 1 << 20  # rows per step (a multiple of the oracles' 2^16 blocks)
METHODS = ("linear", "em", "posterior")
CONSISTENCY = ("clip", "norm-sub", "project")


def register(sub: Any) -> None:
    r = sub.add_parser(
        "randomize",
        help="randomize a column of a CSV/Parquet file with a mechanism (one report per row)",
        description="Draw one report per row of DATA's column COL with the mechanism MECH and write the reports "
        "(only that column) to REPORTS, atomically. Values are matched to the mechanism's inputs by name.",
    )
    r.add_argument("mechanism", metavar="MECH", help="mechanism file (mechopt design --out, or Mechanism.save)")
    r.add_argument("data", metavar="DATA", help="the data: a .csv (with a header) or .parquet file")
    r.add_argument("--column", required=True, metavar="COL", help="the column to randomize")
    r.add_argument("--seed", type=int, metavar="S", help="seed of the random stream (default: fresh, printed)")
    r.add_argument("--out", required=True, metavar="REPORTS", help="where the reports go: .csv or .parquet")
    r.add_argument("--chunk-rows", type=_rows, default=CHUNK_ROWS, metavar="N", help=argparse.SUPPRESS)
    r.set_defaults(handler=run_randomize)
    e = sub.add_parser(
        "estimate",
        help="estimate the input distribution from a column of reports",
        description="Count the reports in REPORTS' column COL and estimate the distribution of the inputs: "
        "linear (unbiased, needs an identifiable mechanism), em (maximum likelihood, any mechanism) or "
        "posterior (the design prior's average posterior).",
    )
    e.add_argument("mechanism", metavar="MECH", help="mechanism file (mechopt design --out, or Mechanism.save)")
    e.add_argument("reports", metavar="REPORTS", help="the reports: a .csv or .parquet file")
    e.add_argument("--column", required=True, metavar="COL", help="the column holding the reports")
    e.add_argument("--method", choices=METHODS, default="linear")
    e.add_argument("--consistency", choices=CONSISTENCY, help="map the estimate onto the probability simplex")
    e.add_argument("--ci", type=_level, metavar="LEVEL", help="normal confidence intervals at LEVEL (e.g. 0.95)")
    e.add_argument("--json", action="store_true")
    e.add_argument("--chunk-rows", type=_rows, default=CHUNK_ROWS, metavar="N", help=argparse.SUPPRESS)
    e.set_defaults(handler=run_estimate)


def _rows(text: str) -> int:
    from mechopt.cli._common import positive_int

    return positive_int(text)


def _level(text: str) -> float:
    from mechopt.cli._common import CLIError

    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not 0 < v < 1:
        raise CLIError(f"--ci must be a coverage level in (0, 1), e.g. 0.95; got {text!r}")
    return v


def _mechanism(path: str) -> Any:
    from mechopt.mechanism import Mechanism

    return Mechanism.load(path)


def _index(labels: tuple[Any, ...], what: str) -> dict[str, int]:
    """Label name → index (labels are matched by their text, as a data file holds them); two labels with
    one text (1 and "1") are refused: a data file could not tell them apart."""
    from mechopt.errors import ProblemError

    names: dict[str, int] = {}
    for i, v in enumerate(labels):
        if str(v) in names:
            raise ProblemError(
                f"the mechanism's {what} {labels[names[str(v)]]!r} and {v!r} have the same text {str(v)!r}: "
                "a data file cannot tell them apart; relabel one of them"
            )
        names[str(v)] = i
    return names


def _encode(values: Any, names: dict[str, int], start: int, what: str, path: str) -> np.ndarray:
    """Indices of a chunk of string values; ProblemError naming the first row that is not a label."""
    from mechopt.errors import ProblemError

    idx = np.fromiter((names.get(v, -1) if v is not None else -1 for v in values), dtype=np.intp, count=len(values))
    bad = np.flatnonzero(idx < 0)
    if bad.size:
        row = start + int(bad[0])
        value = list(values)[int(bad[0])]
        shown = "an empty value" if value is None else repr(value)
        known = ", ".join(list(names)[:8]) + (", ..." if len(names) > 8 else "")
        where = f" (line {row + 2})" if str(path).lower().endswith(".csv") else ""  # a Parquet file has no lines
        raise ProblemError(
            f"{path}: row {row + 1}{where} holds {shown}, which is not one of the mechanism's {what} "
            f"({known}); {bad.size} such row(s) in this chunk"
        )
    return idx


def run_randomize(args: argparse.Namespace) -> int:
    from mechopt.cli._common import check_out_file
    from mechopt.io.files import check_distinct
    from mechopt.io.tables import ColumnWriter, count_rows, read_column, table_format
    from mechopt.mechanism.sampling import as_generator
    from mechopt.runtime.progress import Progress

    table_format(args.data)
    table_format(args.out)
    check_out_file(args.out)
    check_distinct({"--out": args.out}, {"data": args.data, "mechanism file": args.mechanism})
    m = _mechanism(args.mechanism)
    names = _index(m.inputs, "inputs")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % (1 << 63))
    rng = as_generator(seed)  # ParamError (exit 2) for a seed numpy refuses (negative)
    total = count_rows(args.data) or 0
    bar = Progress(max(total, 1), f"randomize {args.column}")
    outs = np.array([str(v) for v in m.outputs], dtype=object)
    with ColumnWriter(args.out, args.column) as w:
        for start, values in read_column(args.data, args.column, args.chunk_rows):
            y = m.randomize_indices(_encode(values, names, start, "inputs", args.data), rng)
            w.write(outs[y])
            bar.advance(f"{start + len(values):,} rows", n=len(values))
        bar.close()
        w.commit()
    sys.stdout.write(f"{w.rows} reports of {args.column!r} written to {args.out} (seed {seed}; {m!r})\n")
    return 0


def run_estimate(args: argparse.Namespace) -> int:
    from mechopt.cli._common import emit_json, fmt, table
    from mechopt.io.tables import read_column, table_format

    table_format(args.reports)
    m = _mechanism(args.mechanism)
    names = _index(m.outputs, "outputs")
    counts = np.zeros(m.shape[1], dtype=np.int64)
    for start, values in read_column(args.reports, args.column, args.chunk_rows):
        counts += np.bincount(_encode(values, names, start, "outputs", args.reports), minlength=m.shape[1])
    est = m.estimate_counts(counts, method=args.method, consistency=args.consistency, ci=args.ci)
    if args.json:
        emit_json({"column": args.column, "reports": args.reports, "mechanism": args.mechanism, **est.to_dict()})
        return 0
    heads = ["input", "estimate"] + (["stderr"] if est.stderr is not None else [])
    heads += [f"{est.level:g} low", "high"] if est.ci_low is not None else []
    rows = []
    for i, label in enumerate(m.inputs):
        row = [str(label), fmt(est.frequencies[i])]
        row += [fmt(est.stderr[i])] if est.stderr is not None else []
        row += [fmt(est.ci_low[i]), fmt(est.ci_high[i])] if est.ci_low is not None else []
        rows.append(row)
    sys.stdout.write(table(heads, rows) + "\n")
    tail = f"{est.n} reports, method {est.method}" + (f", consistency {est.consistency}" if est.consistency else "")
    sys.stdout.write(tail + (f"\nnote: {est.note}" if est.note else "") + "\n")
    return 0
