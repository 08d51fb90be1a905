"""``mechopt account MECH --users N --delta D``: the central ε after shuffling N reports, with the bound used.

Reads a mechanism file (``mechopt design --out`` or :meth:`mechopt.Mechanism.save`), computes its
amplification parameters exactly from Q and an upper bound on the central ε at δ after shuffling
N reports (:func:`mechopt.deploy.shuffle.central_guarantee`), and prints one line naming the bound,
or with ``--json`` one JSON document (``eps``, ``delta``, ``n``, ``bound``, ``upper_bound``,
``reference``, ``params``). The command module ``mechopt.cli.account`` parses; this module
reads ``--users`` and ``--delta`` (:func:`users_count`, :func:`delta_value`) and runs the mode (:func:`run_users`).

Examples
--------
>>> from mechopt.cli import main
>>> main(["account", "/nonexistent.json", "--users", "1000", "--delta", "1e-6"])
2
"""

from __future__ import annotations

import argparse
import math
from typing import Any

__all__ = ["run_users", "users_count", "delta_value"]


def users_count(text: str) -> int:
    """``--users``: a positive integer, digits or an exact power-of-ten form like ``1e6``.

    Examples
    --------
    >>> users_count("1e6"), users_count("250000")
    (1000000, 250000)
    """
    from mechopt.cli._common import CLIError

    try:
        v = float(text) if any(c in text for c in "eE") else int(text)
    except ValueError:
        v = math.nan
    if isinstance(v, float) and (not math.isfinite(v) or v != int(v)):
        raise CLIError(f"--users must be a whole number of users >= 1, e.g. 1000000 or 1e6; got {text!r}")
    if int(v) < 1:
        raise CLIError(f"--users must be at least 1; got {text!r}")
    return int(v)


def delta_value(text: str) -> float:
    """``--delta``: a number in (0, 1).

    Examples
    --------
    >>> delta_value("1e-6")
    1e-06
    """
    from mechopt.cli._common import CLIError

    try:
        v = float(text)
    except ValueError:
        v = math.nan
    if not 0.0 < v < 1.0:
        raise CLIError(f"--delta must be a number in (0, 1), e.g. 1e-6; got {text!r}")
    return v


def run_users(args: argparse.Namespace, mech: Any) -> int:
    """Print the shuffled guarantee of ``args.mechanism`` for ``args.users`` users at ``args.delta``."""
    from mechopt.cli._common import CLIError, emit_json
    from mechopt.deploy.shuffle import central_guarantee

    if args.delta is None:
        raise CLIError("--users needs --delta D, the central delta in (0, 1), e.g. --delta 1e-6")
    g = central_guarantee(mech, args.users, args.delta, args.bound)
    if args.json:
        emit_json({"mechanism": str(args.mechanism), **g.to_dict()})
        return 0
    print(g.statement())
    prm = g.params
    print(
        f"  local: eps0={prm['eps0']:.6g} (inputs {prm['eps0_pair']}), beta={prm['beta']:.6g}, "
        f"blanket mass={prm['blanket_mass']:.6g}; {g.reference}"
    )
    if g.note:
        print(f"  note: {g.note}")
    return 0
