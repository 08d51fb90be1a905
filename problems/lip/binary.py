"""The LIP paper's survey model (BIBO, Section IV-A): one binary user, Theorem 2 / Proposition 3 for LIP and
Proposition 4 for LDP.

Examples
--------
>>> LIPBinary(p1=0.3, eps=1.0).closed_form().status.value
'optimal'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.base import LIPChannel, as_eps, as_float, as_prior, make_lip_notion, no_extra
from mechopt.results.result import Result
from mechopt.utilities import SumMSE, Utility

__all__ = ["LIPBinary"]


@dataclass(frozen=True, eq=False)
class LIPBinary(LIPChannel):
    """Survey / BIBO model (Section IV-A): X ∈ {0, 1} with P(X=1) = p1, f(X) = X.

    Examples
    --------
    >>> prob = LIPBinary.from_params(prior="0.6,0.4", eps="1", notion="lip")
    >>> prob.p1, round(prob.closed_form().value, 6)
    (0.4, 0.144102)
    """

    p1: float
    eps: float
    kind: str = "lip"
    id: ClassVar[str] = "lip-binary"

    def __post_init__(self) -> None:
        p = as_float(self.p1, "p1")
        if not 0.0 <= p <= 1.0:
            raise ProblemError(f"p1 must be in [0, 1], got {self.p1!r}")
        object.__setattr__(self, "p1", p)
        object.__setattr__(self, "eps", as_eps(self.eps))
        make_lip_notion(self.kind, self.eps)

    @property
    def prior(self) -> np.ndarray:  # type: ignore[override]
        return np.array([1.0 - self.p1, self.p1])

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return SumMSE([0.0, 1.0])

    @classmethod
    def from_params(
        cls, *, eps: Any, prior: Any = None, p1: Any = None, notion: str = "lip", **extra: Any
    ) -> "LIPBinary":
        """From CLI strings: ``prior="0.9,0.1"`` (P(X=0), P(X=1)) or ``p1="0.1"``; ``eps``; ``notion``."""
        no_extra(extra, "prior|p1, eps, notion")
        if (prior is None) == (p1 is None):
            raise ProblemError("lip-binary needs exactly one of prior=P0,P1 or p1=P(X=1)")
        if p1 is not None and isinstance(p1, str) and "," in p1:
            raise ProblemError(
                "lip-binary is one user's channel: for per-user local priors p1=a,b,c use "
                "mechopt.problems.lip.aggregate.LIPAggregate.local_binary (Proposition 2)"
            )
        if prior is not None:
            P = as_prior(prior)
            if P.size != 2:
                raise ProblemError(f"lip-binary prior must have 2 symbols, got {P.size}")
            p1 = P[1]
        return cls(p1=p1, eps=eps, kind=notion)

    def closed_form(self) -> Result:
        """Theorem 2 + Proposition 3 (value eq. (21)) for LIP; Proposition 4 (value eq. (24)) for LDP.

        Where each is proven (``mechopt verify``): Theorem 2 / Proposition 3 (LIP
        paper Section IV-A, eqs. (15)–(21); claims ``lip.thm2``, ``lip.prop3``:
        holds-in-region) are stated for every P1, but their channel keeps λ = P,
        so the constraint (19) on P(Y=x | X=x) holds iff max(P1, 1 − P1) ≤
        e^ε/(1 + e^ε) (:func:`~.lip_closed.binary_lip_region`): inside
        ``optimal`` (theorem); outside the channel is not ε-LIP and eq. (21) is
        below the optimum (:func:`~.lip_closed.binary_lip_optimum`):
        ``infeasible_point``. Proposition 4 (eq. (24); ``lip.prop4``) holds everywhere.

        >>> LIPBinary(p1=0.05, eps=1.0).closed_form().status.value
        'infeasible_point'
        >>> r = LIPBinary(p1=0.4, eps=1.0).closed_form()
        >>> r.status.value, r.proof, r.extras["claim"]
        ('optimal', 'theorem', 'lip.thm2')
        """
        if self.kind == "lip":
            inside = cf.binary_lip_region(self.p1, self.eps)
            why = (
                ""
                if inside
                else (
                    f"max(P1, 1-P1) = {max(self.p1, 1 - self.p1):.4g} > e^eps/(1+e^eps) = "
                    f"{1 / (1 + np.exp(-self.eps)):.4g}, outside the region where Theorem 2 is "
                    "proven (claim lip.thm2); there its channel is not eps-LIP"
                )
            )
            return self._result(
                cf.binary_lip_channel(self.p1, self.eps),
                "Theorem 2 / Proposition 3, eq. (21)",
                claim="lip.thm2",
                proven=inside,
                why=why,
                value=cf.binary_lip_mse(self.p1, self.eps),
                in_region=inside,
            )
        return self._result(
            cf.binary_ldp_channel(self.eps),
            "Proposition 4, eq. (24)",
            claim="lip.prop4",
            proven=True,
            value=cf.binary_ldp_mse(self.p1, self.eps),
        )

    def params(self) -> dict[str, Any]:
        return {"p1": self.p1, "eps": self.eps, "notion": self.kind}
