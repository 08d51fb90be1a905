"""The LIP paper's models of d symbols: sums (MIMO, Section IV-B), one user's term of a weighted sum
(Section III-A) and histograms (Section IV-C), with Theorems 3 and 5 for LIP and the Opt-mimo-LDP channel.

Examples
--------
>>> LIPHistogram.from_params(prior="0.3,0.3,0.4", eps="1").closed_form().extras["claim"]
'lip.thm5'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.base import LIPChannel, as_eps, as_float, as_prior, make_lip_notion, no_extra, parse_floats
from mechopt.results.result import Result
from mechopt.utilities import HistogramMSE, SumMSE, Utility

__all__ = ["LIPMimo", "LIPWeightedSum", "LIPHistogram", "mimo_closed_form"]


@dataclass(frozen=True, eq=False)
class LIPMimo(LIPChannel):
    """Summation / MIMO model (Section IV-B): X ∈ {a_1..a_d} with prior P, f(X) = X.

    Examples
    --------
    >>> prob = LIPMimo.from_params(prior="0.3,0.3,0.4", eps="2", values="0,1,5", notion="ldp")
    >>> r = prob.closed_form()
    >>> r.status.value, r.extras["claim"], r.message.split(";")[0]
    ('feasible', 'lip.ldp_mimo', 'Opt-mimo-LDP channel e^ε/(e^ε+d−1) (Section IV-B)')
    """

    prior: np.ndarray
    eps: float
    values: np.ndarray | None = None
    kind: str = "lip"
    id: ClassVar[str] = "lip-mimo"

    def __post_init__(self) -> None:
        P = as_prior(self.prior)
        if P.size < 2:
            raise ProblemError("the MIMO model needs a prior with at least 2 symbols")
        object.__setattr__(self, "prior", P)
        a = np.arange(P.size, dtype=float) if self.values is None else parse_floats(self.values, "values")
        if a.size != P.size:
            raise ProblemError(f"values has {a.size} entries but the prior has {P.size} symbols")
        object.__setattr__(self, "values", a)
        object.__setattr__(self, "eps", as_eps(self.eps))
        make_lip_notion(self.kind, self.eps)

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return SumMSE(self.values)

    @classmethod
    def from_params(cls, *, prior: Any, eps: Any, values: Any = None, notion: str = "lip", **extra: Any) -> "LIPMimo":
        """From CLI strings: ``prior``, ``eps``, ``values`` (default 0..d−1), ``notion``."""
        no_extra(extra, "prior, eps, values, notion")
        return cls(prior=prior, eps=eps, values=values, kind=notion)

    def closed_form(self) -> Result:
        """Theorem 3 for LIP; the channel e^ε/(e^ε+d−1) of Section IV-B for LDP."""
        return mimo_closed_form(self)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), "eps": self.eps, "values": self.values.tolist(), "notion": self.kind}


@dataclass(frozen=True, eq=False)
class LIPWeightedSum(LIPMimo):
    """One user's term a X + b of a weighted sum Σ (a_i X_i + b_i) (Section III-A).

    The MMSE of a X + b is a² times that of X (b cancels), so the optimal
    channel is the MIMO one; ``weight`` a and ``offset`` b enter the value.

    Examples
    --------
    >>> prob = LIPWeightedSum.from_params(prior="0.5,0.5", eps="1", weight="3", offset="2")
    >>> base = LIPMimo.from_params(prior="0.5,0.5", eps="1")
    >>> bool(np.isclose(prob.closed_form().value, 9 * base.closed_form().value))
    True
    """

    weight: float = 1.0
    offset: float = 0.0
    id: ClassVar[str] = "lip-weighted-sum"

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "weight", as_float(self.weight, "weight"))
        object.__setattr__(self, "offset", as_float(self.offset, "offset"))

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return SumMSE(self.weight * self.values + self.offset)

    @classmethod
    def from_params(
        cls,
        *,
        prior: Any,
        eps: Any,
        values: Any = None,
        weight: Any = 1.0,
        offset: Any = 0.0,
        notion: str = "lip",
        **extra: Any,
    ) -> "LIPWeightedSum":
        """From CLI strings: ``prior``, ``eps``, ``values``, ``weight`` a, ``offset`` b, ``notion``."""
        no_extra(extra, "prior, eps, values, weight, offset, notion")
        return cls(prior=prior, eps=eps, values=values, kind=notion, weight=weight, offset=offset)

    def params(self) -> dict[str, Any]:
        return {**super().params(), "weight": self.weight, "offset": self.offset}


@dataclass(frozen=True, eq=False)
class LIPHistogram(LIPMimo):
    """Histogram (Section IV-C): one user's Σ_k E[(1{X=k} − P(X=k | Y))²] (eq. (31)).

    Examples
    --------
    >>> prob = LIPHistogram.from_params(prior="0.3,0.3,0.4", eps="1")
    >>> prob.objective, prob.closed_form().message
    ('histogram', 'Theorem 5 (= Theorem 3 channel)')
    """

    id: ClassVar[str] = "lip-histogram"

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return HistogramMSE()

    @classmethod
    def from_params(cls, *, prior: Any, eps: Any, notion: str = "lip", **extra: Any) -> "LIPHistogram":
        """From CLI strings: ``prior``, ``eps``, ``notion``."""
        no_extra(extra, "prior, eps, notion")
        return cls(prior=prior, eps=eps, kind=notion)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), "eps": self.eps, "notion": self.kind}


def mimo_closed_form(prob: LIPMimo) -> Result:
    """Theorem 3 (sums, weighted sums) / Theorem 5 (histograms) for LIP; the Opt-mimo-LDP channel for LDP.

    Where each is proven (``mechopt verify``):

    * Theorem 3 (LIP paper Section IV-B, problem (29); claim ``lip.thm3``) and
      Theorem 5 (Section IV-C; claim ``lip.thm5``), both holds-in-region: the
      channel keeps λ = P, so the constraint (26) on its diagonal entry
      q_mm = 1 − (1 − P_m) e^{-ε} holds iff P_m ≥ 1/(1 + e^ε). Inside the
      region min_m P_m ≥ 1/(1 + e^ε) (:func:`~.lip_closed.mimo_lip_region`)
      the LIP polytope is a simplex with d vertices and the channel is the
      optimum for any sublinear utility: ``optimal`` (theorem). Outside it is
      not ε-LIP: ``infeasible_point``.
    * The LDP channel e^ε/(e^ε + d − 1) (Section IV-B; claim ``lip.ldp_mimo``)
      *fails*: at small ε the certified optimum uses 2–3 outputs. It is an
      ε-LDP channel, never a proven optimum: ``feasible``.

    >>> r = LIPMimo.from_params(prior="0.3,0.3,0.4", eps="1").closed_form()
    >>> r.status.value, r.proof, r.extras["claim"]
    ('optimal', 'theorem', 'lip.thm3')
    >>> LIPMimo.from_params(prior="0.1,0.2,0.7", eps="1").closed_form().status.value
    'infeasible_point'
    >>> LIPHistogram.from_params(prior="0.3,0.3,0.4", eps="1", notion="ldp").closed_form().status.value
    'feasible'
    """
    if prob.kind == "lip":
        hist = isinstance(prob, LIPHistogram)
        name, claim = ("Theorem 5 (= Theorem 3 channel)", "lip.thm5") if hist else ("Theorem 3", "lip.thm3")
        inside = cf.mimo_lip_region(prob.prior, prob.eps)
        why = (
            ""
            if inside
            else (
                f"min_m P_m = {prob.prior.min():.4g} < 1/(1+e^eps) = {1 / (1 + np.exp(prob.eps)):.4g}, "
                f"outside the region where {name.split(' (')[0]} is proven (claim {claim}); "
                "there its channel is not eps-LIP"
            )
        )
        return prob._result(
            cf.mimo_lip_channel(prob.prior, prob.eps), name, claim=claim, proven=inside, why=why, in_region=inside
        )
    return prob._result(
        cf.mimo_ldp_channel(prob.prior.size, prob.eps),
        "Opt-mimo-LDP channel e^ε/(e^ε+d−1) (Section IV-B)",
        claim="lip.ldp_mimo",
        proven=False,
        why="mechopt verify finds the paper's optimality claim false (claim lip.ldp_mimo: at small "
        "eps the certified optimum uses 2-3 outputs); an eps-LDP channel, not a proven optimum",
    )
