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

__all__ = ["Certificate", "ROUNDING", "ZERO_FLOOR", "relative_gap"]


@dataclass(frozen=True)
class Certificate:
    """A proven bound on the optimum and the gap to the returned value.

    ``bound`` is an upper bound for a maximisation (lower for a minimisation),
    in the problem's own units; ``gap`` = |bound − value| / max(|bound|, |value|)
    (:func:`relative_gap`, the one rule: a value of 0 at the objective's scale is
    judged against a floor of that scale): relative at every magnitude, so it does
    not change when the problem's values are given in other units.
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

#: A value within ``ROUNDING`` × the objective's scale of 0 is the rounding residue of a 0 and judged as 0 is. The
#: objectives of a certificate (MSE, histogram, mi) are second order at a 0 optimum, so a channel a few roundings off
#: the exact one (4 ulps: 2^-50) leaves (2^-50)² of the scale: 3.7e-33 next to an MSE scale of 1.5 (pml at ε = 20,
#: which ×1e12 units give as 0.0 exactly). Real tiny optima stay relative to themselves: an MSE of 1.6e-29 of its
#: scale (ldp at ε = 70), an information of 1e-19 nats (ε = 1e-9). The standalone checker's ``ROUNDING``.
ROUNDING = 2.0**-100


def relative_gap(value: float, bound: float, scale: float = 0.0, sign: float = 0.0) -> float:
    """The one rule for a certificate's gap: |bound − value| / max(|bound|, |value|), 0 when they are equal, relative
    at every magnitude; a value of 0 at the objective's scale (|value| ≤ ``ROUNDING`` · ``scale``, ``scale`` the
    objective's size in the same units) is judged against max(|bound|, |value|, ``ZERO_FLOOR`` · ``scale``).
    ``sign`` +1 (a maximum: the bound is an upper bound) or −1 (a minimum) makes the gap of a bound past the value
    (rounding: it is on the wrong side of a feasible value) 0.

    >>> relative_gap(1.36e-9, 1.41e-10) > 1e-7, relative_gap(4.1e-24, 4.1e-24 * (1 - 1e-9)) < 1e-7
    (True, True)
    >>> relative_gap(0.0, 2.5e-33), relative_gap(0.0, 2.5e-33, scale=1.4) < 1e-29   # 0 and a rounding-sized bound
    (1.0, True)
    >>> relative_gap(3.7e-33, 0.0, scale=1.5) < 1e-29, relative_gap(3.7e-33, 0.0), relative_gap(7e-28, 0.0, scale=44.0)
    (True, 1.0, 1.0)
    >>> relative_gap(1.0, 1.1, sign=-1), relative_gap(1.1, 1.0, sign=-1) > 0.09   # a minimum: a lower bound above
    (0.0, True)
    """
    if bound == value or sign * (bound - value) < 0:
        return 0.0
    den = max(abs(bound), abs(value))
    if abs(value) <= ROUNDING * abs(scale):  # 0 at the objective's scale
        den = max(den, ZERO_FLOOR * abs(scale))
    return abs(bound - value) / den
