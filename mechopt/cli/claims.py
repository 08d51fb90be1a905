"""``mechopt verify``: run the registered claims and print their verdicts.

A claim whose check raises is still reported, never a crash: its ``verdict`` is
``"fails"`` (the vocabulary stays closed), ``checked`` is 0, ``note`` starts
with ``"check crashed: "`` and the ``error`` field holds the exception (it is
``null`` for every claim that ran). The exit code is 0 whatever the verdicts.

Examples
--------
>>> from mechopt.jobs.verify import Claim, Verdict
>>> from mechopt.cli.claims import run_claims
>>> ok = Claim("demo.a", "demo", "1 = 1", "-", lambda: Verdict("holds", 1, 0.0))
>>> bad = Claim("demo.b", "demo", "boom", "-", lambda: 1 / 0)
>>> [(r["id"], r["verdict"], r["error"]) for r in run_claims([ok, bad])]
[('demo.a', 'holds', None), ('demo.b', 'fails', 'ZeroDivisionError: division by zero')]
"""

from __future__ import annotations

import argparse
import textwrap
import time
from collections.abc import Sequence
from typing import Any

from mechopt.results.result import jsonable

__all__ = ["CLAIM_FIELDS", "VERIFY_LEGEND", "run_claims", "run_verify"]

CLAIM_FIELDS = (
    "id",
    "paper",
    "statement",
    "domain",
    "verdict",
    "checked",
    "worst_deviation",
    "counterexample",
    "region",
    "section",
    "kind",
    "by_construction",
    "assumptions",
    "region_kind",
    "correction",
    "power",
)
VERIFY_LEGEND = (
    "worst dev: the largest deviation found, in each claim's own unit (its domain says which: a "
    "difference of values, a count of outputs, units of the solver's tolerance); for holds-after-correction, "
    "of the statement as printed; --json gives each claim's note"
)


def run_claims(claims: Sequence[Any], progress: bool | None = False) -> list[dict[str, Any]]:
    """Run claims, turning a crashed check into a ``fails`` report with ``error`` set."""
    from mechopt.runtime.progress import Progress

    out = []
    with Progress(len(claims), "verify", enabled=progress) as bar:
        for claim in claims:
            t0 = time.perf_counter()
            try:
                rep = claim.run().to_dict()
                rep["error"] = None
            except (KeyboardInterrupt, SystemExit):
                raise
            except Exception as exc:  # a crashed check is a reported finding, not a CLI crash
                msg = f"{type(exc).__name__}: {exc}"
                rep = {
                    "id": claim.id,
                    "paper": claim.paper,
                    "statement": claim.statement,
                    "domain": claim.domain,
                    "verdict": "fails",
                    "checked": 0,
                    "worst_deviation": None,
                    "counterexample": None,
                    "region": None,
                    "note": f"check crashed: {msg}",
                    "section": getattr(claim, "section", ""),
                    "kind": getattr(claim, "kind", "theorem"),
                    "by_construction": getattr(claim, "by_construction", False),
                    "assumptions": getattr(claim, "assumptions", ""),
                    "region_kind": None,
                    "correction": None,
                    "power": None,
                    "time_s": time.perf_counter() - t0,
                    "error": msg,
                }
            out.append(jsonable(rep))
            bar.advance(claim.id)
    return out


def run_verify(args: argparse.Namespace) -> int:
    """Run the selected claims (``--paper``, ``--claim``) and print or emit their verdicts; exit code 0."""
    from mechopt.cli._common import emit_json, fmt, short, table, terminal_width
    from mechopt.errors import ParamError
    from mechopt.registry import claims

    selected = claims(args.paper)
    if args.claim:
        ids = {c.id for c in selected}
        unknown = sorted(set(args.claim) - ids)
        if unknown:
            raise ParamError(f"unknown claim id(s) {unknown}; known: {', '.join(sorted(ids)) or 'none registered'}")
        selected = [c for c in selected if c.id in set(args.claim)]
    reports = run_claims(selected, progress=args.progress)
    if args.json:
        emit_json({"claims": reports})
        return 0
    if not reports:
        print("no claims registered" + (f" for paper {args.paper}" if args.paper else ""))
        return 0
    rows = [
        [
            r["id"],
            r["verdict"],
            r["checked"],
            fmt(r["worst_deviation"], 3),
            short(r["region"] or "", 200),
            short(r["statement"], 400),
        ]
        for r in reports
    ]
    width = terminal_width()
    print(table(["id", "verdict", "checked", "worst dev", "region", "statement"], rows, width=width))
    print(textwrap.fill(VERIFY_LEGEND, width=width) if width else VERIFY_LEGEND)
    for r in reports:
        if r["verdict"] != "holds":
            extra = f" counterexample: {r['counterexample']}" if r["counterexample"] else ""
            note = f"{r['id']}: {r['note'] or r['verdict']}{extra}"
            print(
                textwrap.fill(note, width=width, initial_indent="  ", subsequent_indent="    ", break_long_words=True)
                if width
                else "  " + note
            )
            if r.get("correction"):
                corr = f"correction: {r['correction']}"
                print(
                    textwrap.fill(
                        corr, width=width, initial_indent="    ", subsequent_indent="      ", break_long_words=True
                    )
                    if width
                    else "    " + corr
                )
    from mechopt.jobs.verify import VERDICTS

    counts = {v: sum(r["verdict"] == v for r in reports) for v in VERDICTS}
    noun = "claim" if len(reports) == 1 else "claims"
    print(f"\n{len(reports)} {noun}: " + ", ".join(f"{n} {v}" for v, n in counts.items()))
    return 0
