"""The heuristic stage of the cone's branch and bound: improving columns found before any tree (no bound).

:class:`~mechopt.solvers.robust.cone.box.BoxMIPricer` in column generation first tries, in order, until one gives
columns: the linear ascent from the last 2n columns returned, the two-level vertex search
(:mod:`~mechopt.solvers.robust.cone.vertices`) from the n earlier columns of largest ρ and the n last ones, and, when
the pricer's ``multi_level`` is set (robust-rays option ``multi_level``), the multi-level search
(:mod:`~mechopt.solvers.robust.cone.faces`: several priors tied at an extreme) from those same starts. Every column
returned is a column of the cone, recorded so that none is returned twice; none comes with a bound (the proof is
the tree's).

Examples
--------
>>> from mechopt.solvers.robust.cone.box import BoxMIPricer
>>> V = np.random.default_rng(0).dirichlet(np.ones(6), size=3)
>>> pr = BoxMIPricer(V, np.exp(-1.0), np.e, multi_level=True)
>>> pr.history = list(pr.seed_rays().T)
>>> out = pr.heuristics(pr._model(), np.full(3, 1 / 3), np.zeros(6))   # μ = 0: the seeds are improvable
>>> out.bound is None, out.rays.shape[1] >= 1
(True, True)
"""

from __future__ import annotations

import numpy as np

from mechopt.solvers.robust.answer import RayPricing, _rc_tol
from mechopt.solvers.robust.cone.faces import face_search
from mechopt.solvers.robust.cone.vertices import vertex_search

__all__ = ["HeuristicStage"]


class HeuristicStage:
    """The heuristic stage (module docstring), mixed into the pricer that holds ``V``, ``lo``, ``hi``, ``n``,
    ``batch``, ``seen``, ``history``, ``multi_level``, ``rho`` and ``_ascend``."""

    def heuristics(self, h, lam: np.ndarray, mu: np.ndarray) -> RayPricing | None:
        """The first stage's columns as a pricing without a bound, or None when none improves."""
        found = self._hop(h, lam, mu)
        if found.shape[1]:
            return RayPricing(found, None, "ascent from earlier columns (heuristic)")
        found = self._climb(lam, mu)
        if found.shape[1]:
            return RayPricing(found, None, "two-level vertex search (heuristic)")
        if not self.multi_level:
            return None
        Q = self._project(face_search(self.V, self.lo, self.hi, lam, mu, self._starts(lam, mu)))
        found = self._take(self._improving(Q, lam, mu))
        if found.shape[1]:
            return RayPricing(found, None, "multi-level vertex search (heuristic)")
        return None

    def _project(self, Q: np.ndarray) -> np.ndarray:
        """Columns of the searches (private at the rows of ``V``) as columns of the pricer's cone: themselves here;
        the ball's pricer (:mod:`~mechopt.solvers.robust.cone.ballbox`) mixes each into its smaller cone."""
        return Q

    def _starts(self, lam, mu) -> np.ndarray:
        """The n earlier columns of largest ρ and the n last ones."""
        H = np.array(self.history).T
        top = np.argsort(-self.rho(H, lam, mu), kind="stable")[: self.n]
        return H[:, np.unique(np.r_[top, np.arange(max(0, H.shape[1] - self.n), H.shape[1])])]

    def _improving(self, Q: np.ndarray, lam, mu) -> np.ndarray:
        """The columns of Q of ρ above the reduced-cost tolerance, best first."""
        val = self.rho(Q, lam, mu)
        return Q[:, [j for j in np.argsort(-val, kind="stable") if val[j] > _rc_tol()]]

    def _hop(self, h, lam, mu) -> np.ndarray:
        """New improving vertices by the linear ascent from the last 2n columns returned (a heuristic, no bound)."""
        Q = np.array([self._ascend(h, q, lam, mu) for q in self.history[-2 * self.n :]]).T
        return self._take(Q[:, self.rho(Q, lam, mu) > _rc_tol()])  # in the order of their starts

    def _climb(self, lam, mu, starts: np.ndarray | None = None) -> np.ndarray:
        """New improving columns by :func:`~mechopt.solvers.robust.cone.vertices.vertex_search` from
        ``starts`` (default: the n earlier columns of largest ρ and the n last ones); a heuristic, no bound; at
        most ``batch``, best first."""
        starts = self._starts(lam, mu) if starts is None else starts
        Q = self._project(vertex_search(self.V, self.lo, self.hi, lam, mu, starts))
        return self._take(self._improving(Q, lam, mu))

    def _take(self, Q: np.ndarray) -> np.ndarray:
        """The columns of Q never returned before (at most ``batch``, in order), now recorded as returned."""
        out = []
        for q in Q.T:
            key = np.round(q, 12).tobytes()
            if key not in self.seen and len(out) < self.batch:
                self.seen.add(key)
                self.history.append(q)
                out.append(q)
        return np.array(out).T if out else np.zeros((self.n, 0))
