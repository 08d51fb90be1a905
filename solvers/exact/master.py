"""A warm-started restricted master LP for column generation (HiGHS kept across rounds).

The program is the master LP of :mod:`mechopt.solvers.exact.lp`,

    maximise Σ_j θ_j μ_j   s.t.   Σ_j θ_j r_j = P,  θ ≥ 0,

held as one ``highspy.Highs`` model: each round appends the new columns and
re-solves by simplex from the previous optimal basis (the old basis stays
primal feasible, so a few primal simplex pivots usually suffice). The answer
is then treated like :func:`~mechopt.solvers.exact.lp.solve_master`'s: weights
polished on their support, duals replaced by the basis duals when those bound
lower (:func:`~mechopt.solvers.exact.lp.best_duals`). Any ν gives a valid
certificate νᵀP + max_r (μ(r) − νᵀr), so warm starting changes speed only.
When the model cannot be kept (``highspy`` missing, tiny prior masses that
need the scaled LP, or a HiGHS failure) ``solve`` falls back to a fresh
:func:`~mechopt.solvers.exact.lp.solve_master` over all columns.

Examples
--------
>>> import numpy as np
>>> R = np.array([[0.75, 0.25, 0.5], [0.25, 0.75, 0.5]]); mu = np.array([1.0, 1.0, 0.0])
>>> m = WarmMaster(np.array([0.5, 0.5]), R[:, 2:], mu[2:])
>>> m.add(R[:, :2], mu[:2])
>>> out = m.solve()
>>> out.status, round(out.value, 9), m.fresh_solves
('optimal', 1.0, 0)
"""

from __future__ import annotations

import time

import numpy as np

from mechopt import settings
from mechopt.solvers._quiet import quiet_stdout
from mechopt.solvers.exact.lp import COST_SCALE, Master, best_duals, cost_unit, polish, solve_master

__all__ = ["WarmMaster"]


class WarmMaster:
    """Restricted master LP kept in HiGHS across rounds (module docstring).

    Attributes
    ----------
    R, mu : ndarray
        All columns so far and their gains (cached: a gain is computed once).
    fresh_solves : int
        Rounds that fell back to a fresh :func:`solve_master`.
    cost_scale : float
        Factor on the gains inside HiGHS (``_lp.COST_SCALE`` over the seed gains' power-of-two unit,
        :func:`~mechopt.solvers.exact.lp.cost_unit`, until :meth:`tighten`): HiGHS's dual
        feasibility tolerance (at least 1e-10) is absolute in reduced cost, so scaling
        the costs by s leaves reduced costs of at most 1e-10 / s in the original units.
    """

    def __init__(self, P: np.ndarray, R: np.ndarray, mu: np.ndarray) -> None:
        self.P = np.asarray(P, float)
        self.R = np.asarray(R, float)
        self.mu = np.asarray(mu, float)
        self.fresh_solves = 0
        self.cost_scale = COST_SCALE / cost_unit(self.mu)  # unit-free: the seed columns' gains of order one
        self._base_scale = self.cost_scale
        self.h = None
        if self.P.min() >= settings.tolerance("lp_scale_below"):
            try:
                self.h = self._model()
            except ImportError:
                self.h = None

    def _model(self):
        import highspy

        with quiet_stdout():  # highspy >= 1.16 prints a banner on the first Highs(), before output_flag
            h = highspy.Highs()
        tol = settings.tolerance("lp_feasibility")
        for key, val in (
            ("output_flag", False),
            ("primal_feasibility_tolerance", tol),
            ("dual_feasibility_tolerance", tol),
            ("presolve", "off"),
            ("solver", "simplex"),
            ("simplex_strategy", 4),
        ):  # primal: added columns keep the basis primal feasible
            h.setOptionValue(key, val)
        d = self.P.size
        h.addRows(d, self.P, self.P, 0, np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0))
        self._add_cols(h, self.R, self.mu)
        return h

    def _add_cols(self, h, R: np.ndarray, mu: np.ndarray) -> None:
        d, n = R.shape
        if n == 0:
            return
        start = np.arange(n, dtype=np.int32) * d
        index = np.tile(np.arange(d, dtype=np.int32), n)
        h.addCols(n, -mu * self.cost_scale, np.zeros(n), np.full(n, np.inf), n * d, start, index, R.T.ravel())

    def basic(self) -> np.ndarray | None:
        """Which columns are basic in HiGHS's last basis (None without a kept model)."""
        if self.h is None:
            return None
        import highspy

        st = self.h.getBasis().col_status
        return np.array([s == highspy.HighsBasisStatus.kBasic for s in st], bool)

    def drop(self, keep: np.ndarray) -> None:
        """Delete the columns where ``keep`` is False (they must be non-basic: weight 0)."""
        gone = np.flatnonzero(~keep).astype(np.int32)
        if gone.size == 0:
            return
        if self.h is not None:
            self.h.deleteCols(int(gone.size), gone)
        self.R = self.R[:, keep]
        self.mu = self.mu[keep]

    def tighten(self, factor: float = 100.0, most: float = 1e4) -> bool:
        """Scale the costs by ``factor`` (up to ``most`` in all) so the next solve prices out smaller
        reduced costs; False when the model is not kept in HiGHS or the scale is at its limit."""
        if self.h is None or self.cost_scale * factor > most * self._base_scale / COST_SCALE:
            return False
        self.cost_scale *= factor
        n = self.mu.size
        self.h.changeColsCost(n, np.arange(n, dtype=np.int32), -self.mu * self.cost_scale)
        return True

    def add(self, R: np.ndarray, mu: np.ndarray) -> None:
        """Append columns (the model keeps its basis)."""
        self.R = np.hstack([self.R, R])
        self.mu = np.concatenate([self.mu, mu])
        if self.h is not None:
            self._add_cols(self.h, R, mu)

    def solve(self, time_limit: float | None = None) -> Master:
        """The master's optimum over the columns so far (warm), or a fresh solve on failure."""
        if self.h is not None:
            out = self._warm(time_limit)
            if out is not None:
                return out
        self.fresh_solves += 1
        return solve_master(self.R, self.mu, self.P, time_limit=time_limit, centred=False)

    def _warm(self, time_limit: float | None) -> Master | None:
        import highspy

        h = self.h
        h.setOptionValue("time_limit", float(time_limit) if time_limit is not None else np.inf)
        t0 = time.perf_counter()
        h.run()
        if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            if time_limit is not None and time.perf_counter() - t0 >= time_limit:
                return None
            h.clearSolver()  # a cold start of the same model, once
            h.run()
            if h.getModelStatus() != highspy.HighsModelStatus.kOptimal:
                return None
        sol = h.getSolution()
        theta = np.clip(np.asarray(sol.col_value, float), 0.0, None)
        nu = -np.asarray(sol.row_dual, float) / self.cost_scale
        if theta.size != self.R.shape[1] or not (np.all(np.isfinite(theta)) and np.all(np.isfinite(nu))):
            return None
        theta = polish(self.R, self.P, theta)
        if float(np.max(np.abs(self.R @ theta / self.P - 1.0))) > settings.tolerance("row_sum"):
            return None
        nu = best_duals(self.R, self.mu, self.P, theta, nu)
        return Master("optimal", theta, nu, float(theta @ self.mu), "warm HiGHS simplex")
