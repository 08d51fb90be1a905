"""The pieces of a report card (:mod:`mechopt.deploy.card`): a :class:`Section`, the :class:`Card` sections read, and
the HTML helpers every section uses (numbers carry their JSON path, so the page and ``--json`` agree).

Examples
--------
>>> rows_table([("ε", num("x.eps", 0.5))], ("measure", "value"))[:41]
'<table><tr><th>measure</th><th>value</th>'
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from html import escape
from typing import Any

from mechopt.results.report import privacy_report

__all__ = ["Card", "Section", "num", "rows_table"]


@dataclass(frozen=True)
class Section:
    """One part of the card: ``key`` (its name in the JSON), ``title``, ``data`` (its numbers), ``html`` (its body)."""

    key: str
    title: str
    data: dict[str, Any]
    html: str


@dataclass
class Card:
    """What the sections read: the mechanism, the prior of the prior-dependent measures and the options.

    The prior is ``prior`` if given, else the mechanism's design prior, else the
    uniform prior (``prior_source`` says which).
    """

    mechanism: Any
    prior: Any = None
    options: Mapping[str, Any] = field(default_factory=dict)

    @cached_property
    def report(self) -> dict[str, Any]:
        """:func:`mechopt.results.report.privacy_report` of Q under the card's prior."""
        prior = self.prior if self.prior is not None else self.mechanism.prior
        rep = privacy_report(self.mechanism.Q, prior)
        if self.prior is None and self.mechanism.prior is not None:
            rep["prior_source"] = "the design prior"
        return rep


def num(key: str, value: Any, digits: int = 6) -> str:
    """A number of the page: its text, with its JSON path and exact value as attributes (None: ∞).

    >>> num("privacy.notions.ldp.eps", None)
    '<span class="num" data-key="privacy.notions.ldp.eps" data-value="null">∞</span>'
    """
    text = "∞" if value is None else f"{float(value):.{digits}g}"
    return f'<span class="num" data-key="{escape(key)}" data-value="{json.dumps(value)}">{text}</span>'


def rows_table(rows: Sequence[tuple[str, str]], head: tuple[str, str] = ("", "")) -> str:
    """A two-column table; ``rows`` are (escaped label, HTML value) pairs."""
    body = "".join(f"<tr><th>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f"<table><tr><th>{head[0]}</th><th>{head[1]}</th></tr>{body}</table>"
