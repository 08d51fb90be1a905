"""Prior-aware notions: ε-LIP, centralized IP on a sum, ε-mutual-information privacy.

ε-LIP (LIP paper, Definition 3): e^{-ε} ≤ P(X=x | Y=y) / P(X=x) ≤ e^ε for all
x, y, equivalently e^{-ε} λ_y ≤ Q[x, y] ≤ e^ε λ_y.

Both LIP and centralized IP bound posterior *statistics*: with a matrix G of
statistics g_k(x) and prior means m = G P, the notion asks
e^{-ε} m_k ≤ (G p_y)_k ≤ e^ε m_k for every output's posterior p_y. LIP is
G = I; centralized IP on S = Σ_i D_i (Definition 4) takes
g_{i,j}(s) = P(D_i = j | S = s) for j ∈ {0, 1}.

Examples
--------
>>> import numpy as np
>>> from mechopt.notions import LIP, MIP
>>> Q = np.array([[0.8, 0.2], [0.3, 0.7]]); P = np.array([0.4, 0.6])
>>> lam = P @ Q
>>> eps = LIP(1.0).audit(Q, P).eps
>>> bool(np.isclose(eps, np.max(np.abs(np.log(Q / lam)))))
True
>>> MIP(0.5).audit(np.full((2, 2), 0.5), P).eps
0.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.priors import binomial_prior, poisson_binomial
from mechopt.notions.base import PrivacyNotion

__all__ = ["PosteriorStatNotion", "LIP", "CIP", "MIP"]


class PosteriorStatNotion(PrivacyNotion):
    """e^{-ε} m ≤ G p_y ≤ e^ε m for every output's posterior p_y (m = G P)."""

    name = "posterior-stat"

    def stats(self, prior: np.ndarray) -> np.ndarray:
        """The statistics matrix G, shape (k, d)."""
        raise NotImplementedError

    def posterior_stats(self, Q: np.ndarray, prior: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Prior means m = G P and the statistics G p_y of every used output's posterior, (k, m_used)."""
        G = self.stats(prior)
        J = prior[:, None] * Q
        lam = J.sum(axis=0)
        used = lam > 0
        return G @ prior, G @ (J[:, used] / lam[used])

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        m, S = self.posterior_stats(Q, prior)
        live = m > 0
        if np.any(S[~live] > 0):
            return math.inf
        S, mm = S[live], m[live][:, None]
        if np.any(S <= 0):
            return math.inf
        return float(np.max(np.abs(np.log(S) - np.log(mm)))) if S.size else 0.0

    def cone(self, prior: np.ndarray) -> np.ndarray:
        """Rows (G c)_k − e^{-ε} m_k 1ᵀc ≥ 0 and e^{ε} m_k 1ᵀc − (G c)_k ≥ 0."""
        G = self.stats(prior)
        m = G @ prior
        ones = np.ones(prior.size)
        lower = G - math.exp(-self.eps) * np.outer(m, ones)
        upper = math.exp(self.eps) * np.outer(m, ones) - G
        return np.vstack([lower, upper])

    def relative_cone(self, prior: np.ndarray) -> np.ndarray:
        """The rows of :meth:`cone` divided by their bounds: (G c)_k / (e^{-ε} m_k) − 1ᵀc ≥ 0 and
        1ᵀc − (G c)_k / (e^{ε} m_k) ≥ 0 (rows with m_k = 0 as in :meth:`cone`).

        The same cone, with entries measured relative to the bound: at ε = 50 a point
        mass whose statistic is 0 sits −e^{-50} m_k ≈ −1e-22 from the lower bound in
        :meth:`cone` (inside any absolute tolerance) but −1 here.

        Examples
        --------
        >>> import numpy as np
        >>> n = CIP(50.0, [0.3] * 2)
        >>> bool(n.relative_cone(n.prior())[0, 0] == -1.0), bool(n.cone(n.prior())[0, 0] > -1e-20)
        (True, True)
        """
        G = self.stats(prior)
        m = G @ prior
        ok = m > 0
        lo, hi = math.exp(-self.eps) * m, math.exp(self.eps) * m
        lower = np.where(ok[:, None], G / np.where(ok, lo, 1.0)[:, None] - 1.0, G - lo[:, None])
        upper = np.where(ok[:, None], 1.0 - G / np.where(ok, hi, 1.0)[:, None], hi[:, None] - G)
        return np.vstack([lower, upper])

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        G = self.stats(prior)
        m = G @ prior
        lam = prior @ Q  # (m,) affine in Q
        GJ = (G * prior) @ Q  # (k, m): Σ_x g_k(x) P(x) Q[x, y]
        return [GJ >= math.exp(-self.eps) * _outer(m, lam), GJ <= math.exp(self.eps) * _outer(m, lam)]


def _outer(m: np.ndarray, lam: Any) -> Any:
    import cvxpy as cp

    return cp.reshape(m, (m.size, 1), order="F") @ cp.reshape(lam, (1, lam.shape[0]), order="F")


class LIP(PosteriorStatNotion):
    """ε-localized information privacy (LIP paper, Definition 3); G = I."""

    name = "lip"

    def stats(self, prior: np.ndarray) -> np.ndarray:
        return np.eye(np.asarray(prior).size)

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        lam = prior @ Q
        used = lam > 0
        rows = prior > 0
        if not np.any(used) or not np.any(rows):
            return 0.0
        Qr = Q[rows] if not np.all(rows) else Q
        # per column only max and min of Q[:, y] matter: |log(Q/λ)| peaks at one of them (no d × n temporaries)
        hi, lo = Qr.max(axis=0)[used], Qr.min(axis=0)[used]
        if np.any(lo <= 0):
            return math.inf
        ll = np.log(lam[used])
        return float(max(np.max(np.log(hi) - ll), np.max(ll - np.log(lo))))

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        lam = prior @ Q
        d = Q.shape[0]
        import cvxpy as cp

        L = cp.vstack([lam] * d) if d > 1 else cp.reshape(lam, (1, Q.shape[1]), order="F")
        return [Q >= math.exp(-self.eps) * L, Q <= math.exp(self.eps) * L]


class CIP(PosteriorStatNotion):
    """Centralized information privacy on S = Σ_i D_i (LIP paper, Definition 4).

    Inputs are the values s = 0..N of the sum; the prior over s is binomial
    (global prior ``p1``) or Poisson-binomial (local priors ``p``). The
    constraint is e^{-ε} P(D_i=j) ≤ P(D_i=j | Y=y) ≤ e^ε P(D_i=j) for every
    user i and j ∈ {0, 1}, each linear in the posterior of S.

    Parameters
    ----------
    eps : float
    p : array_like
        P(D_i = 1) for each user i (length N). A global prior is N equal values.

    Examples
    --------
    >>> import numpy as np
    >>> n = CIP(1.0, [0.3] * 4)
    >>> bool(np.allclose(n.prior(), [0.2401, 0.4116, 0.2646, 0.0756, 0.0081]))
    True
    >>> round(n.audit(np.full((5, 1), 1.0), n.prior()).eps, 12)
    0.0
    """

    name = "cip"

    def __init__(self, eps: float, p) -> None:
        super().__init__(eps)
        p = np.asarray(p, dtype=float)
        if p.ndim != 1 or p.size == 0 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise ProblemError("CIP needs user priors p with 0 ≤ p_i ≤ 1, one per user")
        self.p = p

    @classmethod
    def binomial(cls, eps: float, n_users: int, p1: float) -> "CIP":
        if int(n_users) != n_users or n_users < 1:
            raise ProblemError(f"n_users must be a positive integer, got {n_users!r}")
        return cls(eps, np.full(int(n_users), float(p1)))

    def prior(self) -> np.ndarray:
        """Distribution of S (binomial or Poisson-binomial)."""
        if np.all(self.p == self.p[0]):
            return binomial_prior(self.p.size, float(self.p[0]))
        return poisson_binomial(self.p)

    def stats(self, prior: np.ndarray) -> np.ndarray:
        n = self.p.size
        if np.asarray(prior).size != n + 1:
            raise ProblemError(f"CIP on {n} users needs a prior over s = 0..{n} ({n + 1} values)")
        PS = self.prior()
        rows = []
        groups: dict[float, np.ndarray] = {}
        for pi in self.p:  # users with equal priors share their statistic
            if pi not in groups:
                rest = poisson_binomial(np.delete(self.p, np.flatnonzero(self.p == pi)[0]))
                one = np.zeros(n + 1)
                one[1:] = pi * rest
                with np.errstate(divide="ignore", invalid="ignore"):
                    groups[pi] = np.where(PS > 0, one / np.where(PS > 0, PS, 1), 0.0)
            rows.append(groups[pi])
        G1 = np.unique(np.array(rows), axis=0)
        return np.vstack([G1, 1.0 - G1])

    def params(self) -> dict[str, Any]:
        return {"notion": self.name, "eps": self.eps, "p": self.p.tolist()}


class MIP(PrivacyNotion):
    """ε-mutual-information privacy (LIP paper, Definition 2): I(X; Y) ≤ ε nats.

    Not a cone on columns (``cone`` is None); convex in Q for a fixed prior,
    so its cvxpy constraint is DCP.
    """

    name = "mip"
    linear = False

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        from mechopt.model.info import mutual_information

        return max(0.0, mutual_information(prior, Q))

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        import cvxpy as cp

        lam = prior @ Q
        terms = [prior[x] * cp.sum(cp.rel_entr(Q[x, :], lam)) for x in range(Q.shape[0])]
        return [cp.sum(cp.hstack(terms)) <= self.eps]
