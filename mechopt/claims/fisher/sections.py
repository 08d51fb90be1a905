"""Fisher paper (Farokhi & Sandberg), further claims: Prop. 2 (convexity), Prop. 5 (Jensen step), Theorem 1,
the equivalence of Problems 3 and 4, Remark 3; Prop. 1, Remarks 1 and 6 and the x-dependent reading of
Corollaries 1/3/5 (checks in :mod:`~mechopt.claims.fisher.preliminaries`). The seed lost every formula: statements
are the prose as printed plus the reconstruction from the project's math notes (section 4), marked as such.

Examples
--------
>>> next(c for c in CLAIMS if c.id == "fisher.remark3").run().verdict
'holds'
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.api import solve
from mechopt.claims._spec import not_checkable, rel
from mechopt.claims._spec import spec as Spec
from mechopt.claims.fisher.preliminaries import (
    check_cor_xdep,
    check_eq7_8,
    check_prop1,
    check_remark1,
    check_remark6,
    check_sec5_info,
)
from mechopt.jobs.verify import Verdict
from mechopt.problems.fisher.gaussian import FisherGaussian
from mechopt.problems.fisher.problems import FisherInterval

PAPER = "fisher"

__all__ = ["CLAIMS"]


def _J1(p, h):
    """Discrete Fisher information of a 1-D grid density (location family), zero outside."""
    pp = np.r_[0.0, p, 0.0]
    d = np.diff(pp) / h
    mid = 0.5 * (pp[1:] + pp[:-1])
    return float(np.sum(np.where(mid > 0, d**2 / np.maximum(mid, 1e-300), 0.0)) * h)


def check_prop2():
    """Prop. 2: the (trace of the) Fisher information is a convex function of the density."""
    rng = np.random.default_rng(2)
    n, h = 200, 2.0 / 201
    devs = []
    for _ in range(300):
        p, q = rng.random(n) + 0.05, rng.random(n) + 0.05
        p, q = np.convolve(p, np.ones(9) / 9, "same"), np.convolve(q, np.ones(9) / 9, "same")
        p, q = p / (p.sum() * h), q / (q.sum() * h)
        t = rng.uniform()
        devs.append(max(0.0, _J1(t * p + (1 - t) * q, h) - (t * _J1(p, h) + (1 - t) * _J1(q, h))))

    # 2-D: trace of the Fisher matrix on a 30x30 grid
    def trJ2(P, h):
        P2 = np.pad(P, 1)
        tot = 0.0
        for ax in (0, 1):
            d = np.diff(P2, axis=ax) / h
            mid = 0.5 * (np.take(P2, range(1, P2.shape[ax]), axis=ax) + np.take(P2, range(P2.shape[ax] - 1), axis=ax))
            tot += float(np.sum(np.where(mid > 0, d**2 / np.maximum(mid, 1e-300), 0)) * h * h)
        return tot

    for _ in range(100):
        P, Q = rng.random((30, 30)) + 0.05, rng.random((30, 30)) + 0.05
        t = rng.uniform()
        devs.append(max(0.0, trJ2(t * P + (1 - t) * Q, 0.1) - t * trJ2(P, 0.1) - (1 - t) * trJ2(Q, 0.1)))
    return Verdict.from_deviations(devs, 1e-9)


def check_prop5():
    """Prop. 5 (reconstructed: int rho tr(J^-1) >= m^2 / int rho tr J, two Jensen steps)."""
    rng = np.random.default_rng(5)
    devs = []
    for _ in range(500):
        m, K = int(rng.integers(1, 5)), int(rng.integers(1, 20))
        w = rng.dirichlet(np.ones(K))
        Js = []
        for _ in range(K):
            A = rng.normal(size=(m, m))
            Js.append(A @ A.T + 1e-3 * np.eye(m))
        lhs = sum(wi * np.trace(np.linalg.inv(J)) for wi, J in zip(w, Js))
        rhs = m**2 / sum(wi * np.trace(J) for wi, J in zip(w, Js))
        devs.append(max(0.0, rhs - lhs) / rhs)
    return Verdict.from_deviations(devs, 1e-12)


def _trJinv_2d(q, h):
    """tr(J^-1) for p = q^2 on a grid (zero boundary): J = 4 int grad q grad q^T."""
    Q = np.pad(q, 1)
    gx = (Q[2:, 1:-1] - Q[:-2, 1:-1]) / (2 * h)
    gy = (Q[1:-1, 2:] - Q[1:-1, :-2]) / (2 * h)
    J = 4 * h * h * np.array([[np.sum(gx * gx), np.sum(gx * gy)], [np.sum(gx * gy), np.sum(gy * gy)]])
    return float(np.trace(np.linalg.inv(J)))


def check_thm1():
    """Thm 1 (formula (11) lost): necessary condition for Problem 1 (max E tr(J^-1)), x-independent noise."""
    n, L1, L2 = 61, 2.0, 3.0
    x = np.linspace(-L1 / 2, L1 / 2, n + 2)[1:-1]
    y = np.linspace(-L2 / 2, L2 / 2, n + 2)[1:-1]
    hx = x[1] - x[0]
    hy = y[1] - y[0]
    X, Y = np.meshgrid(x, y, indexing="ij")
    # use a common grid spacing by rescaling y (tr J^-1 transforms as a sum of axis terms)
    q0 = np.cos(np.pi * X / L1) * np.cos(np.pi * Y / L2)

    def trJinv(q):
        q = q / math.sqrt(np.sum(q * q) * hx * hy)
        Q = np.pad(q, 1)
        gx = (Q[2:, 1:-1] - Q[:-2, 1:-1]) / (2 * hx)
        gy = (Q[1:-1, 2:] - Q[1:-1, :-2]) / (2 * hy)
        J = 4 * hx * hy * np.array([[np.sum(gx * gx), np.sum(gx * gy)], [np.sum(gx * gy), np.sum(gy * gy)]])
        return float(np.trace(np.linalg.inv(J)))

    base = trJinv(q0)
    rng = np.random.default_rng(1)
    worse = 0
    gain = 0.0
    for _ in range(60):
        a, b = rng.integers(1, 4, 2)
        phi = np.sin(a * np.pi * (X / L1 + 0.5)) * np.sin(b * np.pi * (Y / L2 + 0.5)) * rng.normal()
        phi += rng.normal() * np.sin(np.pi * (X / L1 + 0.5)) * np.sin(2 * np.pi * (Y / L2 + 0.5)) * np.sign(X)
        v = trJinv(q0 + 0.05 * phi)
        worse += v <= base + 1e-12
        gain = max(gain, v - base)
    one_d = solve(FisherInterval(-1.0, 1.0, n=400), solver="spectral").value
    note = (
        f"formula (11) is lost, so the condition cannot be compared. Checkable consequences: (a) m = 1: "
        f"max 1/J = 1/min J, so Problem 1 and Problem 2 share the cos^2 optimum (spectral J = {one_d:.8f} vs "
        f"pi^2 = {math.pi**2:.8f}); (b) m = 2 box {L1}x{L2}: the product cos^2 has tr(J^-1) = {base:.5f} "
        f"(exact (L1^2+L2^2)/(4 pi^2) = {(L1**2 + L2**2) / (4 * math.pi**2):.5f}); {worse} of 60 random smooth "
        f"perturbations (incl. correlating ones) do not increase it (max increase {gain:.2e}): consistent with "
        "a local maximum, as Theorem 1's necessary condition would require"
    )
    return not_checkable(note, 61, gain)


def check_p3_p4():
    """'Problems 4 and 3 are equivalent in the sense that, for all sigma, there exists xi ...'."""
    devs, insts = [], []
    for m in (1, 2):
        for xi in (0.25, 1.0, 4.0):
            h = 1e-3 * xi
            v = lambda x: solve(FisherGaussian(n=600, m=m, xi=x), solver="spectral").value
            vp, vm, v0 = v(xi + h), v(xi - h), v(xi)
            Ew2 = (vp - vm) / (2 * h)  # envelope theorem: dV/dxi = E|w|^2
            trJ = v0 - xi * Ew2
            p4 = solve(FisherGaussian(n=600, m=m, sigma2=Ew2), solver="spectral").value
            devs.append(rel(trJ, p4))
            insts.append({"m": m, "xi": xi, "E|w|^2": Ew2, "trJ_p3": trJ, "p4": p4, "xi_formula": m**2 / Ew2**2})
    return Verdict.from_deviations(devs, 1e-4, insts)


def check_remark3():
    """Remark 3: data processing inequality for Fisher information (further manipulation cannot increase it)."""
    n = 801
    x = np.linspace(-3, 3, n)
    h = x[1] - x[0]
    p = np.where(abs(x) < 1, np.cos(np.pi * x / 2) ** 2, 0.0)
    p /= p.sum() * h
    devs, insts = [], []
    for s in (0.05, 0.1, 0.3, 0.6):
        k = np.exp(-0.5 * (x / s) ** 2)
        k /= k.sum()
        pc = np.convolve(p, k, "same")
        pc /= pc.sum() * h
        a, b = _J1(p, h), _J1(pc, h)
        devs.append(max(0.0, b - a))
        insts.append({"noise_sd": s, "J_before": a, "J_after": b})
    return Verdict.from_deviations(devs, 1e-9, insts)


CLAIMS = [
    Spec(
        "fisher.prop2",
        PAPER,
        "Sec. 2, Prop. 2",
        "[the trace of the Fisher information] is a convex function of the "
        "density function over the set of density functions",
        "noise density independent of x (formula lost; reconstructed)",
        "midpoint-type convexity on 300 random 1-D and 100 random 2-D grid densities",
        check_prop2,
    ),
    Spec(
        "fisher.prop5",
        PAPER,
        "App. A, Prop. 5",
        "(formula lost) the inequality used to relax Problem 1: by Jensen, int rho tr(J^-1) >= m^2 / int rho tr(J)",
        "J(x) positive definite, rho a probability weight (reconstructed from the two Jensen steps of the proof)",
        "500 random weighted PD families, m <= 4",
        check_prop5,
    ),
    Spec(
        "fisher.thm1",
        PAPER,
        "Sec. 3, Thm 1, eq. (11)",
        "Let [p] denote a solution of Problem 1 for linear queries "
        "over the set of probability density functions that are independent of [x]. Then it satisfies (11)",
        "x-independent noise, linear query",
        "formula lost: consequences only (m = 1 identity, m = 2 local test)",
        check_thm1,
    ),
    Spec(
        "fisher.p3_p4_equiv",
        PAPER,
        "Sec. 2 after Problem 4",
        "Problems 4 and 3 are equivalent in the sense that, "
        "for all [sigma], there exists [xi] such that the solution of Problem 4 is a solution of Problem 3 and vice "
        "versa",
        "unbounded support, x-independent noise",
        "spectral solver: envelope dV3/dxi = E|w|^2, compare tr J with Problem 4 at that sigma^2",
        check_p3_p4,
    ),
    Spec(
        "fisher.remark3",
        PAPER,
        "Remark 3",
        "This property [data processing inequality] also holds for the Fisher information",
        "additive independent Gaussian post-processing",
        "grid J before/after convolution",
        check_remark3,
        "remark",
    ),
    Spec(
        "fisher.prop1",
        PAPER,
        "Sec. 2, Prop. 1, eqs. (4)-(5)",
        "Under Assumption 2, for any unbiased estimate [x_hat] it holds that [E(x_hat - x)(x_hat - x)^T >= I(x)^-1]; "
        "for any biased estimate with [E x_hat = x + b(x)], [>= (I + db/dx) I^-1 (I + db/dx)^T + b b^T]",
        "formulas lost, reconstructed as the Cramér-Rao bound; additive noise y = x + w, one observation",
        "five densities meeting Assumption 2 and a Gaussian (equality), estimators c (y - E w), m = 1 and 2",
        check_prop1,
    ),
    Spec(
        "fisher.remark1",
        PAPER,
        "Sec. 2, Remark 1",
        "Problem 1 is well-defined if the support set of the additive noise is bounded. If this is not the case, the "
        "optimal solution is to push the variance of the additive noise to infinity",
        "x-independent noise, scalar; the relaxed objective tr J (Problem 2) as in the solvers",
        "spectral optimum on [-L/2, L/2], L in {0.5, 2, 8, 32}; Gaussians N(0, s^2) on R, s up to 1000",
        check_remark1,
        "remark",
    ),
    Spec(
        "fisher.remark6",
        PAPER,
        "Sec. 3, Remark 6",
        "these difficulties stem from the complexity of maximizing [int rho tr J^-1], which is a non-concave cost "
        "function",
        "x-independent noise, m = 1 (tr J^-1 = 1/J)",
        "a witness: 1/J at the midpoint of two densities below the chord",
        check_remark6,
        "remark",
    ),
    Spec(
        "fisher.cor_xdep",
        PAPER,
        "Sec. 3, Corollaries 1, 3 and 5 (with Sec. 2: 'the most general policy')",
        "The solution of Problem 2 is given by [the x-independent cos^2 density], read over all policies p(w | x)",
        "noise policies that may depend on x (x-dependent class), bounded X, uniform weight, support [-1, 1]",
        "grid SOCP over x-dependent policies (FisherWeighted) vs cos^2 on the same grid; X = [0, 2] at three grid "
        "sizes, X = [0, 8] and [0, 32]",
        check_cor_xdep,
    ),
    Spec(
        "fisher.sec5_info",
        PAPER,
        "Sec. 5 (after Proposition 3)",
        "Interestingly, [h(optimal noise) > h(Laplace noise)], which intuitively points to the fact that, for some "
        "prior distributions on the entries of the database, the optimal noise in Corollary 6 can potentially provide "
        "stronger information theoretic guarantees as well",
        "formulas lost, reconstructed: scalar, equal variance 2b^2 (Gaussian of Corollary 6 vs Laplace(b) of "
        "Proposition 3); Gaussian prior x ~ N(0, s^2) for the mutual information",
        "entropies by scipy.stats at b in {0.1, 1, 7}; I(x; x + w) at s in {0.5, 1, 2}, b = 1 (Laplace case by FFT "
        "convolution on 2^15 + 1 points)",
        check_sec5_info,
        "remark",
    ),
    Spec(
        "fisher.eq7_8",
        PAPER,
        "Sec. 2, eqs. (7)-(8)",
        "By fixing [the other entries] as knowns, Proposition 1 can be used to deduce [E(x_hat_i - x_i)^2 >= 1/I_ii] "
        "(7) ... Hence, it can be deduced that [sum_i E(x_hat_i - x_i)^2 >= m^2 / tr I] (8)",
        "formulas lost, reconstructed; I positive definite",
        "300 random positive definite I, m <= 5: 1/I_ii <= [I^-1]_ii and sum_i 1/I_ii >= m^2 / tr I",
        check_eq7_8,
        "proof-step",
    ),
]
