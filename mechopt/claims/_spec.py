"""Helpers shared by the section-by-section claim modules (``*_text``, ``*_proofs``, ``*_figures``).

:func:`spec` builds a :class:`~mechopt.jobs.verify.Claim` from where the statement is printed,
the statement as printed, its policy class, how it is checked and the check; the check's
verdict is normalised (a correction written after ``CORRECTION:`` in the note goes to
``Verdict.correction``; a region is ``sufficient`` unless the check says it showed the
exact boundary).

Examples
--------
>>> from mechopt.jobs.verify import Verdict
>>> c = spec("demo.eq1", "demo", "eq. (1)", "1 + 1 = 3", "integers", "one case",
...          lambda: corrected(Verdict("holds", 1, 1.0, {"a": 1}), "1 + 1 = 2"), "proof-step")
>>> r = c.run().to_dict()
>>> r["verdict"], r["correction"], r["kind"]
('holds-after-correction', '1 + 1 = 2', 'proof step')
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from mechopt.jobs.verify import Claim, Verdict

__all__ = ["spec", "corrected", "not_checkable", "rel", "normalise", "attach"]

_KINDS = {
    "theorem": "theorem",
    "proof-step": "proof step",
    "figure": "figure claim",
    "example": "numeric claim",
    "table": "numeric claim",
    "remark": "remark",
}


def corrected(v: Verdict, correction: str, note: str = "") -> Verdict:
    """``v`` checked the corrected statement (with the printed statement's worst deviation and
    counterexample already in it): ``holds-after-correction``, or ``fails`` when the correction
    does not hold either."""
    if v.verdict != "holds":
        return replace(
            v,
            verdict="fails",
            region=None,
            note=(v.note + "; " if v.note else "") + "the corrected statement does not hold either: " + correction,
        )
    return Verdict(
        "holds-after-correction", v.checked, v.worst_deviation, v.counterexample, v.region, note or v.note, correction
    )


def not_checkable(reason: str, checked_proxy: int = 1, worst: float = math.nan) -> Verdict:
    """Not checkable as printed; ``reason`` says why (consequences may still have been checked)."""
    return Verdict("not-checkable", max(1, checked_proxy), worst, None, None, reason)


def rel(a: float, b: float) -> float:
    """|a - b| relative to max(1, |b|)."""
    return abs(a - b) / max(1.0, abs(b))


def normalise(v: Verdict) -> Verdict:
    """Move an inline ``CORRECTION:`` into ``correction``; give a region its kind."""
    note, correction = v.note, v.correction
    if "CORRECTION:" in note and correction is None:
        head, _, tail = note.partition("CORRECTION:")
        note, correction = head.strip().rstrip(";").strip(), tail.strip()
    kind = v.region_kind
    if v.region and kind is None and v.verdict in ("holds-in-region", "holds-after-correction"):
        low = v.region.lower()
        kind = (
            "sufficient"
            if "sufficient" in low or "not the boundary" in low
            else "exact boundary"
            if "exact" in low
            else "empirical"
            if "empirical" in low
            else "sufficient"
        )
    return replace(v, note=note, correction=correction, region_kind=kind)


def spec(
    cid: str,
    paper: str,
    section: str,
    printed: str,
    assumptions: str,
    method: str,
    check: Callable[[], Verdict],
    kind: str = "theorem",
    *,
    by_construction: bool = False,
    recheck: Callable[[dict[str, Any]], float] | None = None,
    tol: float = 1e-9,
) -> Claim:
    """A claim: ``printed`` is the statement as printed, ``method`` how it is checked."""
    return Claim(
        id=cid,
        paper=paper,
        statement=printed,
        domain=method,
        check=lambda: normalise(check()),
        section=section,
        assumptions=assumptions,
        kind=_KINDS.get(kind, kind),
        by_construction=by_construction,
        recheck=recheck,
        tol=tol,
    )


def attach(claims: list[Claim], rechecks: dict[str, tuple[Callable[[dict[str, Any]], float], float]]) -> list[Claim]:
    """The claims with ``recheck`` and ``tol`` set from ``rechecks`` (``id -> (function, tol)``)."""
    unknown = set(rechecks) - {c.id for c in claims}
    if unknown:
        raise ValueError(f"rechecks for unknown claims {sorted(unknown)}")
    return [replace(c, recheck=rechecks[c.id][0], tol=rechecks[c.id][1]) if c.id in rechecks else c for c in claims]
