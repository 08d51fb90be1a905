"""``mechopt check CERTIFICATE [--json]``: verify a certificate file with the standalone checker.

Runs :mod:`mechopt.certcheck` (the same file an auditor runs without mechopt, ``python certcheck.py FILE``), or
:mod:`mechopt.certball` for a design over a prior ball held by its inequalities (``"kind": "robust-ball"``),
and follows its exit status: 0 verified, 1 rejected (the reason on stdout), 2 a file that is not a
certificate (one ``mechopt: error:`` line on stderr), 3 partially verified (a prior-ball mi file above
``certball.RAYS_MAX_D`` inputs: privacy and the value verified, the bound not; the line says so).
``--json`` prints the checker's report as one JSON document. The tolerances are the checker's own (its
``TOLERANCES``), overridable here as there.

Examples
--------
>>> from mechopt.cli import main
>>> main(["check", "/nonexistent.json"])
2
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run_check"]


def register(sub: Any) -> None:
    from mechopt.certcheck import TOLERANCES, tolerance

    c = sub.add_parser(
        "check",
        help="verify a certificate file (written by design --certificate) in exact arithmetic",
        description="Verify a mechopt certificate with the standalone checker (mechopt/certcheck.py, standard "
        "library only): Q is a private channel, its value is as claimed, and the duals prove the bound over "
        "every extreme ray. Exit 0 verified, 1 rejected, 2 not a certificate, 3 partially verified (the bound "
        "not checked: a prior-ball mi file above certball.RAYS_MAX_D inputs).",
    )
    c.add_argument("certificate", metavar="CERTIFICATE", help="a .json certificate (docs: howto/certificates)")
    c.add_argument("--json", action="store_true", help="print the checker's report as one JSON document")
    for name, val in TOLERANCES.items():
        c.add_argument("--" + name.replace("_", "-"), type=tolerance, default=val, dest=name, help=f"default {val:g}")
    c.set_defaults(handler=run_check)


def run_check(args: argparse.Namespace) -> int:
    from mechopt import certball
    from mechopt.certcheck import MAX_BYTES, TOLERANCES, line, run
    from mechopt.cli._common import emit_json
    from mechopt.errors import InputFileError
    from mechopt.io.files import read_input

    read_input(args.certificate, "certificate", MAX_BYTES)  # refuse a directory, FIFO or device up front
    checker = certball.run if certball.is_ball(args.certificate) else run  # a prior ball: its own checker
    code, out = checker(args.certificate, {k: getattr(args, k) for k in TOLERANCES})
    if code == 2:
        raise InputFileError(f"{args.certificate}: {out['reason']}")
    if args.json:
        emit_json(out)
    else:
        print(line(out))
    return code
