"""Text tables for the terminal and for pipes, drawn by :mod:`rich`, that never split a number.

A column whose cells are all single words (numbers, statuses, ids, flags) is
drawn at its full width and never wrapped: ``2.4e-16`` never prints as
``2.4e-1`` over ``6``. Columns of running text (an instance label, a
statement) wrap at word boundaries in the room that is left, never inside a word. When even that
does not fit the width, the widest text columns, and then the rightmost word
columns, move under their row: one indented line ``name: value; name: value``
(wrapped when long).

Without a width (stdout is a pipe and ``COLUMNS`` is unset) every row stays
one line, for grep and awk: word columns are aligned, a text column other
than the last is cut at :data:`PIPE_TEXT` characters (``…`` marks the cut;
``--json`` has every character), and nothing is padded past its content.

Examples
--------
>>> from mechopt.cli.tables import table
>>> row = ["lip.thm2", 2.4e-16, "the optimal mechanism is a staircase"]
>>> print(table(["id", "gap", "statement"], [row], width=32))
id         gap       statement
--------------------------------
lip.thm2   2.4e-16   the optimal
                     mechanism
                     is a
                     staircase
>>> print(table(["id", "gap", "statement"], [row], width=22))
id         gap
------------------
lip.thm2   2.4e-16
    statement: the
      optimal
      mechanism is a
      staircase
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from typing import Any

__all__ = ["table", "PIPE_TEXT"]

#: Longest text cell (other than the last column's) on a line written to a pipe.
PIPE_TEXT = 60
#: Room between two columns: rich's cell padding (1 + 1) and the separator (1).
GAP = 3


def _render(heads: list[str], rows: list[list[str]], widths: list[int], wrap: list[bool], header: bool) -> list[str]:
    """Lines of one rich table with these exact column widths (no collapsing, no padding past them)."""
    from rich.box import Box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    ascii_head = Box("    \n    \n -- \n    \n    \n    \n    \n    \n")  # an ASCII rule under the header
    t = Table(box=ascii_head, show_edge=False, pad_edge=False, padding=(0, 1), show_header=header)
    for h, w, text in zip(heads, widths, wrap):
        t.add_column(Text(h), width=w, no_wrap=not text, overflow="fold" if text else "ellipsis")
    for r in rows:
        t.add_row(*(Text(c) for c in r))
    buf = io.StringIO()
    total = sum(widths) + GAP * (len(widths) - 1)
    Console(
        file=buf,
        width=total + 1,
        color_system=None,
        force_terminal=False,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=False,
    ).print(t)
    return [line.rstrip() for line in buf.getvalue().splitlines()]


def _is_text(head: str, cells: list[str]) -> bool:
    return any(len(c.split()) > 1 for c in cells)


def _pipe(heads: list[str], cells: list[list[str]], text: list[bool]) -> str:
    n = len(heads)
    cut = [
        [c if not text[j] or j == n - 1 or len(c) <= PIPE_TEXT else c[: PIPE_TEXT - 1] + "…" for j, c in enumerate(r)]
        for r in cells
    ]
    widths = [max([len(heads[j])] + [len(r[j]) for r in cut]) for j in range(n)]
    return "\n".join(_render(heads, cut, widths, [False] * n, True))


def _fit(heads: list[str], cells: list[list[str]], text: list[bool], width: int) -> tuple[list[int], dict[int, int]]:
    """Which columns stay in the table (and their widths) at ``width``; the others move under the row."""
    n = len(heads)
    natural = [max([len(heads[j])] + [len(r[j]) for r in cells]) for j in range(n)]
    longest = [
        max([len(w) for w in heads[j].split()] + [len(w) for r in cells for w in r[j].split()]) for j in range(n)
    ]
    least = [min(natural[j], max(longest[j], 8)) if text[j] else natural[j] for j in range(n)]
    kept = list(range(n))

    def need(cols: list[int]) -> int:
        return sum(least[j] for j in cols) + GAP * (len(cols) - 1)

    while need(kept) > width and len(kept) > 1:
        wide = [j for j in kept if text[j] and j != kept[0]]
        gone = max(wide, key=lambda j: natural[j]) if wide else kept[-1]
        kept.remove(gone)
    widths = {j: least[j] for j in kept}
    room = width - need(kept)
    for j in sorted((j for j in kept if text[j]), key=lambda j: natural[j]):  # narrow text first, then the rest
        share = room // max(1, sum(1 for k in kept if text[k] and natural[k] >= natural[j]))
        grow = min(natural[j] - widths[j], max(share, 0))
        widths[j] += grow
        room -= grow
    return kept, widths


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], width: int | None = None) -> str:
    """An aligned text table that never splits a number (see the module docstring).

    Parameters
    ----------
    headers : sequence of str
    rows : sequence of sequences of str
        The cells as they are shown (:func:`mechopt.cli._common.table` formats
        numbers and escapes control characters first); no markup.
    width : int, optional
        The line width; None for a pipe (one line per row).
    """
    heads = [str(h) for h in headers]
    cells = [[str(c) for c in r] for r in rows]
    text = [_is_text(heads[j], [r[j] for r in cells]) for j in range(len(heads))]
    if not width:
        return _pipe(heads, cells, text)
    kept, widths = _fit(heads, cells, text, width)
    wrap = [text[j] for j in kept]
    cols = [widths[j] for j in kept]
    moved = [j for j in range(len(heads)) if j not in widths]
    if not moved:
        return "\n".join(_render([heads[j] for j in kept], [[r[j] for j in kept] for r in cells], cols, wrap, True))
    lines = _render([heads[j] for j in kept], [], cols, wrap, True)
    for r in cells:
        lines += _render([heads[j] for j in kept], [[r[j] for j in kept]], cols, wrap, False)
        glue = {j: ":\xa0" if len(r[j].split()) == 1 else ": " for j in moved}  # keep "gap: 2.4e-16" on one line
        under = "; ".join(f"{heads[j]}{glue[j]}{r[j]}" for j in moved if r[j] not in ("", "-"))
        wrapped = textwrap.wrap(
            under,
            width=max(width, 20),
            initial_indent="    ",
            subsequent_indent="      ",
            break_on_hyphens=False,
            break_long_words=False,  # a word longer than the line stays whole (the line is longer)
        )
        lines += [line.replace("\xa0", " ") for line in wrapped]
    return "\n".join(lines)
