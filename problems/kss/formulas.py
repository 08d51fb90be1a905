"""Closed forms of the k-subset paper (Wang, Huang, Wang, Nie, Xu, Yang, Li, Qiao,
"Mutual Information Optimally Local Private Discrete Distribution Estimation").

All logarithms are natural (nats). X is uniform on d symbols unless stated.

Examples
--------
>>> from mechopt.problems.kss.formulas import mi_ksubset, k_star, mi_optimal
>>> k_star(16, 1.0), round(mi_optimal(16, 1.0), 6)
(5, 0.122881)
>>> round(mi_ksubset(16, 5, 1.0), 6)
0.122881
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.info import kl_generator_exp

__all__ = [
    "mi_ksubset",
    "beta",
    "k_star",
    "mi_optimal",
    "mi_mrr",
    "mi_brr",
    "brr_mi_bound",
    "brr_size_masses",
    "g_h",
    "l2_ksubset",
    "k_sharp",
    "l2_optimal",
    "l2_pure",
    "l2_hybrid",
    "mcgregor_binary",
    "exact_binary",
    "mi_limit_bound",
    "size_masses",
    "amortized_channel",
    "mi_of_pattern_weights",
]


def _e(eps: float) -> float:
    return math.exp(eps)


def mi_ksubset(d: int, k: float, eps: float) -> float:
    """I_k, the mutual information of the k-subset mechanism (Theorem 2.1; eq. (4)).

    I_k = [k e^ε log(d e^ε / (k e^ε + d − k)) + (d − k) log(d / (k e^ε + d − k))] / (k e^ε + d − k),

    for real k ∈ [0, d] (I_0 = I_d = 0).

    Examples
    --------
    >>> round(mi_ksubset(2, 1, 1.0), 9)    # binary RR: ε e^ε/(e^ε+1) − log((e^ε+1)/2)
    0.110944072
    """
    # = (k φ(q_in) + (d − k) φ(q_out)) / d with q = e^ε d/den and d/den (the posterior ratios), φ(q) = q log q − q + 1:
    # every term ≥ 0, so no digit is lost at small ε (the form above cancels to ε²/8 from terms of size ε)
    log_t = math.log1p(k * math.expm1(eps) / d)  # log(den / d)
    a = k * float(kl_generator_exp(eps - log_t)) if k > 0 else 0.0
    b = (d - k) * float(kl_generator_exp(-log_t)) if d - k > 0 else 0.0
    return (a + b) / d


def beta(d: int, eps: float) -> float:
    """β = (ε e^ε − e^ε + 1) d / (e^ε − 1)², the maximiser of I_k over real k (Theorem 2.1, Appendix C).

    Examples
    --------
    >>> round(beta(64, 1.0), 4)
    21.6766
    """
    return float(kl_generator_exp(eps)) * d / math.expm1(eps) ** 2  # ε e^ε − e^ε + 1 = φ(e^ε): no cancellation


def k_star(d: int, eps: float) -> int:
    """k* = the better of ⌊β⌋ and ⌈β⌉ (clamped to 1..d−1) (Theorem 2.1).

    Examples
    --------
    >>> [k_star(256, e) for e in (1.0, 3.0, 5.0)]
    [87, 29, 7]
    """
    b = beta(d, eps)
    cands = {min(max(c, 1), max(d - 1, 1)) for c in (math.floor(b), math.ceil(b))}
    return max(sorted(cands), key=lambda k: mi_ksubset(d, k, eps))


def mi_optimal(d: int, eps: float) -> float:
    """sup over ε-LDP Q of I(X; Z) for uniform X: max_{k ∈ {⌊β⌋, ⌈β⌉}} I_k (Theorem 2.1).

    Examples
    --------
    >>> round(mi_optimal(4, 1.0), 6)
    0.117993
    """
    return mi_ksubset(d, k_star(d, eps), eps)


def mi_mrr(d: int, eps: float) -> float:
    """I_1: the multivariate randomized response Q^m (eq. (6)) is the 1-subset mechanism.

    Examples
    --------
    >>> mi_mrr(4, 1.0) == mi_ksubset(4, 1, 1.0)
    True
    """
    return mi_ksubset(d, 1, eps)


def brr_size_masses(d: int, eps: float) -> np.ndarray:
    """Output mass of the size-k subsets under BRR (eq. (8)), k = 0..d:
    C(d,k) e^{ε(d−k−1)/2} (k e^ε + d − k) / ((e^{ε/2}+1)^d d); sums to 1.

    Examples
    --------
    >>> round(float(brr_size_masses(5, 1.0).sum()), 12)
    1.0
    """
    k = np.arange(d + 1, dtype=float)
    logc = gammaln(d + 1) - gammaln(k + 1) - gammaln(d - k + 1)
    e = _e(eps)
    return np.exp(logc + 0.5 * eps * (d - k - 1) - d * math.log(math.exp(eps / 2) + 1)) * (k * e + d - k) / d


def mi_brr(d: int, eps: float) -> float:
    """I(Z; X) of binary randomized response (eq. (8)): Σ_k mass_k · I_k.

    Examples
    --------
    >>> round(mi_brr(5, 1.0), 9)
    0.096806596
    """
    m = brr_size_masses(d, eps)
    return float(sum(m[k] * mi_ksubset(d, k, eps) for k in range(d + 1)))


def brr_mi_bound(d: int, eps: float, corrected: bool = False) -> float:
    """The bound of eq. (8): (1 − (e^{ε(d−1)/2} + e^{−ε/2}) / (e^{ε/2}+1)^d) I_{k*}.

    The masses of the sizes 0 and d are e^{ε(d−1)/2}/(e^{ε/2}+1)^d and
    e^{+ε/2}/(e^{ε/2}+1)^d; the paper writes e^{−ε/2} for the second, which
    gives a looser but still valid bound. ``corrected=True`` uses e^{+ε/2}.

    Examples
    --------
    >>> brr_mi_bound(5, 1.0, corrected=True) <= brr_mi_bound(5, 1.0)
    True
    """
    s = math.exp(eps / 2)
    last = s if corrected else 1 / s
    return (1 - (math.exp(eps * (d - 1) / 2) + last) / (s + 1) ** d) * mi_optimal(d, eps)


def g_h(d: int, k: int, eps: float) -> tuple[float, float]:
    """Hit rates (g_k, h_k) of the k-subset mechanism (Section 3.2, eq. (9)).

    Examples
    --------
    >>> [round(v, 6) for v in g_h(8, 2, 1.0)]
    [0.475367, 0.217805]
    """
    e = _e(eps)
    den = k * e + d - k
    g = k * e / den
    return g, g * (k - 1) / (d - 1) + (d - k) / den * k / (d - 1)


def l2_pure(d: int, g: float, h: float, n: int = 1) -> float:
    """E‖θ̂ − θ‖² = [g(1−g) + (d−1) h(1−h)] / (n (g−h)²) of a pure oracle with the remapping estimator (Section 3.3).

    Examples
    --------
    >>> round(l2_pure(2, 0.75, 0.25), 6)
    1.5
    """
    return (g * (1 - g) + (d - 1) * h * (1 - h)) / (n * (g - h) ** 2)


def l2_ksubset(d: int, k: int, eps: float, n: int = 1) -> float:
    """Squared-ℓ2 error of the k-subset mechanism with Algorithm 2 (Section 3.3).

    Examples
    --------
    >>> round(l2_ksubset(4, 1, 1.0, n=10_000), 8)    # = MRR
    0.00075562
    """
    g, h = g_h(d, k, eps)
    return l2_pure(d, g, h, n)


def k_sharp(d: int, eps: float) -> int:
    """k# = the better of ⌊d/(1+e^ε)⌋, ⌈d/(1+e^ε)⌉ (clamped to 1..d−1) (Theorem 3.1).

    Examples
    --------
    >>> [k_sharp(256, e) for e in (1.0, 3.0, 5.0)]
    [69, 12, 2]
    """
    r = d / (1 + _e(eps))
    cands = sorted({min(max(c, 1), d - 1) for c in (math.floor(r), math.ceil(r))})
    return min(cands, key=lambda k: l2_ksubset(d, k, eps))


def l2_optimal(d: int, eps: float, n: int = 1) -> float:
    """min_k E‖θ̂ − θ‖² over k-subset mechanisms (Theorems 3.1 and 3.2).

    Examples
    --------
    >>> l2_optimal(8, 1.0) == min(l2_ksubset(8, k, 1.0) for k in range(1, 8))
    True
    """
    return l2_ksubset(d, k_sharp(d, eps), eps, n)


def l2_hybrid(d: int, weights, eps_k, n: int = 1) -> float:
    """ℓ2 error of a hybrid power-set mechanism of Theorem 3.2 with the remapping estimator.

    Size k is used with probability ``weights[k]`` (k = 0..d) and, within size
    k, the report is a k-subset mechanism with ratio C_k = e^{eps_k[k]} ≤ e^ε.
    Then g = Σ_k w_k g_k(ε_k), h = Σ_k w_k h_k(ε_k), and the error is
    :func:`l2_pure` (θ-free, so it equals its supremum over θ).

    Examples
    --------
    >>> w = [0, 1, 0, 0]
    >>> bool(l2_hybrid(3, w, [1.0] * 4) == l2_ksubset(3, 1, 1.0))
    True
    """
    w = np.asarray(weights, dtype=float)
    ek = np.asarray(eps_k, dtype=float)
    if w.size != d + 1 or ek.size != d + 1 or np.any(w < 0) or abs(w.sum() - 1) > settings.tolerance("prior_sum"):
        raise ProblemError("weights must be a probability vector over sizes 0..d and eps_k have d+1 entries")
    g = h = 0.0
    for k in range(d + 1):
        if w[k] == 0:
            continue
        if k == 0:
            continue  # the empty set hits nothing
        if k == d:
            g += w[k]
            h += w[k]
            continue
        gk, hk = g_h(d, k, float(ek[k]))
        g += w[k] * gk
        h += w[k] * hk
    return l2_pure(d, g, h, n)


def mcgregor_binary(eps: float) -> float:
    """McGregor et al.'s bound I(Z; X_b) ≤ 3ε²/2 for a uniform bit (quoted in Section 4).

    Examples
    --------
    >>> mcgregor_binary(0.1)
    0.015000000000000003
    """
    return 1.5 * eps**2


def exact_binary(eps: float) -> float:
    """The exact bound for a uniform bit: I_1 = ε e^ε/(e^ε+1) − log((e^ε+1)/2) (Section 4).

    Examples
    --------
    >>> abs(exact_binary(1.0) - mi_ksubset(2, 1, 1.0)) < 1e-15
    True
    """
    e = _e(eps)
    return eps * e / (e + 1) - math.log((e + 1) / 2)


def mi_limit_bound(eps: float) -> float:
    """I(Z; X_d) ≤ I_β ≤ log((e^ε−1)/ε) + ε/(e^ε−1) − 1 for every d (Section 4).

    Examples
    --------
    >>> mi_limit_bound(1.0) <= 1.0 / 8
    True
    """
    e = _e(eps)
    return math.log((e - 1) / eps) + eps / (e - 1) - 1


def size_masses(S: np.ndarray, W: np.ndarray, eps: float) -> np.ndarray:
    """sum(W^(d,k)) for k = 0..d: the total weight on patterns with k entries e^ε (eq. (3)).

    ``S`` is a d × m matrix of patterns (entries 1 or e^ε), ``W`` its m weights;
    the mechanism is Q = S · diag(W).

    Examples
    --------
    >>> import numpy as np, math
    >>> S = np.array([[math.e, 1.], [1., math.e]])
    >>> size_masses(S, np.array([0.5, 0.1]), 1.0).tolist()
    [0.0, 0.6, 0.0]
    """
    d = S.shape[0]
    sizes = (np.asarray(S) > (1 + math.exp(eps)) / 2).sum(axis=0)
    return np.bincount(sizes, weights=np.asarray(W, dtype=float), minlength=d + 1)


def amortized_channel(d: int, eps: float, masses) -> np.ndarray:
    """The amortised mechanism Q̄ (eq. (3)): every k-subset pattern gets weight
    w̄_k = masses[k]/C(d, k); columns are the subsets of each used size in colex order.

    Examples
    --------
    >>> import math
    >>> Q = amortized_channel(3, 1.0, [0, 3 / (math.e + 2), 0, 0])   # = MRR
    >>> Q.shape, [round(float(v), 12) for v in Q.sum(axis=1)]
    ((3, 3), [1.0, 1.0, 1.0])
    """
    from mechopt.oracles.frequency import ksubset_outputs

    e = math.exp(eps)
    cols = []
    for k, m in enumerate(masses):
        if m <= 0:
            continue
        if k == 0:
            cols.append(np.full((d, 1), float(m)))
            continue
        Z = ksubset_outputs(d, k)
        member = np.zeros((d, Z.shape[0]), dtype=bool)
        member[Z.T, np.arange(Z.shape[0])[None, :]] = True
        cols.append(np.where(member, e, 1.0) * (m / math.comb(d, k)))
    return np.hstack(cols)


def mi_of_pattern_weights(d: int, eps: float, size_mass) -> float:
    """I(X; Z̄) = Σ_k ((k e^ε + d − k)/d) sum(W^(d,k)) I_k (Appendix A, eq. (11)).

    ``size_mass[k]`` = sum(W^(d,k)), the total weight on size-k patterns.

    Examples
    --------
    >>> import math
    >>> w = [0, 0, 4 / (2 * math.e + 2), 0, 0]            # the 2-subset mechanism, d = 4
    >>> abs(mi_of_pattern_weights(4, 1.0, w) - mi_ksubset(4, 2, 1.0)) < 1e-12
    True
    """
    e = _e(eps)
    return float(sum((k * e + d - k) / d * m * mi_ksubset(d, k, eps) for k, m in enumerate(size_mass)))
