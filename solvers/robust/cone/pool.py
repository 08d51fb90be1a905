"""A pool of columns of the posterior-box cone met by the vertex search, priced each round (more columns a round).

Column generation over the cone of a prior set (:class:`~mechopt.solvers.robust.cone.box.BoxMIPricer`) took one or
two columns a round from its heuristics (the climbs from different starts end at the same local maxima), so the
master needed 250–400 rounds at d = 24 and did not close at d = 32 in 600 s. The pool keeps every column of K one
move from a local maximum of the vertex search (:func:`~mechopt.solvers.robust.cone.vertices.neighbours`, two-level
columns checked to be in K) and, at each round's duals, offers those of positive reduced cost ρ that were never
returned: a batch of many distinct improving columns for the cost of one evaluation of ρ over the pool. A heuristic:
its columns come with no bound (the proof stays the branch and bound's).

Examples
--------
>>> V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
>>> pool = ColumnPool(V, cap=100)
>>> pool.add(np.abs(np.random.default_rng(1).normal(1.0, 0.2, (5, 30))))
>>> pool.size
30
>>> Q = pool.best(np.full(3, 1 / 3), np.full(5, -1.0), set(), 4)  # μ < 0: every column improves
>>> Q.shape
(5, 4)
"""

from __future__ import annotations

import numpy as np

from mechopt.solvers.robust.cone.vertices import rho

__all__ = ["ColumnPool", "POOL_CAP", "key"]

#: Columns the pool holds (the oldest leave first): ρ over 100 000 columns of d = 32 takes ~50 ms.
POOL_CAP = 100_000


def key(q: np.ndarray) -> bytes:
    """The identity of a column (rounded to 12 decimals), as the pricer's ``seen`` set holds it."""
    return np.round(q, 12).tobytes()


class ColumnPool:
    """Columns (n × m) of the cone, first in first out, never twice; :meth:`best` prices them.

    Parameters
    ----------
    V : ndarray
        The vertices (k × n): the priors of the gains ρ is made of.
    cap : int
        Columns held at most (``POOL_CAP``).
    """

    def __init__(self, V: np.ndarray, cap: int = POOL_CAP) -> None:
        self.V = np.asarray(V, float)
        self.cap = int(cap)
        self.Q = np.zeros((self.V.shape[1], 0))
        self.keys: set[bytes] = set()

    @property
    def size(self) -> int:
        """The number of columns held."""
        return self.Q.shape[1]

    def add(self, Q: np.ndarray) -> None:
        """Hold the columns of Q (n × m) not held yet; the oldest leave beyond ``cap``."""
        fresh = []
        for j in range(Q.shape[1]):
            kj = key(Q[:, j])
            if kj not in self.keys:
                self.keys.add(kj)
                fresh.append(j)
        if not fresh:
            return
        self.Q = np.hstack([self.Q, Q[:, fresh]])
        if self.size > self.cap:
            for j in range(self.size - self.cap):
                self.keys.discard(key(self.Q[:, j]))
            self.Q = self.Q[:, self.size - self.cap :]

    def best(self, lam: np.ndarray, mu: np.ndarray, seen: set[bytes], limit: int, tol: float = 0.0) -> np.ndarray:
        """Up to ``limit`` columns of ρ > ``tol`` at (λ, μ) whose keys are not in ``seen``, best first (n × ≤ limit)."""
        if self.size == 0 or limit <= 0:
            return np.zeros((self.V.shape[1], 0))
        val = rho(self.V, lam, mu, self.Q)
        out = []
        for j in np.argsort(-val, kind="stable"):
            if val[j] <= tol or len(out) >= limit:
                break
            if key(self.Q[:, j]) not in seen:
                out.append(j)
        return self.Q[:, out]
