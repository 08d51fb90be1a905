"""Docstring hygiene for autodoc: keep unknown numpydoc sections, make plain-text programs valid rst."""
from __future__ import annotations

import re
from typing import Any

_LIST_START = re.compile(r"^(\.\.|[-*+•] |>>>|\.\.\.|:|\d+[.)] |#\. |[A-Za-z][A-Za-z ]* : )")
_SEGMENTS = re.compile(r"(``.*?``|`[^`]*`)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


NUMPYDOC_SECTIONS = {"Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Other Parameters",
                     "Attributes", "Methods", "See Also", "Notes", "Warnings", "References", "Examples"}


def _is_header(lines: list[str], i: int) -> bool:
    title = lines[i].strip()
    under = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return bool(title) and bool(under) and set(under) == {"-"} and len(under) >= max(3, len(title) - 1)


def unknown_sections(lines: list[str]) -> None:
    """Keep sections numpydoc does not know (it drops them with a UserWarning), in place.

    An unknown section before any known one (e.g. a solver's ``Options`` right
    after the summary) becomes a rubric in the extended summary; a later one
    that reads like a parameter list becomes ``Other Parameters`` when that is
    free; any other later one becomes a rubric inside ``Notes`` when there is
    no Notes section; anything else is left alone.
    """
    seen_known = False
    titles = {ln.strip() for ln in lines}
    out: list[str] = []
    i = 0
    while i < len(lines):
        title = lines[i].strip()
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        is_header = bool(title) and bool(under) and set(under) == {"-"} and len(under) >= max(3, len(title) - 1)
        if not is_header:
            out.append(lines[i])
            i += 1
            continue
        if " ".join(w.capitalize() for w in title.split()) in NUMPYDOC_SECTIONS:
            seen_known = True
            out += lines[i:i + 2]
        elif not seen_known:
            out += [f".. rubric:: {title}", ""]
            j = i + 2
            while j < len(lines) and not _is_header(lines, j):
                m = re.match(r"^(\S[^:]*?) : (.*)$", lines[j]) or re.match(r"^(\w[\w, ]*)$", lines[j])
                if m:   # a numpydoc-style "name : type" entry -> a bullet
                    out.append(f"- ``{m.group(1).strip()}``" + (f" : {m.group(2)}" if m.lastindex == 2 else ""))
                elif lines[j].startswith("    "):   # its description, re-indented under the bullet
                    out.append("  " + lines[j][4:])
                else:
                    out.append(lines[j])
                j += 1
            i = j
            continue
        elif "Other Parameters" not in titles and i + 2 < len(lines) and " : " in lines[i + 2]:
            out += ["Other Parameters", "----------------"]
            titles.add("Other Parameters")
        elif "Notes" not in titles:
            out += ["Notes", "-----", f".. rubric:: {title}", ""]
            titles.add("Notes")
        else:
            out += lines[i:i + 2]
        i += 2
    lines[:] = out


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
    literal_indent: int | None = None      # inside a literal block opened by "::" at this indent
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
        if (prev_blank and par_last is not None and ind > _indent(lines[par_last])
                and not lines[par_last].rstrip().endswith("::")
                and not _LIST_START.match((par_first or "").lstrip())
                and not line.lstrip().startswith((">>>", ".. "))):
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
            lines[i] = "".join(p if k % 2 else p.replace("\\|", "|").replace("|", "\\|")
                               for k, p in enumerate(parts))
        if line.rstrip().endswith("::"):
            literal_indent = ind


def process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    unknown_sections(lines)
    tidy_docstring(lines)

