"""What a problem's audit of a result found: :class:`ProblemAudit`.

It sits below :mod:`mechopt.model.problem` (which re-exports it as
``mechopt.model.problem.ProblemAudit``) and :mod:`mechopt.model.structured`, so both
return it without importing each other.

Examples
--------
>>> from mechopt.model.problem_audit import ProblemAudit
>>> ProblemAudit(violation=0.0, notion="lip", eps=1.0).passed
True
>>> ProblemAudit(violation=0.5, notion="lip", eps=1.0).passed, ProblemAudit(None, reasons=["bad shape"]).passed
(False, False)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mechopt import settings

__all__ = ["ProblemAudit"]


@dataclass(frozen=True)
class ProblemAudit:
    """What a problem's audit of a result found.

    ``violation`` is the privacy (or constraint) violation in the notion's
    units, 0 when satisfied; ``reasons`` lists anything else wrong.
    """

    violation: float | None
    eps_audited: float | None = None
    notion: str | None = None
    eps: float | None = None
    reasons: list[str] = field(default_factory=list)
    value: float | None = None

    @property
    def passed(self) -> bool:
        ok = self.violation is None or self.violation <= settings.tolerance("privacy")
        return ok and not self.reasons
