"""``mechopt account MECH ...``: what a mechanism's guarantee becomes in deployment.

On this branch only the shuffling mode exists (``--users N --delta D``,
:mod:`mechopt.cli.account_shuffle`); composition over ``--uses K`` lives in its own module.

Examples
--------
>>> from mechopt.cli import main
>>> main(["account", "/nonexistent.json", "--users", "10", "--delta", "1e-6"])
2
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run_account"]


def register(sub: Any) -> None:
    from mechopt.cli import account_shuffle

    a = sub.add_parser(
        "account",
        help="privacy accounting of a mechanism in deployment (shuffling: --users N --delta D)",
        description="The central (eps, delta) after shuffling the reports of N users (an upper bound, by a named "
        "published amplification bound; the parameters are read exactly from Q).",
    )
    a.add_argument("mechanism", metavar="MECH", help="mechanism file (mechopt design --out, or Mechanism.save)")
    account_shuffle.add_arguments(a)
    a.add_argument("--json", action="store_true", help="print one JSON document")
    a.set_defaults(handler=run_account)


def run_account(args: argparse.Namespace) -> int:
    from mechopt.cli import account_shuffle
    from mechopt.cli._common import CLIError

    if args.users is None:
        raise CLIError("say what to account for: --users N --delta D (the central eps after shuffling N reports)")
    return account_shuffle.run_users(args)
