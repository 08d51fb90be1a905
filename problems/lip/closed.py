"""Closed forms of the LIP paper (Jiang, Li, Tandon), as stated, plus the corrected binary optimum.

Every function cites its theorem or equation. Channels are ``Q[x, y] =
P(Y=y | X=x)`` with rows the inputs; for the binary model input/output 0/1
and the paper's parameters q0 = P(Y=1 | X=0), q1 = P(Y=0 | X=1) (eq. (15)).

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.lip.closed import binary_lip_channel, binary_lip_mse
>>> Q = binary_lip_channel(0.4, 1.0)
>>> bool(np.allclose(np.array([0.6, 0.4]) @ Q, [0.6, 0.4]))    # λ = P (text after Prop. 3)
True
>>> round(binary_lip_mse(0.4, 1.0), 6)                        # eq. (21), one user
0.144102
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.priors import validate_prior

__all__ = [
    "binary_lip_channel",
    "binary_lip_pairs",
    "binary_lip_mse",
    "binary_lip_region",
    "binary_mae",
    "binary_lip_optimum",
    "binary_ldp_channel",
    "binary_ldp_mse",
    "mimo_lip_channel",
    "mimo_lip_region",
    "mimo_ldp_channel",
    "context_free_estimate",
    "context_free_mse",
    "oue_mse",
    "oue_mse_exact",
    "example1",
]


def _p1(p1: float) -> float:
    p = float(p1)
    if not 0.0 <= p <= 1.0 or not math.isfinite(p):
        raise ProblemError(f"p1 must be a probability in [0, 1], got {p1!r}")
    return p


def _channel(q0: float, q1: float) -> np.ndarray:
    return np.array([[1.0 - q0, q0], [q1, 1.0 - q1]])


def binary_lip_pairs(p1: float, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """Both optimal (q0, q1) pairs of Theorem 2, as channels.

    Pair 1: q0 = P1 e^{-ε}, q1 = (1 − P1) e^{-ε}; pair 2: q0 = 1 − P1 e^{-ε},
    q1 = 1 − (1 − P1) e^{-ε} (pair 1 with the outputs swapped).

    Examples
    --------
    >>> a, b = binary_lip_pairs(0.5, 0.0)
    >>> a.tolist(), b.tolist()
    ([[0.5, 0.5], [0.5, 0.5]], [[0.5, 0.5], [0.5, 0.5]])
    """
    p, t = _p1(p1), math.exp(-float(eps))
    first = _channel(p * t, (1 - p) * t)
    return first, first[:, ::-1].copy()


def binary_lip_channel(p1: float, eps: float) -> np.ndarray:
    """Theorem 2 with the tie-break of Proposition 3: q0 = P1/e^ε, q1 = (1 − P1)/e^ε.

    Proposition 3 picks, of the two Theorem-2 pairs, the one of smaller MAE
    E|X − Y| = P1 q1 + (1 − P1) q0 (eq. (23)).

    Examples
    --------
    >>> binary_lip_channel(0.5, math.log(2)).tolist()
    [[0.75, 0.25], [0.25, 0.75]]
    """
    first, second = binary_lip_pairs(p1, eps)
    return first if binary_mae(p1, first) <= binary_mae(p1, second) else second


def binary_mae(p1: float, Q: np.ndarray) -> float:
    """E|X − Y| = P1 q1 + (1 − P1) q0 (eq. (23)).

    Examples
    --------
    >>> binary_mae(0.3, np.eye(2))
    0.0
    """
    p = _p1(p1)
    return float(p * Q[1, 0] + (1 - p) * Q[0, 1])


def binary_lip_mse(p1: float, eps: float) -> float:
    """One user's MSE of Theorem 2, eq. (21): P1 (1 − P1)(2e^{-ε} − e^{-2ε}).

    Examples
    --------
    >>> binary_lip_mse(0.5, 0.0)
    0.25
    """
    p, t = _p1(p1), math.exp(-float(eps))
    return p * (1 - p) * (2 * t - t * t)


def binary_lip_region(p1: float, eps: float) -> bool:
    """Where Theorem 2's channel is ε-LIP: max(P1, 1 − P1) ≤ e^ε / (1 + e^ε) (derived here).

    Examples
    --------
    >>> binary_lip_region(0.1, 1.0), binary_lip_region(0.4, 1.0)
    (False, True)
    """
    p = _p1(p1)
    return max(p, 1 - p) <= 1.0 / (1.0 + math.exp(-float(eps))) + 1e-12


def binary_lip_optimum(p1: float, eps: float) -> tuple[float, np.ndarray]:
    """The certified binary ε-LIP optimum (derived here, not in the paper).

    Posteriors p = P(X=1 | Y) must lie in [lo, hi] with
    lo = max(e^{-ε} P1, 1 − e^{ε}(1 − P1)), hi = min(e^{ε} P1, 1 − e^{-ε}(1 − P1));
    MSE = P1(1 − P1) − Var(p) is minimised by the two-point split of P1 on
    {lo, hi}: MSE* = P1(1 − P1) − (hi − P1)(P1 − lo). Inside
    :func:`binary_lip_region` this is eq. (21).

    Examples
    --------
    >>> v, Q = binary_lip_optimum(0.4, 1.0)
    >>> bool(np.isclose(v, binary_lip_mse(0.4, 1.0)))
    True
    """
    p, e = _p1(p1), math.exp(float(eps))
    if p in (0.0, 1.0):
        return 0.0, np.eye(2)
    lo = max(p / e, 1 - e * (1 - p))
    hi = min(e * p, 1 - (1 - p) / e)
    if hi - lo <= 0:
        return p * (1 - p), np.full((2, 2), 0.5)
    w_hi = (p - lo) / (hi - lo)  # P(Y = 1)
    lam = np.array([1 - w_hi, w_hi])
    post1 = np.array([lo, hi])  # P(X=1 | Y=y)
    Q = np.vstack([(1 - post1) * lam / (1 - p), post1 * lam / p])
    return p * (1 - p) - (hi - p) * (p - lo), Q


def binary_ldp_channel(eps: float) -> np.ndarray:
    """Proposition 4: q0 = q1 = 1/(e^ε + 1) (randomized response).

    Examples
    --------
    >>> binary_ldp_channel(0.0).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    q = 1.0 / (math.exp(float(eps)) + 1.0)
    return _channel(q, q)


def binary_ldp_mse(p1: float, eps: float) -> float:
    """One user's MSE of Proposition 4, eq. (24).

    P1(1 − P1) − [P1(1 − P1)(1 − e^ε)]² / ((1 − P1 + P1 e^ε)(e^ε − P1 e^ε + P1)).

    Examples
    --------
    >>> binary_ldp_mse(0.5, 0.0)
    0.25
    """
    p, e = _p1(p1), math.exp(float(eps))
    v = p * (1 - p)
    return v - (v * (1 - e)) ** 2 / ((1 - p + p * e) * (e - p * e + p))


def mimo_lip_channel(prior, eps: float) -> np.ndarray:
    """Theorem 3 (and Theorem 5): q_mm = 1 − (1 − P_m)/e^ε, q_mk = P_k/e^ε (m ≠ k).

    Examples
    --------
    >>> Q = mimo_lip_channel([0.1, 0.2, 0.7], math.log(2))
    >>> Q.round(2).tolist()
    [[0.55, 0.1, 0.35], [0.05, 0.6, 0.35], [0.05, 0.1, 0.85]]
    """
    P = validate_prior(prior)
    t = math.exp(-float(eps))
    Q = np.tile(P * t, (P.size, 1))
    np.fill_diagonal(Q, 1 - (1 - P) * t)
    return Q


def mimo_lip_region(prior, eps: float) -> bool:
    """Where Theorem 3's channel is ε-LIP: min_m P_m ≥ 1/(1 + e^ε) (derived here).

    Examples
    --------
    >>> mimo_lip_region([0.1, 0.2, 0.7], 1.0), mimo_lip_region([0.3, 0.3, 0.4], 1.0)
    (False, True)
    """
    P = validate_prior(prior)
    return float(P.min()) >= 1.0 / (1.0 + math.exp(float(eps))) - 1e-12


def mimo_ldp_channel(d: int, eps: float) -> np.ndarray:
    """The paper's Opt-mimo-LDP channel (Section IV-B): q_mm = e^ε/(e^ε + d − 1), q_mk = 1/(e^ε + d − 1).

    Examples
    --------
    >>> mimo_ldp_channel(2, 0.0).tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    d = int(d)
    if d < 2:
        raise ProblemError(f"the MIMO channel needs d ≥ 2 symbols, got {d}")
    e = math.exp(float(eps))
    Q = np.full((d, d), 1.0 / (e + d - 1))
    np.fill_diagonal(Q, e / (e + d - 1))
    return Q


def context_free_estimate(y_sum, n_users: int, eps: float):
    """The context-free unbiased count estimator, eq. (41): Ĉ = (Σ Y_i − N p)/(1 − 2p).

    The paper writes p = e^ε/(e^ε + 1); the estimator is unbiased when p is
    the probability of *flipping* a bit (Y=1 | X=0), so it is unbiased for
    randomized response with flip probability p. We use p = 1/(e^ε + 1), the
    flip probability of Proposition 4's channel; (42) is the same for both.

    Examples
    --------
    >>> float(context_free_estimate(60, 100, math.log(3)))   # p = 1/4: (60 - 25)/(1/2)
    70.0
    """
    if not float(eps) > 0:
        raise ProblemError("the context-free estimator (41) needs eps > 0 (at eps = 0 nothing is unbiased)")
    p = 1.0 / (math.exp(float(eps)) + 1.0)
    return (np.asarray(y_sum, dtype=float) - n_users * p) / (1 - 2 * p)


def context_free_mse(n_users: int, eps: float) -> float:
    """Eq. (42): E[(S − Ĉ)²] = N p(1 − p)/(1 − 2p)² = N e^ε/(e^ε − 1)².

    Examples
    --------
    >>> round(context_free_mse(100, 1.0), 4)
    92.0674
    """
    e = math.exp(float(eps))
    if e <= 1.0:
        return math.inf
    p = e / (e + 1)
    return n_users * p * (1 - p) / (1 - 2 * p) ** 2


def oue_mse(n_users: int, eps: float) -> float:
    """The OUE histogram MSE as stated in Section V-A3: 4 n e^ε/(e^ε − 1)².

    Examples
    --------
    >>> round(oue_mse(1, 1.0), 4)
    3.6827
    """
    e = math.exp(float(eps))
    return 4 * n_users * e / (e - 1) ** 2 if e > 1.0 else math.inf


def oue_mse_exact(prior, n_users: int, eps: float) -> float:
    """Exact total histogram MSE Σ_k E[(Ŝ_k − S_k)²] of OUE (Wang et al.) with i.i.d. users.

    OUE reports every bit: the user's own bit is 1 w.p. p = 1/2, every other
    bit w.p. q = 1/(e^ε + 1); Ŝ_k = (ΣB_k − Nq)/(p − q). Conditional on the
    inputs Var Ŝ_k = (N_k p(1 − p) + (N − N_k) q(1 − q))/(p − q)², so the total
    is N [d q(1 − q) + p(1 − p) − q(1 − q)]/(p − q)².

    Examples
    --------
    >>> bool(oue_mse_exact([0.5, 0.5], 1, 1.0) > oue_mse(1, 1.0))
    True
    """
    P = validate_prior(prior)
    p, q = 0.5, 1.0 / (math.exp(float(eps)) + 1.0)
    if p - q <= 0:
        return math.inf
    return n_users * (P.size * q * (1 - q) + p * (1 - p) - q * (1 - q)) / (p - q) ** 2


def example1(eps: float, n_users: int = 100, p1: float = 0.1) -> dict[str, float]:
    """The numbers of Example 1 / Fig. 2 exactly as printed in the paper.

    ``ldp`` = 100 e^ε/(e^ε + 1)², ``opt_ldp`` = 25/(0.5 − e^ε/2)²,
    ``lip`` = (10 e^ε − 1)/0.64 (the paper's N = 100, P1 = 0.1 constants),
    next to the formulas they stand for: ``ldp_eq42`` (eq. (42)),
    ``opt_ldp_eq24`` (N × eq. (24)), ``lip_eq21`` (N × eq. (21)) and the
    certified binary optimum ``lip_optimum`` (N × :func:`binary_lip_optimum`).

    Examples
    --------
    >>> r = example1(1.0)
    >>> round(r["lip"], 3), round(r["lip_eq21"], 3)
    (40.911, 5.404)
    """
    e = math.exp(float(eps))
    den = (0.5 - e / 2) ** 2
    return {
        "eps": float(eps),
        "ldp": 100 * e / (e + 1) ** 2,
        "opt_ldp": 25 / den if den > 0 else math.inf,
        "lip": (10 * e - 1) / 0.64,
        "ldp_eq42": context_free_mse(n_users, eps),
        "opt_ldp_eq24": n_users * binary_ldp_mse(p1, eps),
        "lip_eq21": n_users * binary_lip_mse(p1, eps),
        "lip_optimum": n_users * binary_lip_optimum(p1, eps)[0],
    }
