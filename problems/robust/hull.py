"""The worst prior of a channel over the hull of a prior set, for an MSE (concave in the prior): a certified bound.

An MMSE is the least expected loss over estimators b: MSE(P, Q) = min_b Σ_x P(x) Σ_y Q[x, y] ℓ(x, b_y),
a minimum of functions linear in P, hence concave in P (its worst prior in a hull may be interior).
For ANY estimator b the linear function g_b·P, g_b(x) = Σ_y Q[x, y] ℓ(x, b_y), lies above it, so

    max_{P ∈ hull(V)} MSE(P, Q)  ≤  max_j g_b · V_j     (every b),

and with b the posterior estimates at a prior P̂ the bound is tight at P̂ (g_b·P̂ = MSE(P̂, Q)).
:func:`hull_worst_case` maximises MSE(P, Q) over the hull (SLSQP on the weights, from every vertex
and the centroid) and returns the bracket [MSE(P̂, Q), max_j g_b·V_j]: both ends are exact statements,
whatever the local search's accuracy. ℓ is (ã_x − b_y)² for ``mse`` and Σ_k (1{x = k} − b_{y,k})² for
``histogram``.

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import HistogramMSE
>>> V = np.eye(2)                                   # every prior on two symbols
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> lo, hi, P = hull_worst_case(Q, V, HistogramMSE())
>>> round(lo, 9), round(hi, 9), P.round(6).tolist()  # the worst prior is uniform: 2·(3/16)
(0.375, 0.375, [0.5, 0.5])
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from mechopt.utilities import HistogramMSE, SumMSE, Utility

__all__ = ["hull_worst_case", "loss_slopes"]


def loss_slopes(Q: np.ndarray, P: np.ndarray, utility: Utility) -> np.ndarray:
    """g(x) = Σ_y Q[x, y] ℓ(x, b_y) with b the posterior estimates at P (columns P never reaches: at the
    estimate of the first vertex-free choice, the prior's own mean, still a valid estimator)."""
    Q = np.asarray(Q, float)
    C = P[:, None] * Q
    mass = C.sum(axis=0)
    safe = np.where(mass > 0, mass, 1.0)
    if isinstance(utility, SumMSE):
        a = utility.centred
        b = np.where(mass > 0, (a @ C) / safe, float(P @ a))
        return np.sum(Q * (a[:, None] - b[None, :]) ** 2, axis=1)
    if isinstance(utility, HistogramMSE):
        B = np.where(mass > 0, C / safe, P[:, None])  # posterior vectors, one column per output
        sq = np.sum(B**2, axis=0)  # Σ_k b_{y,k}²
        return np.sum(Q * (1.0 - 2.0 * B + sq[None, :]), axis=1)
    raise TypeError(f"no hull bound for utility {utility.name}")


def hull_worst_case(Q: np.ndarray, V: np.ndarray, utility: Utility) -> tuple[float, float, np.ndarray]:
    """(MSE(P̂, Q), a certified upper bound on max over hull(V) of MSE(P, Q), P̂) — see the module docstring."""
    V = np.asarray(V, float)
    k = len(V)
    # SLSQP's ftol is absolute: the search runs on the MSE over its size at the centroid (values ×1e-9 or
    # ×1e9 then take the same steps, so the bracket rescales with them)
    top = float(np.max(V @ loss_slopes(Q, V.mean(axis=0), utility)))
    unit = top if np.isfinite(top) and top > 0 else 1.0

    def neg(w):
        P = np.clip(w, 0.0, None) @ V
        return -float(utility.value(Q, P / P.sum())) / unit, -(V @ loss_slopes(Q, P / P.sum(), utility)) / unit

    starts = [np.eye(k)[j] for j in range(k)] + [np.full(k, 1.0 / k)]
    best_w, best = starts[0], -np.inf
    for w0 in starts:
        res = minimize(neg, w0, jac=True, method="SLSQP", bounds=[(0.0, 1.0)] * k,
                       constraints=[{"type": "eq", "fun": lambda w: w.sum() - 1.0, "jac": lambda w: np.ones(k)}],
                       options={"ftol": 1e-15, "maxiter": 200})  # fmt: skip
        w = np.clip(res.x, 0.0, None)
        w = w / w.sum()
        val = -neg(w)[0] * unit
        if val > best:
            best, best_w = val, w
    P = best_w @ V
    P = P / P.sum()
    upper = float(np.max(V @ loss_slopes(Q, P, utility)))
    return best, max(upper, best), P
