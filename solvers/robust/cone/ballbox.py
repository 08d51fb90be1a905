"""Exact pricing of mutual information over the cone of columns private at **every** prior of a TV ball.

:class:`~mechopt.solvers.robust.cone.box.BoxMIPricer` prices over K_W = {q ≥ 0 : lo·P·q ≤ q_x ≤ hi·P·q, P ∈ W}
for a finite set W (k·n rows each side), so vertex generation over a ball (:mod:`mechopt.solvers.robust.ballrays`)
must add the priors where a column breaks privacy. :class:`BallMIPricer` carries the ball B (centre c, radius r)
itself: with m(q) = min_{P∈B} P·q and M(q) = max_{P∈B} P·q, the cone K_B = {q ≥ 0 : lo·M(q) ≤ q_x ≤ hi·m(q)}
is held by the LP dual of the inner minimum (as the robust LP does, :mod:`mechopt.solvers.robust.ball`):
m(q) ≥ c·q − rβ − c·γ for any α ≤ q_x, γ_x ≥ q_x − α − β, β, γ ≥ 0, with equality at the best such point, so

    q_x − hi·(c·q − rβ − c·γ) ≤ 0,   α − q_x ≤ 0,   q_x − α − β − γ_x ≤ 0      (3n rows, n + 2 variables)

(and the same block on −q for the lower side when lo > 0) is exactly K_B in (q, α, β, γ). The best dual point has
α = min q and β, γ in [0, max q], so the boxes α ∈ [0, q̄], β, γ ∈ [0, q̄] (q̄ the root's largest q; lower side:
α' ∈ [−q̄, 0]) keep it and every variable stays boxed for the weak-duality bound
(:func:`~mechopt.solvers.robust.lp.dual_max`). The information priors V (rows t_i = P_i·q of the gains) are
only those vertex generation found information-worst; none is needed for privacy. Rays are normalised on c·q = 1
(c is a prior of the ball, so 1/hi ≤ t_i ≤ hi as in the parent). Everything else (chords, tangents, search,
bound) is the parent's; the heuristic searches' columns, private at V, are mixed into K_B (``into_cone``).

Examples
--------
>>> from mechopt.problems.robust.ballset import BallSet
>>> B = BallSet(np.array([0.4, 0.3, 0.2, 0.1]), 0.05, "tv")
>>> V = B.all_vertices()[:3]
>>> pr = BallMIPricer(V, B, 0.0, np.e, early=False)
>>> out = pr.price(np.full(3, 1 / 3), np.zeros(4))      # μ = 0: the most informative column of K_B, proven
>>> q, best = out.rays[:, 0], pr.rho(out.rays, np.full(3, 1 / 3), np.zeros(4)).max()
>>> bool(q.max() <= np.e * pr.low(q) * (1 + 1e-9)), bool(abs(out.bound - best) <= 1e-9)
(True, True)
"""

from __future__ import annotations

import numpy as np

from mechopt.solvers.robust.cone.box import BOX_NODES, TANGENTS, BoxMIPricer

__all__ = ["BallMIPricer", "BALL_WORD"]

#: The pricing's word in a result (``extras["pricing"]``): vertex generation reads it to know which cone the bound
#: is over (:mod:`mechopt.solvers.robust.ballrays`).
BALL_WORD = "branch and bound over the ball's own privacy cone (its LP dual; chord and tangent LPs)"


class BallMIPricer(BoxMIPricer):
    """max ρ over the slice c·q = 1 of the ball's privacy cone K_B (module docstring), proven.

    Parameters
    ----------
    V : ndarray
        The information priors (k × n, points of the ball; the gains' vertices).
    ball : BallSet
        The TV ball (on the n rows: its support).
    lo, hi : float
        The box factors (``box_factors``; lo = 0 under PML).
    max_nodes, early, multi_level
        As :class:`~mechopt.solvers.robust.cone.box.BoxMIPricer`.
    """

    def __init__(self, V: np.ndarray, ball, lo: float, hi: float, max_nodes: int = BOX_NODES, early: bool = True,
                 multi_level: bool = False) -> None:  # fmt: skip
        with np.errstate(divide="ignore", invalid="ignore"):  # the parent's slice (P̄ of V) is replaced below
            super().__init__(V, lo, hi, max_nodes=max_nodes, early=early, multi_level=multi_level)
        k, n = self.k, self.n
        self.ball, self.c, self.r = ball, np.asarray(ball.center, float), float(ball.radius)
        if self.c.size != n:
            raise ValueError(f"the ball has {self.c.size} symbols, the priors {n}")
        self.Pbar = self.norm = self.c  # c·q = 1: Σ w = 1 (c sums to 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(self.c > 0, self.V / np.where(self.c > 0, self.c, 1.0), np.inf)
        self.tmax = min(self.hi, float(ratio.max()))
        self.taus = [list(np.geomspace(1.0 / self.hi, self.tmax, TANGENTS)) for _ in range(k)]
        with np.errstate(divide="ignore"):
            self.root = (np.full(n, self.lo), np.minimum(self.hi, 1.0 / self.c))
        self.qbar = float(self.root[1].max())
        sides = [(1.0, self.hi)] + ([(-1.0, self.lo)] if self.lo > 0 else [])
        self.extra = (n + 2) * len(sides)
        width = n + 2 * k + self.extra
        tdef = np.zeros((k, width))
        tdef[:, :n], tdef[:, n : n + k] = -self.V, np.eye(k)
        slice_row = np.zeros((1, width))
        slice_row[0, :n] = self.c
        rows, rlo, rhi = [tdef, slice_row], [np.zeros(k), [1.0]], [np.zeros(k), [1.0]]
        for j, (s, f) in enumerate(sides):  # upper side on q, lower side on −q: s·q_x ≤ f·s·g(s·q)
            a = n + 2 * k + j * (n + 2)
            b, G = a + 1, a + 2 + np.arange(n)
            priv = np.zeros((n, width))  # s·q_x − f·s·(c·(s q) − rβ − c·γ) ≤ 0
            priv[:, :n] = s * np.eye(n) - f * self.c[None, :]
            priv[:, b] = s * f * self.r
            priv[:, G] = s * f * self.c[None, :]
            alpha = np.zeros((n, width))  # α − s·q_x ≤ 0
            alpha[:, a], alpha[:, :n] = 1.0, -s * np.eye(n)
            gam = np.zeros((n, width))  # s·q_x − α − β − γ_x ≤ 0
            gam[:, :n], gam[:, a], gam[:, b] = s * np.eye(n), -1.0, -1.0
            gam[np.arange(n), G] = -1.0
            if s < 0:  # the lower side reads q_x ≥ lo·(c·q + rβ' + c·γ'): −q_x + lo·(c·q + rβ' + c·γ') ≤ 0
                priv[:, :n] = -np.eye(n) + f * self.c[None, :]
                priv[:, b], priv[:, G] = f * self.r, f * self.c[None, :]
            rows += [priv, alpha, gam]
            rlo += [np.full(3 * n, -np.inf)]
            rhi += [np.zeros(3 * n)]
        self.A = np.vstack(rows)
        self.rlo, self.rhi = np.concatenate(rlo), np.concatenate(rhi)
        self.base = self.A.shape[0]
        self.sides = sides

    def _bounds(self, box) -> tuple[np.ndarray, np.ndarray]:
        lo, hi = super()._bounds(box)
        n, qb = self.n, self.qbar
        elo = np.r_[[0.0 if s > 0 else -qb for s, _ in self.sides for _ in range(n + 2)]]
        elo[[j * (n + 2) + 1 + i for j in range(len(self.sides)) for i in range(n + 1)]] = 0.0
        return np.r_[lo, elo], np.r_[hi, np.full(self.extra, qb)]

    def low(self, q: np.ndarray) -> float:
        """m(q) = min_{P∈B} P·q."""
        return float(self.ball.extreme(q) @ q)

    def high(self, q: np.ndarray) -> float:
        """M(q) = max_{P∈B} P·q."""
        q = np.asarray(q, float)
        return float(self.ball.extreme(-q) @ q)

    def into_cone(self, q: np.ndarray) -> np.ndarray:
        """q (n,) mixed with the interior column 1 just enough to be private at every prior of the ball (m is
        concave and m(1) = 1, so m((1 − θ)q + θ) ≥ (1 − θ)m(q) + θ; M alike), then c·q = 1."""
        q = np.maximum(np.asarray(q, float), 0.0)
        g = [self.hi * self.low(q) - q, np.full(self.n, self.hi - 1.0)]
        if self.lo > 0:
            g = [np.r_[g[0], q - self.lo * self.high(q)], np.r_[g[1], np.full(self.n, 1 - self.lo)]]
        bad = (g[0] < 0) & (g[1] > g[0])
        if np.any(bad):
            theta = min(1.0, float(np.max(-g[0][bad] / (g[1][bad] - g[0][bad]))) * (1 + 1e-9) + 1e-15)
            q = (1 - theta) * q + theta
        return q / float(self.c @ q)

    def _project(self, Q: np.ndarray) -> np.ndarray:
        return np.array([self.into_cone(q) for q in Q.T]).T if Q.shape[1] else Q

    def _propagate(self, ql, qu, passes: int = 3):
        """The node with lo·M(ql) ≤ q_x ≤ hi·m(qu) imposed (m and M are monotone in q); rounded outward (a relative
        1e-12, beyond the closed forms' round-off), so no point of the node is cut; None when empty."""
        for _ in range(passes):
            if self.lo > 0:
                ql = np.maximum(ql, self.lo * self.high(ql) * (1 - 1e-12))
            qu = np.minimum(qu, self.hi * self.low(qu) * (1 + 1e-12))
        return None if np.any(ql > qu) else (ql, qu)
