"""Section 5: the optimal Fisher noise against differential privacy (Propositions 3 and 4).

Weighted average f(x) = aᵀx with x ∈ [lo, hi]^n (Example 2): changing one
entry moves f by at most Δ = max_i |a_i| (hi − lo).

**Proposition 3.** Laplace noise of scale b = Δ/ε makes the answer ε-DP
(|log L(y − f(x)) − log L(y − f(x'))| ≤ |f(x) − f(x')|/b ≤ ε). Its Fisher
information is J = ∫L'²/L = 1/b² and its variance 2b². The optimal noise of
Corollary 6 with the same variance, N(0, 2b²), has J = 1/(2b²): the
Cramér–Rao bound on the adversary's error doubles (2b² against b²) at equal
quality. Entropies: Laplace 1 + ln(2b), Gaussian ½ ln(2πe·2b²), larger by
½ ln(π/e) > 0.

**Proposition 4.** Gaussian noise N(0, σ²) is (ε, δ)-DP when (the classical
sufficient condition, the paper's (16) being lost; Dwork–Roth Thm A.1, for
ε < 1) σ ≥ Δ √(2 ln(1.25/δ)) / ε. The exact condition (Balle & Wang 2018,
the analytic Gaussian mechanism) is
δ ≥ Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ).

Examples
--------
>>> b = laplace_scale(eps=1.0, sensitivity=0.5)
>>> laplace_fisher(b), laplace_variance(b)
(4.0, 0.5)
>>> bool(analytic_gaussian_delta(1.0, gaussian_sigma(1.0, 1e-5, 1.0), 1.0) <= 1e-5)
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import norm

from mechopt.errors import ProblemError

__all__ = [
    "sensitivity",
    "laplace_scale",
    "laplace_fisher",
    "laplace_variance",
    "laplace_entropy",
    "gaussian_entropy_1d",
    "gaussian_sigma",
    "analytic_gaussian_delta",
    "dp_region",
    "laplace_dp_loss",
]


def sensitivity(weights: np.ndarray, lo: float, hi: float) -> float:
    """Δ = max_i |a_i| (hi − lo) for the weighted average on [lo, hi]^n.

    >>> sensitivity(np.array([0.2, -0.5]), 0.0, 2.0)
    1.0
    """
    if not hi > lo:
        raise ProblemError(f"need hi > lo, got [{lo}, {hi}]")
    return float(np.max(np.abs(weights)) * (hi - lo))


def laplace_scale(eps: float, sensitivity: float) -> float:
    """Proposition 3: b = Δ/ε.

    >>> laplace_scale(0.5, 1.0)
    2.0
    """
    if not (eps > 0 and sensitivity > 0):
        raise ProblemError(f"need eps > 0 and sensitivity > 0, got {eps}, {sensitivity}")
    return sensitivity / eps


def laplace_fisher(b: float) -> float:
    """J of Laplace(0, b): ∫ (p'/p)² p = 1/b² (the score is ∓1/b).

    >>> laplace_fisher(0.5)
    4.0
    """
    return 1.0 / b**2


def laplace_variance(b: float) -> float:
    """Var of Laplace(0, b) = 2b².

    >>> laplace_variance(3.0)
    18.0
    """
    return 2.0 * b**2


def laplace_entropy(b: float) -> float:
    """h(Laplace(0, b)) = 1 + ln(2b) nats.

    >>> laplace_entropy(0.5)
    1.0
    """
    return 1.0 + math.log(2 * b)


def gaussian_entropy_1d(var: float) -> float:
    """h(N(0, var)) = ½ ln(2πe var) nats; at equal variance 2b² it exceeds the Laplace's.

    >>> gaussian_entropy_1d(2.0) > laplace_entropy(1.0)
    True
    """
    return 0.5 * math.log(2 * math.pi * math.e * var)


def laplace_dp_loss(b: float, shift: float, y: np.ndarray) -> float:
    """max_y |log L_b(y) − log L_b(y − shift)| on a grid (≤ |shift|/b).

    >>> round(laplace_dp_loss(1.0, 0.5, np.linspace(-5, 5, 1001)), 12)
    0.5
    """
    return float(np.max(np.abs(-np.abs(y) / b + np.abs(y - shift) / b)))


def gaussian_sigma(eps: float, delta: float, sensitivity: float) -> float:
    """Classical Gaussian mechanism: σ = Δ √(2 ln(1.25/δ)) / ε.

    >>> round(gaussian_sigma(0.5, 1e-5, 1.0), 6)
    9.689611
    """
    if not (eps > 0 and 0 < delta < 1 and sensitivity > 0):
        raise ProblemError(f"need eps > 0, 0 < delta < 1, sensitivity > 0; got {eps}, {delta}, {sensitivity}")
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


def analytic_gaussian_delta(eps: float, sigma: float, sensitivity: float) -> float:
    """The smallest δ for which N(0, σ²) is (ε, δ)-DP (Balle & Wang 2018, Thm 8).

    >>> d1, d2 = analytic_gaussian_delta(1.0, 1.0, 1.0), analytic_gaussian_delta(1.0, 2.0, 1.0)
    >>> 0 < d2 < d1 < 1
    True
    """
    a = sensitivity / (2 * sigma)
    c = eps * sigma / sensitivity
    return float(max(0.0, norm.cdf(a - c) - math.exp(eps) * norm.cdf(-a - c)))


def dp_region(sigma: float, sensitivity: float, eps: np.ndarray, delta: np.ndarray) -> dict[str, np.ndarray]:
    """Where N(0, σ²) is (ε, δ)-DP on a grid: the classical condition and the exact one.

    >>> r = dp_region(2.0, 1.0, np.array([0.5, 2.0]), np.array([1e-3]))
    >>> r["exact"].tolist(), r["classical"].tolist()
    ([[False, True]], [[False, False]])
    """
    E, D = np.meshgrid(np.asarray(eps, float), np.asarray(delta, float))
    classical = (E < 1) & (sigma >= sensitivity * np.sqrt(2 * np.log(1.25 / D)) / E)
    exact = np.vectorize(lambda e, d: analytic_gaussian_delta(e, sigma, sensitivity) <= d)(E, D)
    return {"eps": E, "delta": D, "classical": classical, "exact": exact.astype(bool)}
