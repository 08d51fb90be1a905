"""Theorem claims and their verdicts: the engine behind ``mechopt verify``.

Each paper module in :mod:`mechopt.claims` exposes ``CLAIMS``, a list of
:class:`Claim`. A claim's ``check`` runs the numerical comparison (closed form
against the certified optimum, a relation against audits, ...) and returns a
:class:`Verdict`. A failing claim is a finding, not an error.

Examples
--------
>>> c = Claim(id="demo.thm1", paper="demo", statement="1 + 1 = 2", domain="integers",
...           check=lambda: Verdict.from_deviations([0.0, 0.0], tol=1e-12))
>>> c.run().verdict
'holds'
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mechopt.result import jsonable

__all__ = ["Claim", "Verdict", "verify"]

VERDICTS = ("holds", "fails", "holds-in-region")


@dataclass(frozen=True)
class Verdict:
    """Outcome of one claim's check.

    ``worst_deviation`` is in the claim's own units (stated in its domain);
    ``counterexample`` the smallest failing instance (a dict of parameters and
    the two numbers that disagree), ``region`` where it holds when partial.
    """

    verdict: str
    checked: int
    worst_deviation: float
    counterexample: dict[str, Any] | None = None
    region: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")
        if self.checked < 1:
            raise ValueError("a verdict needs at least one checked instance")

    @classmethod
    def from_deviations(cls, deviations: Sequence[float], tol: float,
                        instances: Sequence[dict[str, Any]] | None = None,
                        size: Callable[[dict[str, Any]], float] | None = None,
                        region: str | None = None) -> "Verdict":
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
        return cls(verdict, len(devs), worst, ce, region)


@dataclass(frozen=True)
class Claim:
    """A checkable statement of a paper: ``id`` like ``lip.thm2``."""

    id: str
    paper: str
    statement: str
    domain: str
    check: Callable[[], Verdict]
    tags: tuple[str, ...] = field(default=())

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
        r = self.result
        return jsonable({"id": self.claim.id, "paper": self.claim.paper, "statement": self.claim.statement,
                         "domain": self.claim.domain, "verdict": r.verdict, "checked": r.checked,
                         "worst_deviation": r.worst_deviation, "counterexample": r.counterexample,
                         "region": r.region, "note": r.note, "time_s": self.time_s})


def verify(paper: str | None = None) -> list[ClaimReport]:
    """Run every registered claim (of one paper: ``lip``, ``kss``, ``fisher``, ``gauss``)."""
    from mechopt.registry import claims

    return [c.run() for c in claims(paper)]
