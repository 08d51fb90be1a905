"""``mechopt account MECH (--uses K --eps E | --users N --delta D) [--json]``: a mechanism's guarantee in deployment.

``--uses K --eps E`` prints δ at ε = E after each user reports K times through the
mechanism (:func:`mechopt.deploy.compose`), the worst input pair by its labels, the
single-use ε₀ and the method: ``exact`` (the multinomial sum) or ``dp_accounting
pessimistic`` (Google's privacy-loss distributions, losses rounded up; the ``accounting``
extra) when K is beyond the exact limit. ``--users N --delta D`` prints the central ε
after the reports of N users are shuffled (:mod:`mechopt.deploy.shuffle`, by the amplification
bound ``--bound``). Each mode is one function (:data:`MODES`).

``--json`` prints one document: ``{"mechanism", "mode": "uses", "uses", "eps", "delta",
"worst_pair": [x, x'] | null, "eps_ldp" (null: infinite), "method", "discretization"}``.
Exit 0 with an answer, 2 on bad input (one line on stderr).

Examples
--------
>>> from mechopt.cli import main
>>> main(["account", "/nonexistent.json", "--uses", "3", "--eps", "1"])
2
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["register", "run_account", "run_uses", "run_users", "users_count", "whole_count", "delta_value", "MODES"]


def register(sub: Any) -> None:
    from mechopt.deploy.composition import METHODS
    from mechopt.deploy.shuffle import BOUNDS

    a = sub.add_parser(
        "account",
        help="privacy after repeated use (--uses K --eps E) or after shuffling (--users N --delta D)",
        description="The (eps, delta) guarantee of a mechanism in deployment: delta at --eps after each user "
        "reports --uses times (exact, or dp_accounting rounded pessimistically), or the central eps at --delta "
        "after the reports of --users users are shuffled.",
    )
    a.add_argument("mechanism", metavar="MECH", help="mechanism file (mechopt design --out, Mechanism.save, a matrix)")
    mode = a.add_mutually_exclusive_group(required=True)
    mode.add_argument("--uses", type=_count, metavar="K", help="reports per user (sequential composition)")
    mode.add_argument("--users", type=users_count, metavar="N", help="users whose reports are shuffled (e.g. 1e6)")
    a.add_argument("--eps", type=_nonnegative, metavar="E", help="with --uses: the eps (nats) at which delta is given")
    a.add_argument("--delta", type=delta_value, metavar="D", help="with --users: the central delta, in (0, 1)")
    a.add_argument(
        "--bound", choices=tuple(BOUNDS), default="variation-ratio", help="with --users: the amplification bound"
    )
    a.add_argument("--method", choices=METHODS, default="auto", help="with --uses: exact, accountant or auto")
    a.add_argument("--discretization", type=_positive, default=1e-4, metavar="H", help="accountant's loss grid (nats)")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=run_account)


def _number(text: str) -> float:
    from mechopt.model.numbers import ascii_float

    try:
        v = ascii_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number (digits 0-9), got {text!r}") from None
    if not math.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def _nonnegative(text: str) -> float:
    v = _number(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"expected eps >= 0 (nats), got {text!r}")
    return v


def _positive(text: str) -> float:
    v = _number(text)
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def users_count(text: str) -> int:
    """``--users``: a positive integer, digits or an exact power-of-ten form like ``1e6``.

    Examples
    --------
    >>> users_count("1e6"), users_count("250000")
    (1000000, 250000)
    """
    return whole_count(text, "--users")


def whole_count(text: str, flag: str) -> int:
    """A whole number ≥ 1 given to ``flag``: digits, or an exact form like ``1e6``; else a one-line CLIError."""
    from mechopt.cli._common import CLIError

    try:
        v = float(text) if any(c in text for c in "eE") else int(text)
    except ValueError:
        v = math.nan
    if isinstance(v, float) and (not math.isfinite(v) or v != int(v)):
        raise CLIError(f"{flag} must be a whole number >= 1, e.g. 1000000 or 1e6; got {text!r}")
    if int(v) < 1:
        raise CLIError(f"{flag} must be at least 1; got {text!r}")
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


def _count(text: str) -> int:
    from mechopt.cli._common import positive_int

    return positive_int(text)


def run_uses(args: argparse.Namespace, mech: Any) -> int:
    """``--uses K --eps E``: δ after K reports, its worst pair and method."""
    from mechopt.cli._common import CLIError, emit_json, fmt
    from mechopt.deploy.composition import compose

    if args.eps is None:
        raise CLIError("--uses needs --eps E: the eps (nats) at which delta is computed")
    if args.delta is not None:
        raise CLIError("--delta goes with --users N (shuffling); with --uses K give --eps E")
    c = compose(mech, uses=args.uses, eps=args.eps, method=args.method, discretization=args.discretization)
    row = c.rows()[0]
    doc = {
        "mechanism": args.mechanism,
        "mode": "uses",
        **{key: row[key] for key in ("uses", "eps", "delta")},
        "worst_pair": row["worst"],
        "eps_ldp": c.to_dict()["eps_ldp"],
        "method": row["method"],
        "discretization": c.discretization,
    }
    if args.json:
        emit_json(doc)
        return 0
    pair = "none (delta = 0)" if row["worst"] is None else " vs ".join(repr(v) for v in row["worst"])
    pure = f"{fmt(c.eps_ldp)} nats (pure bound: delta = 0 at eps >= {fmt(c.uses[0] * c.eps_ldp)} nats)"
    sys.stdout.write(
        f"delta = {fmt(row['delta'], 10)} at eps = {fmt(row['eps'])} nats after {row['uses']} uses\n"
        f"worst input pair: {pair}\nsingle-use eps0: {pure if math.isfinite(c.eps_ldp) else 'inf (not pure LDP)'}\n"
        f"method: {row['method']}" + (f" (loss grid {c.discretization:g} nats)" if c.discretization else "") + "\n"
    )
    return 0


def run_users(args: argparse.Namespace, mech: Any) -> int:
    """``--users N --delta D``: the central ε after shuffling N reports, an upper bound by the bound named."""
    if args.eps is not None:
        from mechopt.cli._common import CLIError

        raise CLIError("--eps goes with --uses K (repeated use); with --users N give --delta D")
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


MODES: dict[str, Callable[[argparse.Namespace, Any], int]] = {"uses": run_uses, "users": run_users}


def run_account(args: argparse.Namespace) -> int:
    from mechopt.mechanism import Mechanism

    mode = "uses" if args.uses is not None else "users"
    return MODES[mode](args, Mechanism.load(args.mechanism))
