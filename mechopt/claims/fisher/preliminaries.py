"""Fisher paper (Farokhi & Sandberg), Sec. 2 and 3 statements added by the referee (issue 26): Proposition 1 (the
Cramér-Rao bound, eqs. (4)-(5)), Remark 1 (well-posed only on bounded supports), Remark 6 (the Problem-1 objective
is not concave) and the reading of Corollaries 1/3/5 over policies that may depend on x; registered in
:mod:`mechopt.claims.fisher.sections`. The seed lost every formula: the statements are reconstructed from the
prose and the project's math notes (section 4), marked as such.

Examples
--------
>>> round(fisher_info(lambda w: np.cos(np.pi * w / 2) ** 2, -1.0, 1.0), 6) == round(np.pi**2, 6)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import numpy as np
from scipy.integrate import quad

from mechopt.api import solve
from mechopt.claims._spec import rel
from mechopt.jobs.verify import Verdict
from mechopt.problems.fisher.grid import GridDensity
from mechopt.problems.fisher.problems import FisherInterval
from mechopt.problems.fisher.weighted import FisherWeighted

__all__ = [
    "fisher_info",
    "check_prop1",
    "check_remark1",
    "check_remark6",
    "check_cor_xdep",
    "check_sec5_info",
    "XDEP_GRID",
]

Density = Callable[[float], float]


def _normalised(f: Density, a: float, b: float) -> Density:
    z = quad(f, a, b, limit=200)[0]
    return lambda w: f(w) / z


def fisher_info(p: Density, a: float, b: float, h: float = 1e-5) -> float:
    """J = ∫ p'(w)^2 / p(w) dw of a normalised density on [a, b] (central differences, adaptive quadrature)."""
    p = _normalised(p, a, b)

    def integrand(w: float) -> float:
        v = p(w)
        return 0.0 if v <= 1e-300 else ((p(w + h) - p(w - h)) / (2 * h)) ** 2 / v

    return float(quad(integrand, a, b, limit=400, points=[0.0] if a < 0 < b else None)[0])


def _variance(p: Density, a: float, b: float) -> float:
    p = _normalised(p, a, b)
    m = quad(lambda w: w * p(w), a, b, limit=200)[0]
    return float(quad(lambda w: (w - m) ** 2 * p(w), a, b, limit=200)[0])


#: densities meeting Assumption 2 (C^2, zero on the boundary of the support) and a Gaussian (the equality case)
_DENSITIES: dict[str, tuple[Density, float, float]] = {
    "cos^2 on [-1, 1]": (lambda w: math.cos(math.pi * w / 2) ** 2, -1.0, 1.0),
    "cos^4 on [-1, 1]": (lambda w: math.cos(math.pi * w / 2) ** 4, -1.0, 1.0),
    "(1 - w^2)^3 on [-1, 1]": (lambda w: max(0.0, 1 - w * w) ** 3, -1.0, 1.0),
    "skewed (w+1)^3 (1-w)^4 on [-1, 1]": (lambda w: (w + 1) ** 3 * (1 - w) ** 4, -1.0, 1.0),
    "logistic": (lambda w: math.exp(-abs(w)) / (1 + math.exp(-abs(w))) ** 2, -40.0, 40.0),
    "Gaussian sd 0.7": (lambda w: math.exp(-0.5 * (w / 0.7) ** 2), -12.0, 12.0),
}


def check_prop1() -> Verdict:
    """Prop. 1, eqs. (4)-(5) (reconstructed): y = x + w, unbiased x_hat = y - E[w] has E(x_hat - x)^2 = Var(w) >=
    1/J; a biased x_hat = c (y - E[w]) (bias b(x) = (c - 1) x) has MSE >= (1 + b')^2 / J + b^2; m = 2 with
    independent coordinates and a correlated Gaussian: Cov - J^-1 positive semidefinite."""
    devs, insts = [], []
    for name, (p, a, b) in _DENSITIES.items():
        J, var = fisher_info(p, a, b), _variance(p, a, b)
        for c, x in ((1.0, 0.0), (0.5, 2.0), (2.0, -1.0)):
            mse, bound = c * c * var + ((c - 1) * x) ** 2, c * c / J + ((c - 1) * x) ** 2
            devs.append(max(0.0, bound - mse) / bound)
            insts.append({"density": name, "c": c, "x": x, "mse": mse, "crb": bound, "var_times_J": var * J})
    S = np.array([[1.0, 0.6], [0.6, 2.0]])  # Gaussian: Cov = S, J = S^-1 (equality)
    for name, cov, Jm in (
        ("cos^2 x (1-w^2)^3", np.diag([_variance(*_DENSITIES[k]) for k in list(_DENSITIES)[::2][:2]]), None),
        ("correlated Gaussian", S, np.linalg.inv(S)),
    ):
        if Jm is None:
            Jm = np.diag([fisher_info(*_DENSITIES[k]) for k in list(_DENSITIES)[::2][:2]])
        gap = float(np.linalg.eigvalsh(cov - np.linalg.inv(Jm)).min())
        devs.append(max(0.0, -gap))
        insts.append({"density": name, "m": 2, "min_eig_cov_minus_Jinv": gap})
    v = Verdict.from_deviations(devs, 1e-7, insts)
    eq = next(i["var_times_J"] for i in insts if i["density"] == "Gaussian sd 0.7")
    cos2 = next(i["var_times_J"] for i in insts if i["density"] == "cos^2 on [-1, 1]")
    note = (
        f"{v.verdict} on the {len(insts)} (density, estimator) cases checked: Var(w) J = {cos2:.4f} for cos^2 "
        f"(pi^2/3 - 2), {eq:.6f} for the Gaussian (equality); formulas (4)-(5) reconstructed (seed lost them)"
    )
    return replace(v, note=note)


def check_remark1() -> Verdict:
    """Remark 1: Problem 1 is well-defined on a bounded support (the spectral optimum is attained, positive, with a
    finite variance); on an unbounded one admissible densities drive tr J to 0 (Gaussians of growing variance)."""
    devs, insts = [], []
    for L in (0.5, 2.0, 8.0, 32.0):
        r = solve(FisherInterval(-L / 2, L / 2, n=400), solver="spectral")
        var = r.mechanism.variance()
        devs.append(max(rel(r.value, 4 * math.pi**2 / L**2), rel(var, L * L * (1 / 12 - 1 / (2 * math.pi**2)))))
        insts.append({"support": [-L / 2, L / 2], "J_star": r.value, "variance": var, "status": r.status})
    gauss = [1 / s**2 for s in (1.0, 10.0, 100.0, 1000.0)]  # J of N(0, s^2): tends to 0, never attained
    devs.append(0.0 if all(b < a for a, b in zip(gauss, gauss[1:])) and gauss[-1] < 1e-5 else 1.0)
    insts.append({"support": "R", "J_of_gaussians_sd_1_10_100_1000": gauss})
    v = Verdict.from_deviations(devs, 1e-6, insts)
    note = (
        f"{v.verdict} on the {len(insts) - 1} bounded supports checked (J* = 4 pi^2/L^2 attained, variance "
        "L^2 (1/12 - 1/(2 pi^2))) and for R (J -> 0 along Gaussians: the infimum 0 is not attained)"
    )
    return replace(v, note=note)


def check_remark6() -> Verdict:
    """Remark 6: 'maximizing [the Problem-1 objective, tr J^-1] ... is a non-concave cost function' -- a witness:
    two densities whose midpoint has tr J^-1 below the chord (m = 1: 1/J)."""
    p1 = _DENSITIES["cos^2 on [-1, 1]"][0]
    for tried, width in enumerate((0.5, 0.2, 0.1), start=1):
        p2 = lambda w, s=width: math.cos(math.pi * w / (2 * s)) ** 2 / s if abs(w) < s else 0.0  # noqa: E731
        mid = lambda w, q=p2: 0.5 * p1(w) + 0.5 * q(w)  # noqa: E731
        j1, j2 = fisher_info(p1, -1, 1), fisher_info(p2, -width, width)
        jm = fisher_info(mid, -1, 1)
        chord, at_mid = 0.5 * (1 / j1 + 1 / j2), 1 / jm
        if at_mid < chord * (1 - 1e-6):
            ce = {"p1": "cos^2 on [-1,1]", "p2": f"cos^2 on [-{width},{width}]", "J1": j1, "J2": j2, "J_mid": jm}
            note = (
                f"holds: 1/J at the midpoint {at_mid:.4g} < chord {chord:.4g} (a witness of non-concavity); the other "
                "parts of Remark 6 ((11) nonlinear, Theorem 1 only necessary) need the lost formula (11): not checked"
            )
            return Verdict("holds", tried, 0.0, ce, note=note)
    return Verdict("fails", 3, 0.0, note="no witness of non-concavity found among the pairs tried")


XDEP_GRID = ((2.0, 15), (2.0, 31), (2.0, 63), (8.0, 15), (32.0, 15))  # (|X|, grid points in w)


def check_cor_xdep() -> Verdict:
    """Corollaries 1/3/5 read over all policies p(w | x) (Sec. 2: 'the most general policy'), bounded X, uniform
    weight: is the x-independent cos^2 density the solution of Problem 2? Grid SOCP over x-dependent policies
    (:class:`~mechopt.problems.fisher.weighted.FisherWeighted`, support [-1, 1]) against cos^2 on the same grid."""
    devs, insts = [], []
    for width, nw in XDEP_GRID:
        prob = FisherWeighted(-1.0, 1.0, 0.0, width, "uniform", nw)
        opt = solve(prob, solver="conic")
        cos2 = prob.cost(np.tile(GridDensity.cos2(-1.0, 1.0, nw).density[:, None], (1, prob.grid_shape[1])))
        devs.append((cos2 - opt.value) / max(1.0, opt.value))
        insts.append(
            {"X": [0.0, width], "nw": nw, "grid_optimum": opt.value, "cos2_on_grid": cos2, "status": opt.status}
        )
    v = Verdict.from_deviations(devs, 1e-3, insts)
    beaten = sum(d > 1e-3 for d in devs)
    x2 = [i for i in insts if i["X"][1] == 2.0]
    by_width = ", ".join(f"{i['grid_optimum']:.2f} on [0, {i['X'][1]:g}]" for i in insts if i["nw"] == 15)
    note = (
        f"as read over x-dependent policies it {v.verdict}: cos^2 is beaten on {beaten} of the {len(insts)} (X, grid) "
        "instances checked; on X = [0, 2] the grid optimum is "
        + ", ".join(f"{i['grid_optimum']:.3f} (nw = {i['nw']})" for i in x2)
        + f" vs cos^2 {x2[-1]['cos2_on_grid']:.3f} (continuum pi^2 = {math.pi**2:.3f}); the gap shrinks as X grows "
        f"({by_width}); the grid "
        "converges at first order, far below the gap. Over x-independent policies the corollaries hold (fisher.cor1, "
        "cor3, cor5); scalar queries reduce to this case (the policy acts through f(x))"
    )
    return replace(v, note=note)


def _mi_laplace_noise(s: float, b: float) -> float:
    """I(x; x + w), x ~ N(0, s^2), w ~ Laplace(b): h(x + w) - h(w) with h(x + w) from a fine-grid convolution."""
    from scipy.signal import fftconvolve
    from scipy.stats import laplace, norm

    half = 12 * (s + b)
    y, h = np.linspace(-2 * half, 2 * half, 2**15 + 1, retstep=True)
    f = fftconvolve(norm(scale=s).pdf(y), laplace(scale=b).pdf(y), mode="same") * h
    f = f[f > 1e-300]
    return float(-np.sum(f * np.log(f)) * h - laplace(scale=b).entropy())


def check_sec5_info() -> Verdict:
    """Sec. 5 (formulas lost; reconstructed): at equal variance 2b^2 the optimal (Gaussian) noise of Corollary 6 has a
    larger differential entropy than Proposition 3's Laplace(b), h_G - h_L = ½ log(pi e) - 1 = 0.0724, and 'for some
    prior distributions ... can potentially provide stronger information theoretic guarantees': for x ~ N(0, s^2),
    I(x; x + w_G) < I(x; x + w_L)."""
    from scipy.stats import laplace, norm

    devs, insts = [], []
    for b in (0.1, 1.0, 7.0):
        gap = float(norm(scale=math.sqrt(2) * b).entropy() - laplace(scale=b).entropy())
        devs.append(abs(gap - (0.5 * math.log(math.pi * math.e) - 1)))
        insts.append({"b": b, "entropy_gap": gap})
    for s in (0.5, 1.0, 2.0):
        i_g, i_l = 0.5 * math.log(1 + s * s / 2), _mi_laplace_noise(s, 1.0)
        devs.append(max(0.0, i_g - i_l + 1e-6))
        insts.append({"s": s, "b": 1.0, "mi_gaussian_noise": i_g, "mi_laplace_noise": i_l})
    v = Verdict.from_deviations(devs, 1e-6, insts)
    mi = "; ".join(f"s = {i['s']:g}: {i['mi_gaussian_noise']:.4f} < {i['mi_laplace_noise']:.4f}" for i in insts[3:])
    return replace(v, note=f"{v.verdict} on the {len(insts)} cases checked: entropy gap 0.0724 nats; MI {mi}")


def check_eq7_8() -> Verdict:
    """Sec. 2, eqs. (7)-(8) (formulas lost; reconstructed): with the other entries known, the adversary's error on
    x_i is bounded by 1/[I]_ii (7), which never exceeds the unknown-others bound [I^-1]_ii; and
    sum_i 1/[I]_ii >= m^2 / tr I (8), so minimising tr I still guards every entry."""
    rng = np.random.default_rng(78)
    devs, insts = [], []
    for trial in range(300):
        m = 1 + trial % 5
        A = rng.normal(size=(m, m + 2))
        info = A @ A.T + 1e-3 * np.eye(m)
        d = np.diag(info)
        inv_d = np.diag(np.linalg.inv(info))
        e7 = float(np.max(1 / d - inv_d) / np.max(inv_d))  # > 0 would mean knowing the others hurts the adversary
        e8 = float(m * m / np.trace(info) - np.sum(1 / d)) / float(np.sum(1 / d))
        devs.append(max(0.0, e7, e8))
        insts.append({"trial": trial, "m": m, "fisher": np.round(info, 6).tolist()})
    v = Verdict.from_deviations(devs, 1e-12, insts)
    return replace(v, note=f"{v.verdict} on the {len(insts)} random positive definite Fisher matrices checked (m <= 5)")
