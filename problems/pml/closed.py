"""Closed-form optimal ε-PML mechanisms, re-derived from the extreme points of the posterior box.

Under ε-PML with prior P every output's posterior lies in B = {p ∈ Δ : p ≤ h}, h = min(e^ε P, 1)
(:class:`mechopt.notions.PML`); for a sublinear utility an optimum mixes vertices of B (math.md §1),
which have every coordinate at 0 or h_x except at most one. Three cases pin the optimum down
whatever the (sublinear) utility, as in Grosse, Saeidian and Oechtering, "Extremal mechanisms
for pointwise maximal leakage" (arXiv 2310.07381; the binary, high-privacy and uniform-prior
results — theorem numbers as best recalled in :mod:`mechopt.claims.pml`):

- **High-privacy regime** ε ≤ log 1 / (1 − min_x P(x)): no vertex can have a zero coordinate
  (its mass 1 − e^{-ε} is below every P(x)), so B has exactly the d vertices
  p^{(j)} = e^ε P − (e^ε − 1) e_j, and P = Σ_j P(j) p^{(j)} is their unique mixture. The optimal
  channel is Q[x, j] = e^ε P(j) for x ≠ j and Q[j, j] = 1 − e^ε (1 − P(j)), for every utility.
- **Binary inputs** (d = 2): B is a segment; its two end points give the optimal channel for
  every utility, in three regimes of ε (the first is the high-privacy one).
- **Uniform prior** P = 1/d: every vertex is a permutation of r* = (e^ε/d, …, e^ε/d, v, 0, …)
  with k = ⌊d e^{−ε}⌋ entries e^ε/d and v = 1 − k e^ε/d; for a permutation-invariant utility
  (mutual information, histogram MSE) the d cyclic shifts of r*, each of weight 1/d, are optimal,
  and the optimal mutual information is log d − H(r*) (= ε when d e^{−ε} is an integer).

Examples
--------
>>> import numpy as np
>>> Q = high_privacy_channel(np.array([0.2, 0.3, 0.5]), 0.1)
>>> bool(np.allclose(Q.sum(axis=1), 1.0)), bool(np.all(Q >= 0))
(True, True)
>>> bool(abs(uniform_mi(4, np.log(2.0)) - np.log(2.0)) < 1e-15)       # d e^{−ε} = 2: I* = ε
True
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.priors import validate_prior
from mechopt.notions.base import check_eps

__all__ = [
    "high_privacy_regime",
    "high_privacy_channel",
    "binary_channel",
    "uniform_posterior",
    "uniform_channel",
    "uniform_mi",
]


def high_privacy_regime(P) -> float:
    """The largest ε of the high-privacy regime, log 1 / (1 − min_x P(x)).

    >>> bool(abs(high_privacy_regime([0.25, 0.75]) - np.log(4 / 3)) < 1e-15)
    True
    """
    P = validate_prior(P)
    return -math.log1p(-float(P.min()))


def high_privacy_channel(P, eps: float) -> np.ndarray:
    """The optimal ε-PML channel in the high-privacy regime (module docstring), d outputs.

    Raises ProblemError outside the regime or for a prior with a zero entry.
    """
    P = validate_prior(P)
    eps = check_eps(eps)
    if P.min() <= 0 or eps > high_privacy_regime(P):
        raise ProblemError(
            f"the high-privacy regime needs every P(x) > 0 and eps <= log 1/(1 - min P) = "
            f"{high_privacy_regime(P) if P.min() > 0 else 0.0:.6g}, got eps = {eps:g}"
        )
    Q = np.tile(math.exp(eps) * P, (P.size, 1))
    np.fill_diagonal(Q, 1.0 - math.exp(eps) * (1.0 - P))
    return Q


def binary_channel(P, eps: float) -> np.ndarray:
    """The optimal ε-PML channel for a binary input, 2 outputs (the end points of the segment B).

    With P(0) ≤ P(1) (else the rows and columns swap): for e^ε P(1) < 1 the high-privacy channel;
    for e^ε P(0) < 1 ≤ e^ε P(1) input 0 always reports output 0 and input 1 reports output 1
    with probability (1 − e^{−ε}) / P(1); for e^ε P(0) ≥ 1 the identity.

    >>> binary_channel([0.25, 0.75], np.log(2.0)).round(12).tolist()
    [[1.0, 0.0], [0.333333333333, 0.666666666667]]
    """
    P = validate_prior(P)
    if P.size != 2:
        raise ProblemError(f"binary_channel needs a prior on 2 symbols, got {P.size}")
    eps = check_eps(eps)
    if P[0] > P[1]:
        return binary_channel(P[::-1], eps)[::-1, ::-1].copy()
    e = math.exp(eps)
    if e * P[0] >= 1.0:
        return np.eye(2)
    if e * P[1] >= 1.0:
        keep = (math.exp(-eps) - P[0]) / P[1]
        return np.array([[1.0, 0.0], [keep, 1.0 - keep]])
    # the high-privacy channel with its outputs named for the input they favour
    return high_privacy_channel(P, eps)[:, ::-1].copy()


def uniform_posterior(d: int, eps: float) -> np.ndarray:
    """r* = (e^ε/d × k, v, 0, …), k = ⌊d e^{−ε}⌋, v = 1 − k e^ε/d: the shape of every vertex of B.

    >>> uniform_posterior(4, np.log(2.0)).tolist()
    [0.5, 0.5, 0.0, 0.0]
    """
    if int(d) != d or d < 2:
        raise ProblemError(f"d must be an integer >= 2, got {d!r}")
    d, eps = int(d), check_eps(eps)
    h = min(math.exp(eps) / d, 1.0)
    k = min(d, math.floor(1.0 / h + 1e-12))  # a tie (d e^{−ε} an integer up to rounding) counts as k
    r = np.zeros(d)
    r[:k] = h
    if k < d:
        r[k] = max(0.0, 1.0 - k * h)
    return r


def uniform_channel(d: int, eps: float) -> np.ndarray:
    """The circulant optimal channel Q[x, j] = r*_{(x − j) mod d} (d outputs, each of probability 1/d)."""
    r = uniform_posterior(d, eps)
    idx = (np.arange(d)[:, None] - np.arange(d)[None, :]) % d
    return r[idx]


def uniform_mi(d: int, eps: float) -> float:
    """The optimal mutual information under ε-PML with a uniform prior on d symbols, log d − H(r*)."""
    r = uniform_posterior(d, eps)
    r = r[r > 0]
    return float(math.log(d) + np.sum(r * np.log(r)))
