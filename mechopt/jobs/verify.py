"""Theorem claims and their verdicts: the engine behind ``mechopt verify``.

Each paper module in :mod:`mechopt.claims` exposes ``CLAIMS``, a list of
:class:`Claim`. A claim's ``check`` runs the numerical comparison (closed form
against the certified optimum, a relation against audits, a printed formula
against its definition, ...) and returns a :class:`Verdict`. A failing claim is
a finding, not an error.

Verdicts (:data:`VERDICTS`): ``holds`` (every checked case agrees within the
claim's tolerance), ``fails`` (a counterexample is recorded), ``holds-in-region``
(holds on the stated region; ``region_kind`` says whether the region was shown
to be the *exact boundary* or is only *sufficient* or *empirical*),
``holds-after-correction`` (the statement as printed is wrong, the written-out
``correction`` holds on every checked case) and ``not-checkable`` (the reason
is in ``note``).

Examples
--------
>>> c = Claim(id="demo.thm1", paper="demo", statement="1 + 1 = 2", domain="integers",
...           check=lambda: Verdict.from_deviations([0.0, 0.0], tol=1e-12))
>>> c.run().verdict
'holds'
>>> v = corrected(Verdict.from_deviations([0.0], 1e-12), "1 + 1 = 2 (printed: 3)",
...               printed_deviation=1.0, counterexample={"a": 1, "b": 1})
>>> v.verdict, v.correction, v.worst_deviation
('holds-after-correction', '1 + 1 = 2 (printed: 3)', 1.0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from mechopt.results.result import jsonable

__all__ = [
    "Claim",
    "ClaimReport",
    "Verdict",
    "VERDICTS",
    "KINDS",
    "REGION_KINDS",
    "corrected",
    "not_checkable",
    "render_rst",
    "verify",
]

VERDICTS = ("holds", "fails", "holds-in-region", "holds-after-correction", "not-checkable")
#: what a claim is: a theorem/proposition/lemma, a step inside a proof, a statement about a
#: figure, a printed number or worked example, a remark or open question of the text
KINDS = ("theorem", "proof step", "figure claim", "numeric claim", "remark")
#: ``exact boundary`` only when the check shows the statement fails just outside the region
REGION_KINDS = ("exact boundary", "sufficient", "empirical")


@dataclass(frozen=True)
class Verdict:
    """Outcome of one claim's check.

    ``worst_deviation`` is in the claim's own units (stated in its domain); for a
    ``holds-after-correction`` verdict it is the worst deviation *of the statement as
    printed* (the correction holds within the claim's tolerance). ``counterexample``
    is the smallest failing instance (a dict of parameters and the numbers that
    disagree, enough to re-run the check on it), ``region`` where it holds when
    partial and ``region_kind`` one of :data:`REGION_KINDS`; ``correction`` the
    corrected statement, written out; ``power`` what deviation the test can detect.
    """

    verdict: str
    checked: int
    worst_deviation: float
    counterexample: dict[str, Any] | None = None
    region: str | None = None
    note: str = ""
    correction: str | None = None
    region_kind: str | None = None
    power: str | None = None

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.checked < 1:
            raise ValueError("a verdict needs at least one checked instance")
        if self.verdict == "holds-after-correction" and not self.correction:
            raise ValueError("a holds-after-correction verdict needs the correction written out")
        if self.region_kind is not None and self.region_kind not in REGION_KINDS:
            raise ValueError(f"region_kind must be one of {REGION_KINDS}, got {self.region_kind!r}")

    @classmethod
    def from_deviations(
        cls,
        deviations: Sequence[float],
        tol: float,
        instances: Sequence[dict[str, Any]] | None = None,
        size: Callable[[dict[str, Any]], float] | None = None,
        region: str | None = None,
        region_kind: str | None = None,
    ) -> "Verdict":
        """``holds`` if every deviation ≤ tol, else ``fails`` (or ``holds-in-region``
        when ``region`` is given) with the smallest failing instance by ``size``."""
        devs = [float(d) if d is not None and not math.isnan(d) else math.inf for d in deviations]
        worst = max(devs) if devs else 0.0
        bad = [i for i, d in enumerate(devs) if d > tol]
        if not bad:
            return cls("holds", len(devs), worst)
        ce = None
        if instances is not None:
            key = size or (lambda inst: 0.0)
            i = min(bad, key=lambda j: (key(instances[j]), j))
            ce = {**instances[i], "deviation": devs[i]}
        verdict = "holds-in-region" if region else "fails"
        return cls(verdict, len(devs), worst, ce, region, region_kind=region_kind if region else None)


def corrected(
    v: Verdict,
    correction: str,
    printed_deviation: float,
    counterexample: dict[str, Any] | None,
    note: str = "",
    tol: float = 0.0,
) -> Verdict:
    """The verdict of a printed statement whose corrected form was checked by ``v``.

    ``v`` checks the *corrected* statement; ``printed_deviation`` is the worst deviation
    of the statement as printed and ``counterexample`` where it occurs. When the printed
    statement already holds (deviation ≤ ``tol``) the claim simply ``holds``; when the corrected
    one does not hold either the verdict is ``fails`` with the correction kept in the note.
    """
    if printed_deviation <= tol and v.verdict == "holds":
        return replace(v, note=note)
    if v.verdict != "holds":
        return replace(
            v,
            verdict="fails",
            region=None,
            region_kind=None,
            note=(note + "; " if note else "") + "the corrected statement does not hold either: " + correction,
        )
    return Verdict(
        "holds-after-correction",
        v.checked,
        float(printed_deviation),
        counterexample,
        v.region,
        note,
        correction,
        v.region_kind,
        v.power,
    )


def not_checkable(reason: str, checked_proxy: int = 1, worst: float = math.nan) -> Verdict:
    """A statement that cannot be checked as printed (``reason`` says why)."""
    return Verdict("not-checkable", max(1, checked_proxy), worst, None, None, reason)


@dataclass(frozen=True)
class Claim:
    """A checkable statement of a paper: ``id`` like ``lip.thm2``.

    ``statement`` is the statement as printed (quoted, with the paper's notation in
    ASCII), ``section`` where it is printed (section / equation / figure),
    ``assumptions`` the policy class or assumptions it is judged under, ``domain`` the
    instances checked, ``kind`` one of :data:`KINDS`. ``by_construction`` marks a check
    that passes by how the problem is built (not evidence about the statement).
    ``recheck(counterexample) -> float`` re-runs the check on a counterexample's data
    alone and returns the deviation of the statement as printed there; a deviation
    above ``tol`` reproduces the counterexample.
    """

    id: str
    paper: str
    statement: str
    domain: str
    check: Callable[[], Verdict]
    tags: tuple[str, ...] = field(default=())
    section: str = ""
    assumptions: str = ""
    kind: str = "theorem"
    by_construction: bool = False
    recheck: Callable[[dict[str, Any]], float] | None = None
    tol: float = 1e-9

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {self.kind!r}")

    def run(self) -> "ClaimReport":
        t0 = time.perf_counter()
        v = self.check()
        return ClaimReport(self, v, time.perf_counter() - t0)


@dataclass(frozen=True)
class ClaimReport:
    claim: Claim
    result: Verdict
    time_s: float

    @property
    def verdict(self) -> str:
        return self.result.verdict

    def to_dict(self) -> dict[str, Any]:
        r, c = self.result, self.claim
        return jsonable(
            {
                "id": c.id,
                "paper": c.paper,
                "section": c.section,
                "statement": c.statement,
                "kind": c.kind,
                "by_construction": c.by_construction,
                "assumptions": c.assumptions,
                "domain": c.domain,
                "verdict": r.verdict,
                "checked": r.checked,
                "worst_deviation": r.worst_deviation,
                "counterexample": r.counterexample,
                "region": r.region,
                "region_kind": r.region_kind,
                "correction": r.correction,
                "power": r.power,
                "note": r.note,
                "time_s": self.time_s,
            }
        )


def verify(paper: str | None = None) -> list[ClaimReport]:
    """Run every registered claim (of one paper: ``lip``, ``kss``, ``fisher``, ``gauss``, ``kairouz``)."""
    from mechopt.registry import claims

    return [c.run() for c in claims(paper)]


def render_rst(reports: Sequence[ClaimReport | dict[str, Any]], paper: str | None = None) -> str:
    """The verdicts page (reStructuredText), grouped by paper; see :mod:`mechopt.jobs.verify_rst`."""
    from mechopt.jobs.verify_rst import render

    return render([r.to_dict() if isinstance(r, ClaimReport) else r for r in reports], paper)
