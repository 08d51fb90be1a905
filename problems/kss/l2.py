"""``kss-l2``: ε-LDP discrete distribution estimation under squared ℓ2 error.

n users hold a dataset with empirical distribution θ; each reports Z ~ Q[x, ·]
independently; the aggregator estimates θ by θ̂ = R f / n with
R = (QQᵀ)⁻¹Q and f the output counts (unbiased for Q of full row rank). Then

    E‖θ̂ − θ‖² = (1/n) (Σ_z λ_z ‖R[:, z]‖² − 1),   λ = θᵀQ,

and the problem is

    minimise   (Σ_z λ_z ‖R[:, z]‖² − 1) / n
    s.t.       Q ∈ R^{d×m},  Q ≥ 0,  Q 1 = 1,  Q[x,z] ≤ e^ε Q[x',z],  rank Q = d.

Gradient (used by the NLP form), with G = QQᵀ, A = R Λ Rᵀ, Λ = diag(λ):

    ∂/∂Q Σ_z λ_z ‖R_z‖² = θ ‖R_·‖²ᵀ + 2 G⁻¹ R Λ − 2 (A G⁻¹ + G⁻¹ A) Q.

Closed form: the k#-subset mechanism (Theorem 3.1), whose least-squares
estimator is the remapping estimator of Algorithm 2 and whose error is
[g(1−g) + (d−1)h(1−h)] / (n (g−h)²) for every θ.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.kss.l2 import KssL2
>>> from mechopt.oracles.frequency import KSubset
>>> p = KssL2.from_params(prior="uniform:5", eps="1", n="100")
>>> Q = KSubset(5, 1.0, k=p.closed_form().extras["k"]).matrix()
>>> bool(np.isclose(p.evaluate(Q), p.closed_form().value))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.counting import comb_at_most
from mechopt.model.forms import NLPForm
from mechopt.model.numbers import ascii_float
from mechopt.model.problem import ChannelProblem, ProblemAudit
from mechopt.notions import PrivacyNotion
from mechopt.oracles.base import check_eps
from mechopt.problems.kss import formulas as F
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result
from mechopt.utilities import Utility

__all__ = ["PROBLEMS", "EstimationL2", "KssL2", "l2_value_grad"]


def l2_value_grad(Q: np.ndarray, theta: np.ndarray) -> tuple[float, np.ndarray]:
    """(Σ_z λ_z ‖R_z‖², its gradient in Q) for R = (QQᵀ)⁻¹Q, λ = θᵀQ; inf when rank-deficient.

    Examples
    --------
    >>> import numpy as np
    >>> v, g = l2_value_grad(np.eye(3), np.full(3, 1 / 3))
    >>> float(v), g.shape
    (1.0, (3, 3))
    """
    # Through the SVD Q = U S Vᵀ: R = U S⁻¹ Vᵀ and G⁻¹ = U S⁻² Uᵀ. Forming G = QQᵀ and inverting it
    # squares the condition number (ε = 1e-6: cond G ≈ 1e12, a relative error ~1e-4 in the value).
    try:
        U, s, Vt = np.linalg.svd(Q, full_matrices=False)
    except np.linalg.LinAlgError:
        return math.inf, np.zeros_like(Q)
    if Q.shape[0] > Q.shape[1] or not (s.min() > 0 and (s.max() / s.min()) ** 2 <= settings.tolerance("condition")):
        return math.inf, np.zeros_like(Q)
    R = (U / s) @ Vt
    Gi = (U / s**2) @ U.T
    lam = theta @ Q
    norms = (R**2).sum(axis=0)
    A = (R * lam) @ R.T
    grad = np.outer(theta, norms) + 2 * Gi @ (R * lam) - 2 * (A @ Gi + Gi @ A) @ Q
    return float(lam @ norms), grad


class EstimationL2(Utility):
    """E‖θ̂ − θ‖² of the least-squares (remapping) estimator over n users, minimised."""

    name = "l2-est"
    sense = "min"
    unit = "unitless (squared probability)"

    def __init__(self, n: int) -> None:
        self.n = int(n)

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        v, _ = l2_value_grad(np.asarray(Q, float), np.asarray(prior, float))
        return (v - 1.0) / self.n

    def params(self) -> dict[str, Any]:
        return {"utility": self.name, "n": self.n}


@dataclass(frozen=True, eq=False)
class KssL2(ChannelProblem):
    """ε-LDP distribution estimation with squared-ℓ2 error (module docstring).

    ``prior`` is the dataset's distribution θ; ``outputs`` the number m of
    outputs of the NLP (default C(d, k#) when ≤ 40, else 2d).
    """

    prior: np.ndarray
    eps: float
    n: int = 10_000
    outputs: int | None = None
    notion: PrivacyNotion = field(init=False)
    utility: Utility = field(init=False)

    id: ClassVar[str] = "kss-l2"
    paper: ClassVar[str] = "kss"

    def __post_init__(self) -> None:
        from mechopt.problems.kss.problems import ldp_fields

        P = ldp_fields(self)
        if int(self.n) != self.n or self.n < 1:
            raise ProblemError(f"n must be a positive integer number of users, got {self.n!r}")
        object.__setattr__(self, "n", int(self.n))
        if self.outputs is not None and (int(self.outputs) != self.outputs or self.outputs < P.size):
            raise ProblemError(f"outputs must be an integer ≥ d = {P.size} (an unbiased estimator needs rank d)")
        object.__setattr__(self, "utility", EstimationL2(self.n))

    @classmethod
    def from_params(
        cls, *, prior: Any = "uniform:4", eps: Any = 1.0, n: Any = 10_000, outputs: Any = None, **extra: Any
    ) -> "KssL2":
        """Build from CLI strings: prior, eps, n (users), outputs (NLP outputs)."""
        from mechopt.problems.kss.problems import _prior

        if extra:
            raise ProblemError(f"unknown kss-l2 parameter(s) {sorted(extra)}; known: prior, eps, n, outputs")
        return cls(
            prior=_prior(prior),
            eps=check_eps(eps),
            n=_int("n", n),
            outputs=None if outputs in (None, "", "none") else _int("outputs", outputs),
        )

    @property
    def d(self) -> int:
        return int(self.prior.size)

    @property
    def m(self) -> int:
        if self.outputs is not None:
            return int(self.outputs)
        k = F.k_sharp(self.d, self.eps)
        return math.comb(self.d, k) if comb_at_most(self.d, k, 40) else 2 * self.d

    def column_program(self):
        return None  # R couples all columns: not a column program

    def closed_form(self) -> Result | None:
        """The k#-subset mechanism of Theorems 3.1–3.2: ``feasible``, never ``optimal``.

        Theorem 3.1 (k-subset paper, Section 3; claim ``kss.thm3_1``: holds)
        proves k# optimal among k-subset mechanisms, Theorem 3.2 (claim
        ``kss.thm3_2``: holds) among the symmetric power-set mechanisms; neither
        is a proof over all ε-LDP channels, so this is an audited ε-LDP
        mechanism without a proof of optimality.

        >>> r = KssL2.from_params(prior="uniform:4", eps="1", n="100").closed_form()
        >>> r.status.value, r.proof, r.extras["claim"]
        ('feasible', None, 'kss.thm3_1')
        """
        from mechopt.problems.kss.problems import KSubsetMechanism

        d, eps = self.d, self.eps
        k = F.k_sharp(d, eps)
        return theorem_result(
            claim="kss.thm3_1",
            proven=False,
            why="Theorems 3.1-3.2 prove it optimal among the power-set mechanisms of "
            "Theorem 3.2 only, not over all eps-LDP channels",
            value=F.l2_ksubset(d, k, eps, self.n),
            sense="min",
            objective=self.objective,
            mechanism=KSubsetMechanism(d, k, eps),
            notion="ldp",
            eps=eps,
            problem=self.id,
            message="Theorems 3.1-3.2: k#-subset mechanism",
            extras={"k": k, "theorem": "kss Theorem 3.1"},
        )

    def audit(self, result: Result) -> ProblemAudit:
        from mechopt.problems.kss.problems import KSubsetMechanism

        mech = result.mechanism
        if isinstance(mech, KSubsetMechanism) and not mech.materialisable:
            return ProblemAudit(
                violation=max(0.0, mech.eps - self.eps),
                eps_audited=mech.eps,
                notion="ldp",
                eps=self.eps,
                value=F.l2_ksubset(mech.d, mech.k, mech.eps, self.n),
            )
        return super().audit(result)

    def nlp_form(self) -> NLPForm:
        return _l2_nlp(self)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), "eps": self.eps, "n": self.n, "outputs": self.outputs}


_MAX_INT = 10**15  # users / outputs: beyond this the error formulas lose every digit


def _int(name: str, val: Any) -> int:
    if isinstance(val, (bool, np.bool_)):
        raise ProblemError(f"{name} must be a positive integer, got {val!r}")
    try:
        out = int(val) if isinstance(val, (int, np.integer)) else ascii_float(val)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a positive integer, got {val!r}") from None
    if isinstance(out, float) and not out.is_integer() or out < 1:
        raise ProblemError(f"{name} must be a positive integer, got {val!r}")
    if out > _MAX_INT:
        raise ProblemError(f"{name} = {val!r} is too large (at most {_MAX_INT})")
    return int(out)


def _l2_nlp(prob: KssL2) -> NLPForm:
    """NLP in x = vec(Q) (row-major, d × m): minimise Σ λ‖R‖² (per user) under rows-sum-1 and LDP."""
    from mechopt.programs.nlp import _clean, channel_constraints, private_starts

    P, d, m = prob.prior, prob.d, prob.m

    def fun(x: np.ndarray) -> float:
        v, _ = l2_value_grad(np.clip(x, 0, None).reshape(d, m), P)
        return v if math.isfinite(v) else 1e12

    def jac(x: np.ndarray) -> np.ndarray:
        _, g = l2_value_grad(np.clip(x, 0, None).reshape(d, m), P)
        return g.ravel()

    def recover(x: np.ndarray) -> np.ndarray:
        return _clean(x.reshape(d, m))

    return NLPForm(
        fun=fun,
        jac=jac,
        bounds=[(0.0, 1.0)] * (d * m),
        constraints=channel_constraints(prob, m),
        starts=private_starts(prob, m),
        recover=recover,
        value_of=lambda x: prob.evaluate(recover(x)),
        sense="min",
        objective=prob.objective,
    )


PROBLEMS = {"kss-l2": KssL2}
