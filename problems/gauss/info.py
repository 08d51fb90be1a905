"""Section III formulas of Sharma & Amariucai (Gaussian privacy-utility tradeoff).

X ∈ ℝⁿ (released as Y = X + N, N ~ 𝒩(0, diag(v))), an attribute vector A
(the private X_p or the utility X_u) jointly Gaussian with X, given by the
joint covariance C = Σ_{X∪A} (X first, A last).

Two evaluations of I(A; Y) are provided:

* :func:`mi_direct` — the paper's log-determinant formulas of Section III-B,
  I(A;Y) = ½(log|Σ_A| + log|Σ_Y| − log|Σ_{Y∪A}|) with Σ_Y = Σ_X + Σ_N; an
  infinite variance drops the feature (exact limit), a zero variance is
  plugged in (exact).
* :func:`mi_s` — the same quantity in the *scaled* form used by every solver:
  with s_i = σ_i / √(σ_i² + v_i) ∈ [0, 1] (s = 1 ⇔ v = 0, s = 0 ⇔ v = ∞) the
  rescaled release Y'_i = s_i X_i + √(1 − s_i²) σ_i Z_i carries the same
  information, and its joint covariance with A,
  K(s) = E C E + diag((1 − s²) σ², 0), E = diag(s, 1),
  is polynomial in s and positive definite on the closed box [0, 1]ⁿ whenever
  C is. Both limits are therefore exact, and the gradient is analytic.

Examples
--------
>>> import numpy as np
>>> C = np.array([[1.0, 0.5], [0.5, 1.0]])          # one feature, one attribute
>>> bool(np.isclose(mi_s(C, 1, np.array([1.0])), -0.5 * np.log(0.75)))
True
>>> float(mi_s(C, 1, np.array([0.0])))             # infinite noise
0.0
>>> bool(np.isclose(mi_direct(C, 1, [1.0]), mi_s(C, 1, s_from_var([1.0], [1.0]))))
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from mechopt.model.info import gaussian_mi

__all__ = [
    "s_from_var",
    "var_from_s",
    "scaled_cov",
    "mi_s",
    "mi_s_grad",
    "mi_direct",
    "utility_loss_direct",
    "fisher_s",
    "fisher_trace_grad",
    "fisher_eq10",
    "fisher_eq11",
    "bnn_eq12",
    "mi_from_fisher_eq13",
    "fisher_from_mi_eq13",
]


def s_from_var(v: Sequence[float] | np.ndarray, var: Sequence[float] | np.ndarray) -> np.ndarray:
    """s_i = σ_i / √(σ_i² + v_i), exact at v = 0 (s = 1) and v = ∞ (s = 0).

    Examples
    --------
    >>> s_from_var([0.0, 3.0, np.inf], [1.0, 1.0, 1.0]).tolist()
    [1.0, 0.5, 0.0]
    """
    v = np.asarray(v, dtype=float)
    var = np.asarray(var, dtype=float)
    v, vv = np.broadcast_arrays(v, var)
    out = np.zeros(v.shape)
    fin = np.isfinite(v)
    out[fin] = np.sqrt(vv[fin] / (vv[fin] + v[fin]))
    return out


def var_from_s(s: Sequence[float] | np.ndarray, var: Sequence[float] | np.ndarray) -> np.ndarray:
    """v_i = σ_i² (1 − s_i²) / s_i², with s = 0 ↦ v = ∞ and s = 1 ↦ v = 0 exactly.

    Examples
    --------
    >>> var_from_s([1.0, 0.5, 0.0], [1.0, 1.0, 1.0]).tolist()
    [0.0, 3.0, inf]
    """
    s = np.clip(np.asarray(s, dtype=float), 0.0, 1.0)
    var = np.broadcast_to(np.asarray(var, dtype=float), s.shape)
    out = np.full(s.shape, np.inf)
    pos = s > 0
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        out[pos] = var[pos] * (1.0 - s[pos] ** 2) / s[pos] ** 2
    return out


def scaled_cov(C: np.ndarray, n: int, s: np.ndarray) -> np.ndarray:
    """K(s) = E C E + diag((1 − s²)σ², 0), E = diag(s, 1); batched over leading axes of s.

    Examples
    --------
    >>> import numpy as np
    >>> scaled_cov(np.array([[2.0, 1.0], [1.0, 1.0]]), 1, np.array([0.0])).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    """
    s = np.asarray(s, dtype=float)
    e = np.concatenate([s, np.ones(s.shape[:-1] + (C.shape[0] - n,))], axis=-1)
    K = C * e[..., :, None] * e[..., None, :]
    idx = np.arange(n)
    K[..., idx, idx] = np.diag(C)[:n]  # s²σ² + (1 − s²)σ² = σ²
    return K


def _logdet_pd(K: np.ndarray) -> np.ndarray:
    """log|K| by Cholesky (batched)."""
    L = np.linalg.cholesky(K)
    return 2.0 * np.log(np.diagonal(L, axis1=-2, axis2=-1)).sum(axis=-1)


def mi_s(C: np.ndarray, n: int, s: np.ndarray) -> np.ndarray | float:
    """I(A; Y) = ½(log|Σ_A| + log|K_XX(s)| − log|K(s)|) in the scaled form (module docstring).

    ``s`` may be batched (shape (..., n)); the result has shape ``s.shape[:-1]``.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.0, 0.6], [0.0, 1.0, 0.0], [0.6, 0.0, 1.0]])
    >>> bool(np.isclose(mi_s(C, 2, np.array([1.0, 0.3])), -0.5 * np.log(1 - 0.36)))
    True
    """
    K = scaled_cov(C, n, s)
    # one Cholesky factor L of K serves both determinants: L[:n, :n] is the factor of K_XX,
    # so ½(log|K_XX| − log|K|) = −Σ_{i ≥ n} log L_ii.
    L = np.linalg.cholesky(K)
    tail = np.log(np.diagonal(L, axis1=-2, axis2=-1)[..., n:]).sum(axis=-1)
    val = 0.5 * _logdet_pd(C[n:, n:]) - tail
    val = np.maximum(val, 0.0)
    return float(val) if np.ndim(val) == 0 else val


def _grad_logdet(C: np.ndarray, K: np.ndarray, e: np.ndarray, n: int) -> np.ndarray:
    """∂ log|K(s)| / ∂s_i = 2 Σ_{j≠i} (K⁻¹)_{ij} e_j C_{ij} (the diagonal of K is constant)."""
    G = np.linalg.inv(K) * C * e[None, :]
    return 2.0 * (G.sum(axis=1) - np.diag(G))[:n]


def mi_s_grad(C: np.ndarray, n: int, s: np.ndarray) -> np.ndarray:
    """∇_s I(A; Y) for one point s (analytic; see :func:`mi_s`).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]]); s = np.array([0.7]); h = 1e-6
    >>> fd = (mi_s(C, 1, s + h) - mi_s(C, 1, s - h)) / (2 * h)
    >>> bool(np.isclose(mi_s_grad(C, 1, s)[0], fd, rtol=1e-6))
    True
    """
    s = np.asarray(s, dtype=float)
    K = scaled_cov(C, n, s)
    e = np.concatenate([s, np.ones(C.shape[0] - n)])
    g_full = _grad_logdet(C, K, e, n)
    g_x = _grad_logdet(C[:n, :n], K[:n, :n], s, n)
    return 0.5 * (g_x - g_full)


def mi_direct(C: np.ndarray, n: int, v: Sequence[float]) -> float:
    """I(A; Y) by the paper's Section III-B formula, Σ_{Y∪A} = Σ_{X∪A} + Σ_N̂.

    A feature with v_i = ∞ is dropped from Y (it carries no information);
    v_i = 0 is used as is. Uses :func:`mechopt.model.info.gaussian_mi`.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> mi_direct(C, 1, [np.inf])
    0.0
    """
    v = np.asarray(v, dtype=float)
    keep = np.flatnonzero(np.isfinite(v))
    if keep.size == 0:
        return 0.0
    rows = np.concatenate([keep, np.arange(n, C.shape[0])])
    D = C[np.ix_(rows, rows)].copy()
    D[np.arange(keep.size), np.arange(keep.size)] += v[keep]
    return gaussian_mi(D, list(range(keep.size)), list(range(keep.size, rows.size)))


def utility_loss_direct(C: np.ndarray, n: int, v: Sequence[float]) -> float:
    """The δ-constraint's left side as printed in Section III-B (finite variances):

    I(X_u;X) − I(X_u;Y) = ½(log|Σ_X| − log|Σ_{X∪Xu}| − log|Σ_Y| + log|Σ_{Y∪Xu}|).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> bool(np.isclose(utility_loss_direct(C, 1, [1.0]), mi_direct(C, 1, [0.0]) - mi_direct(C, 1, [1.0])))
    True
    """
    v = np.asarray(v, dtype=float)
    D = np.array(C, dtype=float)
    D[np.arange(n), np.arange(n)] += v
    ld = lambda M: np.linalg.slogdet(M)[1]  # noqa: E731
    return float(0.5 * (ld(C[:n, :n]) - ld(C) - ld(D[:n, :n]) + ld(D)))


def fisher_s(C: np.ndarray, n: int, s: np.ndarray) -> np.ndarray:
    """Fisher information matrix of Y about X_u: 𝓘 = Σ_{u|Y}⁻¹ − Σ_u⁻¹ (eq. (10), sign of eq. (11)).

    Batched over the leading axes of ``s``.

    Σ_{u|Y} = Σ_u − K_uX K_XX⁻¹ K_Xu is the Schur complement in the scaled
    form, so s = 0 (v = ∞) gives 𝓘 = 0 exactly. Equals Bᵀ Σ_{Y|u}⁻¹ B, the
    Fisher information of the linear-Gaussian model Y | X_u.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> fisher_s(C, 1, np.array([0.0])).tolist()
    [[0.0]]
    """
    s = np.asarray(s, dtype=float)
    K = scaled_cov(C, n, s)
    Kxu = K[..., :n, n:]
    S = C[n:, n:] - np.swapaxes(Kxu, -1, -2) @ np.linalg.solve(K[..., :n, :n], Kxu)
    F = np.linalg.inv(S) - np.linalg.inv(C[n:, n:])
    return (F + np.swapaxes(F, -1, -2)) / 2


def fisher_trace_grad(C: np.ndarray, n: int, s: np.ndarray) -> np.ndarray:
    """∇_s tr 𝓘(X_u) for one point s (analytic; see :func:`fisher_s`).

    With M = K_XX, G = K_Xu, W = M⁻¹G, S = Σ_u − GᵀW, R = S⁻², Q = W R Wᵀ:
    ∂ tr 𝓘/∂s_i = 2 (W R)_{i,:}·Σ_{X_i u} − 2 Σ_{j≠i} s_j C_ij Q_ij.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[2.0, 0.3, 0.9], [0.3, 1.0, 0.4], [0.9, 0.4, 1.0]]); s = np.array([0.6, 0.8])
    >>> h = 1e-6; tr = lambda x: np.trace(fisher_s(C, 2, x))
    >>> fd = [(tr(s + h * e) - tr(s - h * e)) / (2 * h) for e in np.eye(2)]
    >>> bool(np.allclose(fisher_trace_grad(C, 2, s), fd, rtol=1e-5))
    True
    """
    s = np.asarray(s, dtype=float)
    K = scaled_cov(C, n, s)
    M, G = K[:n, :n], K[:n, n:]
    W = np.linalg.solve(M, G)
    S = C[n:, n:] - G.T @ W
    Si = np.linalg.inv(S)
    R = Si @ Si
    Q = W @ R @ W.T
    cross = C[:n, :n] * s[None, :]
    np.fill_diagonal(cross, 0.0)
    return 2.0 * np.einsum("ij,ij->i", W @ R, C[:n, n:]) - 2.0 * (cross * Q).sum(axis=1)


def fisher_eq10(C: np.ndarray, n: int, v: Sequence[float]) -> np.ndarray:
    """The matrix of eq. (10) from a = Σ_{X_u}⁻¹ and b = Σ_{Y∪X_u}⁻¹ (finite variances).

    H_ij = ½(a_ij + a_ji − b_{n+i,n+j} − b_{n+j,n+i}); the paper then writes
    𝓘(X_u) = −E(H) = H in eq. (10) but 𝓘 = b_nn − 1/σ² in eq. (11): the
    information is the positive matrix −H = b_uu − a, which is returned.

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> bool(np.allclose(fisher_eq10(C, 1, [1.0]), fisher_s(C, 1, s_from_var([1.0], [1.0]))))
    True
    """
    v = np.asarray(v, dtype=float)
    D = C.copy()
    D[np.arange(n), np.arange(n)] += v
    a = np.linalg.inv(C[n:, n:])
    b = np.linalg.inv(D)[n:, n:]
    H = 0.5 * (a + a.T - b - b.T)
    return -H


def fisher_eq11(var_u: float, bnn: float) -> float:
    """Eq. (11): 𝓘(X_u) = b_nn − 1/σ_{x_u}² for one utility feature.

    Examples
    --------
    >>> fisher_eq11(2.0, 1.0)
    0.5
    """
    return float(bnn - 1.0 / var_u)


def bnn_eq12(C: np.ndarray, n: int, v: Sequence[float]) -> float:
    """Eq. (12) preliminary: b_nn = |Σ_Y| / |Σ_{Y∪X_u}| (the last diagonal entry of Σ_{Y∪X_u}⁻¹).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> round(bnn_eq12(C, 1, [0.0]), 12)
    1.333333333333
    """
    D = np.array(C, dtype=float)
    D[np.arange(n), np.arange(n)] += np.asarray(v, dtype=float)
    return float(np.exp(np.linalg.slogdet(D[:n, :n])[1] - np.linalg.slogdet(D)[1]))


def mi_from_fisher_eq13(var_u: float, fisher: float) -> float:
    """Eq. (13): I(X_u; Y) = ½ log(σ_{x_u}² 𝓘(X_u) + 1) for one utility feature.

    Examples
    --------
    >>> import math
    >>> mi_from_fisher_eq13(1.0, math.e ** 2 - 1)
    1.0
    """
    return float(0.5 * np.log1p(var_u * fisher))


def fisher_from_mi_eq13(var_u: float, mi: float) -> float:
    """Eq. (13) inverted: 𝓘 = (e^{2I} − 1) / σ_{x_u}² (maps δ to the Fisher threshold).

    Examples
    --------
    >>> round(fisher_from_mi_eq13(1.0, 0.5 * np.log(3.0)), 12)
    2.0
    """
    return float(np.expm1(2.0 * mi) / var_u)
