"""The certificate of a result and its gap: a proven bound, and the gap measured against the objective's floor.

Re-exported by :mod:`mechopt.results.result` (and :class:`Certificate` by :mod:`mechopt`).

Examples
--------
>>> c = Certificate(bound=1.0, gap=relative_gap(0.999, 1.0, "mse"))
>>> c.to_dict()
{'bound': 1.0, 'gap': 0.0010000000000000009}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Certificate", "GAP_FLOORS", "DEFAULT_GAP_FLOOR", "gap_floor", "relative_gap"]


#: The absolute floor of the certificate gap, per objective, in the objective's own units:
#: ``gap = |bound − value| / max(|bound|, floor)``. Above the floor the gap is relative (an
#: answer of 1e-9 is held to 1e-7 of 1e-9, not of 1); below it, the gap is |bound − value| /
#: floor, so ``optimal`` needs |bound − value| ≤ gap_tol · floor (1e-10 with the defaults),
#: about the feasibility tolerance of the LPs that produce the bounds. Objectives not listed use
#: ``DEFAULT_GAP_FLOOR``.
GAP_FLOORS: dict[str, float] = {
    "mse": 1e-3,  # squared units of the values; a histogram MSE is at most 2
    "sq": 1e-3,
    "mi": 1e-3,  # nats
    "mutual_information": 1e-3,
    "I(Xp;Y)": 1e-3,
    "fisher_trace": 1e-3,  # a Fisher trace on [a, b] is ≥ π²/(b − a)², rarely below 1e-3
    "weighted_fisher": 1e-3,
    "fisher_trace+penalty": 1e-3,
    "J": 1e-3,
}


DEFAULT_GAP_FLOOR = 1e-3


def gap_floor(objective: str | None) -> float:
    """The absolute floor of the certificate gap for ``objective`` (:data:`GAP_FLOORS`).

    >>> gap_floor("mse"), gap_floor("something-new")
    (0.001, 0.001)
    """
    return GAP_FLOORS.get(objective or "", DEFAULT_GAP_FLOOR)


@dataclass(frozen=True)
class Certificate:
    """A proven bound on the optimum and the gap to the returned value.

    ``bound`` is an upper bound for a maximisation (lower for a minimisation),
    in the problem's own units; ``gap`` = |bound − value| / max(|bound|, floor)
    with the objective's absolute floor (:data:`GAP_FLOORS`, 1e-3 by default):
    relative at every scale above the floor.
    """

    bound: float
    gap: float
    #: The dual evidence behind ``bound`` (:class:`~mechopt.results.certificate_file.DualEvidence`), when the
    #: solver has one that :meth:`save` can write for the standalone checker (the exact solver's).
    evidence: Any = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, float]:
        return {"bound": float(self.bound), "gap": float(self.gap)}

    def save(self, path: str, *, status: str | None = None, value: float | None = None, **provenance: Any) -> None:
        """Write the certificate file that ``mechopt check`` verifies (docs/howto/certificates.rst).

        ``status`` and ``value`` are the claims (default: ``optimal`` when the gap is within the ``gap``
        tolerance, and the value of the evidence's mechanism). Raises CertificateError without evidence.
        """
        from mechopt.errors import CertificateError

        if self.evidence is None:
            raise CertificateError(
                "this result carries no dual evidence to write: checkable certificates come from the exact "
                "solver (notions ldp, lip, graph-ldp, metric-ldp, cip; utilities mse, histogram, mi)"
            )
        self.evidence.save(path, bound=self.bound, gap=self.gap, status=status, value=value, **provenance)


def relative_gap(value: float, bound: float, objective: str | None = None) -> float:
    """|bound − value| / max(|bound|, floor(objective)): relative above the floor, absolute (in floors) below.

    >>> relative_gap(1.36e-9, 1.41e-10, "mse") > 1e-7
    True
    """
    return abs(bound - value) / max(abs(bound), gap_floor(objective))
