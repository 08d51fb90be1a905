"""The mechanisms of Kairouz, Oh, Viswanath (JMLR 2016) and the certified LDP-MI optimum they are judged against.

The binary mechanism (Y ∈ {0, 1}: P(Y = 0 | x) = e^ε/(1 + e^ε) for x in a set T, 1/(1 + e^ε)
otherwise; for mutual information the best T over all 2^k − 2 splits), k-ary randomized
response (e^ε/(e^ε + k − 1) on the diagonal), the staircase test of a channel (every column
takes two values θ and e^ε θ) and the certified optimum of max I(X; Y) under ε-LDP
(``mechopt.design(..., notion="ldp", utility="mi", solver="exact")``). Informations are in
nats, computed by :func:`mechopt.model.info.mutual_information` (no cancellation at small ε).

Examples
--------
>>> import numpy as np
>>> P = np.array([0.25, 0.25, 0.25, 0.25])
>>> rel_deficit(P, 0.1, binary_mi) < 1e-9           # high privacy: the binary mechanism is optimal
True
>>> rel_deficit(P, 4.0, rr_mi) < 1e-9               # low privacy: randomized response is optimal
True
>>> round(staircase_deviation(rr(4, 1.0), 1.0), 12)
0.0
"""

from __future__ import annotations

import itertools
import math
from functools import lru_cache

import numpy as np
from scipy.optimize import brentq, linprog
from scipy.special import rel_entr

from mechopt.api import design
from mechopt.claims.kss.reference import patterns
from mechopt.errors import SolverError
from mechopt.model.info import mutual_information

__all__ = [
    "binary",
    "binary_mi",
    "rr",
    "rr_mi",
    "certified",
    "rel_deficit",
    "staircase_deviation",
    "threshold",
    "crossing",
    "kl_binary",
    "kl_rr",
    "kl_optimum",
    "PRIORS",
    "PAIRS",
]

#: Priors the regime claims are checked on (name -> probabilities).
PRIORS: dict[str, tuple[float, ...]] = {
    "uniform:2": (0.5, 0.5),
    "uniform:3": (1 / 3,) * 3,
    "uniform:4": (0.25,) * 4,
    "uniform:5": (0.2,) * 5,
    "uniform:6": (1 / 6,) * 6,
    "0.3,0.7": (0.3, 0.7),
    "0.2,0.3,0.5": (0.2, 0.3, 0.5),
    "0.05,0.15,0.8": (0.05, 0.15, 0.8),
    "0.1,0.2,0.3,0.4": (0.1, 0.2, 0.3, 0.4),
    "0.1,0.1,0.1,0.7": (0.1, 0.1, 0.1, 0.7),
    "0.05,0.1,0.15,0.2,0.5": (0.05, 0.1, 0.15, 0.2, 0.5),
}

#: Hypothesis pairs (P0, P1) of the f-divergence claims (name -> pair).
PAIRS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "0.5,0.5|0.2,0.8": ((0.5, 0.5), (0.2, 0.8)),
    "uniform:3|0.2,0.3,0.5": ((1 / 3,) * 3, (0.2, 0.3, 0.5)),
    "uniform:4|0.1,0.2,0.3,0.4": ((0.25,) * 4, (0.1, 0.2, 0.3, 0.4)),
    "0.1,0.2,0.3,0.4|reversed": ((0.1, 0.2, 0.3, 0.4), (0.4, 0.3, 0.2, 0.1)),
    "0.27,0.3,0.02,0.41|0.33,0.07,0.53,0.07": ((0.27, 0.3, 0.02, 0.41), (0.33, 0.07, 0.53, 0.07)),
    "0.26,0.04,0.31,0.15,0.24|0.28,0.12,0.09,0.3,0.21": ((0.26, 0.04, 0.31, 0.15, 0.24), (0.28, 0.12, 0.09, 0.3, 0.21)),
    "0.1,0.03,0.12,0.01,0.74|0.04,0.37,0.28,0.05,0.26": ((0.1, 0.03, 0.12, 0.01, 0.74), (0.04, 0.37, 0.28, 0.05, 0.26)),
}


def binary(k: int, eps: float, T: tuple[int, ...]) -> np.ndarray:
    """The binary mechanism on k symbols with set ``T`` (k × 2)."""
    a = math.exp(eps) / (1 + math.exp(eps))
    return np.array([[a, 1 - a] if x in T else [1 - a, a] for x in range(k)])


def binary_mi(prior: np.ndarray, eps: float) -> float:
    """I(X; Y) of the best binary mechanism for ``prior`` (the best of the 2^k − 2 sets T)."""
    k = len(prior)
    sets = (T for r in range(1, k) for T in itertools.combinations(range(k), r))
    return max(mutual_information(prior, binary(k, eps, T)) for T in sets)


def rr(k: int, eps: float) -> np.ndarray:
    """k-ary randomized response (k × k)."""
    a = math.exp(eps)
    return (np.ones((k, k)) + (a - 1) * np.eye(k)) / (a + k - 1)


def rr_mi(prior: np.ndarray, eps: float) -> float:
    """I(X; Y) of k-ary randomized response."""
    return mutual_information(prior, rr(len(prior), eps))


@lru_cache(maxsize=2048)
def _certified(prior: tuple[float, ...], eps: float) -> tuple[float, float, str, np.ndarray]:
    r = design(prior=np.array(prior), notion="ldp", utility="mi", eps=eps, solver="exact")
    gap = r.certificate.gap if r.certificate is not None else math.inf
    return (math.nan if r.value is None else float(r.value)), float(gap), r.status.value, r.Q


def certified(prior: np.ndarray, eps: float) -> tuple[float, float, str, np.ndarray]:
    """(value, certificate gap, status, Q) of the certified max I(X; Y) under ε-LDP (cached)."""
    return _certified(tuple(float(p) for p in prior), float(eps))


def rel_deficit(prior: np.ndarray, eps: float, mech_mi) -> float:
    """(certified optimum − I of the mechanism) / certified optimum; ≤ 1e-9 means the mechanism is optimal."""
    value, _, status, _ = certified(prior, eps)
    if status != "optimal":
        return math.inf
    return (value - mech_mi(prior, eps)) / value


def staircase_deviation(Q: np.ndarray, eps: float, floor: float = 1e-12) -> float:
    """Largest distance (nats) of log(Q[x, y] / min_x Q[x, y]) from {0, ε} over the used columns."""
    worst = 0.0
    for col in np.asarray(Q, dtype=float).T:
        if col.max() <= floor:
            continue
        r = np.log(np.maximum(col, floor) / max(col.min(), floor))
        worst = max(worst, float(np.minimum(np.abs(r), np.abs(r - eps)).max()))
    return worst


def threshold(deficit, grid: np.ndarray, tol: float = 1e-9, *, low: bool) -> float | None:
    """The edge of the regime where a mechanism is optimal (``deficit(ε) ≤ tol``), bisected to 1e-4 relative in ε.

    ``low=False``: the largest ε* with the mechanism optimal on the grid points ≤ ε*
    (the high-privacy regime); ``low=True``: the smallest ε* with it optimal on every grid point
    ≥ ε*. None when it is optimal at no end of the grid.
    """
    ok = [deficit(float(e)) <= tol for e in grid]
    if low:
        ok, grid = ok[::-1], grid[::-1]
    if not ok[0]:
        return None
    n = next((i for i, v in enumerate(ok) if not v), len(ok))
    if n == len(ok):
        return float(grid[-1])
    a, b = float(grid[n - 1]), float(grid[n])  # optimal at a, not at b
    while abs(b - a) > 1e-4 * max(a, b):
        m = math.sqrt(a * b)
        a, b = (m, b) if deficit(m) <= tol else (a, m)
    return a


def crossing(prior: np.ndarray, lo: float = 0.05, hi: float = 12.0) -> float | None:
    """The ε where the best binary mechanism and randomized response give the same I(X; Y) (brentq,
    first sign change on a grid over [lo, hi]), or None when one is better on the whole range or,
    for k = 2, when the two are the same channel.

    >>> round(crossing(np.full(4, 0.25)), 4)
    0.8221
    """
    if len(prior) == 2:
        return None
    f = lambda e: binary_mi(prior, e) - rr_mi(prior, e)  # noqa: E731
    grid = np.geomspace(lo, hi, 40)
    vals = [f(float(e)) for e in grid]
    for a, b, fa, fb in zip(grid, grid[1:], vals, vals[1:]):
        if fa > 0 >= fb:
            return float(brentq(f, a, b, xtol=1e-12))
    return None


def _kl(P0: np.ndarray, P1: np.ndarray, Q: np.ndarray) -> float:
    return float(rel_entr(P0 @ Q, P1 @ Q).sum())


def kl_binary(P0: np.ndarray, P1: np.ndarray, eps: float) -> float:
    """D(P0 Q || P1 Q) of the binary mechanism with T = {x : P0(x) ≥ P1(x)} (nats)."""
    T = tuple(int(x) for x in np.flatnonzero(np.asarray(P0) >= np.asarray(P1)))
    return _kl(P0, P1, binary(len(P0), eps, T))


def kl_rr(P0: np.ndarray, P1: np.ndarray, eps: float) -> float:
    """D(P0 Q || P1 Q) of k-ary randomized response (nats)."""
    return _kl(P0, P1, rr(len(P0), eps))


def kl_optimum(P0: np.ndarray, P1: np.ndarray, eps: float) -> float:
    """max D(P0 Q || P1 Q) over ε-LDP Q by the paper's LP over the 2^k staircase patterns (HiGHS).

    Exact given the staircase theorem (the divergence is sublinear in the columns of Q): mechopt has
    no KL design of its own, so this optimum is the paper's construction, not an independent one.

    >>> P0, P1 = np.array([0.5, 0.5]), np.array([0.2, 0.8])
    >>> abs(kl_optimum(P0, P1, 1.0) - kl_binary(P0, P1, 1.0)) < 1e-12
    True
    """
    S = patterns(len(P0), eps)
    mu = rel_entr(np.asarray(P0) @ S, np.asarray(P1) @ S)
    res = linprog(-mu, A_eq=S, b_eq=np.ones(len(P0)), bounds=(0, None), method="highs")
    if res.status != 0:
        raise SolverError(f"the staircase-pattern LP failed: {res.message}")
    return float(-res.fun)
