"""The hockey-stick divergence of the shuffle model's dominating pair, and the ε it certifies (numerical bounds).

Every numerical amplification bound implemented here reduces the shuffled
protocol to one pair of distributions over two counts (a, b) (Feldman, McMillan
and Talwar, "Hiding Among the Clones", FOCS 2021, and its stronger form, SODA
2023; Wang et al., "Privacy Amplification via Shuffling: Unified, Simplified, and
Tightened", VLDB 2024, the *variation-ratio* reduction). In that pair the victim's
report lands in state 0, state 1 or a common "blanket" with probabilities
(α p, α, 1 − α − α p) under input x₀ and (α, α p, 1 − α − α p) under x₁; each of
the n − 1 other users lands in state 0, 1 or elsewhere with probabilities
(r₀, r₁, 1 − r₀ − r₁). Writing F(a, b) for a common factor, the two laws of the
observed counts are F · num₀ and F · num₁ with

    num_i(a, b) = w_i0 a / r₀ + w_i1 b / r₁ + (1 − α − α p)(n − a − b) / (1 − r₀ − r₁),

so {P₀ > e^ε P₁} is a half-line a > t(m) on each line a + b = m, and δ(ε) is a
sum over the number c of other users in states {0, 1} (C ~ Bin(n − 1, r₀ + r₁))
of binomial tails. The sum is taken over a window of C around its mean; the
probability outside the window is *added* (each value of C contributes at most
its probability), so the value returned is an upper bound of δ(ε) up to the
binomial functions' floating-point error, which is also added (pessimistically).

Examples
--------
>>> import math
>>> d = hockey_stick(0.5, n=1000, p=math.e, alpha=1 / (math.e + 1), r0=0.5 / math.e, r1=0.5 / math.e)
>>> 0 < d < 1
True
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["hockey_stick", "smallest_eps", "FLOAT_SLACK"]

FLOAT_SLACK = 1e-12  # relative error charged on the binomial sums (scipy's cdf/sf are accurate to ~1e-14)


def _window(n_others: int, rate: float, tail: float) -> tuple[int, int]:
    """A window [lo, hi] of C ~ Bin(n_others, rate) whose outside probability is about ``tail`` or less."""
    mean = n_others * rate
    sd = math.sqrt(max(n_others * rate * (1.0 - rate), 1.0))
    k = 2.0 * math.sqrt(2.0 * math.log(2.0 / tail)) + 4.0
    return max(0, int(mean - k * sd)), min(n_others, int(math.ceil(mean + k * sd)))


def _one_direction(eps: float, n: int, p: float, alpha: float, r0: float, r1: float, tail: float) -> float:
    """Upper bound of Σ max(0, P₀ − e^ε P₁) over the counts, for the pair described in the module docstring."""
    e = math.exp(eps)
    w = max(0.0, 1.0 - alpha - alpha * p)  # the victim's blanket weight
    s = 1.0 - r0 - r1  # another user's weight outside states {0, 1}
    rate, rho = r0 + r1, r0 / (r0 + r1)
    k_a = (alpha * p - e * alpha) / r0 + (e * alpha * p - alpha) / r1  # coefficient of a: > 0 for ε < log p
    if not math.isfinite(k_a):  # masses near 1e-300: the pair's numbers overflow; δ ≤ 1 is all that is claimed
        return 1.0
    if k_a <= 0:
        return 0.0
    lo, hi = _window(n - 1, rate, tail)
    c = np.arange(lo, hi + 1, dtype=np.float64)

    def floor_threshold(m: np.ndarray) -> np.ndarray:  # P₀ > e^ε P₁  ⟺  a > t(m) on the line a + b = m
        blanket = (n - m) * w * (e - 1.0) / s if w > 0 else 0.0
        t = (m * (e * alpha * p - alpha) / r1 + blanket) / k_a
        u = (m * (alpha * p - e * alpha) / r0 - blanket) / k_a  # m − t, without m's rounding: when t is within
        return np.where(u < t, m - np.ceil(u), np.floor(t))  # 1e-16·m of m, ⌊t⌋ computed as m is one too many

    t1 = floor_threshold(c + 1.0)  # the victim in state 0 or 1: m = c + 1
    pmf_c = stats.binom.pmf(c, n - 1, rate)
    at = stats.binom.pmf(t1, c, rho)  # P(A = ⌊t⌋), the victim's state-0 report tips A over
    above = stats.binom.sf(t1, c, rho)  # P(A > t)
    pos = (alpha * p - e * alpha) * at
    neg = (e - 1.0) * alpha * (1.0 + p) * above
    if w > 0:
        neg = neg + (e - 1.0) * w * stats.binom.sf(floor_threshold(c), c, rho)
    terms = pmf_c * (pos - neg)
    outside = stats.binom.cdf(lo - 1, n - 1, rate) + stats.binom.sf(hi, n - 1, rate)
    slack = FLOAT_SLACK * float(np.sum(pmf_c * (pos + neg)))
    total = float(np.sum(terms)) + float(outside) + slack
    return max(0.0, total) if math.isfinite(total) else 1.0  # overflow (masses near 1e-300): δ ≤ 1, nothing claimed


def hockey_stick(eps: float, *, n: int, p: float, alpha: float, r0: float, r1: float, tail: float = 1e-18) -> float:
    """Upper bound of δ(ε) = max over both directions of the dominating pair's hockey-stick divergence.

    Examples
    --------
    >>> import math
    >>> hockey_stick(math.log(3.0), n=10, p=3.0, alpha=0.25, r0=0.1, r1=0.1)  # ε ≥ log p: nothing left
    0.0
    """
    if eps >= math.log(p):
        return 0.0
    forward = _one_direction(eps, n, p, alpha, r0, r1, tail)
    backward = forward if r0 == r1 else _one_direction(eps, n, p, alpha, r1, r0, tail)
    return max(forward, backward)


def smallest_eps(delta: float, eps_max: float, *, rtol: float = 1e-8, **pair: float) -> float:
    """The smallest ε on a bisection grid (relative width ``rtol``) with hockey_stick(ε) ≤ δ; ε_max is always valid.

    The returned ε is the upper end of the final bracket: its δ(ε) was computed and is ≤ δ (or it is ε_max,
    valid because shuffling ε₀-LDP reports is ε₀-DP).

    Examples
    --------
    >>> import math
    >>> e = smallest_eps(1e-6, 4.0, n=10**5, p=math.exp(4), alpha=1 / (math.exp(4) + 1),
    ...                  r0=0.5 * math.exp(-4), r1=0.5 * math.exp(-4))
    >>> round(e, 3)
    0.17
    """
    tail = min(1e-18, delta * 1e-6)
    if hockey_stick(0.0, tail=tail, **pair) <= delta:  # type: ignore[arg-type]
        return 0.0
    lo, hi = 0.0, eps_max
    while hi - lo > rtol * hi:
        mid = 0.5 * (lo + hi)
        if hockey_stick(mid, tail=tail, **pair) <= delta:  # type: ignore[arg-type]
            hi = mid
        else:
            lo = mid
    return hi
