"""k-subset paper (Wang et al.), Sec. 3.1-3.2: Algorithm 1 (the randomizer) produces the channel of Definition 2.1,
eq. (5), and Algorithm 2 (the remapping estimator) equals the regression estimator (QQ^T)^-1 Q [f(z)], and App. C's
derivative of I_k; registered in :mod:`mechopt.claims.kss.sections`.

Examples
--------
>>> q = eq5_channel(4, 2, 1.0)
>>> q.shape, bool(abs(q.sum(axis=1) - 1).max() < 1e-12)
((4, 6), True)
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np
from scipy.stats import chisquare

from mechopt.jobs.verify import Verdict
from mechopt.oracles.ksubset import KSubset, hit_rates_ksubset
from mechopt.problems.kss import formulas as F

__all__ = [
    "eq5_channel",
    "algorithm1_channel",
    "check_alg1",
    "check_remap",
    "check_appC",
    "sampled_pvalue",
    "ALG1_SAMPLES",
]

ALG1_GRID = [(d, k, eps) for d in (3, 4, 5) for k in range(1, d) for eps in (0.5, 2.0)]
ALG1_SAMPLES = 20_000  # reports per input symbol
ALPHA = 1e-3  # family level: an instance fails when its p-value is below ALPHA / len(ALG1_GRID) (Bonferroni)


def _subsets(d: int, k: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(d), k))


def eq5_channel(d: int, k: int, eps: float) -> np.ndarray:
    """Eq. (5): Q^k(Z|X) = d e^eps/(k e^eps + d - k)/C(d,k) if X in Z, d/(k e^eps + d - k)/C(d,k) if not
    (columns: the k-subsets in lexicographic order)."""
    den = (k * math.exp(eps) + d - k) * math.comb(d, k)
    return np.array([[d * (math.exp(eps) if x in z else 1.0) / den for z in _subsets(d, k)] for x in range(d)])


def algorithm1_channel(d: int, k: int, eps: float) -> np.ndarray:
    """The law of Algorithm 1's output, by enumerating its two branches: with probability
    k e^eps/(k e^eps + d - k) x plus a uniform (k-1)-subset of X - x, else a uniform k-subset of X - x."""
    g = k * math.exp(eps) / (k * math.exp(eps) + d - k)
    cols = {z: j for j, z in enumerate(_subsets(d, k))}
    Q = np.zeros((d, len(cols)))
    for x in range(d):
        others = [a for a in range(d) if a != x]
        for y in itertools.combinations(others, k - 1):
            Q[x, cols[tuple(sorted((x, *y)))]] += g / math.comb(d - 1, k - 1)
        for y in itertools.combinations(others, k):
            Q[x, cols[y]] += (1 - g) / math.comb(d - 1, k)
    return Q


def sampled_pvalue(d: int, k: int, eps: float, seed: int, against: float | None = None) -> float:
    """Pooled chi-square p-value of mechopt's vectorised Algorithm 1 against eq. (5): ALG1_SAMPLES reports per
    input symbol, all d rows in one statistic (d (C(d,k) - 1) degrees of freedom); ``against``: the eps of the
    eq. (5) channel tested (default ``eps``)."""
    ks = KSubset(d, eps, k)
    Q5 = eq5_channel(d, k, eps if against is None else against)[:, _colex_order(d, k)]
    rng = np.random.default_rng(seed)
    counts = [
        np.bincount(ks.output_rank(ks.randomize(np.full(ALG1_SAMPLES, x), rng)), minlength=Q5.shape[1])
        for x in range(d)
    ]
    return float(chisquare(np.concatenate(counts), Q5.ravel() * ALG1_SAMPLES, ddof=d - 1).pvalue)


def check_alg1() -> Verdict:
    """Algorithm 1 enumerated equals eq. (5) (to 1e-12), mechopt's matrix equals eq. (5), and mechopt's sampler's
    reports pass a pooled chi-square test against eq. (5) (seeded; Bonferroni at family level 1e-3) on every
    (d, k, eps) of the grid."""
    devs, insts = [], []
    for i, (d, k, eps) in enumerate(ALG1_GRID):
        Q5 = eq5_channel(d, k, eps)
        enum = float(np.abs(algorithm1_channel(d, k, eps) - Q5).max())
        mat = float(np.abs(KSubset(d, eps, k).matrix() - Q5[:, _colex_order(d, k)]).max())
        p = sampled_pvalue(d, k, eps, 1000 + i)
        devs.append(max(enum, mat, 0.0 if p >= ALPHA / len(ALG1_GRID) else 1.0))
        insts.append({"d": d, "k": k, "eps": eps, "enumerated": enum, "matrix": mat, "pvalue": round(p, 4)})
    v = Verdict.from_deviations(devs, 1e-12, insts)
    low = min(i["pvalue"] for i in insts)
    note = (
        f"{v.verdict} on the {len(insts)} (d, k, eps) instances checked: exact by enumeration, and the sampler's "
        f"{ALG1_SAMPLES} reports per input pass a pooled chi-square test at family level {ALPHA:g} (smallest p-value "
        f"{low:.3g} of {len(insts)})"
    )
    return replace(v, note=note)


def _colex_order(d: int, k: int) -> list[int]:
    """Lexicographic column index of each of KSubset's columns (its labels' order)."""
    lex = {z: j for j, z in enumerate(_subsets(d, k))}
    return [lex[tuple(sorted(z))] for z in KSubset(d, 1.0, k).output_labels()]


def check_remap() -> Verdict:
    """Sec. 3.2: the regression estimator (QQ^T)^-1 Q [f(z)]/n equals Algorithm 2's remapping estimate
    (f(X_j) - n h_k)/(n (g_k - h_k)) for any subset counts f(z), and eq. (9) E f(X_j) = n theta_j g_k + n(1 -
    theta_j) h_k."""
    rng = np.random.default_rng(33)
    devs, insts = [], []
    for d in (3, 4, 5, 6):
        for k in range(1, d):
            for eps in (0.3, 1.0, 3.0):
                Q = eq5_channel(d, k, eps)
                n = 1000
                f = rng.multinomial(n, rng.dirichlet(np.ones(Q.shape[1])))  # any counts, not only likely ones
                reg = np.linalg.solve(Q @ Q.T, Q @ f) / n
                member = np.array([[x in z for z in _subsets(d, k)] for x in range(d)], dtype=float)
                g, h = hit_rates_ksubset(d, k, eps)
                remap = (member @ f - n * h) / (n * (g - h))
                theta = rng.dirichlet(np.ones(d))
                eq9 = np.abs(member @ (Q.T @ theta) - (theta * g + (1 - theta) * h)).max()
                devs.append(max(float(np.abs(reg - remap).max()), float(eq9)))
                insts.append({"d": d, "k": k, "eps": eps, "regression_minus_remap": float(np.abs(reg - remap).max())})
    v = Verdict.from_deviations(devs, 1e-9, insts)
    return replace(
        v,
        note=f"{v.verdict} on the {len(insts)} (d, k, eps) instances checked, each with random subset counts: both are "
        "affine in f(X_j) and unbiased on the simplex, so they coincide (QQ^T = aI + bJ by symmetry)",
    )


def _richardson(f, ks: np.ndarray, h: float) -> np.ndarray:
    """(4 D(h/2) - D(h)) / 3 with D the central difference: error O(h^4)."""

    def central(step: float) -> np.ndarray:
        return np.array([(f(k + step) - f(k - step)) / (2 * step) for k in ks])

    return (4 * central(h / 2) - central(h)) / 3


def check_appC() -> Verdict:
    """App. C: I'(k) = (eps e^eps d - (e^eps - 1)(k e^eps + d - k)) / (k e^eps + d - k)^2 (against central
    differences of I_k, eq. (4)); beta = (eps e^eps - e^eps + 1) d / (e^eps - 1)^2 is the only zero of I' in (0, d),
    with I' >= 0 before it and <= 0 after (on a 60-point grid of k per (d, eps))."""
    devs, insts = [], []
    for d in (2, 3, 10, 50, 400):
        for eps in (0.1, 0.5, 1.0, 3.0, 6.0):
            e = math.exp(eps)

            def printed(k: np.ndarray, d: int = d, e: float = e, eps: float = eps) -> np.ndarray:
                return (eps * e * d - (e - 1) * (k * e + d - k)) / (k * e + d - k) ** 2

            ks = np.linspace(0.01 * d, 0.99 * d, 60)
            fd = _richardson(lambda k: F.mi_ksubset(d, k, eps), ks, 1e-4 * d)
            scale = max(1e-12, float(np.abs(fd).max()))
            b = F.beta(d, eps)
            sign = float(np.max(np.where(ks < b, -printed(ks), printed(ks)).clip(min=0))) / scale
            dev = float(np.abs(fd - printed(ks)).max()) / scale
            devs.append(max(dev, sign, abs(float(printed(np.array([b]))[0])) / scale))
            insts.append({"d": d, "eps": eps, "beta": b, "derivative_rel_error": dev})
    v = Verdict.from_deviations(devs, 1e-6, insts)
    note = (
        f"{v.verdict} on the {len(insts)} (d, eps) instances checked (deviations relative to max |I'|; central "
        "differences with one Richardson step)"
    )
    return replace(v, note=note)
