"""The certificate of a result and its gap: a proven bound, and the gap relative at every magnitude.

Re-exported by :mod:`mechopt.results.result` (and :class:`Certificate` by :mod:`mechopt`).

Examples
--------
>>> c = Certificate(bound=1.0, gap=relative_gap(0.999, 1.0))
>>> c.to_dict()
{'bound': 1.0, 'gap': 0.0010000000000000009}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Certificate", "ZERO_FLOOR", "relative_gap"]


@dataclass(frozen=True)
class Certificate:
    """A proven bound on the optimum and the gap to the returned value.

    ``bound`` is an upper bound for a maximisation (lower for a minimisation),
    in the problem's own units; ``gap`` = |bound − value| / max(|bound|, |value|)
    (:func:`relative_gap`): relative at every magnitude, so it does not change
    when the problem's values are given in other units.
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
                "solver (notions ldp, lip, pml, alip, graph-ldp, metric-ldp, cip; utilities mse, histogram, mi) and "
                "the robust solvers (a prior set, one prior P as --prior-set P: robust-lp for mae, robust-rays for "
                "mi, mse, histogram when priced exactly; none with --hull, whose worst prior may lie inside the "
                "hull; over a ball held by its inequalities robust-lp for mae and robust-rays for mi over a TV ball, "
                "checked by certball)"
            )
        self.evidence.save(path, bound=self.bound, gap=self.gap, status=status, value=value, **provenance)


#: A value of exactly 0 has no size of its own: its gap is relative to ``ZERO_FLOOR`` × the objective's scale,
#: the standalone checker's ``floor`` (:mod:`mechopt.certcheck`, whose gaps follow this same rule).
ZERO_FLOOR = 1e-3


def relative_gap(value: float, bound: float, scale: float = 0.0) -> float:
    """|bound − value| / max(|bound|, |value|), 0 when they are equal: relative at every magnitude; a value of
    exactly 0 is judged against max(|bound|, ``ZERO_FLOOR`` · ``scale``) (``scale``: the objective's size).

    >>> relative_gap(1.36e-9, 1.41e-10) > 1e-7, relative_gap(4.1e-24, 4.1e-24 * (1 - 1e-9)) < 1e-7
    (True, True)
    >>> relative_gap(0.0, 2.5e-33), relative_gap(0.0, 2.5e-33, scale=1.4) < 1e-29   # 0 and a rounding-sized bound
    (1.0, True)
    """
    if bound == value:
        return 0.0
    den = max(abs(bound), abs(value)) if value != 0 else max(abs(bound), ZERO_FLOOR * abs(scale))
    return abs(bound - value) / den
