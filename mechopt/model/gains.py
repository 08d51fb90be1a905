"""Cancellation-free column values of the sublinear utilities, and bounds on their rounding error.

A sublinear utility's value is a sum over the joint columns c_y = P ∘ Q[:, y]
(math.md §1). Written as ``offset − Σ μ(c_y)`` an MSE of 1e-21 is the difference of
two numbers near 1 and keeps no digit; written as a sum of non-negative column
values κ(c_y) it keeps all of them:

- MMSE of a sum: κ(c) = Σ_x c_x (a_x − â)², â = aᵀc / 1ᵀc (a rounding error δ in â
  changes κ by 1ᵀc·δ² only: the first-order term Σ_x c_x (a_x − â) is zero);
- histogram MSE: κ(c) = Σ_x c_x (1ᵀc − c_x) / 1ᵀc, with 1ᵀc − c_x summed from the
  other entries (no subtraction);
- mutual information: κ(c) = 1ᵀc Σ_x P_x φ(c_x / (P_x 1ᵀc)) with φ(q) = q log q − q + 1
  (:func:`mechopt.model.info.kl_generator`), every term ≥ 0 even when c ≈ P.

Each ``*_error`` bounds the floating-point error of κ, counting the rounding of
c itself (a column is computed, not given): a few ulp times the sensitivity
Σ_x c_x |∂κ/∂c_x|, which is κ for both MSEs (∂κ/∂c_x ≥ 0) and Σ_x c_x |log q_x|
for the information (≈ 2/ε times κ at small ε: floats near P resolve ε only to a
few ulp), plus d ulp κ for summing d non-negative terms.

Examples
--------
>>> import numpy as np
>>> C = np.array([[0.5 - 1e-20], [1e-20]])           # a nearly deterministic column
>>> float(mse_loss(np.array([-1.0, 1.0]), C)[0])      # offset − μ gives 0 here
4e-20
>>> float(histogram_loss(C)[0])
2e-20
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from mechopt.model.info import kl_generator

__all__ = ["ULP", "mse_loss", "mse_error", "histogram_loss", "histogram_error", "mi_gain", "mi_error"]

ULP = float(np.finfo(float).eps)
#: Safety factor on the rounding bounds (a few operations per entry, each within one ulp).
_OPS = 8.0


def _mass(C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(1ᵀc, 1ᵀc with empty columns as 1); a NaN mass stays NaN (a bad channel is not an empty column)."""
    mass = C.sum(axis=0)
    return mass, np.where(mass == 0, 1.0, mass)


def _offsets(a: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(mass, safe mass, a_x − a*, t) per column: a* the value of its largest entry, â = a* + t.

    Centring at the dominant input keeps the rounding error of â proportional to the
    mass away from it: a column within 1e-20 of a point mass has â within 1e-20 of a*,
    and t holds those digits (â itself would round them away).
    """
    mass, safe = _mass(C)
    top = a[np.argmax(C, axis=0)] if C.size else np.zeros(C.shape[1])
    diff = a[:, None] - top[None, :]
    return mass, safe, diff, np.sum(C * diff, axis=0) / safe


def mse_loss(a: np.ndarray, C: np.ndarray) -> np.ndarray:
    """κ(c) = Σ_x c_x (a_x − â)² per column (0 for an empty column), with a_x − â = (a_x − a*) − t."""
    mass, _, diff, t = _offsets(a, C)
    return np.where(mass == 0, 0.0, np.sum(C * (diff - t[None, :]) ** 2, axis=0))


def mse_error(a: np.ndarray, C: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Rounding bound of :func:`mse_loss`: (8 + d) ulp κ, plus 1ᵀc·δ² for the error of t.

    The error δ of t is at most (d + 2) ulp Σ_x c_x |a_x − a*| / 1ᵀc.
    """
    d = C.shape[0]
    mass, safe, diff, _ = _offsets(a, C)
    spread = np.sum(C * np.abs(diff), axis=0) / safe
    return (_OPS + d) * ULP * loss + mass * (ULP * (d + 2) * spread) ** 2


def histogram_loss(C: np.ndarray) -> np.ndarray:
    """κ(c) = Σ_x c_x (1ᵀc − c_x) / 1ᵀc per column, 1ᵀc − c_x summed from the other entries."""
    mass, safe = _mass(C)
    before = np.zeros_like(C)
    before[1:] = np.cumsum(C[:-1], axis=0)
    after = np.zeros_like(C)
    after[:-1] = np.cumsum(C[:0:-1], axis=0)[::-1]
    return np.where(mass == 0, 0.0, np.sum(C * (before + after), axis=0) / safe)


def histogram_error(C: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """Rounding bound of :func:`histogram_loss`: (8 + 2d) ulp κ (the prefix sums add d ulp of their own)."""
    return (_OPS + 2 * C.shape[0]) * ULP * loss


def _ratios(prior: np.ndarray, C: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(1ᵀc, q = c / (P 1ᵀc)) with q formed as (c / 1ᵀc) / P: no product that underflows."""
    mass, safe = _mass(C)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = (C / safe) / prior[:, None]
    return mass, q


def mi_gain(prior: np.ndarray, C: np.ndarray) -> np.ndarray:
    """κ(c) = Σ_x c_x log(c_x / (P_x 1ᵀc)) = 1ᵀc Σ_x P_x φ(q_x) per column (needs Σ P = 1).

    An entry c_x > 0 where P_x = 0 gives +inf (as ``rel_entr``); c_x = P_x = 0 gives 0.
    """
    mass, q = _ratios(prior, C)
    with np.errstate(invalid="ignore", over="ignore"):
        terms = prior[:, None] * kl_generator(np.where(prior[:, None] > 0, q, 1.0))
    terms = np.where((prior[:, None] == 0) & (C > 0), np.inf, terms)
    return np.where(mass == 0, 0.0, mass * terms.sum(axis=0))


def mi_error(prior: np.ndarray, C: np.ndarray, gain: np.ndarray) -> np.ndarray:
    """Rounding bound of :func:`mi_gain`: 8 ulp Σ_x c_x |log q_x| + (8 + d) ulp κ."""
    _, q = _ratios(prior, C)
    with np.errstate(divide="ignore", invalid="ignore"):
        sens = np.abs(xlogy(C, np.where(prior[:, None] > 0, q, 1.0))).sum(axis=0)
    return _OPS * ULP * sens + (_OPS + C.shape[0]) * ULP * np.abs(gain)
