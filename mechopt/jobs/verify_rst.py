"""The verdicts page: verify reports rendered as reStructuredText, grouped by paper.

One entry per claim: the id and verdict, then a field list with where the statement is
printed, the statement as printed, the kind of claim, the policy class or assumptions, the
evidence (cases checked, worst deviation, counterexample), the region and its kind, the
correction (for ``holds-after-correction``) and the note. The same dicts as
``mechopt verify --json`` (``{"claims": [...]}``) go in; the docs build calls
:func:`mechopt.jobs.verify.render_rst`.

Examples
--------
>>> rows = [{"id": "demo.eq1", "paper": "demo", "section": "eq. (1)", "statement": "x = 2",
...          "verdict": "holds-after-correction", "checked": 3, "worst_deviation": 1.0,
...          "counterexample": {"x": 1}, "correction": "x = 1", "assumptions": "reals"}]
>>> text = render(rows)
>>> "1 claims: 1 holds-after-correction." in text and ":correction: x = 1" in text
True
"""

from __future__ import annotations

import json
import math
from typing import Any, Sequence

__all__ = ["render", "BADGES", "PAPER_TITLES"]

BADGES = {
    "holds": "✔ holds",
    "fails": "✘ fails",
    "holds-in-region": "◐ holds in region",
    "holds-after-correction": "✎ holds after correction",
    "not-checkable": "? not checkable",
    "error": "⚠ error",
}
PAPER_TITLES = {
    "lip": "Localized information privacy (Jiang, Li, Tandon)",
    "kss": "k-subset mechanism (Wang et al.)",
    "fisher": "Fisher information noise (Farokhi, Sandberg)",
    "gauss": "Gaussian privacy-utility tradeoff (Sharma, Amariucai)",
    "pml": "Extremal mechanisms for pointwise maximal leakage (Grosse, Saeidian, Oechtering)",
    "kairouz": "Extremal mechanisms for local differential privacy (Kairouz, Oh, Viswanath)",
}


def rst_escape(text: Any) -> str:
    """``text`` on one line, escaped for an rst paragraph or table cell.

    >>> rst_escape("a*b_c")
    'a\\\\*b\\\\_c'
    """
    s = " ".join(str(text).split())
    for ch in "\\*`_|":
        s = s.replace(ch, "\\" + ch)
    if s[:1] in "-+#:>." or s[:2].strip().isdigit():
        s = "\\" + s
    return s or "\\ "


def _lit(obj: Any) -> str:
    s = json.dumps(obj, sort_keys=True, default=str) if not isinstance(obj, str) else obj
    s = " ".join(s.split()).replace("`", "'")
    return f"``{s}``" if s else "\\ "


def _num(x: Any) -> str:
    try:
        v = float(x)
    except (TypeError, ValueError):
        return "—"
    return "∞" if math.isinf(v) else "—" if math.isnan(v) else f"{v:.3g}"


def _entry(r: dict[str, Any]) -> list[str]:
    verdict = r.get("verdict") or "error"
    out = [f"- ``{r['id']}`` — **{rst_escape(BADGES.get(verdict, verdict))}**", ""]
    fields: list[tuple[str, str]] = []
    if r.get("section"):
        fields.append(("printed in", rst_escape(r["section"])))
    fields.append(("statement as printed", rst_escape(r.get("statement", ""))))
    kind = r.get("kind") or ""
    if r.get("by_construction"):
        kind += " — *check by construction, not evidence*"
    if kind:
        fields.append(("kind", kind if r.get("by_construction") else rst_escape(kind)))
    if r.get("assumptions"):
        fields.append(("policy class / assumptions", rst_escape(r["assumptions"])))
    if r.get("domain"):
        fields.append(("checked on", rst_escape(r["domain"])))
    ev = f"{r.get('checked', '—')} cases checked; worst deviation {_num(r.get('worst_deviation'))}"
    if r.get("time_s") is not None:
        ev += f"; {_num(r.get('time_s'))} s"
    fields.append(("evidence", ev))
    if r.get("counterexample"):
        fields.append(("counterexample", _lit(r["counterexample"])))
    if r.get("region"):
        kind_r = f" ({rst_escape(r['region_kind'])})" if r.get("region_kind") else ""
        fields.append(("region", "holds for: " + rst_escape(r["region"]) + kind_r))
    if r.get("correction"):
        fields.append(("correction", rst_escape(r["correction"])))
    if r.get("power"):
        fields.append(("power", rst_escape(r["power"])))
    if r.get("note"):
        fields.append(("note", rst_escape(r["note"])))
    out += [f"  :{name}: {text}" for name, text in fields]
    return out + [""]


def _counts(rows: Sequence[dict[str, Any]]) -> str:
    counts: dict[str, int] = {}
    for r in rows:
        counts[r.get("verdict") or "error"] = counts.get(r.get("verdict") or "error", 0) + 1
    return f"{len(rows)} claims: " + ", ".join(f"{n} {v}" for v, n in sorted(counts.items())) + "."


def render(rows: Sequence[dict[str, Any]], paper: str | None = None) -> str:
    """reStructuredText for the claims in ``rows`` (of ``paper`` only, when given), grouped by paper."""
    rows = [r for r in rows if paper is None or r.get("paper") == paper]
    if not rows:
        who = f" for the {paper} paper" if paper else ""
        return f"*No claims registered yet{who}* (``mechopt.claims``).\n"
    lines = [_counts(rows), ""]
    papers = list(dict.fromkeys(r.get("paper", "") for r in rows))
    for p in papers:
        group = [r for r in rows if r.get("paper", "") == p]
        if len(papers) > 1 or paper is None:
            lines += [f".. rubric:: {rst_escape(PAPER_TITLES.get(p, p))} (``{p}``)", "", _counts(group), ""]
        for r in group:
            lines += _entry(r)
    return "\n".join(lines) + "\n"
