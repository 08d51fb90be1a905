"""Unbounded noise (Theorem 3, Corollary 6) and the dynamic LTI system (Theorem 4, Example 4).

**Corollary 6 (derivation).** For a density on R^m, tr J(γ) ≥ Σ_i J(γ_i) (the
Fisher information of a marginal is at most the diagonal entry of the joint)
and E‖w‖² = Σ_i E w_i², so products are optimal and each axis solves a 1-D
problem. Problem 3, min J(γ) + ξ E w²: with γ = q², 4∫q'² + ξ∫w²q² under
∫q² = 1 is the harmonic oscillator −4q'' + ξw²q = λq, ground state
q ∝ exp(−√ξ w²/4), so γ = N(0, ξ^{-1/2}) and λ = 2√ξ: the optimum of
Problem 3 is N(0, ξ^{-1/2} I) with cost 2m√ξ. Problem 4 (E‖w‖² ≤ σ²) has zero
duality gap; J of a Gaussian decreases with its variance, so the bound is
active and splits evenly (1/s is convex): N(0, (σ²/m) I), tr J = m²/σ².

**Theorem 4 (derivation).** x_{k+1} = A x_k, y_k = C x_k + w_k (k = 0..T),
stacked y = O x_0 + w, O = [C; CA; …; CA^T]. For noise w with covariance Σ
the Fisher information of x_0 is Oᵀ I_w O ⪰ Oᵀ Σ⁻¹ O (Gaussians minimise the
Fisher information at fixed covariance), so Problem 3 becomes the SDP

    minimise tr(Oᵀ Σ⁻¹ O) + ξ tr Σ  ⇔  minimise tr Z + ξ tr Σ  s.t.  [[Z, Oᵀ], [O, Σ]] ⪰ 0

(Schur complement; tr(OᵀΣ⁻¹O) is a matrix-fractional function). With the SVD
O = U D Vᵀ, stationarity Σ⁻¹OOᵀΣ⁻¹ = ξI gives Σ* = ξ^{-1/2}(OOᵀ)^{1/2} = ξ^{-1/2} U D Uᵀ
(singular when O is tall: the infimum is approached from Σ ≻ 0), with cost
2√ξ tr D = 2√ξ tr (OᵀO)^{1/2}. Theorem 4's noise w = O v, v ~ N(0, S),
S = ξ^{-1/2}(OᵀO)^{-1/2}, has covariance O S Oᵀ = ξ^{-1/2} U D Uᵀ = Σ*: the
formula is the optimum. Its Fisher information of x_0 is S⁻¹ (y = O(x_0 + v)).

Examples
--------
>>> p = FisherGaussian.from_params(m="2", sigma2="4")
>>> p.closed_form().value
1.0
>>> q = FisherLTI.from_params(A="1,1;0,1", C="1,0", T="3", xi="1")
>>> bool(abs(q.closed_form().value - 2 * np.trace(q.sqrt_gram())) < 1e-12)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from scipy.linalg import sqrtm

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.forms import ConicForm, SpectralAxis, SpectralForm
from mechopt.model.problem import Problem, ProblemAudit
from mechopt.problems.fisher.base import PAPER, _only, parse_float, parse_int
from mechopt.problems.fisher.extrapolate import grid_estimate, solve_program, truncation_estimate
from mechopt.problems.fisher.grid import GaussianNoise, GridDensity, ProductDensity, check_density, interval_program
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result

__all__ = ["FisherGaussian", "FisherLTI", "parse_matrix", "observability", "lti_fisher"]


@dataclass(frozen=True, eq=False)
class FisherGaussian(Problem):
    """Problems 3/4 on R^m: minimise tr J(γ) (+ ξ E‖w‖²) (s.t. E‖w‖² ≤ σ²).

    Exactly one of ``sigma2`` (Problem 4) and ``xi`` (Problem 3). The grid forms
    truncate R to [−R, R] with R = ``width`` standard deviations of the optimum.

    >>> FisherGaussian(m=1, xi=4.0).closed_form().value
    4.0
    """

    m: int = 1
    sigma2: float | None = None
    xi: float | None = None
    n: int = 2000
    width: float = 12.0

    id: ClassVar[str] = "fisher-gaussian"
    unit: ClassVar[str | None] = "1/units² (units of the parameter θ)"
    paper: ClassVar[str] = PAPER

    def __post_init__(self) -> None:
        if (self.sigma2 is None) == (self.xi is None):
            raise ProblemError("give exactly one of sigma2 (variance bound, Problem 4) and xi (penalty, Problem 3)")
        for name in ("sigma2", "xi"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise ProblemError(f"{name} must be > 0, got {v}")
        if self.m < 1 or self.n < 3 or not self.width > 0:
            raise ProblemError(f"need m >= 1, n >= 3, width > 0; got m={self.m}, n={self.n}, width={self.width}")

    @property
    def objective(self) -> str:  # type: ignore[override]
        return "fisher_trace" if self.xi is None else "fisher_trace+penalty"

    @property
    def axis_variance(self) -> float:
        """Variance of each coordinate of the optimum (σ²/m or ξ^{-1/2})."""
        return self.sigma2 / self.m if self.sigma2 is not None else self.xi**-0.5

    @property
    def R(self) -> float:
        return self.width * math.sqrt(self.axis_variance)

    @classmethod
    def from_params(cls, **params: Any) -> "FisherGaussian":
        _only(cls.id, params, {"m", "sigma2", "xi", "n", "width"})
        s2, xi = params.get("sigma2"), params.get("xi")
        if s2 is None and xi is None:  # the CLI default: Problem 4 with E‖w‖² ≤ 1
            s2 = 1.0
        return cls(
            parse_int("m", params.get("m", 1), 1, 1000),
            None if s2 is None else parse_float("sigma2", s2),
            None if xi is None else parse_float("xi", xi),
            parse_int("n", params.get("n", 2000), 3),
            parse_float("width", params.get("width", 12.0)),
        )

    def params(self) -> dict[str, Any]:
        return {"m": self.m, "sigma2": self.sigma2, "xi": self.xi, "n": self.n, "width": self.width}

    def closed_form(self) -> Result:
        """Corollary 6: N(0, (σ²/m) I) with tr J = m²/σ², or N(0, ξ^{-1/2} I) with cost 2m√ξ.

        Proven for every m, σ² and ξ (Fisher paper Theorem 3 / Corollary 6,
        Appendices I–J; derivation in the module docstring) and verified
        (claims ``fisher.thm3`` for ξ, ``fisher.cor6`` for σ²): ``optimal``
        with ``proof="theorem"``.

        >>> r = FisherGaussian(m=2, sigma2=4.0).closed_form()
        >>> r.status.value, r.proof, r.extras["claim"]
        ('optimal', 'theorem', 'fisher.cor6')
        """
        s = self.axis_variance
        value = self.m**2 / self.sigma2 if self.sigma2 is not None else 2 * self.m * math.sqrt(self.xi)
        claim = "fisher.cor6" if self.sigma2 is not None else "fisher.thm3"
        return theorem_result(
            claim=claim,
            proven=True,
            value=value,
            sense="min",
            objective=self.objective,
            mechanism=GaussianNoise(s * np.eye(self.m)),
            problem=self.id,
            extras={"theorem": "Corollary 6", "variance": self.m * s, "fisher_trace": self.m / s},
        )

    def _value(self, J: float, second_moment: float) -> float:
        return J if self.xi is None else J + self.xi * second_moment

    def conic_form(self) -> ConicForm:
        """One axis on the truncated grid, budget σ²/m (Problem 4) or penalty ξ w² (Problem 3)."""
        pot = None if self.xi is None else (lambda w: self.xi * w**2)
        vb = None if self.sigma2 is None else self.sigma2 / self.m
        prob, p, _ = interval_program(-self.R, self.R, self.n, potential=pot, variance_bound=vb)
        extras: dict[str, Any] = {}

        def recover() -> ProductDensity:
            g = GridDensity(-self.R, self.R, np.clip(np.asarray(p.value, float), 0.0, None))
            return ProductDensity((g,) * self.m)

        def value_of(opt: float) -> float:
            mech = recover()
            val = self._value(mech.fisher(), sum(g.moment(2) for g in mech.axes))
            extras.update(
                grid_points=self.n,
                program_value=self.m * float(opt) / (2 * self.R) ** 2,
                truncation=self.R,
                variance=sum(g.moment(2) for g in mech.axes),
                fisher_trace=mech.fisher(),
            )
            extras.update(self._error_estimate(val))
            return val

        return ConicForm(
            problem=prob,
            recover=recover,
            sense="min",
            objective=self.objective,
            value_of=value_of,
            extras=extras,
            scope=f"the {self.n}-point discretisation of [-{self.R:g}, {self.R:g}] (R truncated)",
        )

    def _grid_value(self, n: int, R: float) -> float | None:
        """The value of the grid program on [−R, R] with n interior points (None if it does not solve)."""
        pot = None if self.xi is None else (lambda w: self.xi * w**2)
        vb = None if self.sigma2 is None else self.sigma2 / self.m
        prob, p, _ = interval_program(-R, R, n, potential=pot, variance_bound=vb)
        if not solve_program(prob):
            return None
        g = GridDensity(-R, R, np.clip(np.asarray(p.value, float), 0.0, None))
        return self._value(self.m * g.fisher(), self.m * g.moment(2))

    def _error_estimate(self, value: float) -> dict[str, Any]:
        """Grid error (Richardson) plus truncation error of the conic value: |value − optimum on R^m|.

        See :mod:`~mechopt.problems.fisher.extrapolate`; without both parts no
        ``error_estimate`` is given (``error_note`` says why).
        """
        est = grid_estimate(lambda k: self._grid_value(k, self.R), self.n, value)
        trunc = truncation_estimate(self._grid_value, self.n, self.R, value)
        if "error_estimate" not in est or "truncation_error" not in trunc:
            notes = [d["error_note"] for d in (est, trunc) if "error_note" in d]
            return {"error_note": "; ".join(notes)}
        est["error_estimate"] += trunc["truncation_error"]
        est["extrapolated_error"] += trunc["truncation_error"]
        return {**est, **trunc}

    def spectral_form(self) -> SpectralForm:
        pot = None if self.xi is None else (lambda w: self.xi * w**2)
        axes = (SpectralAxis(-self.R, self.R, pot),) * self.m
        return SpectralForm(
            axes=axes,
            recover=lambda ds: ProductDensity(tuple(ds)),
            objective=self.objective,
            variance_bound=self.sigma2,
        )

    def audit(self, result: Result) -> ProblemAudit:
        mech = result.mechanism
        if isinstance(mech, GaussianNoise):
            cov = np.asarray(mech.cov, float)
            m2, J = float(np.trace(cov)), float(np.trace(np.linalg.inv(cov)))
            reasons: list[str] = []
        elif isinstance(mech, ProductDensity):
            reasons = [r for g in mech.axes for r in check_density(g, settings.tolerance("density"))]
            m2, J = sum(g.moment(2) for g in mech.axes), mech.fisher()
        else:
            return ProblemAudit(violation=None, reasons=["unknown mechanism type"])
        viol = 0.0 if self.sigma2 is None else max(0.0, m2 - self.sigma2) / self.sigma2
        return ProblemAudit(violation=viol, notion="variance", reasons=reasons, value=self._value(J, m2))


def parse_matrix(name: str, value: Any) -> np.ndarray:
    """A matrix from "1,1;0,1" (rows separated by ';') or nested lists.

    >>> parse_matrix("A", "1,1;0,1").tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    try:
        if isinstance(value, str):
            rows = [[float(v) for v in r.split(",") if v.strip()] for r in value.split(";") if r.strip()]
            M = np.array(rows, dtype=float)
        else:
            M = np.atleast_2d(np.asarray(value, dtype=float))
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a matrix like '1,1;0,1', got {value!r}") from None
    if M.ndim != 2 or M.size == 0 or not np.all(np.isfinite(M)):
        raise ProblemError(f"{name} must be a finite 2-D matrix, got {value!r}")
    return M


def observability(A: np.ndarray, C: np.ndarray, T: int) -> np.ndarray:
    """O = [C; CA; …; CA^T] ((T+1)p × n).

    >>> observability(np.array([[1.0, 1.0], [0.0, 1.0]]), np.array([[1.0, 0.0]]), 2).tolist()
    [[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]]
    """
    blocks, M = [], np.eye(A.shape[0])
    for _ in range(T + 1):
        blocks.append(C @ M)
        M = A @ M
    return np.vstack(blocks)


def lti_fisher(O: np.ndarray, cov: np.ndarray, rtol: float | None = None) -> float:
    """tr(Oᵀ Σ⁺ O), the Fisher trace of x_0; +inf if O leaves the range of Σ.

    >>> lti_fisher(np.eye(2), 2 * np.eye(2))
    1.0
    """
    rtol = settings.resolve(rtol, "cov_rank")
    s, U = np.linalg.eigh((cov + cov.T) / 2)
    keep = s > rtol * max(s.max(), 0.0)
    proj = U[:, keep].T @ O
    resid = O - U[:, keep] @ proj
    if np.linalg.norm(resid) > settings.tolerance("cov_range") * max(1.0, np.linalg.norm(O)):
        return math.inf
    return float(np.sum(proj**2 / s[keep][:, None]))


@dataclass(frozen=True, eq=False)
class FisherLTI(Problem):
    """Theorem 4: minimise tr(Fisher of x_0 from y_0..y_T) + ξ E‖w‖² over the noise.

    >>> FisherLTI.from_params(A="1,1;0,1", C="1,0", T="2", xi="4").sqrt_gram().shape
    (2, 2)
    """

    A: np.ndarray
    C: np.ndarray
    T: int
    xi: float

    id: ClassVar[str] = "fisher-lti"
    paper: ClassVar[str] = PAPER
    objective: ClassVar[str] = "fisher_trace+penalty"
    unit: ClassVar[str | None] = "1/units² (units of the parameter θ)"

    def __post_init__(self) -> None:
        A, C = np.atleast_2d(np.asarray(self.A, float)), np.atleast_2d(np.asarray(self.C, float))
        if A.shape[0] != A.shape[1] or C.shape[1] != A.shape[0]:
            raise ProblemError(f"A must be n×n and C p×n; got A {A.shape}, C {C.shape}")
        if self.T < 0 or not self.xi > 0:
            raise ProblemError(f"need T >= 0 and xi > 0, got T={self.T}, xi={self.xi}")
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "C", C)
        if np.linalg.matrix_rank(self.O) < A.shape[0]:
            raise ProblemError(
                "O = [C; CA; ...; CA^T] must have full column rank (Theorem 4): "
                "the initial state must be observable within the horizon; increase T"
            )

    @property
    def O(self) -> np.ndarray:  # noqa: E743  (the paper's observability matrix, a public name; see E741 in pyproject)
        return observability(self.A, self.C, self.T)

    @classmethod
    def from_params(cls, **params: Any) -> "FisherLTI":
        _only(cls.id, params, {"A", "C", "T", "xi", "dt"})
        if "A" not in params and "dt" in params:  # Example 4: the vehicle on a road
            dt = parse_float("dt", params["dt"])
            A, C = np.array([[1.0, dt], [0.0, 1.0]]), np.array([[1.0, 0.0]])
        else:
            A = parse_matrix("A", params.get("A", "1,1;0,1"))
            C = parse_matrix("C", params.get("C", "1,0"))
        return cls(A, C, parse_int("T", params.get("T", 5), 0, 10_000), parse_float("xi", params.get("xi", 1.0)))

    def params(self) -> dict[str, Any]:
        return {"A": self.A.tolist(), "C": self.C.tolist(), "T": self.T, "xi": self.xi}

    def sqrt_gram(self) -> np.ndarray:
        """(OᵀO)^{1/2}."""
        return np.real(sqrtm(self.O.T @ self.O))

    def closed_form(self) -> Result:
        """Theorem 4: w = O v, v ~ N(0, ξ^{-1/2}(OᵀO)^{-1/2}); cost 2√ξ tr (OᵀO)^{1/2}.

        Proven whenever O has full column rank (checked at construction; Fisher
        paper Theorem 4, derivation in the module docstring) and verified
        (claim ``fisher.thm4``): ``optimal`` with ``proof="theorem"``.
        """
        O, R = self.O, self.sqrt_gram()
        S = np.linalg.inv(R) / math.sqrt(self.xi)
        cov = O @ S @ O.T
        value = 2 * math.sqrt(self.xi) * float(np.trace(R))
        return theorem_result(
            claim="fisher.thm4",
            proven=True,
            value=value,
            sense="min",
            objective=self.objective,
            mechanism=GaussianNoise(cov, generator=O, generator_cov=S),
            problem=self.id,
            extras={
                "theorem": "Theorem 4",
                "quality": float(np.trace(cov)),
                "fisher_trace": float(np.trace(np.linalg.inv(S))),
            },
        )

    def conic_form(self) -> ConicForm:
        """The SDP of the module docstring over the stacked noise covariance Σ.

        Posed at ξ = 1: with Σ = Σ'/√ξ and Z = √ξ Z' the LMI keeps its form (a
        congruence) and the objective is √ξ (tr Z' + tr Σ'), so the program is
        solved once in well-scaled variables (ξ = 1e-10 left Clarabel's "optimal"
        30 % above Theorem 4's optimum) and Σ is scaled back.
        """
        import cvxpy as cp

        O = self.O
        N, n = O.shape
        Sig = cp.Variable((N, N), symmetric=True)
        Z = cp.Variable((n, n), symmetric=True)
        lmi = cp.bmat([[Z, O.T], [O, Sig]])
        prob = cp.Problem(cp.Minimize(cp.trace(Z) + cp.trace(Sig)), [(lmi + lmi.T) / 2 >> 0])
        root = math.sqrt(self.xi)
        extras: dict[str, Any] = {}

        def recover() -> GaussianNoise:
            return GaussianNoise((Sig.value + Sig.value.T) / (2 * root))

        def value_of(opt: float) -> float:
            cov = recover().cov
            val = lti_fisher(O, cov) + self.xi * float(np.trace(cov))
            extras.update(
                program_value=root * float(opt), quality=float(np.trace(cov)), size=N, fisher_trace=lti_fisher(O, cov)
            )
            return val

        return ConicForm(
            problem=prob, recover=recover, sense="min", objective=self.objective, value_of=value_of, extras=extras
        )

    def audit(self, result: Result) -> ProblemAudit:
        mech = result.mechanism
        if not isinstance(mech, GaussianNoise):
            return ProblemAudit(violation=None, reasons=["mechanism is not a GaussianNoise"])
        cov = np.asarray(mech.cov, float)
        reasons = []
        if np.linalg.eigvalsh((cov + cov.T) / 2).min() < -settings.tolerance("psd") * max(1.0, np.abs(cov).max()):
            reasons.append("noise covariance is not positive semidefinite")
        if mech.generator_cov is not None:
            J = float(np.trace(np.linalg.inv(mech.generator_cov)))
        else:
            J = lti_fisher(self.O, cov)
        return ProblemAudit(violation=0.0, notion="fisher", reasons=reasons, value=J + self.xi * float(np.trace(cov)))
