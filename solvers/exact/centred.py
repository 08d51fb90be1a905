"""The master LP's rows centred at the prior: a well-conditioned system at every ε.

At small ε every ray is within a factor e^{±ε} of P, so the rows Σ_j θ_j r_j(x) = P(x)
of the master LP are nearly parallel (condition ~1/ε): HiGHS's absolute feasibility
tolerance then leaves weights that meet the rows to 1e-10 but break the rays'
balance by 1e-3 of ε, and the mechanism built from them is 1e-6 of ε less private
and 1e-8 more "informative" than the optimum. In mechanism scale, with s_j = 1ᵀr_j,
S = 1ᵀP and σ the largest |r_j(x) S / (P(x) s_j) − 1| (≈ ε), the same system is

    Σ_j θ_j s_j = S,      Σ_j θ_j (r_j(x) / P(x) − s_j / S) / σ = 0   (every x but one),

whose coefficients are of order one (the dropped row is implied: Σ_x P(x) · row x = 0).
It is the row map ``T`` below applied to the rows of the LP; duals map back by Tᵀ.
What matters for privacy is the second block: a residual ρ in it moves a log-ratio
of Q by ρ (renormalising the rows of Q removes a common factor, not a difference),
so :func:`row_error` measures it relative to min(σ, 1).

Examples
--------
>>> import numpy as np
>>> P = np.array([0.3, 0.7]); e = 1e-6
>>> R = P[:, None] * np.array([[np.exp(e), 1.0], [1.0, np.exp(e)]]); R = R / R.sum(axis=0)
>>> sigma = deviation_scale(R, P); round(sigma / e, 3)
0.7
>>> A, b, T = centred_system(R, P, sigma)
>>> bool(np.abs(A).max() < 2), b.tolist()
(True, [1.0, 0.0])
"""

from __future__ import annotations

import numpy as np

__all__ = ["CENTRE_BELOW", "SIGMA_FLOOR", "centres", "deviation_scale", "centred_system", "row_error", "centred_polish"]

#: Rays within this relative distance of P (σ below it) are solved in the centred system.
CENTRE_BELOW = 0.05
#: Below this σ the rays differ from P by rounding only (a master holding just P, ε ≈ 0): nothing to centre.
SIGMA_FLOOR = 1e4 * float(np.finfo(float).eps)


def centres(sigma: float) -> bool:
    """Whether rays at distance σ from P are solved in the centred system."""
    return SIGMA_FLOOR < sigma < CENTRE_BELOW


def _ratios(R: np.ndarray, P: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(r_j(x) / P(x) − s_j / S, s_j, S): the rays' deviations from P in mechanism scale."""
    s = R.sum(axis=0)
    S = float(P.sum())
    return R / P[:, None] - s[None, :] / S, s, S


def deviation_scale(R: np.ndarray, P: np.ndarray) -> float:
    """σ = max_{x,j} |r_j(x) S / (P(x) s_j) − 1|: how far the rays are from P (≈ ε at small ε; 0 at ε = 0)."""
    D, s, S = _ratios(R, P)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(D) * (S / np.where(s > 0, s, np.inf))[None, :]
    return float(np.max(rel)) if rel.size else 0.0


def centred_system(R: np.ndarray, P: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(A', b', T) with A' = T R, b' = T P: the centred rows (module docstring); the row of the largest P is dropped."""
    d = P.size
    S = float(P.sum())
    keep = np.delete(np.arange(d), int(np.argmax(P)))
    T = np.zeros((d, d))
    T[0] = 1.0
    T[1:] = -1.0 / (S * sigma)
    T[np.arange(1, d), keep] += 1.0 / (P[keep] * sigma)
    D, s, _ = _ratios(R, P)
    A = np.vstack([s[None, :], D[keep] / sigma])
    b = np.zeros(d)
    b[0] = S
    return A, b, T


def row_error(R: np.ndarray, P: np.ndarray, theta: np.ndarray, sigma: float | None = None) -> float:
    """How far Q = θ r / P is from a channel whose rows balance.

    max(|Σθ s / S − 1|, max_x |Σ_j θ_j D_j(x)| / min(σ, 1)): the common factor, and the imbalance that moves
    the log-ratios of Q, relative to the rays' own distance from P.
    """
    D, s, S = _ratios(R, P)
    sigma = deviation_scale(R, P) if sigma is None else sigma
    dev = float(np.max(np.abs(D @ theta))) if D.size else 0.0
    return max(abs(float(s @ theta) / S - 1.0), dev / min(max(sigma, SIGMA_FLOOR), 1.0))


def centred_polish(R: np.ndarray, P: np.ndarray, used: np.ndarray, sigma: float) -> np.ndarray | None:
    """Least squares of the centred system on the columns ``used`` (the support of a basic solution), or None."""
    A, b, _ = centred_system(R[:, used], P, sigma)
    scale = np.abs(A).max(axis=0)
    if not np.all(scale > 0):
        return None
    phi, *_ = np.linalg.lstsq(A / scale, b, rcond=None)
    out = phi / scale
    return out if np.all(np.isfinite(out)) else None
