"""Fisher-information noise design on a box Π[lower_i, upper_i] (``fisher-box``): Corollary 1 as a product of
cos² densities, the full grid SOCP on the product grid, and the separable spectral form.

Examples
--------
>>> FisherBox(np.array([0.0, 0.0]), np.array([1.0, 2.0]), (20, 20)).closed_form().proof
'theorem'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.forms import ConicForm, SpectralAxis, SpectralForm
from mechopt.model.problem import Problem, ProblemAudit
from mechopt.problems.fisher.base import PAPER, _only, parse_int, parse_vector
from mechopt.problems.fisher.extrapolate import coarser_grids, richardson, solve_program
from mechopt.problems.fisher.grid import GridDensity, ProductDensity, box_fisher, box_program, check_density
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result

__all__ = ["FisherBox"]


@dataclass(frozen=True, eq=False)
class FisherBox(Problem):
    """Problem 2 on a box Π[lower_i, upper_i]: minimise tr J(γ) = Σ_i ∫ (∂_i γ)²/γ.

    The conic form is the full grid program on the product grid (it does not
    assume a product density); the spectral form uses separability.

    >>> FisherBox(np.array([0.0, 0.0]), np.array([1.0, 2.0]), (20, 20)).closed_form().value / np.pi ** 2
    5.0
    """

    lower: np.ndarray
    upper: np.ndarray
    n: tuple[int, ...] = ()

    id: ClassVar[str] = "fisher-box"
    paper: ClassVar[str] = PAPER
    objective: ClassVar[str] = "fisher_trace"
    unit: ClassVar[str | None] = "1/units² (units of the parameter θ)"
    max_grid: ClassVar[int] = 200_000

    def __post_init__(self) -> None:
        lo, up = np.asarray(self.lower, float), np.asarray(self.upper, float)
        if lo.shape != up.shape or lo.ndim != 1 or lo.size < 1:
            raise ProblemError(f"lower and upper must be vectors of one length, got {lo.shape} and {up.shape}")
        if np.any(up <= lo):
            raise ProblemError("every axis needs upper > lower")
        n = tuple(self.n) if self.n else (max(8, int(round(4000 ** (1 / lo.size)))),) * lo.size
        if len(n) == 1 and lo.size > 1:
            n = n * lo.size
        if len(n) != lo.size or min(n) < 3:
            raise ProblemError(f"n needs one grid size >= 3 per axis, got {n}")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", up)
        object.__setattr__(self, "n", n)

    @classmethod
    def from_params(cls, **params: Any) -> "FisherBox":
        _only(cls.id, params, {"lower", "upper", "n"})
        n = params.get("n")
        nn = (
            ()
            if n is None
            else tuple(parse_int("n", int(v) if float(v).is_integer() else float(v), 1) for v in parse_vector("n", n))
        )
        return cls(
            parse_vector("lower", params.get("lower", "-1,-1")), parse_vector("upper", params.get("upper", "1,1")), nn
        )

    def params(self) -> dict[str, Any]:
        return {"lower": self.lower.tolist(), "upper": self.upper.tolist(), "n": list(self.n)}

    def closed_form(self) -> Result:
        """Corollary 1 on a box: the product of cos² densities, tr J = Σ 4π²/L_i².

        Proven for every box (the PDE separates, Appendix D; see :mod:`~mechopt.problems.fisher.interval`)
        and verified (claim ``fisher.cor1_box``): ``optimal`` (theorem).
        """
        L = self.upper - self.lower
        mech = ProductDensity(tuple(GridDensity.cos2(lo, up, k) for lo, up, k in zip(self.lower, self.upper, self.n)))
        return theorem_result(
            claim="fisher.cor1_box",
            proven=True,
            value=float(np.sum(4 * np.pi**2 / L**2)),
            sense="min",
            objective=self.objective,
            mechanism=mech,
            problem=self.id,
            extras={"theorem": "Corollary 1 (box)", "grid_points": int(np.prod(self.n))},
        )

    def conic_form(self) -> ConicForm | None:
        size = int(np.prod(self.n))
        if size > self.max_grid:
            return None
        prob, p = box_program(self.lower, self.upper, self.n)
        extras: dict[str, Any] = {}

        def recover() -> np.ndarray:
            return np.clip(np.asarray(p.value, float), 0.0, None).reshape(self.n)

        def value_of(opt: float) -> float:
            J = box_fisher(recover(), self.lower, self.upper)
            extras.update(grid_points=size, program_value=float(opt), fisher_trace=J)
            extras.update(self._grid_estimate(J))
            return J

        return ConicForm(
            problem=prob,
            recover=recover,
            sense="min",
            objective=self.objective,
            value_of=value_of,
            extras=extras,
            scope=f"the {size}-point grid discretisation of the box",
        )

    def _grid_estimate(self, value: float) -> dict[str, Any]:
        """Richardson over the box program on two coarser grids (every axis coarsened; see
        :mod:`~mechopt.problems.fisher.extrapolate`). The step of a level is the mean over the
        axes of h_k relative to the solved grid (exact when every axis coarsens by one ratio)."""
        per_axis = [coarser_grids(k) for k in self.n]
        if any(not c for c in per_axis):
            return {"error_note": f"no grid error estimate: the grid {self.n} cannot be coarsened twice"}
        grids = [tuple(self.n), *zip(*per_axis)]
        vals = [value]
        for nn in grids[1:]:
            prob, p = box_program(self.lower, self.upper, nn)
            if not solve_program(prob):
                return {"error_note": f"no grid error estimate: the coarser grid {nn} did not solve"}
            vals.append(box_fisher(np.clip(np.asarray(p.value, float), 0.0, None).reshape(nn), self.lower, self.upper))
        steps = [float(np.mean([(k0 + 1) / (k + 1) for k0, k in zip(self.n, nn)])) for nn in grids]
        return {**richardson(vals, steps), "richardson_grids": [list(nn) for nn in grids]}

    def spectral_form(self) -> SpectralForm:
        axes = tuple(SpectralAxis(float(lo), float(up)) for lo, up in zip(self.lower, self.upper))
        return SpectralForm(axes=axes, recover=lambda ds: ProductDensity(tuple(ds)), objective=self.objective)

    def audit(self, result: Result) -> ProblemAudit:
        mech = result.mechanism
        if isinstance(mech, ProductDensity):
            reasons = [r for g in mech.axes for r in check_density(g, settings.tolerance("density"))]
            viol = max(
                max(0.0, lo - g.lower) + max(0.0, g.upper - up) for g, lo, up in zip(mech.axes, self.lower, self.upper)
            )
            val = mech.fisher() if result.solver != "closed-form" else None
            return ProblemAudit(violation=viol, notion="support", reasons=reasons, value=val)
        d = np.asarray(mech, dtype=float)
        if d.shape != tuple(self.n):
            return ProblemAudit(violation=None, reasons=[f"density has shape {d.shape}, expected {self.n}"])
        h = (self.upper - self.lower) / (np.asarray(self.n) + 1)
        mass = float(np.prod(h) * d.sum())
        reasons = [] if abs(mass - 1) <= settings.tolerance("density") else [f"density integrates to {mass:.6g}, not 1"]
        if d.min() < -settings.tolerance("density") * max(1.0, d.max()):
            reasons.append("density is negative")
        return ProblemAudit(
            violation=0.0, notion="support", reasons=reasons, value=box_fisher(d, self.lower, self.upper)
        )
