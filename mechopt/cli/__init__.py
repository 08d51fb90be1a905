"""The ``mechopt`` command line: argument parsing, dispatch and error handling.

Subcommands (the contract of design.md; each solving command takes
``--time-limit SECONDS``, a wall-clock limit that is off by default: every
solver stops on its own iteration cap, so the numbers do not depend on the
machine)::

    mechopt compare   [--problem ID ...] [--solver NAME ...] [--json] [--plot DIR]
    mechopt design    (--problem ID | --spec FILE.toml | --notion N --utility U --prior P --eps E ...)
                      [--solver NAME] [--json] [--out FILE] [--certificate FILE]
    mechopt check     CERTIFICATE [--json]
    mechopt verify    [--paper lip|kss|fisher|gauss|pml|kairouz] [--json]
    mechopt audit     MECHANISM.json --prior P [--json]
    mechopt dominates Q1 Q2 [--prior P] [--json]
    mechopt randomize MECH DATA --column COL [--seed S] --out REPORTS
    mechopt estimate  MECH REPORTS --column COL [--method linear|em|posterior] [--consistency C] [--ci L] [--json]
    mechopt report    MECH [--html FILE] [--json] [--prior P]
    mechopt account   MECH (--uses K --eps E | --users N --delta D) [--json]
    mechopt reproduce FIGURE_ID ... [--out DIR] [--json] [--list] [--quick]
    mechopt sweep     SPEC.toml [--out FILE.jsonl] [--jobs N] [--scheduler ADDRESS] [--resume]
                      [--solver NAME ...]
    mechopt bench     [--quick] [--json] [--out FILE.md]
    mechopt account   MECH --users N --delta D [--bound B] [--json]
    mechopt sample-size --symbols D --delta D (--radius R | --samples N) [--bound B] [--json]

Exit codes: 0 success; 1 the command ran but produced no answer (a design
without a solution or whose mechanism fails its audit, ``infeasible_point``;
a figure that failed; ``dominates``: Q1 does not dominate Q2); 2 bad input or any
:class:`~mechopt.errors.MechoptError`, an unreadable file, bad TOML/JSON; 128 + the
signal's number for an interrupt (130 Ctrl-C/SIGINT, 143 SIGTERM, 129 SIGHUP, as a shell
reports a process killed by it) — always ONE line ``mechopt: error: ...`` on stderr and no
traceback (``--traceback`` shows it for debugging). SIGTERM and SIGHUP are interrupts
too: locks released, temporaries removed, child processes ended. An output file is either
complete or untouched: when the interrupt comes after an output was renamed into place, the
line says so (``interrupted; 'out.json' was already written in full``), and the status is still
the interrupt's. ``--json`` prints exactly one JSON document on stdout; NaN and infinities are
printed as ``null``.

Examples
--------
>>> from mechopt.cli import main
>>> main(["audit", "/nonexistent.json", "--prior", "0.5,0.5"])
2
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tomllib
import traceback
from collections.abc import Callable, Sequence

from mechopt.cli._common import (  # noqa: F401  (re-exported)
    CLIError,
    _Parser,
    check_out_dir,
    check_out_file,
    emit_json,
    fmt,
    positive_float,
    positive_int,
    table,
)
from mechopt.errors import MechoptError
from mechopt.results.result import vocabulary

__all__ = ["main", "build_parser", "interrupted", "emit_json", "fmt", "CLIError", "check_out_file", "check_out_dir"]

PROG = "mechopt"
EPILOG = """examples:
  mechopt compare                                   # every catalog problem x every solver
  mechopt design --notion lip --utility mse --prior 0.1,0.2,0.7 --values 0,1,2 --eps 1 --out mech.json
  mechopt audit mech.json --prior 0.1,0.2,0.7       # smallest eps under LDP, LIP, MIP
  mechopt design --notion ldp --utility mi --prior 0.1,0.2,0.7 --eps 1 --certificate cert.json
  mechopt check cert.json                           # exact re-check (also: python certcheck.py cert.json)
  mechopt account mech.json --uses 10 --eps 3       # delta at eps 3 after 10 reports per user, worst pair
  mechopt dominates a.json b.json                   # b = a·R (exit 0, R) or a separating gain (exit 1)
  mechopt verify --paper lip --json                 # the theorems, checked numerically
  mechopt sweep lip-tradeoff --out lip.jsonl --plot lip.png
exit codes: 0 ok; 1 no answer (no solution, a mechanism that fails its audit, a failed figure);
  2 bad input (one line on stderr); 130 interrupted (143 SIGTERM, 129 SIGHUP)
"optimal" is said only with a proof (see docs/status.rst):
""" + vocabulary()


def _version() -> str:
    from mechopt import __version__

    return f"{PROG} {__version__}"


def build_parser() -> argparse.ArgumentParser:
    """The full argparse tree (subcommands register themselves from cli_* modules)."""
    import mechopt.cli.account as cli_account
    import mechopt.cli.audit as cli_audit
    import mechopt.cli.check as cli_check
    import mechopt.cli.data as cli_data
    import mechopt.cli.design as cli_design
    import mechopt.cli.design_problem as cli_problem
    import mechopt.cli.dominates as cli_dominates
    import mechopt.cli.report as cli_report
    import mechopt.cli.run as cli_run
    import mechopt.cli.sweep as cli_sweep

    parser = _Parser(
        prog=PROG,
        description="Design privacy mechanisms by optimization, certify them, and check the literature's closed forms.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=_version())
    parser.add_argument("--traceback", action="store_true", help="show Python tracebacks (debugging)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    mods = (cli_run, cli_design, cli_audit, cli_dominates, cli_data, cli_report, cli_account, cli_check, cli_sweep)
    for mod in (*mods, cli_problem):
        mod.register(sub)
    return parser


def _fail(message: str, code: int = 2) -> int:
    from mechopt.cli._common import printable

    line = printable(" ".join(str(message).split()))  # one line, no raw control characters
    sys.stderr.write(f"{PROG}: error: {line}\n")
    return code


def interrupted(exc: BaseException) -> str:
    """The line for an interrupt: the signal, and the outputs already written in full before it.

    >>> interrupted(KeyboardInterrupt())
    'interrupted'
    """
    from mechopt.io.writer import published

    done = published()
    said = str(exc) or "interrupted"
    if not done:
        return said
    names = ", ".join(repr(name) for name in done)
    return f"{said}; {names} {'was' if len(done) == 1 else 'were'} already written in full"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (the console script exits with it).

    SIGTERM and SIGHUP are handled like Ctrl-C (:mod:`mechopt.runtime.lifeline`): locks are
    released, temporaries removed and children ended before the one-line error."""
    from mechopt.runtime.lifeline import terminate_like_interrupt

    with terminate_like_interrupt():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from mechopt.io.writer import published
    from mechopt.runtime.deadline import process_start

    published().clear()  # this run's outputs only (tests and embedders call main more than once)
    # a time limit counts from the start of the process when this is the program (the console script,
    # python -m mechopt), from this call when a caller passes the arguments (tests, embedding)
    started = process_start() if argv is None else time.perf_counter()
    argv = list(sys.argv[1:] if argv is None else argv)
    show_tb = "--traceback" in argv
    argv = [a for a in argv if a != "--traceback"]  # accepted anywhere: after the subcommand too
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        args.started = started
        handler: Callable[[argparse.Namespace], int] | None = getattr(args, "handler", None)
        if handler is not None and (sys.stdout is None or sys.stdout.closed):
            return _fail("standard output is closed (>&-): redirect it to a file or /dev/null instead")
        if handler is None:
            parser.print_help(sys.stderr)
            return 2
        return int(handler(args) or 0)
    except SystemExit as exc:  # --help / --version
        return exc.code if isinstance(exc.code, int) else 0
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM/SIGHUP (Terminated: "terminated by SIGTERM")
        from mechopt.runtime.lifeline import interrupt_status

        return _fail(interrupted(exc), interrupt_status(exc))
    except BrokenPipeError:  # `mechopt ... | head`
        return 0
    except CLIError as exc:  # a usage error: its traceback is argparse's, never useful
        return _fail(_describe(exc))
    except (MechoptError, OSError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        if show_tb:
            traceback.print_exc()
        return _fail(_describe(exc))
    except ValueError as exc:
        if "I/O operation on closed file" in str(exc):  # stdout closed while running
            return _fail("standard output is closed: redirect it to a file or /dev/null instead")
        if show_tb:
            traceback.print_exc()
        return _fail(f"internal error: ValueError: {exc} (rerun with --traceback and report it)", 1)
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
