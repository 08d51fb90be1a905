"""Fisher paper, Gaussian noise: Theorem 3 and Corollary 6 (unbounded support), Theorem 4 and Example 4 (linear
dynamics), and the comparison with differential privacy of Sec. 4 (Propositions 3 and 4); registered in
:mod:`mechopt.claims.fisher.theorems`.

Examples
--------
>>> check_prop4().verdict
'holds'
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.api import solve
from mechopt.claims._spec import rel
from mechopt.jobs.verify import Verdict
from mechopt.problems.fisher.dp import (
    analytic_gaussian_delta,
    gaussian_sigma,
    laplace_dp_loss,
    laplace_fisher,
    laplace_variance,
)
from mechopt.problems.fisher.gaussian import FisherGaussian, FisherLTI

__all__ = ["check_thm3_cor6", "check_thm4", "check_ex4", "check_prop3", "check_prop4"]


def check_thm3_cor6(penalty: bool) -> Verdict:
    cases = [dict(m=1, xi=4.0), dict(m=3, xi=0.25)] if penalty else [dict(m=1, sigma2=2.0), dict(m=2, sigma2=4.0)]
    probs = [FisherGaussian(n=600, **c) for c in cases]
    devs, inst = [], []
    for prob, c in zip(probs, cases):
        cf = prob.closed_form().value
        sp, co = solve(prob, solver="spectral"), solve(prob, solver="conic")
        h = 2 * prob.R / (prob.n + 1)
        conic_tol = 2 * (h / math.sqrt(prob.axis_variance)) ** 2 / 12 + 1e-6  # (h/s)²/12: the O(h²) term
        devs += [rel(sp.value, cf) / 1e-7, rel(co.value, cf) / conic_tol]
        inst += [
            {**c, "solver": "spectral", "closed_form": cf, "numerical": sp.value},
            {**c, "solver": "conic", "closed_form": cf, "numerical": co.value},
        ]
    return Verdict.from_deviations(devs, tol=1.0, instances=inst)


def check_thm4() -> Verdict:
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
        devs += [rel(sdp.value, cf.value) / 1e-5, cov_dev / 1e-3]
        out += [{**label, "theorem4": cf.value, "sdp": sdp.value}, {**label, "cov_rel_diff": cov_dev}]
    return Verdict.from_deviations(devs, tol=1.0, instances=out)


def check_ex4() -> Verdict:
    """Example 4: tr (OᵀO)^{1/2} grows as T^{3/2} (privacy cost √ξ·that, quality that/√ξ)."""
    Ts = np.array([200, 400, 800, 1600])
    vals = [float(np.trace(FisherLTI.from_params(dt="1", T=str(T), xi="1").sqrt_gram())) for T in Ts]
    slope = float(np.polyfit(np.log(Ts), np.log(vals), 1)[0])
    return Verdict.from_deviations(
        [abs(slope - 1.5)], tol=0.05, instances=[{"fitted_exponent": slope, "expected": 1.5}]
    )


def check_prop3() -> Verdict:
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
            rel(J_num, laplace_fisher(b)) / 1e-3,
            rel(var_num, laplace_variance(b)) / 1e-3,
            max(0.0, loss - eps) / 1e-9,
            rel(laplace_fisher(b) / g, 2.0) / 1e-12,
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


def check_prop4() -> Verdict:
    """σ ≥ Δ√(2 ln(1.25/δ))/ε (ε < 1) implies the exact (analytic) δ(ε, σ) ≤ δ."""
    devs, inst = [], []
    for eps in (0.05, 0.3, 0.7, 0.99):
        for delta in (1e-2, 1e-5, 1e-9):
            s = gaussian_sigma(eps, delta, 1.0)
            d_exact = analytic_gaussian_delta(eps, s, 1.0)
            devs.append(max(0.0, d_exact - delta) / delta)
            inst.append({"eps": eps, "delta": delta, "sigma": s, "exact_delta": d_exact})
    return Verdict.from_deviations(devs, tol=1e-9, instances=inst)
