"""The ``mechopt`` command line: argument parsing, dispatch and error handling.

Subcommands (the contract of design.md; each solving command takes
``--time-limit SECONDS``, a wall-clock limit that is off by default: every
solver stops on its own iteration cap, so the numbers do not depend on the
machine)::

    mechopt compare   [--problem ID ...] [--solver NAME ...] [--json] [--plot DIR]
    mechopt design    (--problem ID | --spec FILE.toml | --notion N --utility U --prior P --eps E ...)
                      [--solver NAME] [--json] [--out FILE]
    mechopt verify    [--paper lip|kss|fisher|gauss] [--json]
    mechopt audit     MECHANISM.json --prior P [--json]
    mechopt reproduce FIGURE_ID ... [--out DIR] [--json] [--list] [--quick]
    mechopt sweep     SPEC.toml [--out FILE.jsonl] [--jobs N] [--scheduler ADDRESS] [--resume]
                      [--solver NAME ...]
    mechopt bench     [--quick] [--json] [--out FILE.md]

Exit codes: 0 success; 1 the command ran but produced no answer (a design
without a solution or whose mechanism fails its audit, ``infeasible_point``;
a figure that failed); 2 bad input or any
:class:`~mechopt.errors.MechoptError`, an unreadable file, bad TOML/JSON or an
interrupt — always ONE line ``mechopt: error: ...`` on stderr and no
traceback (``--traceback`` shows it for debugging). ``--json`` prints exactly
one JSON document on stdout; NaN and infinities are printed as ``null``.

Examples
--------
>>> from mechopt.cli import main
>>> main(["audit", "/nonexistent.json", "--prior", "0.5,0.5"])
2
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from .errors import MechoptError
from .result import jsonable, vocabulary

__all__ = ["main", "build_parser", "emit_json", "fmt", "CLIError", "check_out_file", "check_out_dir"]

PROG = "mechopt"
EPILOG = """examples:
  mechopt compare                                   # every catalog problem x every solver
  mechopt design --notion lip --utility mse --prior 0.1,0.2,0.7 --values 0,1,2 --eps 1 --out mech.json
  mechopt audit mech.json --prior 0.1,0.2,0.7       # smallest eps under LDP, LIP, MIP
  mechopt verify --paper lip --json                 # the theorems, checked numerically
  mechopt sweep lip-tradeoff --out lip.jsonl --plot lip.png
exit codes: 0 ok; 1 no answer (no solution, a mechanism that fails its audit, a failed figure);
  2 bad input (one line on stderr)
"optimal" is said only with a proof (see docs/status.rst):
""" + vocabulary()


class CLIError(Exception):
    """A usage error found by argparse (reported as one line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CLIError(f"{message} (see '{self.prog} --help')")


def fmt(value: Any, digits: int = 6) -> str:
    """A number for a human table: ``-`` for None/NaN, ``inf`` kept visible.

    Examples
    --------
    >>> fmt(0.123456789), fmt(float("nan")), fmt(None), fmt(float("inf"))
    ('0.123457', '-', '-', 'inf')
    """
    if value is None:
        return "-"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        v = float(value)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if isinstance(value, int):
            return str(value)
        return f"{v:.{digits}g}"
    return str(value)


def emit_json(doc: Any) -> None:
    """Print ``doc`` as exactly one JSON document on stdout (NaN/inf → null).

    Examples
    --------
    >>> emit_json({"value": float("nan")})
    {
     "value": null
    }
    """
    sys.stdout.write(json.dumps(jsonable(doc), allow_nan=False, indent=1, default=_fallback) + "\n")


def _fallback(obj: Any) -> Any:
    """JSON for what :func:`~mechopt.result.jsonable` leaves alone (paths, sets, objects)."""
    if isinstance(obj, (set, frozenset)):
        return jsonable(sorted(obj, key=str))
    return str(obj)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned text table.

    Examples
    --------
    >>> print(table(["a", "b"], [[1, 0.5]]))
    a  b
    -  ---
    1  0.5
    """
    cells = [[str(h) for h in headers]] + [[fmt(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in cells]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def check_out_file(path: str | None, flag: str = "--out") -> None:
    """Refuse, before any work is done, an output file that is a directory or lies in a missing folder.

    Examples
    --------
    >>> check_out_file("/")
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: --out '/' is a directory: give a file name inside it
    """
    import os

    from .errors import ParamError

    if path is None:
        return
    if os.path.isdir(path):
        raise ParamError(f"{flag} {path!r} is a directory: give a file name inside it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ParamError(f"{flag} {path!r}: folder {parent!r} does not exist; create it first")


def check_out_dir(path: str | None, flag: str = "--out") -> None:
    """Refuse an output folder that exists as a file (it is created later if missing)."""
    import os

    from .errors import ParamError

    if path is not None and os.path.exists(path) and not os.path.isdir(path):
        raise ParamError(f"{flag} {path!r} is a file, not a folder: give a folder name")


def _version() -> str:
    from . import __version__

    return f"{PROG} {__version__}"


def build_parser() -> argparse.ArgumentParser:
    """The full argparse tree (subcommands register themselves from cli_* modules)."""
    from . import cli_audit, cli_design, cli_run, cli_sweep

    parser = _Parser(prog=PROG, description="Design privacy mechanisms by optimization, certify them, "
                                           "and check the literature's closed forms.",
                     epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks (debugging)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in (cli_run, cli_design, cli_audit, cli_sweep):
        mod.register(sub)
    return parser


def _fail(message: str, code: int = 2) -> int:
    line = " ".join(str(message).split())   # one line, whatever the message held
    sys.stderr.write(f"{PROG}: error: {line}\n")
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    show_tb = "--traceback" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
        if handler is None:
            parser.print_help(sys.stderr)
            return 2
        return int(handler(args) or 0)
    except SystemExit as exc:            # --help / --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt:
        return _fail("interrupted")
    except BrokenPipeError:              # `mechopt ... | head`
        return 0
    except (CLIError, MechoptError, OSError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        if show_tb:
            traceback.print_exc()
        return _fail(_describe(exc))
    except Exception as exc:  # a bug: still one line, exit 1; --traceback shows it
        if show_tb:
            traceback.print_exc()
        return _fail(f"internal error: {type(exc).__name__}: {exc} (rerun with --traceback and report it)", 1)


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    if isinstance(exc, tomllib.TOMLDecodeError):
        return f"invalid TOML: {exc}"
    if isinstance(exc, json.JSONDecodeError):
        return f"invalid JSON: {exc}"
    return str(exc) or type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
