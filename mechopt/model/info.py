"""Information measures: entropy, KL, mutual information, Gaussian MI, Fisher information.

All in nats unless ``base`` is given.

Examples
--------
>>> import numpy as np
>>> from mechopt.model.info import entropy, mutual_information, gaussian_mi
>>> round(entropy([0.5, 0.5], base=2), 12)
1.0
>>> bool(np.isclose(mutual_information([0.5, 0.5], np.eye(2)), np.log(2)))
True
>>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
>>> bool(np.isclose(gaussian_mi(C, [0], [1]), -0.5 * np.log(1 - 0.25)))
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import rel_entr, xlogy

from mechopt.errors import ProblemError
from mechopt.model._matrix import sum_column_blocks

__all__ = [
    "entropy",
    "kl_divergence",
    "mutual_information",
    "kl_generator",
    "kl_generator_exp",
    "gaussian_entropy",
    "gaussian_mi",
    "fisher_grid",
    "fisher_gaussian",
]


def _scale(base: float | None) -> float:
    return 1.0 if base is None else 1.0 / math.log(base)


def entropy(p, base: float | None = None) -> float:
    """H(p) = −Σ p log p."""
    p = np.asarray(p, dtype=float)
    return float(-xlogy(p, p).sum() * _scale(base))


def kl_divergence(p, q, base: float | None = None) -> float:
    """D(p‖q) = Σ p log(p/q); ``inf`` when p is not absolutely continuous w.r.t. q."""
    return float(rel_entr(np.asarray(p, float), np.asarray(q, float)).sum() * _scale(base))


def mutual_information(prior, Q, base: float | None = None, *, chunk: int | None = None) -> float:
    """I(X; Y) = Σ_{x,y} P(x) Q[x,y] log(Q[x,y] / λ_y) for a channel Q.

    Evaluated as Σ_y λ_y Σ_x P(x) φ(Q[x, y] / λ_y) with φ(q) = q log q − q + 1 ≥ 0
    (:func:`kl_generator`): every term is non-negative, so nothing cancels when
    the channel is nearly constant (at ε = 1e-6 the information is ~1e-12 nats
    and the textbook Σ Q log Q − Σ λ log λ keeps no correct digit of it). The
    identity needs Σ_x P(x) = 1, which :func:`mechopt.model.priors.validate_prior`
    ensures. Computed ``chunk`` outputs at a time (default
    :func:`mechopt.model._matrix.column_block`: at most 256 and 1/16 of them):
    O(d · chunk) extra memory, so a 10⁴ × 10⁴ channel needs no d × n temporaries.

    Examples
    --------
    >>> import numpy as np
    >>> abs(mutual_information([0.5, 0.5], np.eye(2)) - float(np.log(2))) < 1e-15
    True
    >>> e = 1e-6; Q = np.array([[np.exp(e), 1.0], [1.0, np.exp(e)]]) / (1 + np.exp(e))
    >>> bool(abs(mutual_information([0.5, 0.5], Q) / (np.tanh(e / 2) ** 2 / 2) - 1) < 1e-9)   # ≈ ε²/8
    True
    """
    P = np.asarray(prior, dtype=float)
    Q = np.asarray(Q, dtype=float)
    live = P > 0

    def block(B: np.ndarray) -> float:
        B = B[live]
        lam = P[live] @ B
        used = lam != 0  # a NaN column stays NaN: a bad channel is not an unused output
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            terms = P[live, None] * kl_generator(B[:, used] / lam[used])
        return float(lam[used] @ terms.sum(axis=0))

    return sum_column_blocks(Q, block, chunk) * _scale(base)


#: Below this |q − 1| the series of :func:`kl_generator` is used (18 terms reach 1e-17 relative).
_SERIES_BELOW = 0.125
_SERIES_TERMS = 20
# φ(1 + δ) = Σ_{k≥2} (−1)^k δ^k / (k (k − 1)), highest power first (Horner)
_SERIES = np.array([(-1.0) ** k / (k * (k - 1)) for k in range(_SERIES_TERMS, 1, -1)])


def kl_generator(q) -> np.ndarray:
    """φ(q) = q log q − q + 1 (≥ 0, φ(1) = 0), elementwise, accurate to a few ulp relative at every q.

    The generator of the Kullback-Leibler divergence: D(p‖r) = Σ_x r_x φ(p_x / r_x)
    for distributions p, r. Near q = 1 the three terms cancel to ≈ (q − 1)²/2,
    so there it is summed as the series Σ_{k≥2} (−1)^k (q − 1)^k / (k(k − 1)).

    Examples
    --------
    >>> import numpy as np
    >>> kl_generator(np.array([0.0, 1.0, np.e])).tolist()
    [1.0, 0.0, 1.0]
    >>> d = 2.0**-30                  # q log q − q + 1 in floating point gives 0 or ±2e-16 here
    >>> round(float(kl_generator(1 + d)) / (d * d / 2), 8)      # ≈ (q − 1)²/2
    1.0
    """
    q = np.asarray(q, dtype=float)
    d = q - 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        out = np.asarray(xlogy(q, q) - d, dtype=float)
    return _near_zero_series(out, d, np.abs(d) < _SERIES_BELOW, _SERIES)


def _near_zero_series(out: np.ndarray, x: np.ndarray, near: np.ndarray, coeffs: np.ndarray) -> np.ndarray:
    """``out`` with its ``near`` entries replaced by x² · Σ_j coeffs[j] x^(n−1−j) (Horner, highest power first)."""
    if not np.any(near):
        return out
    z = x[near] if out.ndim else x
    acc = np.zeros_like(z)
    for c in coeffs:
        acc = acc * z + c
    if not out.ndim:
        return acc * z * z
    out[near] = acc * z * z
    return out


# φ(e^u) = Σ_{k≥2} (k − 1) u^k / k!, highest power first (Horner); 24 terms reach 1e-17 for |u| ≤ 1/2
_EXP_SERIES = np.array([(k - 1) / math.factorial(k) for k in range(24, 1, -1)])


def kl_generator_exp(u) -> np.ndarray:
    """φ(e^u) = 1 + (u − 1) e^u, for a log-ratio u given exactly (a closed form's ±ε), accurate at every u.

    :func:`kl_generator` of e^u would first round e^u, losing ~ulp/|u| of it at small u;
    here the series Σ_{k≥2} (k − 1) u^k / k! is summed directly for |u| ≤ 1/2.

    Examples
    --------
    >>> float(kl_generator_exp(1e-9)) / 5e-19        # ε e^ε − e^ε + 1 ≈ ε²/2: the direct formula gives 0
    1.0000000006666667
    >>> float(kl_generator_exp(1.0)) == 1.0
    True
    """
    u = np.asarray(u, dtype=float)
    with np.errstate(over="ignore", invalid="ignore"):
        out = np.asarray(1.0 + (u - 1.0) * np.exp(u), dtype=float)
    return _near_zero_series(out, u, np.abs(u) <= 0.5, _EXP_SERIES)


def _psd_cov(C, name: str = "covariance") -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ProblemError(f"{name} must be square, got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ProblemError(f"{name} has non-finite entries")
    if not np.allclose(C, C.T, atol=1e-10 * max(1.0, np.abs(C).max())):
        raise ProblemError(f"{name} is not symmetric")
    return (C + C.T) / 2


def _logdet(C: np.ndarray, name: str) -> float:
    sign, val = np.linalg.slogdet(C)
    if sign <= 0:
        raise ProblemError(f"{name} is singular or not positive definite (det sign {sign:g})")
    return float(val)


def gaussian_entropy(C, base: float | None = None) -> float:
    """Differential entropy ½ log det(2πe C)."""
    C = _psd_cov(C)
    n = C.shape[0]
    return (0.5 * (n * math.log(2 * math.pi * math.e) + _logdet(C, "covariance"))) * _scale(base)


def gaussian_mi(C, a: Sequence[int], b: Sequence[int], base: float | None = None) -> float:
    """I(X_a; X_b) = ½ [log det C_aa + log det C_bb − log det C_{a∪b}] for jointly Gaussian X."""
    C = _psd_cov(C)
    a, b = list(a), list(b)
    if set(a) & set(b):
        raise ProblemError("gaussian_mi needs disjoint index sets a and b")
    ab = a + b
    val = 0.5 * (
        _logdet(C[np.ix_(a, a)], "C_aa") + _logdet(C[np.ix_(b, b)], "C_bb") - _logdet(C[np.ix_(ab, ab)], "C_ab")
    )
    return max(0.0, val) * _scale(base)


def fisher_grid(density, h: float) -> float:
    """Fisher information ∫ p'(w)² / p(w) dw of a density sampled on a uniform grid.

    ``density`` holds p at interior nodes of a grid of spacing ``h`` whose
    end points (not included) have p = 0. Uses J = 4 ∫ (√p)'² with forward
    differences of q = √p, which is exact for piecewise-linear q.

    >>> import numpy as np
    >>> L, n = 2.0, 2000; h = L / (n + 1); w = -1 + h * np.arange(1, n + 1)
    >>> p = np.cos(np.pi * w / 2) ** 2
    >>> abs(fisher_grid(p / (p.sum() * h), h) - np.pi ** 2) < 1e-4
    True
    """
    p = np.asarray(density, dtype=float)
    if p.ndim != 1 or p.size < 1 or np.any(p < 0) or not np.all(np.isfinite(p)):
        raise ProblemError("density must be a non-negative finite 1-D array")
    if not (h > 0):
        raise ProblemError(f"grid spacing h must be > 0, got {h!r}")
    q = np.concatenate([[0.0], np.sqrt(p), [0.0]])
    return float(4.0 * np.sum(np.diff(q) ** 2) / h)


def fisher_gaussian(C) -> np.ndarray:
    """Fisher information matrix of a location family N(θ, C): C⁻¹."""
    C = _psd_cov(C)
    _logdet(C, "covariance")
    return np.linalg.inv(C)
