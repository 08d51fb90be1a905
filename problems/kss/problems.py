"""Problems of the k-subset paper (Wang et al., "Mutual Information Optimally Local
Private Discrete Distribution Estimation"), with their closed forms.

``kss-mi``: ε-LDP mutual-information maximisation for any prior P on d symbols,

    maximise  I(X; Z) = Σ_{x,z} P(x) Q[x,z] log(Q[x,z] / Σ_x' P(x') Q[x',z])
    s.t.      Q ≥ 0,  Q 1 = 1,  Q[x,z] ≤ e^ε Q[x',z]  for all x, x', z.

A column program (LDP cone × the MI gain), solved exactly by ``exact``. For a
uniform prior the optimum is Theorem 2.1, attained by the k*-subset mechanism.

``kss-l2``: ε-LDP distribution estimation under squared ℓ2 error. n users hold
a dataset with empirical distribution θ (the prior); each reports Z ~ Q[x, ·];
the aggregator uses the unbiased least-squares estimator θ̂ = (QQᵀ)⁻¹ Q f/n
(f the output counts; for the k-subset mechanism this is the remapping
estimator of Algorithm 2). The program is

    minimise  E‖θ̂ − θ‖² = (Σ_z λ_z ‖R[:, z]‖² − 1) / n,   λ = θᵀQ,  R = (QQᵀ)⁻¹Q
    s.t.      Q ≥ 0,  Q 1 = 1,  ε-LDP,  rank Q = d,

over Q with a fixed number m of outputs. It is not a column program (R couples
all columns), so it has an NLP form (analytic gradient) for ``sqp``; its closed
form is the k#-subset mechanism (Theorems 3.1–3.2: optimal among power-set
mechanisms symmetric as in Theorem 3.2, not proven over all ε-LDP channels).

Examples
--------
>>> from mechopt.problems.kss.problems import KssMI
>>> from mechopt.problems.kss.l2 import KssL2
>>> p = KssMI.from_params(prior="uniform:6", eps="1")
>>> r = p.closed_form()
>>> r.extras["k"], round(r.value, 6)
(2, 0.123284)
>>> q = KssL2.from_params(prior="uniform:4", eps="1", n="10000")
>>> round(q.closed_form().value, 8)
0.00075562
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError, TooLargeError
from mechopt.model.counting import comb_at_most, log_comb
from mechopt.model.info import kl_generator_exp
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.model.problem import ChannelProblem, ProblemAudit
from mechopt.notions import LDP, PrivacyNotion
from mechopt.oracles.base import check_eps
from mechopt.problems.kss import formulas as F
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result
from mechopt.utilities import MutualInfo, Utility

__all__ = [
    "KssMI",
    "KSubsetMechanism",
    "ksubset_mi",
    "best_ksubset",
    "ksubset_result",
    "ldp_fields",
    "CLOSED_FORMS",
    "PROBLEMS",
    "MAX_OUTPUTS",
]

PAPER = "kss"
MAX_OUTPUTS = 20_000  # k-subset channels are materialised up to C(d, k) ≤ this (d ≤ 16 always fits)
_LOG_EXACT = 53 * math.log(2) - 1.0  # below: C(d, k) < 2^53 / e, exact as a Python int and as a float
_LOG_FLOAT_MAX = math.log(1.7e308)  # above: C(d, k) overflows a float


@dataclass(frozen=True)
class KSubsetMechanism:
    """The k-subset mechanism Q^k (Definition 2.1, eq. (5)) described compactly.

    ``matrix`` materialises the d × C(d, k) channel (colex order of the subsets)
    when C(d, k) ≤ :data:`MAX_OUTPUTS`; the randomizer is
    :class:`mechopt.oracles.frequency.KSubset`.

    Examples
    --------
    >>> m = KSubsetMechanism(d=4, k=2, eps=1.0)
    >>> m.matrix.shape, m.to_dict()["outputs"]
    ((4, 6), 6)
    """

    d: int
    k: int
    eps: float

    @property
    def outputs(self) -> int | float:
        """C(d, k): the exact int while it is below 2^53, above that the float ``exp(log_outputs)``
        (``inf`` beyond ~10^308). The exact integer is a size nobody reads: at d = 10^7 it has
        9.2 million bits and ``math.comb`` took 461 s (``math.comb(d, k)`` still gives it)."""
        if self.log_outputs < _LOG_EXACT:
            return math.comb(self.d, self.k)
        return math.exp(self.log_outputs) if self.log_outputs < _LOG_FLOAT_MAX else math.inf

    @property
    def log_outputs(self) -> float:
        """ln C(d, k) from ``math.lgamma``: a size estimate in O(1), whatever d."""
        return log_comb(self.d, self.k)

    @property
    def materialisable(self) -> bool:
        return comb_at_most(self.d, self.k, MAX_OUTPUTS)

    @property
    def matrix(self) -> np.ndarray:
        if not self.materialisable:
            raise TooLargeError(
                f"the {self.k}-subset channel has C({self.d}, {self.k}) ≈ "
                f"10^{self.log_outputs / math.log(10):.1f} outputs; "
                f"use mechopt.oracles.frequency.KSubset (randomizer) instead of the matrix"
            )
        from mechopt.oracles.frequency import KSubset

        return KSubset(self.d, self.eps, self.k).matrix()

    def to_dict(self) -> dict[str, Any]:
        n = self.outputs  # an estimate above 2^53, None when it overflows a float
        out = {
            "type": "k-subset",
            "d": self.d,
            "k": self.k,
            "eps": self.eps,
            "outputs": n if math.isfinite(n) else None,
            "log10_outputs": self.log_outputs / math.log(10),
            "rule": "report a size-k subset Z with Q(Z|x) ∝ e^eps if x in Z else 1 (eq. (5))",
        }
        if self.materialisable and self.outputs * self.d <= 4096:
            out["Q"] = self.matrix.tolist()
        return out


def ksubset_mi(prior, k: int, eps: float) -> float:
    """I(X; Z) of the k-subset mechanism under any prior P (no materialisation).

    Each subset Z has weight w = d / ((k e^ε + d − k) C(d, k)) and, with
    u = P(Z), t = 1 + (e^ε − 1) u, contributes w (ε e^ε u − t log t) (math.md §3), summed as
    w t (u φ(e^{ε − log t}) + (1 − u) φ(e^{−log t})) (non-negative terms, exact at ε = 1e-9).
    Sums over subsets by grouping equal prior values (exact; raises
    TooLargeError when there are too many distinct groupings). The weights
    Π C(m_i, j_i) / C(d, k) are exact integer ratios while C(d, k) fits a float,
    and ratios of ``lgamma`` sums beyond (no million-digit integers at d = 10⁷).

    Examples
    --------
    >>> round(ksubset_mi([0.25] * 4, 2, 1.0), 12) == round(F.mi_ksubset(4, 2, 1.0), 12)
    True
    """
    P = validate_prior(prior)
    d = P.size
    if not 1 <= k <= d - 1:
        raise ProblemError(f"k must be in 1..{d - 1}, got {k}")
    e = math.exp(eps)
    log_n = log_comb(d, k)
    exact = log_n < _LOG_FLOAT_MAX
    n = math.comb(d, k) if exact else None
    vals, mult = np.unique(np.round(P, 15), return_counts=True)
    total = 0.0
    for counts, ways in _compositions(mult.tolist(), k, exact):
        u = float(np.dot(counts, vals))
        log_t = math.log1p(math.expm1(eps) * u)  # t = 1 + (e^ε − 1) u
        share = ways / n if exact else math.exp(ways - log_n)  # P(a uniform k-subset has these counts)
        # ε e^ε u − t log t = t (u φ(e^{ε − log t}) + (1 − u) φ(e^{−log t})): non-negative terms at every ε
        inner = u * float(kl_generator_exp(eps - log_t)) + (1 - u) * float(kl_generator_exp(-log_t))
        total += share * math.exp(log_t) * inner
    return d / (k * e + d - k) * total


def _compositions(mult: list[int], k: int, exact: bool = True, limit: int = 2_000_000):
    """(j, Π C(m_i, j_i)) for every j with Σ j_i = k, 0 ≤ j_i ≤ m_i (``exact=False``: ln of the product)."""
    out: list[tuple[list[int], Any]] = []

    def rec(i: int, left: int, cur: list[int], ways: Any) -> None:
        if len(out) > limit:
            raise TooLargeError("too many distinct prior values for an exact k-subset MI; group the prior")
        if i == len(mult):
            if left == 0:
                out.append((cur.copy(), ways))
            return
        rest = sum(mult[i + 1 :])
        for j in range(max(0, left - rest), min(mult[i], left) + 1):
            cur.append(j)
            rec(i + 1, left - j, cur, ways * math.comb(mult[i], j) if exact else ways + log_comb(mult[i], j))
            cur.pop()

    rec(0, k, [], 1 if exact else 0.0)
    return out


def best_ksubset(prior, eps: float) -> tuple[int, float]:
    """(k, I) of the best k-subset mechanism for prior P: max over k = 1..d−1 of :func:`ksubset_mi`.

    Examples
    --------
    >>> best_ksubset([0.25] * 4, 1.0)[0] == F.k_star(4, 1.0)
    True
    """
    P = validate_prior(prior)
    vals = [(ksubset_mi(P, k, eps), k) for k in range(1, P.size)]
    best = max(vals)
    return best[1], best[0]


def ksubset_result(d: int, eps: float, problem: str | None = None) -> Result:
    """Theorem 2.1 as a Result: the k*-subset mechanism and its value I_{k*}, for a uniform prior.

    Theorem 2.1 (k-subset paper, Section 2; claim ``kss.thm2_1``: holds) is
    proven for every d and ε when the prior is uniform, so the Result is
    ``optimal`` with ``proof="theorem"``. For a non-uniform prior it is an
    open question (Section 6; claim ``kss.open_prior`` fails): callers offer
    it only for uniform priors.

    Examples
    --------
    >>> r = ksubset_result(64, 1.0)
    >>> r.extras["k"], r.mechanism.materialisable, r.status.value, r.proof, r.extras["claim"]
    (22, False, 'optimal', 'theorem', 'kss.thm2_1')
    """
    k = F.k_star(d, eps)
    return theorem_result(
        claim="kss.thm2_1",
        proven=True,
        value=F.mi_ksubset(d, k, eps),
        sense="max",
        objective="mi",
        mechanism=KSubsetMechanism(d, k, eps),
        notion="ldp",
        eps=eps,
        message="Theorem 2.1 (k*-subset mechanism, Definition 2.1)",
        problem=problem,
        extras={"k": k, "beta": F.beta(d, eps), "theorem": "kss Theorem 2.1"},
    )


def _uniform(P: np.ndarray) -> bool:
    return bool(np.ptp(P) <= settings.tolerance("prior_equal"))


def ldp_fields(problem: Any) -> np.ndarray:
    """Validate and set a frozen k-subset problem's ``prior`` (d ≥ 2), ``eps`` and ``notion`` = ε-LDP.

    Returns the validated prior; raises :class:`ProblemError` naming the field.

    Examples
    --------
    >>> KssMI(prior=[0.25, 0.75], eps=1.0).notion.name
    'ldp'
    """
    P = validate_prior(problem.prior)
    if P.size < 2:
        raise ProblemError("prior must have at least 2 symbols")
    object.__setattr__(problem, "prior", P)
    object.__setattr__(problem, "eps", check_eps(problem.eps))
    object.__setattr__(problem, "notion", LDP(problem.eps))
    return P


@dataclass(frozen=True, eq=False)
class KssMI(ChannelProblem):
    """ε-LDP mutual-information maximisation for a prior (module docstring: ``kss-mi``)."""

    prior: np.ndarray
    eps: float
    notion: PrivacyNotion = field(init=False)
    utility: Utility = field(init=False)

    id: ClassVar[str] = "kss-mi"
    paper: ClassVar[str] = PAPER

    def __post_init__(self) -> None:
        P = ldp_fields(self)
        object.__setattr__(self, "utility", MutualInfo(P))

    @classmethod
    def from_params(cls, *, prior: Any = "uniform:4", eps: Any = 1.0, **extra: Any) -> "KssMI":
        """Build from CLI strings: prior="uniform:8" | "0.1,0.2,0.7", eps="1"."""
        if extra:
            raise ProblemError(f"unknown kss-mi parameter(s) {sorted(extra)}; known: prior, eps")
        return cls(prior=_prior(prior), eps=check_eps(eps))

    def closed_form(self) -> Result | None:
        if not _uniform(self.prior):
            return None
        return ksubset_result(self.prior.size, self.eps, problem=self.id)

    def audit(self, result: Result) -> ProblemAudit:
        mech = result.mechanism
        if isinstance(mech, KSubsetMechanism) and not mech.materialisable:
            return _audit_ksubset(mech, self.prior, self.eps)
        return super().audit(result)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), "eps": self.eps}


def _audit_ksubset(mech: KSubsetMechanism, P: np.ndarray, eps: float) -> ProblemAudit:
    """Analytic audit of a large k-subset channel: its LDP level is exactly mech.eps (ratio e^ε, eq. (5))."""
    reasons = [] if mech.d == P.size else [f"mechanism has d={mech.d} but the prior has {P.size} symbols"]
    val = ksubset_mi(P, mech.k, mech.eps) if not reasons else None
    return ProblemAudit(
        violation=max(0.0, mech.eps - eps), eps_audited=mech.eps, notion="ldp", eps=eps, reasons=reasons, value=val
    )


def _prior(prior: Any) -> np.ndarray:
    try:
        return parse_prior(prior) if isinstance(prior, str) else validate_prior(prior)
    except ProblemError as exc:
        raise ProblemError(f"prior: {exc}") from None


def _design_hook(problem: Any) -> Result | None:
    """Closed form for a generic ChannelDesign: ε-LDP (complete graph) + MI + uniform prior → Theorem 2.1."""
    if type(getattr(problem, "notion", None)) is not LDP or not isinstance(
        getattr(problem, "utility", None), MutualInfo
    ):
        return None
    P = np.asarray(problem.prior, dtype=float)
    if P.size < 2 or not _uniform(P):
        return None
    res = ksubset_result(P.size, problem.notion.eps, problem=getattr(problem, "id", None))
    # a generic design audits the matrix, so only materialisable channels are offered (use kss-mi beyond)
    return res if res.mechanism.materialisable else None


CLOSED_FORMS = [_design_hook]
PROBLEMS = {"kss-mi": KssMI}
