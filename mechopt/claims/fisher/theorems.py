"""Claims of the Fisher-information paper (seed 003), checked against both numerical solvers.

Every closed form is compared with the ``spectral`` solver (Richardson
extrapolated; tolerance 1e-8 relative) and the ``conic`` solver (the SOCP on a
grid; tolerance = 1.5 × its own grid-error estimate + 1e-6, the estimate being
the leading O(h²) term, see :mod:`mechopt.problems.fisher.grid`).

Examples
--------
>>> [c.id for c in CLAIMS][:3]
['fisher.cor1', 'fisher.cor1_box', 'fisher.cor2']
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.api import solve
from mechopt.jobs.verify import Claim, Verdict
from mechopt.problems.fisher.dp import (
    analytic_gaussian_delta,
    gaussian_sigma,
    laplace_dp_loss,
    laplace_fisher,
    laplace_variance,
)
from mechopt.problems.fisher.gaussian import FisherGaussian, FisherLTI
from mechopt.problems.fisher.grid import GridDensity
from mechopt.problems.fisher.problems import CORR2_CONSTANT, FisherBox, FisherInterval
from mechopt.problems.fisher.weighted import FisherWeighted, stationarity_residual

__all__ = ["CLAIMS", "grid_order"]

SPECTRAL_TOL = 1e-8


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(1.0, abs(b))


def _conic_tol(res: Any) -> float:
    return 1.5 * float(res.extras.get("error_estimate", 0.0)) / max(1.0, abs(res.value)) + 1e-6


def _against_solvers(problems: list[Any], names: list[dict[str, Any]]) -> Verdict:
    """Closed form vs spectral (1e-8) and conic (derived tolerance): deviations scaled to tolerance."""
    devs, inst = [], []
    for prob, label in zip(problems, names):
        cf = prob.closed_form().value
        sp = solve(prob, solver="spectral")
        co = solve(prob, solver="conic")
        devs += [_rel(sp.value, cf) / SPECTRAL_TOL, _rel(co.value, cf) / _conic_tol(co)]
        inst += [
            {**label, "solver": "spectral", "closed_form": cf, "numerical": sp.value},
            {**label, "solver": "conic", "closed_form": cf, "numerical": co.value},
        ]
    v = Verdict.from_deviations(devs, tol=1.0, instances=inst)
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        note="deviations in units of each solver's tolerance (1 = at the tolerance)",
    )


def _cor1() -> Verdict:
    sup = [(-1.0, 1.0), (0.0, 3.0), (-0.25, 0.5)]
    probs = [FisherInterval(a, b, n=600) for a, b in sup]
    return _against_solvers(probs, [{"a": a, "b": b} for a, b in sup])


def _cor1_box() -> Verdict:
    prob = FisherBox(np.array([-1.0, 0.0]), np.array([1.0, 3.0]), (30, 30))
    return _against_solvers([prob], [{"lower": [-1, 0], "upper": [1, 3]}])


def _cor2() -> Verdict:
    """J*·Var = π²/3 − 2 for every support: privacy and quality scale together (as L⁻² and L²)."""
    devs, inst = [], []
    for L in (0.5, 2.0, 7.0):
        for solver in ("spectral", "conic"):
            r = solve(FisherInterval(0.0, L, n=800), solver=solver)
            prod = r.value * r.mechanism.variance()
            # conic: the objective is flat at the optimum, so a solver gap τ ≈ 1e-8 leaves the
            # density (hence the variance) accurate to about √τ = 1e-4 only
            tol = 1e-6 if solver == "spectral" else 1e-4
            devs.append(_rel(prod, CORR2_CONSTANT) / tol)
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
        devs += [_rel(sp.value, cf) / SPECTRAL_TOL, _rel(co.value, cf) / _conic_tol(co), dens / 1e-4]
        inst.append({"query": q, "closed_form": cf, "spectral": sp.value, "conic": co.value, "density_change": dens})
    return Verdict.from_deviations(devs, tol=1.0, instances=[i for i in inst for _ in range(3)])


def _cor3() -> Verdict:
    rng = np.random.default_rng(3)
    qs = ["average:" + ",".join(f"{v:.4f}" for v in rng.dirichlet(np.ones(k))) for k in (2, 5, 10)]
    return _scalar_queries(qs)


def _cor5() -> Verdict:
    return _scalar_queries(["variance:5:0:1", "variance:20:-3:2"])


def cor4_gap(weight: str) -> float:
    """(closed form − grid optimum)/max(1, optimum) of Corollary 4's policy for one weight (X = [0, 8], 15 x 65 grid)."""
    prob = FisherWeighted(-1.0, 1.0, 0.0, 8.0, weight, 15)
    opt = solve(prob, solver="conic").value
    return float((prob.closed_form().value - opt) / max(1.0, opt))


def _cor4() -> Verdict:
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
            "of X (Euler-Lagrange residual ~1e-8, finite differences), but on a bounded X the natural boundary conditions fail and x-dependent policies are "
            "cheaper; for k != 0 even the x-independent cos^2 policy beats it (cost J(gamma) * integral of rho). "
            "Judged over x-dependent policies, under which cos^2 (x-independent) is not optimal either: the grid "
            "optimum is cheaper than both."
        ),
    )


def _thm3_cor6(penalty: bool) -> Verdict:
    cases = [dict(m=1, xi=4.0), dict(m=3, xi=0.25)] if penalty else [dict(m=1, sigma2=2.0), dict(m=2, sigma2=4.0)]
    probs = [FisherGaussian(n=600, **c) for c in cases]
    devs, inst = [], []
    for prob, c in zip(probs, cases):
        cf = prob.closed_form().value
        sp, co = solve(prob, solver="spectral"), solve(prob, solver="conic")
        h = 2 * prob.R / (prob.n + 1)
        conic_tol = 2 * (h / math.sqrt(prob.axis_variance)) ** 2 / 12 + 1e-6  # (h/s)²/12: the O(h²) term
        devs += [_rel(sp.value, cf) / 1e-7, _rel(co.value, cf) / conic_tol]
        inst += [
            {**c, "solver": "spectral", "closed_form": cf, "numerical": sp.value},
            {**c, "solver": "conic", "closed_form": cf, "numerical": co.value},
        ]
    return Verdict.from_deviations(devs, tol=1.0, instances=inst)


def _thm4() -> Verdict:
    rng = np.random.default_rng(4)
    probs, inst = [FisherLTI.from_params(dt="0.5", T="6", xi="2")], [{"system": "Example 4, dt=0.5, T=6, xi=2"}]
    for i in range(3):
        n, p = 2 + i % 2, 1 + (i == 2)
        A = rng.normal(size=(n, n)) / math.sqrt(n)
        probs.append(FisherLTI(A, rng.normal(size=(p, n)), T=4, xi=float(rng.uniform(0.2, 5))))
        inst.append({"system": f"random n={n} p={p} T=4 seed=4 #{i}"})
    devs, out = [], []
    for prob, label in zip(probs, inst):
        cf = prob.closed_form()
        sdp = solve(prob, solver="conic")
        cov_dev = float(np.linalg.norm(sdp.mechanism.cov - cf.mechanism.cov) / np.linalg.norm(cf.mechanism.cov))
        devs += [_rel(sdp.value, cf.value) / 1e-5, cov_dev / 1e-3]
        out += [{**label, "theorem4": cf.value, "sdp": sdp.value}, {**label, "cov_rel_diff": cov_dev}]
    return Verdict.from_deviations(devs, tol=1.0, instances=out)


def _ex4() -> Verdict:
    """Example 4: tr (OᵀO)^{1/2} grows as T^{3/2} (privacy cost √ξ·that, quality that/√ξ)."""
    Ts = np.array([200, 400, 800, 1600])
    vals = [float(np.trace(FisherLTI.from_params(dt="1", T=str(T), xi="1").sqrt_gram())) for T in Ts]
    slope = float(np.polyfit(np.log(Ts), np.log(vals), 1)[0])
    return Verdict.from_deviations(
        [abs(slope - 1.5)], tol=0.05, instances=[{"fitted_exponent": slope, "expected": 1.5}]
    )


def _prop3() -> Verdict:
    """Laplace(b = Δ/ε): ε-DP, J = 1/b², Var = 2b²; the Gaussian of equal variance has J/2."""
    devs, inst = [], []
    for eps, delta_f in ((0.5, 1.0), (2.0, 0.3)):
        b = delta_f / eps
        y = np.linspace(-40 * b, 40 * b, 400001)
        h = y[1] - y[0]
        p = np.exp(-np.abs(y) / b) / (2 * b)
        score = -np.sign(y) / b  # p'/p away from 0
        J_num, var_num = float(h * np.sum(score**2 * p)), float(h * np.sum(y**2 * p))
        loss = laplace_dp_loss(b, delta_f, y)
        g = FisherGaussian(m=1, sigma2=laplace_variance(b)).closed_form().value
        devs += [
            _rel(J_num, laplace_fisher(b)) / 1e-3,
            _rel(var_num, laplace_variance(b)) / 1e-3,
            max(0.0, loss - eps) / 1e-9,
            _rel(laplace_fisher(b) / g, 2.0) / 1e-12,
        ]
        inst += [
            {
                "eps": eps,
                "sensitivity": delta_f,
                "J_numeric": J_num,
                "variance": var_num,
                "dp_loss": loss,
                "crb_ratio_gauss_over_laplace": laplace_fisher(b) / g,
            }
        ] * 4
    return Verdict.from_deviations(devs, tol=1.0, instances=inst)


def _prop4() -> Verdict:
    """σ ≥ Δ√(2 ln(1.25/δ))/ε (ε < 1) implies the exact (analytic) δ(ε, σ) ≤ δ."""
    devs, inst = [], []
    for eps in (0.05, 0.3, 0.7, 0.99):
        for delta in (1e-2, 1e-5, 1e-9):
            s = gaussian_sigma(eps, delta, 1.0)
            d_exact = analytic_gaussian_delta(eps, s, 1.0)
            devs.append(max(0.0, d_exact - delta) / delta)
            inst.append({"eps": eps, "delta": delta, "sigma": s, "exact_delta": d_exact})
    return Verdict.from_deviations(devs, tol=1e-9, instances=inst)


def grid_order(solver: str, ns: tuple[int, ...] = (99, 199, 399)) -> float:
    """Measured order log₂(e_h / e_{h/2}) of the raw grid error of J on [−1, 1] (last pair).

    >>> abs(grid_order("spectral") - 2) < 0.1
    True
    """
    errs = []
    for n in ns:
        if solver == "spectral":
            from mechopt.solvers.spectral import ground_state

            J = ground_state(-1.0, 1.0, n)[0]
        else:
            J = solve(FisherInterval(-1.0, 1.0, n=n), solver="conic").value
        errs.append(abs(J - math.pi**2))
    return float(math.log2(errs[-2] / errs[-1]))


def _order2() -> Verdict:
    orders = {s: grid_order(s) for s in ("spectral", "conic")}
    return Verdict.from_deviations(
        [abs(o - 2) for o in orders.values()], tol=0.1, instances=[{"solver": s, "order": o} for s, o in orders.items()]
    )


_INDEP = "noise density independent of x (additive noise w on the stated support), linear query"
_BYCON = (
    "check by construction: the query enters only as the constant factor c_f = ∫ρ‖∇f‖², so the optimal "
    "density cannot change; not evidence beyond Corollary 1 (the density equality is still checked)"
)


def _claim(
    cid: str,
    statement: str,
    domain: str,
    check: Any,
    section: str,
    assumptions: str = _INDEP,
    kind: str = "theorem",
    **extra: Any,
) -> Claim:
    return Claim(
        id=cid,
        paper="fisher",
        statement=statement,
        domain=domain,
        check=check,
        section=section,
        assumptions=assumptions,
        kind=kind,
        **extra,
    )


_BASE_CLAIMS: list[Claim] = [
    _claim(
        "fisher.cor1",
        "Corollary 1: on [a, b] the optimal noise is (2/L)cos²(π(w−c)/L) with J = 4π²/L²",
        "three intervals; spectral within 1e-8, conic (n=600) within its grid-error estimate",
        _cor1,
        "Corollary 1",
    ),
    _claim(
        "fisher.cor1_box",
        "Corollary 1 on a box: product of cos² densities, tr J = Σ 4π²/L_i²",
        "[-1,1]x[0,3]; full 2-D grid SOCP (30x30) and separable spectral",
        _cor1_box,
        "Corollary 1",
        _INDEP + "; the 2-D SOCP is over all (not only product) densities on the box grid",
    ),
    _claim(
        "fisher.cor2",
        "Corollary 2: J*·Var = π²/3 − 2 for every support (privacy ∝ L², quality ∝ L²)",
        "L in {0.5, 2, 7}, both solvers' densities",
        _cor2,
        "Corollary 2",
    ),
    _claim(
        "fisher.cor3",
        "Corollary 3: for a weighted average the optimal noise does not depend on the weights",
        "3 random weight vectors; conic density change < 1e-4 (relative), value = ‖a‖²·4π²/L²",
        _cor3,
        "Corollary 3",
        _INDEP + "; " + _BYCON,
        by_construction=True,
    ),
    _claim(
        "fisher.cor4",
        "Corollary 4 (reconstructed): for a weight ρ ∝ e^{kx} the optimal policy is "
        "γ(w) ∝ e^{kw} sin²(π(w−a)/L), independent of x",
        "X=[0,8], support [-1,1], k in {0.5, 0}; grid SOCP over x-dependent policies (15x65 grid)",
        _cor4,
        "Corollary 4 (statement lost in the seed; reconstructed)",
        "noise policies that may depend on x (x-dependent class), weight ρ on X = [0, 8]",
        recheck=lambda ce: cor4_gap(str(ce["weight"])),
        tol=1e-3,
    ),
    _claim(
        "fisher.cor5",
        "Corollary 5: for the (nonlinear) variance query the optimal noise is the same cos²",
        "variance queries n=5 on [0,1]^5 and n=20 on [-3,2]^20",
        _cor5,
        "Corollary 5",
        "noise density independent of x, variance query; " + _BYCON,
        by_construction=True,
    ),
    _claim(
        "fisher.thm3",
        "Theorem 3 / Corollary 6 (Problem 3): min tr J + ξE‖w‖² is N(0, ξ^{-1/2} I), cost 2m√ξ",
        "m=1 ξ=4, m=3 ξ=0.25; spectral (harmonic oscillator) and conic on [-12s, 12s]",
        lambda: _thm3_cor6(True),
        "Theorem 3",
        _INDEP + ", unbounded support",
    ),
    _claim(
        "fisher.cor6",
        "Corollary 6 (Problem 4): min tr J s.t. E‖w‖² ≤ σ² is N(0, (σ²/m) I), tr J = m²/σ²",
        "m=1 σ²=2, m=2 σ²=4; spectral dual search and conic with the variance constraint",
        lambda: _thm3_cor6(False),
        "Corollary 6",
        _INDEP + ", unbounded support",
    ),
    _claim(
        "fisher.thm4",
        "Theorem 4: w_k = C A^k v, v ~ N(0, ξ^{-1/2}(OᵀO)^{-1/2}) minimises tr J(x_0) + ξE‖w‖²",
        "Example 4 and 3 random systems; SDP over the stacked noise covariance (Clarabel)",
        _thm4,
        "Theorem 4",
        "Gaussian noise independent of the state x_0, w_k = C A^k v (linear dynamics)",
    ),
    _claim(
        "fisher.ex4",
        "Example 4: tr (OᵀO)^{1/2} grows as T^{3/2} for the vehicle (ξ ∝ T^{-3} keeps privacy)",
        "T in 200..1600, dt=1; fitted exponent within 0.05",
        _ex4,
        "Example 4",
        "the vehicle model of Example 4",
        "numeric claim",
    ),
    _claim(
        "fisher.prop3",
        "Proposition 3: Laplace(Δ/ε) is ε-DP with J = 1/b², Var = 2b²; the optimal noise of equal variance halves J",
        "eps in {0.5, 2}; numeric quadrature on a fine grid",
        _prop3,
        "Sec. 4, Proposition 3",
        "additive noise independent of x, scalar query of sensitivity Δ",
    ),
    _claim(
        "fisher.prop4",
        "Proposition 4: N(0, σ²) with σ ≥ Δ√(2 ln(1.25/δ))/ε is (ε, δ)-DP (ε < 1)",
        "12 (ε, δ) pairs against the exact analytic-Gaussian δ",
        _prop4,
        "Sec. 4, Proposition 4",
        "additive Gaussian noise independent of x, scalar query of sensitivity Δ",
    ),
    _claim(
        "fisher.grid_order2",
        "The finite-difference grid error of J is O(h²)",
        "[-1,1], n = 99, 199, 399; both solvers; measured order within 2 ± 0.1",
        _order2,
        "(this package's discretisation, not a claim of the paper)",
        "uniform grid on the support",
        "numeric claim",
    ),
]


# The section-by-section modules never import this one at import time (their helpers from here
# are imported inside functions), so importing them last is cycle-free.
from mechopt.claims.fisher import sections as fisher_sections  # noqa: E402

CLAIMS: list[Claim] = [*_BASE_CLAIMS, *fisher_sections.CLAIMS]
