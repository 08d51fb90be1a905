"""Helpers shared by the subcommands: argument types, output checks, tables and JSON.

Examples
--------
>>> from mechopt.cli._common import fmt
>>> fmt(0.5)
'0.5'
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any

from mechopt.results._json import dumps
from mechopt.results.result import jsonable

__all__ = [
    "CLIError",
    "emit_json",
    "fmt",
    "table",
    "terminal_width",
    "positive_float",
    "positive_int",
    "check_out_file",
    "check_out_dir",
    "short",
]


class CLIError(Exception):
    """A usage error found by argparse (reported as one line, exit 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise CLIError(f"{message} (see '{self.prog} --help')")


def fmt(value: Any, digits: int = 6) -> str:
    """A number for a human table: ``-`` for None/NaN, ``inf`` kept visible.

    Examples
    --------
    >>> fmt(0.123456789), fmt(float("nan")), fmt(None), fmt(float("inf")), fmt(-0.0)
    ('0.123457', '-', '-', 'inf', '0')
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
        return f"{v + 0.0:.{digits}g}"  # + 0.0: a zero prints as 0, never -0
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
    sys.stdout.write(dumps(doc, default=_fallback) + "\n")


def _fallback(obj: Any) -> Any:
    """JSON for what :func:`~mechopt.results.result.jsonable` leaves alone (paths, sets, objects)."""
    if isinstance(obj, (set, frozenset)):
        return jsonable(sorted(obj, key=str))
    return str(obj)


def printable(text: Any) -> str:
    """``text`` with control characters (ESC, CR, BEL, ...) shown as escapes, safe on a terminal.

    >>> print(printable("evil" + chr(27) + "[2Jname"))
    evil\\x1b[2Jname
    """
    s = str(text)
    return s if s.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in s)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], width: int | None = None) -> str:
    """An aligned text table drawn by :mod:`rich` that never splits a number (:mod:`mechopt.cli.tables`).

    Cells are formatted with :func:`fmt` and shown literally (no markup). Columns
    of numbers and single words keep their full width; running text wraps at
    word boundaries, or moves under its row when the line is too narrow for it.
    ``width`` defaults to the ``COLUMNS`` environment variable, else the
    terminal's width when stdout is a terminal, else unlimited (a pipe gets one
    line per row, for grep and awk, nothing padded past its content).

    Examples
    --------
    >>> print(table(["a", "b"], [[1, 0.5]]))
    a   b
    -------
    1   0.5
    >>> print(table(["id", "statement"], [["x", "one two three four"]], width=14))
    id   statement
    --------------
    x    one two
         three
         four
    """
    from mechopt.cli.tables import table as draw

    cells = [[printable(fmt(c)) for c in r] for r in rows]
    return draw([printable(h) for h in headers], cells, terminal_width() if width is None else width)


def terminal_width() -> int | None:
    """``COLUMNS`` when set to a positive integer, the terminal's width for a terminal stdout, else None.

    Examples
    --------
    >>> import os
    >>> os.environ["COLUMNS"] = "77"; terminal_width()
    77
    >>> del os.environ["COLUMNS"]
    """
    import os
    import shutil

    cols = os.environ.get("COLUMNS", "").strip()
    if cols.isdigit() and int(cols) > 0:
        return int(cols)
    if getattr(sys.stdout, "isatty", lambda: False)():
        return shutil.get_terminal_size().columns
    return None


def positive_float(text: str) -> float:
    from mechopt.model.numbers import ascii_float

    try:
        v = ascii_float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds (digits 0-9), got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return v


def positive_int(text: str) -> int:
    from mechopt.model.numbers import ascii_int

    try:
        v = ascii_int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer (digits 0-9), got {text!r}") from None
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def check_out_file(path: str | None, flag: str = "--out") -> None:
    """Refuse, before any work is done, an output file that cannot be written: a directory, a file in a
    missing folder or in a folder where no file can be created (read-only), a socket, a dangling link
    (:func:`mechopt.io.writer.check_writable`).

    Examples
    --------
    >>> check_out_file("/")
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: --out '/' is a directory: give a file name inside it
    """
    import os

    from mechopt.errors import ParamError

    if path is None:
        return
    if os.path.isdir(path):
        raise ParamError(f"{flag} {path!r} is a directory: give a file name inside it")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise ParamError(f"{flag} {path!r}: folder {parent!r} does not exist; create it first")
    from mechopt.io.writer import check_writable

    check_writable(path, flag)


def check_plot_format(path: str | None, flag: str = "--plot") -> None:
    """Refuse, before any work is done, a plot file whose suffix matplotlib cannot write.

    >>> check_plot_format("out.txt")
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: --plot 'out.txt': matplotlib cannot write '.txt' files; end the name with .png,
    .pdf or .svg
    """
    import os

    from mechopt.errors import ParamError

    if path is None:
        return
    suffix = os.path.splitext(path)[1].lower().lstrip(".")
    from mechopt.runtime.optional import require_matplotlib

    require_matplotlib()  # before any work: not installed, or a bad MPLBACKEND
    if not suffix:  # matplotlib writes its default format (png)
        return
    from matplotlib.backend_bases import FigureCanvasBase

    if suffix not in FigureCanvasBase.get_supported_filetypes():
        raise ParamError(
            f"{flag} {path!r}: matplotlib cannot write '.{suffix}' files; end the name with .png, .pdf or .svg"
        )


def check_out_dir(path: str | None, flag: str = "--out") -> None:
    """Refuse an output folder that exists as a file, or an existing one where no file can be created
    (read-only); a missing folder is created later."""
    import os

    from mechopt.errors import ParamError

    if path is not None and os.path.exists(path) and not os.path.isdir(path):
        raise ParamError(f"{flag} {path!r} is a file, not a folder: give a folder name")
    if path is not None and os.path.isdir(path):
        from mechopt.io.writer import check_writable

        check_writable(path, flag)


def short(text: str, n: int) -> str:
    """``text`` on one line, cut to ``n`` characters with an ellipsis.

    >>> short("a  b\\nc", 10), short("abcdef", 4)
    ('a b c', 'abc…')
    """
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1] + "…"
