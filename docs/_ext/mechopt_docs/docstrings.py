"""Docstring hygiene for autodoc: make plain-text programs and norms (``|x|``) valid rst."""

from __future__ import annotations

import re
from typing import Any

_LIST_START = re.compile(r"^(\.\.|[-*+•] |>>>|\.\.\.|:|\d+[.)] |#\. |[A-Za-z][A-Za-z ]* : )")
_SEGMENTS = re.compile(r"(``.*?``|`[^`]*`)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def tidy_docstring(lines: list[str]) -> None:
    """Make plain-text docstrings valid reStructuredText, in place.

    The project's docstrings write programs and norms in plain text:
    ``|Σ P − 1|`` (read by docutils as a substitution) and indented program
    blocks after a paragraph without ``::`` (a block quote whose inner
    indentation is an error). Outside literal blocks, doctest lines and
    inline literals/roles, ``|`` is escaped; an indented block that follows
    a paragraph not ending in ``::`` becomes a literal block (so programs
    render in monospace as written).
    """
    literal_indent: int | None = None  # inside a literal block opened by "::" at this indent
    par_first: str | None = None
    par_last: int | None = None
    prev_blank = True
    for i, line in enumerate(lines):
        if not line.strip():
            prev_blank = True
            continue
        ind = _indent(line)
        if literal_indent is not None:
            if ind > literal_indent:
                prev_blank = False
                continue
            literal_indent = None
        if (
            prev_blank
            and par_last is not None
            and ind > _indent(lines[par_last])
            and not lines[par_last].rstrip().endswith("::")
            and not _LIST_START.match((par_first or "").lstrip())
            and not line.lstrip().startswith((">>>", ".. "))
        ):
            lines[par_last] = lines[par_last].rstrip() + (":" if lines[par_last].rstrip().endswith(":") else " ::")
            literal_indent = _indent(lines[par_last])
            prev_blank = False
            continue
        if prev_blank:
            par_first = line
        par_last = i
        prev_blank = False
        stripped = line.lstrip()
        if stripped.startswith((">>>", "... ")) or stripped == "...":
            continue
        if "|" in line:
            parts = _SEGMENTS.split(line)
            lines[i] = "".join(p if k % 2 else p.replace("\\|", "|").replace("|", "\\|") for k, p in enumerate(parts))
        if line.rstrip().endswith("::"):
            literal_indent = ind


def process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    tidy_docstring(lines)
