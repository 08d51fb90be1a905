"""Fisher paper, bounded supports: Corollary 1 (interval and box), Corollary 2 (the privacy-quality product),
Corollaries 3 and 5 (scalar queries) and the reconstructed Corollary 4 (weighted policies); registered in
:mod:`mechopt.claims.fisher.theorems`.

Examples
--------
>>> check_cor1_box().verdict
'holds'
"""

from __future__ import annotations

import numpy as np

from mechopt.api import solve
from mechopt.claims._spec import rel
from mechopt.claims.fisher.numerics import SPECTRAL_TOL, against_solvers, conic_tol
from mechopt.jobs.verify import Verdict
from mechopt.problems.fisher.grid import GridDensity
from mechopt.problems.fisher.problems import CORR2_CONSTANT, FisherBox, FisherInterval
from mechopt.problems.fisher.weighted import FisherWeighted, stationarity_residual

__all__ = ["check_cor1", "check_cor1_box", "check_cor2", "check_cor3", "check_cor4", "check_cor5", "cor4_gap"]


def check_cor1() -> Verdict:
    sup = [(-1.0, 1.0), (0.0, 3.0), (-0.25, 0.5)]
    probs = [FisherInterval(a, b, n=600) for a, b in sup]
    return against_solvers(probs, [{"a": a, "b": b} for a, b in sup])


def check_cor1_box() -> Verdict:
    prob = FisherBox(np.array([-1.0, 0.0]), np.array([1.0, 3.0]), (30, 30))
    return against_solvers([prob], [{"lower": [-1, 0], "upper": [1, 3]}])


def check_cor2() -> Verdict:
    """J*·Var = π²/3 − 2 for every support: privacy and quality scale together (as L⁻² and L²)."""
    devs, inst = [], []
    for L in (0.5, 2.0, 7.0):
        for solver in ("spectral", "conic"):
            r = solve(FisherInterval(0.0, L, n=800), solver=solver)
            prod = r.value * r.mechanism.variance()
            # conic: the objective is flat at the optimum, so a solver gap τ ≈ 1e-8 leaves the
            # density (hence the variance) accurate to about √τ = 1e-4 only
            tol = 1e-6 if solver == "spectral" else 1e-4
            devs.append(rel(prod, CORR2_CONSTANT) / tol)
            inst.append({"L": L, "solver": solver, "J_times_var": prod, "expected": CORR2_CONSTANT})
    return Verdict.from_deviations(devs, tol=1.0, instances=inst)


def _scalar_queries(queries: list[str]) -> Verdict:
    """Same optimal density for every scalar query; the value scales by c_f = ∫ρ‖∇f‖²."""
    base = solve(FisherInterval(-1.0, 1.0, n=400, query="identity"), solver="conic").mechanism.density
    devs, inst = [], []
    for q in queries:
        prob = FisherInterval(-1.0, 1.0, n=400, query=q)
        sp, co = solve(prob, solver="spectral"), solve(prob, solver="conic")
        cf = prob.closed_form().value
        dens = float(np.abs(co.mechanism.density - base).max() / base.max())
        # the density is accurate to about √(solver gap) ≈ 1e-4 relative (flat objective)
        devs += [rel(sp.value, cf) / SPECTRAL_TOL, rel(co.value, cf) / conic_tol(co), dens / 1e-4]
        inst.append({"query": q, "closed_form": cf, "spectral": sp.value, "conic": co.value, "density_change": dens})
    return Verdict.from_deviations(devs, tol=1.0, instances=[i for i in inst for _ in range(3)])


def check_cor3() -> Verdict:
    rng = np.random.default_rng(3)
    qs = ["average:" + ",".join(f"{v:.4f}" for v in rng.dirichlet(np.ones(k))) for k in (2, 5, 10)]
    return _scalar_queries(qs)


def check_cor5() -> Verdict:
    return _scalar_queries(["variance:5:0:1", "variance:20:-3:2"])


def cor4_gap(weight: str) -> float:
    """(closed form − grid optimum)/max(1, optimum) of Corollary 4's policy for one weight.

    X = [0, 8], support [-1, 1], a 15 x 65 grid.
    """
    prob = FisherWeighted(-1.0, 1.0, 0.0, 8.0, weight, 15)
    opt = solve(prob, solver="conic").value
    return float((prob.closed_form().value - opt) / max(1.0, opt))


def check_cor4() -> Verdict:
    """Corollary 4 (reconstructed): for ρ ∝ e^{kx} the policy e^{kw} sin²(π(w−a)/L), independent of x."""
    devs, inst = [], []
    for k in (0.5, 0.0):
        prob = FisherWeighted(-1.0, 1.0, 0.0, 8.0, f"exp:{k}" if k else "uniform", 15)
        opt = solve(prob, solver="conic").value
        cf = prob.closed_form().value
        cos2 = prob.cost(np.tile(GridDensity.cos2(-1.0, 1.0, 15).density[:, None], (1, prob.grid_shape[1])))
        devs.append((cf - opt) / max(1.0, opt))
        inst.append(
            {
                "weight": prob.weight,
                "X": [0.0, 8.0],
                "support": [-1.0, 1.0],
                "closed_form": cf,
                "grid_optimum": opt,
                "x_independent_cos2": cos2,
                "interior_stationarity_residual": stationarity_residual(-1.0, 1.0, k, 4.0),
            }
        )
    v = Verdict.from_deviations(devs, tol=1e-3, instances=inst)
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        note=(
            "statement reconstructed (seed lost it). The x-independent policy is stationary in the interior "
            "of X (Euler-Lagrange residual ~1e-8, finite differences), but on a bounded X the natural boundary "
            "conditions fail and x-dependent policies are "
            "cheaper; for k != 0 even the x-independent cos^2 policy beats it (cost J(gamma) * integral of rho). "
            "Judged over x-dependent policies, under which cos^2 (x-independent) is not optimal either: the grid "
            "optimum is cheaper than both."
        ),
    )
