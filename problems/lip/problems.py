"""Problems of the LIP paper: surveys (BIBO), sums (MIMO), weighted sums, histograms.

One user's channel Q (rows inputs) under ε-LIP (Definition 3) or ε-LDP
(Definition 1); the MMSE estimator E[f(X) | Y] is used throughout (eq. (10)),
so each problem is

    minimise   E[(f(X) − E[f(X) | Y])²]      (eq. (14); histogram: eq. (31), summed over k)
    s.t.       Q ≥ 0,  Q 1 = 1,  Q is ε-LIP (eq. (26)) or ε-LDP,

a :class:`~mechopt.model.problem.ChannelProblem` (column program, NLP form, audit).
N users with local priors decompose into N such problems (Proposition 2):
:class:`~mechopt.problems.lip.aggregate.LIPAggregate`.

Examples
--------
>>> from mechopt.problems.lip.problems import PROBLEMS
>>> prob = PROBLEMS["lip-mimo"].from_params(prior="0.1,0.2,0.7", eps="1")
>>> prob.notion, prob.utility.a.tolist()
(LIP(eps=1), [0.0, 1.0, 2.0])
>>> res = prob.closed_form()
>>> res.solver, res.certificate, res.mechanism.shape
('closed-form', None, (3, 3))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, float_array
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.model.problem import ChannelProblem
from mechopt.notions import LDP, LIP, PrivacyNotion, check_eps
from mechopt.oracles.simulate import mmse_table
from mechopt.problems.lip import closed as cf
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result
from mechopt.utilities import HistogramMSE, SumMSE, Utility

__all__ = [
    "LIPBinary",
    "LIPMimo",
    "LIPWeightedSum",
    "LIPHistogram",
    "PROBLEMS",
    "CLOSED_FORMS",
    "make_lip_notion",
    "parse_floats",
]

PAPER = "lip"


def make_lip_notion(name: str, eps: float) -> PrivacyNotion:
    """``"lip"`` → :class:`~mechopt.notions.LIP`, ``"ldp"`` → :class:`~mechopt.notions.LDP`.

    Examples
    --------
    >>> make_lip_notion("ldp", 2.0)
    LDP(eps=2)
    """
    key = str(name).strip().lower()
    if key == "lip":
        return LIP(eps)
    if key == "ldp":
        return LDP(eps)
    raise ProblemError(f"notion must be 'lip' or 'ldp', got {name!r}")


def parse_floats(value: Any, name: str) -> np.ndarray:
    """A float vector from a list or a comma-separated string; ProblemError names the field.

    Examples
    --------
    >>> parse_floats("0, 1,2", "values").tolist()
    [0.0, 1.0, 2.0]
    """
    try:
        if isinstance(value, str):
            arr = np.array([ascii_float(v) for v in value.replace(";", ",").split(",") if v.strip()])
        else:
            arr = np.atleast_1d(float_array(value))
    except NotDecimal as exc:
        raise ProblemError(f"bad {name}: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"bad {name} {value!r}: give comma-separated numbers") from None
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ProblemError(f"bad {name} {value!r}: give a non-empty list of finite numbers")
    return arr


def _prior(value: Any) -> np.ndarray:
    if isinstance(value, str):
        return parse_prior(value)
    return validate_prior(value)


def _eps(value: Any) -> float:
    return check_eps(value, allow_zero=True)


def _float(value: Any, name: str) -> float:
    try:
        out = ascii_float(value)
    except NotDecimal as exc:
        raise ProblemError(f"bad {name}: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"bad {name} {value!r}: give a number") from None
    if not np.isfinite(out):
        raise ProblemError(f"bad {name} {value!r}: give a finite number")
    return out


class _LIPChannel(ChannelProblem):
    """Shared behaviour: notion from ``kind``, a closed-form Result builder."""

    paper: ClassVar[str] = PAPER
    eps: float
    kind: str

    @property
    def notion(self) -> PrivacyNotion:  # type: ignore[override]
        return make_lip_notion(self.kind, self.eps)

    def estimator(self, Q) -> np.ndarray:
        """The MMSE estimator table g(y) = E[f(X) | Y = y] of channel Q (eqs. (16), (27), (30)).

        Examples
        --------
        >>> LIPBinary(p1=0.5, eps=1.0).estimator(np.eye(2)).tolist()
        [0.0, 1.0]
        """
        f = np.eye(self.prior.size) if isinstance(self.utility, HistogramMSE) else self.utility.a
        return mmse_table(Q, self.prior, f)

    def _result(
        self,
        Q: np.ndarray,
        message: str,
        *,
        claim: str,
        proven: bool,
        why: str = "",
        value: float | None = None,
        **extras: Any,
    ) -> Result:
        """A closed form's Result (:func:`~mechopt.problems.theorem.theorem_result`), audited here."""
        Q = np.asarray(Q, float)
        val = self.evaluate(Q) if value is None else float(value)
        return theorem_result(
            claim=claim,
            proven=proven,
            why=why,
            private=self.audit_channel(Q).passed,
            value=val,
            sense="min",
            objective=self.objective,
            mechanism=Q,
            certificate=None,
            notion=self.kind,
            eps=self.eps,
            message=message,
            extras=extras,
            problem=self.id,
        )


@dataclass(frozen=True, eq=False)
class LIPBinary(_LIPChannel):
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
        p = _float(self.p1, "p1")
        if not 0.0 <= p <= 1.0:
            raise ProblemError(f"p1 must be in [0, 1], got {self.p1!r}")
        object.__setattr__(self, "p1", p)
        object.__setattr__(self, "eps", _eps(self.eps))
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
        _no_extra(extra, "prior|p1, eps, notion")
        if (prior is None) == (p1 is None):
            raise ProblemError("lip-binary needs exactly one of prior=P0,P1 or p1=P(X=1)")
        if p1 is not None and isinstance(p1, str) and "," in p1:
            raise ProblemError(
                "lip-binary is one user's channel: for per-user local priors p1=a,b,c use "
                "mechopt.problems.lip.aggregate.LIPAggregate.local_binary (Proposition 2)"
            )
        if prior is not None:
            P = _prior(prior)
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


@dataclass(frozen=True, eq=False)
class LIPMimo(_LIPChannel):
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
        P = _prior(self.prior)
        if P.size < 2:
            raise ProblemError("the MIMO model needs a prior with at least 2 symbols")
        object.__setattr__(self, "prior", P)
        a = np.arange(P.size, dtype=float) if self.values is None else parse_floats(self.values, "values")
        if a.size != P.size:
            raise ProblemError(f"values has {a.size} entries but the prior has {P.size} symbols")
        object.__setattr__(self, "values", a)
        object.__setattr__(self, "eps", _eps(self.eps))
        make_lip_notion(self.kind, self.eps)

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return SumMSE(self.values)

    @classmethod
    def from_params(cls, *, prior: Any, eps: Any, values: Any = None, notion: str = "lip", **extra: Any) -> "LIPMimo":
        """From CLI strings: ``prior``, ``eps``, ``values`` (default 0..d−1), ``notion``."""
        _no_extra(extra, "prior, eps, values, notion")
        return cls(prior=prior, eps=eps, values=values, kind=notion)

    def closed_form(self) -> Result:
        """Theorem 3 for LIP; the channel e^ε/(e^ε+d−1) of Section IV-B for LDP."""
        return _mimo_closed_form(self)

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
        object.__setattr__(self, "weight", _float(self.weight, "weight"))
        object.__setattr__(self, "offset", _float(self.offset, "offset"))

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
        _no_extra(extra, "prior, eps, values, weight, offset, notion")
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
        _no_extra(extra, "prior, eps, notion")
        return cls(prior=prior, eps=eps, kind=notion)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), "eps": self.eps, "notion": self.kind}


def _mimo_closed_form(prob: LIPMimo) -> Result:
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


def _no_extra(extra: dict[str, Any], known: str) -> None:
    if extra:
        raise ProblemError(f"unknown parameter(s) {sorted(extra)}; known: {known}")


# --- closed forms for generic designs ------------------------------------------------------


def _design_closed_form(problem: Any) -> Result | None:
    """LIP/LDP + MSE of values → Theorem 3 / Opt-mimo-LDP; + histogram → Theorem 5 / Opt-mimo-LDP."""
    notion, util = getattr(problem, "notion", None), getattr(problem, "utility", None)
    if type(notion) not in (LIP, LDP) or type(util) not in (SumMSE, HistogramMSE):
        return None
    P = problem.prior
    if P.size < 2:
        return None
    kind = "lip" if isinstance(notion, LIP) else "ldp"
    if isinstance(util, HistogramMSE):
        mirror: LIPMimo = LIPHistogram(prior=P, eps=notion.eps, kind=kind)
    else:
        mirror = LIPMimo(prior=P, eps=notion.eps, values=util.a, kind=kind)
    res = _mimo_closed_form(mirror)
    return res.replace(value=float(util.value(res.Q, P)), problem=getattr(problem, "id", None))


CLOSED_FORMS: list[Callable[[Any], Result | None]] = [_design_closed_form]

PROBLEMS: dict[str, type] = {
    "lip-binary": LIPBinary,
    "lip-mimo": LIPMimo,
    "lip-weighted-sum": LIPWeightedSum,
    "lip-histogram": LIPHistogram,
}
