"""A proven upper bound for ε-PML from the duals that are best against the stratified pricing (a cutting-plane LP).

Column generation's master duals ν are only optimal for the columns it holds; near ε-PML mutual information's
optimum (d = 64, ε = 2) they leave the large sets' relaxation of :mod:`~mechopt.solvers.exact.pricing.strata`
positive, so that pricing proves no bound below the chord bound. Here the duals are chosen for the bound:
with y = ν⁰ − ν (e_j the filler's chord excess, the *loss* of a vertex: ν⁰ᵀp − μ(p)),

    maximise Pᵀy   s.t.   yᵀp ≤ e(p)  for the vertices p of fewer than K full inputs in a pool,
                          α − γK + Σ_x t_x ≤ 0,   t_x ≥ (y_x − α) h_x + γ,   t, γ ≥ 0

(the second row is B_K(α, γ) ≤ 0: no vertex of ≥ K full inputs has a positive reduced cost). Each round
solves it (HiGHS, in units of the pool's losses), prices its y exactly by
:meth:`~mechopt.solvers.exact.pricing.strata.StrataPricer.price` and adds the vertices above τ to the pool.
Whatever the LP returns, the bound of a round is evaluated at its y alone:

    max_Q Σ μ ≤ νᵀP + max(best listed, B_K(y), τ)        (ν = ν⁰ − y; math.md §1),

so the LP's tolerances never enter the proof; the lowest bound of the rounds is kept.

Examples
--------
>>> import math
>>> from mechopt.solvers.exact.pricing.pml import separable_phi
>>> from mechopt.solvers.exact.pricing.strata import StrataPricer
>>> from mechopt.utilities import MutualInfo
>>> P = np.random.default_rng(3).dirichlet(np.ones(12)); h = np.minimum(math.exp(2) * P, 1.0)
>>> sb = StrataBound(StrataPricer(h, separable_phi(MutualInfo(P)), K=3), P)
>>> b, nu = sb.run(rounds=20)
>>> sb.certified, bool(b <= float(sb.st.nu0 @ P) + 1e-12)       # at the chord bound (to rounding) or below
(True, True)
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import linprog

from mechopt.runtime.deadline import passed

__all__ = ["StrataBound", "POOL_ROUND"]

#: Vertices added to the pool per round (the best of the listed ones above τ).
POOL_ROUND = 256
_BOX = 1e4  # |y_x| h_x ≤ _BOX in loss units: keeps the LP bounded before the pool holds its optimum


class StrataBound:
    """The cutting-plane LP of the module docstring over a growing pool; ``run`` returns the best proven bound.

    Parameters
    ----------
    st : StrataPricer
        The stratified pricing (box, gain, K).
    P : ndarray
        The prior.
    """

    def __init__(self, st, P: np.ndarray) -> None:
        self.st, self.P = st, np.asarray(P, float)
        d = self.P.size
        self.pool = np.zeros((0, d))
        self.loss = np.zeros(0)
        self.keys: set[bytes] = set()
        self.best, self.nu = math.inf, None
        self.rounds = 0
        self.certified = False  # the last round listed nothing above τ and bounded the large sets below τ
        self.done = False  # certified, or no round can add to the pool (the LP failed or found nothing new)

    def add(self, points: np.ndarray) -> int:
        """Add vertices (rows) with fewer than K full inputs to the pool; returns how many were new."""
        pts = np.atleast_2d(points)
        if pts.size == 0:
            return 0
        full = (pts >= self.st.h * (1 - 1e-12)) & (self.st.h > 0)
        pts = pts[full.sum(axis=1) < self.st.K]
        new = []
        for p in pts:
            k = np.round(p, 15).tobytes()
            if k not in self.keys:
                self.keys.add(k)
                new.append(p)
        if new:
            new = np.array(new)
            idx = np.broadcast_to(self.st.idx, new.shape)
            self.pool = np.vstack([self.pool, new])
            self.loss = np.concatenate([self.loss, self.st.excess(new, idx).sum(axis=1)])
        return len(new)

    def seed(self, width: float = 1e-9, least: int | None = None, deadline: float | None = None) -> None:
        """Pool every vertex of the pure sets T (fewer than K + 1 inputs) with |h(T) − 1| ≤ width, the width
        growing ×4 until at least ``least`` sets (default 4d) are found or it passes 1e-4 (none when ``deadline``
        passes while the set tables are built)."""
        least = 4 * self.P.size if least is None else least
        while True:
            T = self.st._window_sets(1.0 - width, 1.0 + width, deadline)
            if T is None or T.size >= least or width > 1e-4:
                break
            width *= 4
        if T is not None and T.size:
            zero = np.zeros(self.P.size)
            self.add(self.st._evaluate(T, zero, zero, 16 * T.size)[1])

    def _solve(self) -> np.ndarray | None:
        """y of the cutting-plane LP over the pool (module docstring), or None when HiGHS fails."""
        h, d, K = self.st.h, self.P.size, self.st.K
        pos = self.loss[self.loss > 0]
        sigma = float(np.median(pos)) if pos.size else 1e-9
        n = self.pool.shape[0]
        # variables: y (d), α, γ, t (d)
        A_pool = np.hstack([self.pool, np.zeros((n, 2 + d))])
        A_rel = np.concatenate([np.zeros(d), [1.0, -K], np.ones(d)])[None, :]
        A_t = np.hstack([np.diag(h), -h[:, None], np.ones((d, 1)), -np.eye(d)])
        A = np.vstack([A_pool, A_rel, A_t])
        b = np.concatenate([self.loss / sigma, [0.0], np.zeros(d)])
        box = _BOX / np.maximum(h, 1e-300)
        bounds = [(-bi, bi) for bi in box] + [(None, None), (0, None)] + [(0, None)] * d
        cost = np.concatenate([-self.P, np.zeros(2 + d)])
        r = linprog(cost, A_ub=A, b_ub=b, bounds=bounds, method="highs")
        return None if r.status != 0 else r.x[:d] * sigma

    def run(self, rounds: int = 50, deadline: float | None = None, tau: float = 0.0) -> tuple[float, np.ndarray | None]:
        """Up to ``rounds`` rounds (or the deadline): (the lowest proven bound on max Σ μ, its duals ν)."""
        if self.done:
            return self.best, self.nu
        for _ in range(rounds):
            if passed(deadline):
                break
            y = self._solve()
            if y is None:
                self.done = True
                break
            self.rounds += 1
            nu = self.st.nu0 - y
            out = self.st.price(nu, tau, batch=POOL_ROUND, deadline=deadline)
            if out.sets < 0 and passed(deadline):
                break  # the tables were not built in time: no bound from this round
            if out.sets >= 0:
                bound = float(nu @ self.P) + out.bound + 8 * np.finfo(float).eps * float(np.abs(nu) @ self.P)
                if bound < self.best:
                    self.best, self.nu = bound, nu
            if out.sets >= 0 and out.whole and out.best <= tau:
                self.certified = self.done = True
                break
            if self.add(out.points) == 0:
                self.done = True
                break
        return self.best, self.nu
