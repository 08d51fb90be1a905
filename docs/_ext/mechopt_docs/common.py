"""Helpers shared by the directives: rst escaping, number formatting, nested parsing."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

from mechopt.jobs.verify_rst import PAPER_TITLES, rst_escape

PAPERS = PAPER_TITLES  # one list of papers and their titles: the verify report's


def repo_root() -> Path:
    """The repository root: ``MECHOPT_REPO_ROOT``, else the parent of docs/, else mechopt's."""
    env = os.environ.get("MECHOPT_REPO_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parents[3]
    if (here / "pyproject.toml").exists():
        return here
    import mechopt

    return Path(mechopt.__file__).resolve().parents[1]


esc = rst_escape  # one escaping rule for the verdicts renderer and the docs pages


def lit(text: Any) -> str:
    s = " ".join(str(text).split()).replace("`", "'")
    return f"``{s}``" if s else "\\ "


def fmt_num(x: Any) -> str:
    if x is None:
        return "—"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return esc(x)
    if math.isinf(v):
        return "∞"
    if math.isnan(v):
        return "—"
    return f"{v:.3g}"


def secs(x: Any) -> str:
    try:
        return f"{float(x):.1f}"
    except (TypeError, ValueError):
        return "—"


def parse_rst(directive: SphinxDirective, text: str) -> list[nodes.Node]:
    node = nodes.section()
    node.document = directive.state.document
    lines = StringList(text.splitlines(), source=directive.get_source_info()[0])
    nested_parse_with_titles(directive.state, lines, node)
    return node.children


def note_code_page(directive: SphinxDirective) -> None:
    """Record that this page shows results of the code (re-read when the code changes)."""
    env = directive.env
    if not hasattr(env, "mechopt_code_pages"):
        env.mechopt_code_pages = set()
    env.mechopt_code_pages.add(env.docname)
