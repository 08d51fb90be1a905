"""``mechopt audit MECHANISM.json --prior P``: the smallest ε under LDP, LIP and MIP.

The mechanism file is read and validated by :func:`mechopt.mechfile.read_mechanism`
(rows must be probability vectors, as many as the prior has symbols); the
document printed with ``--json`` is ``{"notions": {"ldp": {"eps": ...}, "lip":
{...}, "mip": {...}}, "inputs": d, "outputs": m}`` with ``null`` for an infinite ε.

Examples
--------
>>> from mechopt.cli import main
>>> main(["audit", "/nonexistent.json"])
2
"""
from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run_audit"]


def register(sub: Any) -> None:
    a = sub.add_parser("audit", help="audit a mechanism file under LDP, LIP and MIP",
                       description="Print the smallest ε a mechanism satisfies under each notion (null: infinite).")
    a.add_argument("mechanism", metavar="MECHANISM.json")
    a.add_argument("--prior", metavar="P", help="the prior (default: the file's \"prior\"; without one only LDP)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=run_audit)


# -- audit -------------------------------------------------------------------------
def run_audit(args: argparse.Namespace) -> int:
    from mechopt.cli._common import emit_json, table
    from mechopt.mechfile import audit, read_mechanism

    doc = read_mechanism(args.mechanism)
    prior = args.prior if args.prior is not None else doc.get("prior")
    report = audit(doc["Q"], prior)
    if args.json:
        emit_json({"notions": report["notions"], "inputs": report["inputs"], "outputs": report["outputs"]})
    else:
        rows = [[name, v["eps"] if v["eps"] is not None else "inf"] for name, v in report["notions"].items()]
        print(f"{args.mechanism}: {report['inputs']} inputs x {report['outputs']} outputs"
              + ("" if prior is not None else " (no prior: LIP and MIP need --prior)"))
        print(table(["notion", "smallest eps"], rows))
    return 0
