"""``mechopt report MECH [--html FILE] [--json] [--prior P]``: a mechanism's report card.

``--html FILE`` writes the one-page card of :mod:`mechopt.deploy.card` (heat
map of Q, privacy under every notion, the estimator's variance, certificate and
status; static, self-contained, no script) through :mod:`mechopt.io.writer`;
``--json`` prints the same numbers as one JSON document. ``MECH`` is any
mechanism file :meth:`mechopt.Mechanism.load` reads; ``--prior`` overrides the
file's prior for the prior-dependent measures (without either: uniform, and the
card says so). At least one of ``--html`` and ``--json`` is needed. Exit 1 (after
writing the card, one ``CLAIM BROKEN`` line on stderr) when the mechanism's Q
fails its own privacy claim, as ``mechopt audit`` does.

Examples
--------
>>> from mechopt.cli import main
>>> main(["report", "/nonexistent.json", "--json"])
2
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run_report"]


def register(sub: Any) -> None:
    r = sub.add_parser(
        "report",
        help="a mechanism's report card: one static HTML page (--html FILE) or its numbers (--json)",
        description="Write the report card of a mechanism file: heat map of Q, ε under LDP/LIP/MIP, maximal "
        "leakage, Bayes vulnerability, the linear estimator's variance, certificate and status.",
    )
    r.add_argument("mechanism", metavar="MECH", help="a mechanism file (mechopt design --out, Mechanism.save, .npy)")
    r.add_argument("--html", metavar="FILE", help="write the card to FILE (one self-contained page)")
    r.add_argument("--prior", metavar="P", help="the prior of LIP, MIP and the leakages (default: the file's)")
    r.add_argument("--json", action="store_true", help="print the card's numbers as one JSON document")
    r.add_argument(
        "--uses",
        metavar="K[,K...]",
        default="1,2,5,10",
        help="reports per user of the composition curves (default 1,2,5,10)",
    )
    r.add_argument(
        "--users",
        metavar="N[,N...]",
        default="10000,100000,1000000",
        help="users whose shuffled reports the card bounds (default 10000,100000,1000000; delta 1e-6)",
    )
    r.set_defaults(handler=run_report)


def run_report(args: argparse.Namespace) -> int:
    from mechopt.cli._common import CLIError, check_out_file, emit_json
    from mechopt.deploy.card import card_sections, sections_json, write_card
    from mechopt.io.files import check_distinct
    from mechopt.mechanism.core import Mechanism
    from mechopt.model.priors import parse_prior

    if args.html is None and not args.json:
        raise CLIError("report: give --html FILE (the page) or --json (its numbers), or both")
    if args.html is not None:
        check_out_file(args.html, "--html")
        check_distinct({"--html": args.html}, {"mechanism file MECH": args.mechanism, "--prior file": args.prior})
    mech = Mechanism.load(args.mechanism)
    prior = None if args.prior is None else parse_prior(args.prior)
    # computed once: the page and --json show the same numbers
    sections = card_sections(mech, prior, uses=_counts(args.uses, "--uses"), users=_counts(args.users, "--users"))
    if args.html is not None:
        write_card(mech, args.html, sections=sections)
    doc = sections_json(sections)
    if args.json:
        emit_json(doc)
    else:  # --html alone: say where the page went (stdout stays the JSON document's with --json)
        print(f"report card of {mech!r} written to {args.html} ({len(doc['sections'])} sections)")
    audit = doc["sections"]["certificate"]["audit"]
    if audit is not None and not audit["holds"]:
        needs = "no finite ε" if audit["audited"] is None else f"ε = {audit['audited']:.6g}"
        print(
            f"CLAIM BROKEN: the mechanism claims {audit['notion']} ε = {audit['claimed']:g}, but its Q needs {needs}"
            + (f" (the card says so: {args.html})" if args.html else ""),
            file=sys.stderr,
        )
        return 1
    return 0


def _counts(text: str, flag: str) -> tuple[int, ...]:
    """``--uses 1,2,5`` / ``--users 1000,1e6``: whole numbers ≥ 1 separated by commas."""
    from mechopt.cli.account import whole_count

    return tuple(whole_count(v, flag) for v in text.split(","))
