"""Fisher-information noise design on an interval (``fisher-interval``, ``fisher-output``): Corollary 1 and its grid
SOCP (Farokhi & Sandberg, "Ensuring privacy with constrained additive noise by minimizing Fisher information";
seed 003).

The server answers y = f(x) + w with noise density γ on a support W and
minimises the trace of the Fisher information of x (Problem 2). For a scalar
query and γ independent of x, I(x) = ∇f(x)∇f(x)ᵀ J(γ) with J(γ) = ∫ γ'²/γ,
so the weighted cost ∫ρ(x) tr I(x) dx = c_f J(γ), c_f = ∫ρ‖∇f‖²: the query
only scales the cost (Corollaries 3 and 5), the optimal noise is the same.

Derivation of Corollary 1 (the formulas the seed lost; math.md §4). With
γ = q², J = 4∫q'² and ∫γ = ∫q² = 1; the stationarity condition (Theorem 2,
eq. (12)) is the Dirichlet eigenproblem −q'' = (λ/4) q on (a, b), q(a) = q(b) =
0, the time-independent Schrödinger equation (19). The ground state is
q ∝ cos(π(w − c)/L), c = (a + b)/2, L = b − a, so

    γ*(w) = (2/L) cos²(π (w − c)/L),   J* = 4π²/L²,   Var = L² (1/12 − 1/(2π²)).

On a box Π[a_i, b_i] the PDE separates (Appendix D): γ* = Π_i γ*_i and
tr J* = Σ_i 4π²/L_i² (a joint density has J_ii ≥ J(marginal i), so products
are optimal). Corollary 2: scaling the support by s scales J by 1/s² and the
variance by s²: J*·Var = 4π²(1/12 − 1/(2π²)) = π²/3 − 2 is independent of the
support, i.e. for any unbiased estimate x̂, E(x̂ − x)² ≥ 1/J* = Var/(π²/3 − 2):
privacy (the Cramér–Rao bound) and quality (the variance) are proportional.

Family (ii) (output constrained to Y = [a, b] for every database, query range
[f_lo, f_hi]): a noise independent of x must live in ∩_x (Y − f(x)) =
[a − f_lo, b − f_hi], which is again an interval (of length L − (f_hi − f_lo)).

This module holds the interval families (``fisher-interval``, ``fisher-output``); the box is
:mod:`~mechopt.problems.fisher.box`, the registry :mod:`~mechopt.problems.fisher.problems`.

Examples
--------
>>> import mechopt
>>> prob = problem_from_params(a="-1", b="1")
>>> r = mechopt.solve(prob, solver="closed-form")
>>> r.status.value, round(r.value, 12) == round(float(np.pi ** 2), 12)
('optimal', True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.forms import ConicForm, SpectralAxis, SpectralForm
from mechopt.model.problem import Problem, ProblemAudit
from mechopt.problems.fisher.base import PAPER, _only, parse_float, parse_int, query_factor
from mechopt.problems.fisher.extrapolate import grid_estimate, solve_program
from mechopt.problems.fisher.grid import GridDensity, check_density, interval_program
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result

__all__ = ["FisherInterval", "FisherOutput", "problem_from_params"]


def _fisher_extras(g: GridDensity, J: float) -> dict[str, Any]:
    """Grid size, quality (variance) and the Fisher trace of a grid density."""
    return {"grid_points": g.n, "h": g.h, "variance": g.variance(), "fisher_trace": J}


def _interval_value(a: float, b: float, n: int, factor: float) -> float | None:
    """c_f·J_h of the grid program on (a, b) with n interior points (None if it does not solve)."""
    prob, p, _ = interval_program(a, b, n)
    if not solve_program(prob):
        return None
    return factor * GridDensity(a, b, np.clip(np.asarray(p.value, float), 0.0, None)).fisher()


@dataclass(frozen=True, eq=False)
class FisherInterval(Problem):
    """Problem 2 on an interval: minimise c_f ∫γ'²/γ over densities γ on [a, b], γ(a) = γ(b) = 0.

    ``n`` is the number of interior grid points of the conic discretisation;
    ``query`` sets c_f (see :func:`query_factor`); the optimal γ never depends on it.

    >>> FisherInterval(-1.0, 1.0).closed_form().value == 4 * np.pi ** 2 / 4
    True
    """

    a: float
    b: float
    n: int = 2000
    query: str = "identity"

    id: ClassVar[str] = "fisher-interval"
    paper: ClassVar[str] = PAPER
    objective: ClassVar[str] = "fisher_trace"
    unit: ClassVar[str | None] = "1/units² (units of the parameter θ)"

    def __post_init__(self) -> None:
        if not self.b > self.a:
            raise ProblemError(f"the support needs b > a, got a={self.a}, b={self.b}")
        if self.n < 3:
            raise ProblemError(f"n must be >= 3 grid points, got {self.n}")
        object.__setattr__(self, "factor", query_factor(self.query))

    @property
    def L(self) -> float:
        return self.b - self.a

    @classmethod
    def from_params(cls, **params: Any) -> "FisherInterval":
        _only(cls.id, params, {"a", "b", "n", "query"})
        return cls(
            parse_float("a", params.get("a", -1.0)),
            parse_float("b", params.get("b", 1.0)),
            parse_int("n", params.get("n", 2000), 3),
            str(params.get("query", "identity")),
        )

    def params(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "n": self.n, "query": self.query}

    def closed_form(self) -> Result:
        """Corollary 1 / 3 / 5: γ* = (2/L)cos²(π(w − c)/L), value c_f·4π²/L², sampled on the grid.

        Proven for every interval (Fisher paper Corollary 1, Appendix D; the
        weighted average of Corollary 3, Appendix F, and the variance query of
        Corollary 5, Appendix H, only scale the cost by c_f), and ``mechopt
        verify`` finds each holding (claims ``fisher.cor1``, ``fisher.cor3``,
        ``fisher.cor5``): ``optimal`` with ``proof="theorem"``. The proof is
        for the continuous problem; the density is its sample on the grid.

        >>> r = FisherInterval(0.0, 2.0, n=99, query="average:1,1").closed_form()
        >>> r.value == 2 * np.pi ** 2, r.mechanism.n, r.status.value, r.proof, r.extras["claim"]
        (True, 99, 'optimal', 'theorem', 'fisher.cor3')
        """
        J = 4 * math.pi**2 / self.L**2
        g = GridDensity.cos2(self.a, self.b, self.n)
        claim = {"average": "fisher.cor3", "variance": "fisher.cor5"}.get(self.query.partition(":")[0], "fisher.cor1")
        extras = {
            "variance": self.L**2 * (1 / 12 - 1 / (2 * math.pi**2)),
            "fisher_trace": J,
            "theorem": "Corollary 1 (Corollaries 3, 5 for scalar queries)",
            "grid_points": self.n,
            "grid_fisher": g.fisher(),
        }
        return theorem_result(
            claim=claim,
            proven=True,
            value=self.factor * J,
            sense="min",
            objective=self.objective,
            mechanism=g,
            extras=extras,
            problem=self.id,
            message="closed form sampled on the grid; value is the continuous optimum",
        )

    def conic_form(self) -> ConicForm:
        """The grid SOCP of :func:`~mechopt.problems.fisher.grid.interval_program`, value c_f·J_h.

        >>> f = FisherInterval(-1.0, 1.0, n=50).conic_form()
        >>> f.sense, f.objective
        ('min', 'fisher_trace')
        """
        prob, p, _ = interval_program(self.a, self.b, self.n)
        return _grid_conic(self, prob, p, self.a, self.b, self.factor)

    def spectral_form(self) -> SpectralForm:
        """One axis (a, b) with V = 0: −4q'' = λq, J* = λ_min.

        >>> FisherInterval(0.0, 1.0).spectral_form().axes
        (SpectralAxis(lower=0.0, upper=1.0, potential=None),)
        """
        return SpectralForm(
            axes=(SpectralAxis(self.a, self.b),),
            recover=lambda ds: ds[0],
            value_of=lambda v: self.factor * v,
            objective=self.objective,
        )

    def audit(self, result: Result) -> ProblemAudit:
        g = result.mechanism
        if not isinstance(g, GridDensity):
            return ProblemAudit(violation=None, reasons=["mechanism is not a GridDensity"])
        return _audit_grid(g, self.a, self.b, self.factor * g.fisher() if result.solver != "closed-form" else None)


def _audit_grid(g: GridDensity, a: float, b: float, value: float | None) -> ProblemAudit:
    """Non-negativity, unit mass, support inside [a, b]; the Fisher trace recomputed."""
    tol = settings.tolerance("density")
    reasons = check_density(g, tol)
    violation = max(0.0, a - g.lower) + max(0.0, g.upper - b)
    return ProblemAudit(violation=violation, notion="support", reasons=reasons, value=value)


def _grid_conic(problem: Problem, prob: Any, p: Any, a: float, b: float, factor: float) -> ConicForm:
    """A ConicForm whose value is the Fisher trace of the recovered density (not the raw
    solver objective, which sits a solver tolerance away); the program value goes to extras."""
    extras: dict[str, Any] = {}
    holder: dict[str, GridDensity] = {}

    def recover() -> GridDensity:
        if "g" not in holder:
            holder["g"] = GridDensity(a, b, np.clip(np.asarray(p.value, float), 0.0, None))
        return holder["g"]

    def value_of(opt: float) -> float:
        g = recover()
        J = g.fisher()
        extras.update(_fisher_extras(g, J), program_value=float(opt) / (b - a) ** 2 * factor)  # unit-interval program
        extras.update(grid_estimate(lambda m: _interval_value(a, b, m, factor), g.n, factor * J))
        return factor * J

    n = int(p.shape[0])
    return ConicForm(
        problem=prob,
        recover=recover,
        sense="min",
        objective=problem.objective,
        value_of=value_of,
        extras=extras,
        scope=f"the {n}-point discretisation of [{a:g}, {b:g}]",
    )


@dataclass(frozen=True, eq=False)
class FisherOutput(FisherInterval):
    """Family (ii): the output y = f(x) + w must stay in Y = [y_lo, y_hi] for every database.

    A noise independent of x lives in [y_lo − f_lo, y_hi − f_hi] (the query
    range is [f_lo, f_hi]), so the answer is Corollary 1 on that interval.
    (Policies allowed to depend on x make family (ii) degenerate: the output
    density p(y | x) = g(y) on Y ignores x and has zero Fisher information.)

    >>> p = FisherOutput.from_params(y_lo="0", y_hi="10", f_lo="2", f_hi="6")
    >>> (p.a, p.b)
    (-2.0, 4.0)
    """

    id: ClassVar[str] = "fisher-output"

    @classmethod
    def from_params(cls, **params: Any) -> "FisherOutput":
        _only(cls.id, params, {"y_lo", "y_hi", "f_lo", "f_hi", "n"})
        y_lo, y_hi = parse_float("y_lo", params.get("y_lo", 0.0)), parse_float("y_hi", params.get("y_hi", 10.0))
        f_lo, f_hi = parse_float("f_lo", params.get("f_lo", 2.0)), parse_float("f_hi", params.get("f_hi", 6.0))
        if f_hi < f_lo:
            raise ProblemError(f"the query range needs f_hi >= f_lo, got [{f_lo}, {f_hi}]")
        a, b = y_lo - f_lo, y_hi - f_hi
        if not b > a:
            raise ProblemError(
                f"the output set [{y_lo}, {y_hi}] is too narrow for the query range "
                f"[{f_lo}, {f_hi}]: no noise keeps every output inside; widen y_lo..y_hi"
            )
        return cls(a, b, parse_int("n", params.get("n", 2000), 3))


def problem_from_params(**params: Any) -> FisherInterval:
    """``fisher-interval`` from CLI strings (a="-1", b="1", n="2000", query=...).

    >>> problem_from_params(a="0", b="2", n="50").params()
    {'a': 0.0, 'b': 2.0, 'n': 50, 'query': 'identity'}
    """
    return FisherInterval.from_params(**params)
