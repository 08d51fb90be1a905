"""``gauss-tradeoff``: the Gaussian privacy–utility tradeoff of Sharma & Amariucai.

Features X ∈ ℝⁿ, private attributes X_p and utility attributes X_u are
jointly Gaussian, given by Σ_{X∪Xp} and Σ_{X∪Xu}. The release is Y = X + N,
N ~ 𝒩(0, diag(v)), v ∈ [0, ∞]ⁿ (v_i = ∞ suppresses feature i). The program
(Section III-B, eqs. (1)–(3)) is

    minimise_v   I(X_p; Y)
    subject to   I(X_u; X) − I(X_u; Y) ≤ δ                                 (1)
                 [I(X_p; X) − I(X_p; Y)] ≥ γ [I(X_u; X) − I(X_u; Y)]       (2)
                 v ≥ 0                                                     (3)

where (2) is the paper's ratio "end privacy gain / end utility loss ≥ γ"
multiplied out (so it also holds at v = 0, where both are 0). With
``utility="fisher"`` (eqs. (4)–(6)) the utility is tr 𝓘(X_u), the Fisher
information of eqs. (10)–(11); the δ threshold is mapped by eq. (13),
𝓘 ≥ (e^{2(I(X_u;X) − δ)} − 1)/σ_u² (for n_u > 1 by its isotropic extension
n_u (e^{2(I(X_u;X) − δ)/n_u} − 1)/σ̄², σ̄² = |Σ_u|^{1/n_u}, exact when
Σ_u^{½} 𝓘 Σ_u^{½} ∝ I), and γ by the slope of eq. (13) at v = 0 unless
``delta_fisher`` / ``gamma_fisher`` are given.

Examples
--------
>>> import mechopt
>>> prob = GaussProblem.from_params(dataset="1", delta="0.3", gamma="0")
>>> r = mechopt.solve(prob, solver="sqp", n_starts=4)
>>> r.status.value, r.violation <= 1e-7, round(r.value, 4)      # sqp is a local method
('locally_optimal', True, 1.1617)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.forms import NLPForm
from mechopt.model.problem import Problem, ProblemAudit
from mechopt.problems.gauss.data import DATASETS, validate_blocks
from mechopt.problems.gauss.info import fisher_s, mi_s, s_from_var, var_from_s
from mechopt.problems.gauss.noise import GaussianNoise
from mechopt.problems.gauss.params import parse_matrix, parse_number
from mechopt.results.result import Result

__all__ = ["GaussianNoise", "GaussProblem", "GaussDataset1", "GaussDataset2", "PROBLEMS"]


@dataclass(frozen=True, eq=False)
class GaussProblem(Problem):
    """The δ/γ-constrained Gaussian privacy–utility tradeoff (module docstring).

    Examples
    --------
    >>> p = GaussProblem.from_params(dataset="1", delta="0.2")
    >>> p.n, p.n_u, round(p.utility_full, 4)
    (2, 1, 1.0647)
    """

    cov_p: np.ndarray
    cov_u: np.ndarray
    n: int
    delta: float = 0.3
    gamma: float = 0.0
    utility: str = "mi"
    delta_fisher: float | None = None
    gamma_fisher: float | None = None
    psd: str = "error"
    psd_floor: float = 1e-3
    dataset: str | None = None
    notes: tuple[str, ...] = field(default=(), repr=False)

    id: ClassVar[str] = "gauss-tradeoff"
    paper: ClassVar[str] = "gauss"
    sense: ClassVar[str] = "min"
    objective: ClassVar[str] = "I(Xp;Y)"
    unit: ClassVar[str | None] = "nats"

    def __post_init__(self) -> None:
        cp, cu, notes = validate_blocks(self.cov_p, self.cov_u, self.n, self.psd, self.psd_floor)
        object.__setattr__(self, "cov_p", cp)
        object.__setattr__(self, "cov_u", cu)
        object.__setattr__(self, "notes", tuple(self.notes) + tuple(notes))
        if self.utility not in ("mi", "fisher"):
            raise ProblemError(f"utility must be 'mi' or 'fisher', got {self.utility!r}")
        for name in ("delta", "gamma"):
            parse_number(name, getattr(self, name), lo=0.0)
        for name in ("delta_fisher", "gamma_fisher"):
            parse_number(name, getattr(self, name), lo=0.0, allow_none=True)

    # -- construction ------------------------------------------------------------
    @classmethod
    def from_params(
        cls,
        dataset: Any = None,
        cov_p: Any = None,
        cov_u: Any = None,
        n: Any = None,
        delta: Any = 0.3,
        gamma: Any = 0.0,
        utility: Any = "mi",
        delta_fisher: Any = None,
        gamma_fisher: Any = None,
        psd: Any = "error",
        psd_floor: Any = 1e-3,
    ) -> "GaussProblem":
        """Build from CLI-style strings: ``dataset="1"|"2"`` or ``cov_p``, ``cov_u``, ``n``.

        Examples
        --------
        >>> GaussProblem.from_params(cov_p="2,1;1,1", cov_u="2,0.5;0.5,1", n="1").n_u
        1
        """
        if dataset is not None:
            key = str(dataset).strip()
            if key not in DATASETS:
                raise ProblemError(f"dataset must be one of {sorted(DATASETS)}, got {dataset!r}")
            data = DATASETS[key]
            cov_p = data["cov_p"] if cov_p is None else cov_p
            cov_u = data["cov_u"] if cov_u is None else cov_u
            n = data["n"] if n is None else n
        elif cov_p is None or cov_u is None:
            raise ProblemError("give dataset=1|2, or both cov_p (Σ_{X∪Xp}) and cov_u (Σ_{X∪Xu}) with n")
        n_val = parse_number("n", n, lo=1)
        if n_val != int(n_val):
            raise ProblemError(f"n must be an integer, got {n!r}")
        return cls(
            cov_p=parse_matrix("cov_p", cov_p),
            cov_u=parse_matrix("cov_u", cov_u),
            n=int(n_val),
            delta=parse_number("delta", delta, lo=0.0),
            gamma=parse_number("gamma", gamma, lo=0.0),
            utility=str(utility).strip().lower(),
            delta_fisher=parse_number("delta_fisher", delta_fisher, lo=0.0, allow_none=True),
            gamma_fisher=parse_number("gamma_fisher", gamma_fisher, lo=0.0, allow_none=True),
            psd=str(psd).strip().lower(),
            psd_floor=parse_number("psd_floor", psd_floor, lo=0.0),
            dataset=None if dataset is None else str(dataset).strip(),
        )

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"delta": self.delta, "gamma": self.gamma, "utility": self.utility, "psd": self.psd}
        if self.dataset is not None:
            out["dataset"] = self.dataset
        else:
            out.update(n=self.n, cov_p=self.cov_p.tolist(), cov_u=self.cov_u.tolist())
        if self.utility == "fisher":
            out.update(delta_fisher=self.fisher_threshold, gamma_fisher=self.gamma_utility)
        return out

    def with_params(self, **changes: Any) -> "GaussProblem":
        """A copy with ``delta``, ``gamma``, ``utility``... changed (validated again).

        Examples
        --------
        >>> p = GaussProblem.from_params(dataset="1")
        >>> p.with_params(delta=0.5, utility="fisher").utility
        'fisher'
        """
        kw = {
            k: getattr(self, k)
            for k in (
                "cov_p",
                "cov_u",
                "n",
                "delta",
                "gamma",
                "utility",
                "delta_fisher",
                "gamma_fisher",
                "psd",
                "psd_floor",
                "dataset",
                "notes",
            )
        }
        kw.update(changes)
        return type(self)(**kw)

    # -- sizes and reference quantities -------------------------------------------
    @property
    def n_p(self) -> int:
        return self.cov_p.shape[0] - self.n

    @property
    def n_u(self) -> int:
        return self.cov_u.shape[0] - self.n

    @cached_property
    def var_x(self) -> np.ndarray:
        return np.diag(self.cov_p)[: self.n].copy()

    @cached_property
    def privacy_full(self) -> float:
        """I(X_p; X): the leak with no noise."""
        return float(mi_s(self.cov_p, self.n, np.ones(self.n)))

    @cached_property
    def mi_full(self) -> float:
        """I(X_u; X)."""
        return float(mi_s(self.cov_u, self.n, np.ones(self.n)))

    @cached_property
    def _sbar2(self) -> float:
        return float(np.exp(np.linalg.slogdet(self.cov_u[self.n :, self.n :])[1] / self.n_u))

    def fisher_to_nats(self, phi: Any) -> Any:
        """Eq. (13) (isotropic extension for n_u > 1): I = (n_u/2) log(1 + σ̄² φ / n_u).

        Examples
        --------
        >>> p = GaussProblem.from_params(dataset="1", utility="fisher")
        >>> bool(abs(p.fisher_to_nats(p.utility_full) - p.mi_full) < 1e-12)
        True
        """
        return 0.5 * self.n_u * np.log1p(self._sbar2 * np.asarray(phi) / self.n_u)

    def nats_to_fisher(self, mi: float) -> float:
        """Inverse of :meth:`fisher_to_nats` (eq. (13) solved for 𝓘)."""
        return float(self.n_u * np.expm1(2.0 * mi / self.n_u) / self._sbar2)

    @cached_property
    def utility_full(self) -> float:
        """The utility with no noise: I(X_u; X), or tr 𝓘(X_u) at v = 0."""
        return self.mi_full if self.utility == "mi" else float(self.utility_s(np.ones(self.n)))

    @cached_property
    def fisher_threshold(self) -> float:
        """The Fisher δ: given, or mapped from δ by eq. (13)."""
        if self.delta_fisher is not None:
            return float(self.delta_fisher)
        return max(0.0, self.nats_to_fisher(self.mi_full - self.delta)) if self.mi_full > self.delta else 0.0

    @cached_property
    def utility_threshold(self) -> float:
        """The utility must stay ≥ this: I(X_u;X) − δ, or the Fisher δ."""
        return self.mi_full - self.delta if self.utility == "mi" else self.fisher_threshold

    @cached_property
    def gamma_utility(self) -> float:
        """γ in the utility's units: γ for MI; for Fisher the given γ or γ × (dI/d𝓘 of eq. (13) at v = 0)."""
        if self.utility == "mi":
            return self.gamma
        if self.gamma_fisher is not None:
            return float(self.gamma_fisher)
        slope = 0.5 * self._sbar2 / (1.0 + self._sbar2 * self.utility_full / self.n_u)
        return self.gamma * slope

    # -- evaluation in the scaled parameter s ∈ [0, 1]ⁿ ---------------------------------
    def privacy_s(self, s: np.ndarray) -> Any:
        """I(X_p; Y) at s (batched)."""
        return mi_s(self.cov_p, self.n, s)

    def utility_s(self, s: np.ndarray) -> Any:
        """I(X_u; Y) or tr 𝓘(X_u) at s (batched); nondecreasing in every s_i."""
        if self.utility == "mi":
            return mi_s(self.cov_u, self.n, s)
        return np.trace(fisher_s(self.cov_u, self.n, s), axis1=-2, axis2=-1)

    def slacks_s(self, s: np.ndarray, P: Any = None, U: Any = None) -> tuple[Any, Any]:
        """(δ slack, γ slack), ≥ 0 when satisfied, in the utility's units (batched)."""
        P = self.privacy_s(s) if P is None else P
        U = self.utility_s(s) if U is None else U
        d = U - self.utility_threshold
        g = (self.privacy_full - P) - self.gamma_utility * (self.utility_full - U)
        return d, g

    def violation_s(self, s: np.ndarray) -> float:
        """max(δ violation, γ violation) in nats (Fisher shortfalls mapped by eq. (13))."""
        P, U = self.privacy_s(s), self.utility_s(s)
        d, g = self.slacks_s(s, P, U)
        if self.utility == "mi":
            vd = max(0.0, -float(d))
        else:
            vd = max(0.0, float(self.fisher_to_nats(self.utility_threshold) - self.fisher_to_nats(max(U, 0.0))))
        return max(vd, max(0.0, -float(g)))

    def s_of(self, v: Any) -> np.ndarray:
        return s_from_var(v, self.var_x)

    def noise_of(self, s: np.ndarray) -> GaussianNoise:
        return GaussianNoise(var_from_s(s, self.var_x), self.notes)

    def _variances(self, mech: Any) -> np.ndarray:
        v = mech.variances if isinstance(mech, GaussianNoise) else GaussianNoise(mech).variances
        if v.size != self.n:
            raise ProblemError(f"mechanism has {v.size} noise variances but the problem has n = {self.n} features")
        return v

    # -- audit and forms -----------------------------------------------------------
    def audit(self, result: Result) -> ProblemAudit:
        if result.mechanism is None:
            return ProblemAudit(violation=None, notion="delta-gamma", eps=self.delta)
        s = self.s_of(self._variances(result.mechanism))
        loss = self.mi_full - float(mi_s(self.cov_u, self.n, s))
        return ProblemAudit(
            violation=self.violation_s(s),
            eps_audited=loss,
            notion="delta-gamma",
            eps=self.delta,
            value=float(self.privacy_s(s)),
        )

    def nlp_form(self) -> NLPForm:
        from mechopt.problems.gauss.forms import nlp_form

        return nlp_form(self)

    def greedy_form(self) -> Any:
        from mechopt.problems.gauss.forms import greedy_form

        return greedy_form(self)

    def search_form(self) -> Any:
        from mechopt.problems.gauss.forms import search_form

        return search_form(self)


class GaussDataset1(GaussProblem):
    """``gauss-dataset1``: :class:`GaussProblem` on the paper's sample dataset 1 by default.

    Examples
    --------
    >>> GaussDataset1.from_params(delta="0.1").dataset
    '1'
    """

    id: ClassVar[str] = "gauss-dataset1"

    @classmethod
    def from_params(cls, dataset: Any = "1", **params: Any) -> GaussProblem:  # type: ignore[override]
        return super().from_params(dataset=dataset, **params)


class GaussDataset2(GaussProblem):
    """``gauss-dataset2``: sample dataset 2; as printed it is not PSD, so pass ``psd="project"``.

    Examples
    --------
    >>> GaussDataset2.from_params(psd="project").n
    6
    """

    id: ClassVar[str] = "gauss-dataset2"

    @classmethod
    def from_params(cls, dataset: Any = "2", **params: Any) -> GaussProblem:  # type: ignore[override]
        return super().from_params(dataset=dataset, **params)


PROBLEMS = {"gauss-tradeoff": GaussProblem, "gauss-dataset1": GaussDataset1, "gauss-dataset2": GaussDataset2}
