"""Reference computations for the k-subset claims: certified LDP-MI optima and random pattern mechanisms.

:func:`ldp_mi_optimum` asks the ``exact`` solver (certified) and falls back to
an LP over all 2^d LDP patterns (Kairouz et al.'s extremal mechanisms, math.md
§1, solved with HiGHS) for d ≤ :data:`PATTERN_LP_MAX_D` when it is not installed.

Examples
--------
>>> import numpy as np
>>> val, how = ldp_mi_optimum(np.full(3, 1 / 3), 1.0, prefer="patterns")
>>> round(val, 9), how
(0.12328446, 'pattern-lp')
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog
from scipy.special import rel_entr

from mechopt.errors import MechoptError, TooLargeError

__all__ = ["patterns", "pattern_gains", "pattern_lp", "ldp_mi_optimum", "random_pattern_mechanism", "PATTERN_LP_MAX_D"]

PATTERN_LP_MAX_D = 12


def patterns(d: int, eps: float) -> np.ndarray:
    """The d × 2^d pattern matrix S^(d) = {1, e^ε}^d (eq. (2)); column j has e^ε where bit i of j is set.

    Examples
    --------
    >>> patterns(2, 0.0).tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    if d > PATTERN_LP_MAX_D:
        raise TooLargeError(f"2^{d} patterns are too many; d ≤ {PATTERN_LP_MAX_D}")
    B = (np.arange(2**d)[None, :] >> np.arange(d)[:, None]) & 1
    return np.where(B == 1, math.exp(eps), 1.0)


def pattern_gains(S: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """μ(P ∘ s) = Σ_x P_x s_x log(s_x / Σ_x' P_x' s_x') for each pattern column s.

    Examples
    --------
    >>> pattern_gains(np.ones((2, 1)), np.array([0.5, 0.5])).tolist()
    [0.0]
    """
    C = prior[:, None] * S
    return rel_entr(C, prior[:, None] * C.sum(axis=0, keepdims=True)).sum(axis=0)


def pattern_lp(prior, eps: float) -> tuple[float, np.ndarray, np.ndarray]:
    """max Σ_j w_j μ(P∘s_j) s.t. Σ_j w_j s_j = 1 (rows of Q sum to 1), w ≥ 0: the LDP-MI optimum.

    Returns (value, S, w); the mechanism is Q = S diag(w).

    Examples
    --------
    >>> v, S, w = pattern_lp(np.array([0.5, 0.5]), 1.0)
    >>> round(v, 9)
    0.110944072
    """
    P = np.asarray(prior, dtype=float)
    S = patterns(P.size, eps)
    mu = pattern_gains(S, P)
    res = linprog(-mu, A_eq=S, b_eq=np.ones(P.size), bounds=(0, None), method="highs")
    if res.status != 0:
        raise MechoptError(f"pattern LP failed: {res.message}")
    return float(mu @ res.x), S, res.x


def ldp_mi_optimum(prior, eps: float, prefer: str = "exact", mechanism: bool = False):
    """(certified optimum of ε-LDP MI for the prior, which method gave it[, the optimal channel Q or None]).

    ``prefer="exact"`` uses ``mechopt.solve(..., solver="exact")`` when that
    solver is registered and returns an optimal, certified result; otherwise
    (or with ``prefer="patterns"``) the pattern LP for d ≤ 12.
    """
    P = np.asarray(prior, dtype=float)
    if prefer == "exact":
        from mechopt import registry

        if "exact" in registry.solver_names():
            import mechopt
            from mechopt.problems.kss.problems import KssMI

            res = mechopt.solve(KssMI(prior=P, eps=eps), solver="exact")
            if res.ok and res.certificate is not None:
                Q = None if res.mechanism is None else res.Q  # exact may not materialise huge optima
                return (float(res.value), "exact", Q) if mechanism else (float(res.value), "exact")
    val, S, w = pattern_lp(P, eps)
    keep = w > 1e-12
    return (val, "pattern-lp", S[:, keep] * w[keep]) if mechanism else (val, "pattern-lp")


def random_pattern_mechanism(
    d: int, eps: float, rng: np.random.Generator, mix: int = 3
) -> tuple[np.ndarray, np.ndarray]:
    """A random valid pattern mechanism (S, w): a random mixture of ``mix`` LP vertices of {w ≥ 0 : S w = 1}.

    Examples
    --------
    >>> S, w = random_pattern_mechanism(3, 1.0, np.random.default_rng(0))
    >>> bool(np.allclose(S @ w, 1))
    True
    """
    S = patterns(d, eps)
    lam = rng.dirichlet(np.ones(mix))
    w = np.zeros(S.shape[1])
    for a in lam:
        res = linprog(rng.normal(size=S.shape[1]), A_eq=S, b_eq=np.ones(d), bounds=(0, None), method="highs")
        w += a * res.x
    return S, w
