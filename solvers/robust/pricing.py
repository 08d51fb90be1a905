"""Pricing for the robust ray LP: max over rays r of ρ(r) = Σ_i λ_i f_i(r) − μᵀr, with a proven bound when exact.

ρ is convex and positively homogeneous in r (each f_i is), so its maximum over a slice of the
privacy cone is at an extreme ray. Pricers, each on the n rows of the set's support:

- :class:`LDPSubsetPricer`: ε-LDP, every pattern s = 1 + (e^ε − 1) z, z ∈ {0,1}^n, priced through
  subset sums (n ≤ ``enumerate_max``, default 20).
- :class:`StoredRays`: every extreme ray held in memory, with its gains (k × N): one matrix product.
  For LIP / PML / ALIP over a prior set the cone is the intersection of the cones of the vertices,
  {q ≥ 0 : lo·P_v·q ≤ q_x ≤ hi·P_v·q for every vertex v and row x}, whose extreme rays come from the
  double description method (:func:`box_cone_rays`, ``solvers.exact.rays.dd_rays``).
- :class:`LDPAscentPricer`: ε-LDP, histogram above ``milp_max`` (mse with ``mse_pricer="milp"``): a heuristic
  (no bound).
- :class:`~mechopt.solvers.robust.ratios.LDPMSERatioPricer`: ε-LDP, mse above the enumeration limit (the
  default): exact every round, a branch and bound over the k ratios N_i/t_i (:mod:`mechopt.solvers.robust.ratios`).
- :class:`LDPQuotientMilpPricer`: ε-LDP, mse / histogram between the two limits with ``mse_pricer="milp"``: the
  ascent, then an exact MILP on f_i = N_i / t_i (its class docstring). The default for histogram there is the
  branch and bound of :class:`~mechopt.solvers.robust.cone.hist.HistBoxPricer` over [1, e^ε]^n.
- :class:`LDPMIMilpPricer`: ε-LDP and mutual information above the enumeration limit. With
  u_i = P_iᵀz, f_i(s) = ε e^ε u_i − t_i log t_i, t_i = 1 + (e^ε − 1) u_i, so
  ρ(z) = −1ᵀμ + Σ_x z_x (ε e^ε Σ_i λ_i P_i(x) − (e^ε − 1) μ_x) + Σ_i λ_i ψ(u_i), ψ(u) = −t log t concave:
  a MILP (HiGHS) with one epigraph variable per vertex under tangent cuts of ψ, re-solved with new cuts
  until the model is exact at its optimum; the MILP's dual bound is the proven bound (math.md §3 for
  one prior, here k at once). Kept as ``mi_pricer="milp"``.
- :class:`~mechopt.solvers.robust.search.LDPMITreePricer`: the same problem, exact every round, to
  ``tree_max`` = 40 symbols (the default there, ``mi_pricer="auto"``): meet in the middle over two
  blocks of coordinates, each block's patterns in a k-d tree over their subset sums
  (:mod:`mechopt.solvers.robust.tree`); d = 32 with 3 priors is certified in seconds.
- :class:`~mechopt.solvers.robust.search.LDPMIBranchPricer`: the same problem (the default above
  ``tree_max``; ``mi_pricer="branch"``): a
  flip-and-swap pattern search first, then a branch and bound with Lagrangian bounds
  (:mod:`mechopt.solvers.robust.bnb`) under a node budget that grows 4× per miss. The start duals
  (:meth:`LDPMIMilpPricer.start_duals`: λ uniform, μ = v*·λᵀV, v* = max_u f(u)/t(u)) bound every
  pattern by the prior-free value v* (ρ ≤ 0 there for every pattern; the pricing pass at them
  proves it), and its ``seed_rays`` are patterns with every subset sum near u* = argmax f/t (a search,
  and a four-block meet in the middle over the k sums: :mod:`mechopt.solvers.robust.near`). With
  many symbols the robust optimum sits within the ``gap`` tolerance of v* (patterns with all k
  subset sums near u* exist), so that first bound closes the gap once the search has found enough
  such patterns: d = 64 with 3 priors is certified; d = 32 is not by this pricer (its optimum is ~1e-6
  below v*, and the branch and bound cannot prove the lower bound in minutes; the trees do).

``W`` (the pricer's ``weights``) bounds Σ_r w_r for any feasible combination Σ_r w_r r = 1 of its rays:
LDP patterns have entries in [1, e^ε], so Σ w ∈ [e^{−ε}, 1]; rays with 1ᵀr = 1 give Σ w = n.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.robust.gains import VertexGains
>>> from mechopt.utilities import MutualInfo
>>> G = VertexGains(np.array([[0.3, 0.7], [0.6, 0.4]]), MutualInfo())
>>> pr = LDPSubsetPricer(G, 2, 1.0)
>>> out = pr.price(np.array([0.5, 0.5]), np.zeros(2))
>>> out.rays.shape[0], bool(out.bound > 0), out.note
(2, True, 'enumeration')
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import Bounds, LinearConstraint

from mechopt import settings
from mechopt.problems.robust.gains import ErrorGains, pattern_errors
from mechopt.solvers.exact.pricing.base import _LDPPricerBase
from mechopt.solvers.exact.rays import bits, dd_rays, subset_sums
from mechopt.solvers.robust.answer import MILP_ABS_GAP, MILP_REL_GAP, RayPricing, _rc_tol

__all__ = [
    "RayPricing",
    "StoredRays",
    "LDPSubsetPricer",
    "LDPMIMilpPricer",
    "LDPAscentPricer",
    "LDPQuotientMilpPricer",
    "box_cone_rays",
]


def box_cone_rays(V: np.ndarray, lo: float, hi: float, max_rays: int = 200_000,
                  deadline: float | None = None) -> np.ndarray:  # fmt: skip
    """Extreme rays (1ᵀr = 1) of {q ≥ 0 : lo·P_v·q ≤ q_x ≤ hi·P_v·q, every vertex v and row x}.

    >>> box_cone_rays(np.array([[0.5, 0.5]]), 0.5, 1.5).round(4).T.tolist()
    [[0.25, 0.75], [0.75, 0.25]]
    """
    k, n = V.shape
    rows = [hi * P - np.eye(n) for P in V]  # hi·P·q − q_x ≥ 0
    if lo > 0:
        rows += [np.eye(n) - lo * P for P in V]
    return dd_rays(np.vstack(rows), max_rays=max_rays, deadline=deadline)


class StoredRays:
    """Exact pricing over rays held in memory (columns of R) with their gains F (k × N), computed once."""

    def __init__(self, R: np.ndarray, F: np.ndarray | None, gains, weights: tuple[float, float]) -> None:
        self.R = np.asarray(R, float)
        self.F = gains.gains(self.R) if F is None else F
        self.weights = weights
        self.batch = 2 * self.R.shape[0]

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        rc = lam @ self.F - mu @ self.R
        k = min(self.batch, rc.size)
        top = np.argpartition(-rc, k - 1)[:k]
        top = top[rc[top] > _rc_tol()]
        return RayPricing(self.R[:, top], float(rc.max()), "enumeration")


class LDPSubsetPricer:
    """Exact pricing over all 2^n − 1 ε-LDP patterns through subset sums (no n × 2^n ray matrix).

    With s = 1 + (e^ε − 1) z and u_i = P_iᵀz a subset sum, f_i is a function of subset sums:
    mi ε e^ε u_i − t_i log t_i (t_i = 1 + (e^ε − 1) u_i); mse (P_iᵀã + (e^ε − 1) Σ_{z} P_i ã)² / t_i
    (ã the utility's centred values); histogram (Σ P_i² + (e^{2ε} − 1) Σ_{z} P_i²) / t_i; and μᵀs =
    1ᵀμ + (e^ε − 1) Σ_{z} μ. The gains of every pattern are computed once (k × 2^n numbers).
    """

    def __init__(self, gains, n: int, eps: float) -> None:
        from mechopt.utilities import MutualInfo, SumMSE

        self.n, self.eps, self.E1 = n, eps, math.expm1(eps)
        self.weights, self.top = (math.exp(-eps), 1.0), math.exp(eps)
        self.batch = 2 * n
        U = gains.utility
        # the ray LP's default smoothing (every round is exact): mse / histogram oscillate without it (d = 20,
        # 3 priors, histogram: gap 4e-4 after 500 rounds; with 0.8 optimal in 122 rounds); mi is left unsmoothed
        self.smoothing = 0.0 if isinstance(U, MutualInfo) else 0.8
        rows = []
        for P in gains.vertices:
            t = 1.0 + self.E1 * subset_sums(P)[:-1]  # the all-ones pattern is a multiple of z = 0
            if isinstance(U, MutualInfo):
                rows.append(eps * math.exp(eps) * (t - 1.0) / self.E1 - t * np.log(t))
            elif isinstance(gains, ErrorGains):  # the mse relative to the identity: −e(s), no cancellation
                rows.append(-pattern_errors(P, U.centred, eps))
            elif isinstance(U, SumMSE):
                a = U.centred
                rows.append((float(P @ a) + self.E1 * subset_sums(P * a)[:-1]) ** 2 / t)
            else:
                rows.append((float(P @ P) + math.expm1(2 * eps) * subset_sums(P * P)[:-1]) / t)
        self.F = np.vstack(rows)

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        rc = lam @ self.F - (float(mu.sum()) + self.E1 * subset_sums(mu)[:-1])
        k = min(self.batch, rc.size)
        top = np.argpartition(-rc, k - 1)[:k]
        top = top[rc[top] > _rc_tol()]
        rays = 1.0 + self.E1 * bits(top, self.n).T.astype(float)
        return RayPricing(rays, float(rc.max()), "enumeration")


class LDPMIMilpPricer(_LDPPricerBase):
    """ε-LDP patterns for mutual information at k priors: heuristic ascent, then an exact tangent-cut MILP."""

    def __init__(self, V: np.ndarray, eps: float) -> None:
        super().__init__(V[0], eps)
        self.V = np.asarray(V, float)
        self.n = self.V.shape[1]
        self.weights, self.top = (math.exp(-eps), 1.0), math.exp(eps)
        self.cuts = [list(np.linspace(0.0, 1.0, 9)) for _ in self.V]
        self.unit = max(1.0, eps * math.exp(eps))  # the size of a pattern's gain
        self.cut_tol = MILP_ABS_GAP * self.unit

    def _psi(self, u):
        t = 1.0 + self.E1 * np.asarray(u, float)
        return -t * np.log(t), -self.E1 * (np.log(t) + 1.0)

    def _lin(self, lam, mu):
        coef = self.eps * math.exp(self.eps) * (lam @ self.V) - self.E1 * mu
        return -float(mu.sum()), coef

    def rho(self, Z: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """ρ of patterns Z (rows in {0,1}^n)."""
        const, coef = self._lin(lam, mu)
        U = np.asarray(Z, float) @ self.V.T
        return const + np.asarray(Z, float) @ coef + self._psi(U)[0] @ lam

    def _rays(self, Z: np.ndarray) -> np.ndarray:
        return 1.0 + self.E1 * np.asarray(Z, float).T

    def start_duals(self) -> tuple[np.ndarray, np.ndarray]:
        """Duals (λ, μ) whose bound is the prior-free value v* = max_u f(u)/t(u) (λ uniform, μ = v*·λᵀV).

        Every pattern has ρ = Σ_i λ_i (f(u_i) − v* t_i) ≤ 0 there (f(u) = ε e^ε u − t log t, t = 1 + (e^ε − 1)u),
        so the bound 1ᵀμ = v* holds for every prior: the continuous relaxation of the subset sums u_i, as the
        chord duals are for ε-PML (``solvers.exact.box``). The pricing pass at them proves it; v* is only a start.
        """
        lam = np.full(len(self.V), 1.0 / len(self.V))
        return lam, self._ratio(self._peak()) * (lam @ self.V)

    def _peak(self) -> float:
        """u* = argmax of f(u)/t(u) over [0, 1] (bounded Brent)."""
        from scipy.optimize import minimize_scalar

        res = minimize_scalar(lambda u: -self._ratio(u), bounds=(0.0, 1.0), method="bounded", options={"xatol": 1e-12})
        return float(res.x)

    def _ratio(self, u: float) -> float:
        t = 1.0 + self.E1 * u
        return (self.eps * math.exp(self.eps) * u - t * math.log(t)) / t

    def _surrogate(self, Z: np.ndarray, lam: np.ndarray, coef: np.ndarray, rounds: int = 4) -> np.ndarray:
        """Patterns best for the tangents of ψ at u = V z (linear in z: a sign test), iterated from Z (a heuristic)."""
        out = []
        for _ in range(rounds):
            slope = self._psi(np.asarray(Z, float) @ self.V.T)[1]  # (m × k)
            Z = (coef[None, :] + (slope * lam[None, :]) @ self.V) > 0
            out.append(Z)
        return np.vstack(out)

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        const, coef = self._lin(lam, mu)
        keys = [-coef] + [-coef / np.maximum(P, 1e-300) for P in self.V] + [-coef / np.maximum(lam @ self.V, 1e-300)]
        Z0 = np.vstack([self._threshold_candidates(k) for k in keys])
        Z, rc = self._ascend(np.vstack([Z0, self._surrogate(Z0, lam, coef)]), lambda Z: self.rho(Z, lam, mu))
        good = rc > _rc_tol()
        if np.any(good):
            best = np.argsort(-rc)[: max(1, min(int(good.sum()), self.n))]
            return RayPricing(self._rays(Z[best][rc[best] > _rc_tol()]), None, "heuristic")
        return self._price_milp(lam, mu, deadline)

    def _price_milp(self, lam, mu, deadline) -> RayPricing:
        n, k = self.n, len(self.V)
        const, coef = self._lin(lam, mu)
        lo_psi = -math.exp(self.eps) * self.eps
        while True:
            rows, ub = [], []
            for i, cuts in enumerate(self.cuts):
                u = np.array(cuts)
                val, slope = self._psi(u)
                A = np.zeros((u.size, n + k))
                A[:, :n] = -slope[:, None] * self.V[i][None, :]
                A[:, n + i] = 1.0
                rows.append(A)
                ub.append(val - slope * u)
            # one more variable fixed at 1 carries −const: HiGHS's relative gap is then on ρ itself
            A = np.hstack([np.vstack(rows), np.zeros((sum(len(r) for r in rows), 1))])
            cons = LinearConstraint(A, -np.inf, np.concatenate(ub))
            box = Bounds(np.r_[np.zeros(n), np.full(k, lo_psi), 1.0], np.r_[np.ones(n), np.zeros(k), 1.0])
            with settings.override(mip_rel_gap=MILP_REL_GAP, mip_abs_gap=MILP_ABS_GAP * self.unit):
                res = self._milp(-np.concatenate([coef, lam, [const]]), cons, np.r_[np.ones(n), np.zeros(k + 1)], box,
                                 deadline)  # fmt: skip
            if res.x is None:
                return RayPricing(np.zeros((n, 0)), None, f"pricing MILP failed: {res.message}")
            z = np.round(res.x[:n])
            true = float(self.rho(z[None, :], lam, mu)[0])
            model = -float(res.fun)
            uz = self.V @ z
            near = settings.tolerance("cut_point")
            fresh = [i for i in range(k) if lam[i] > 0 and not any(abs(uz[i] - c) < near for c in self.cuts[i])]
            if model - true > self.cut_tol and fresh:
                for i in fresh:
                    self.cuts[i].append(float(uz[i]))
                continue
            rays = self._rays(z[None, :]) if true > _rc_tol() else np.zeros((n, 0))
            if res.status != 0:
                return RayPricing(rays, None, f"pricing MILP stopped: {res.message}")
            ub_rho = max(-float(getattr(res, "mip_dual_bound", res.fun)), model, true)
            return RayPricing(rays, ub_rho, "milp")


class LDPAscentPricer(_LDPPricerBase):
    """ε-LDP patterns for any gain above the enumeration limit: threshold patterns and 1-flip ascent.

    A heuristic: it returns columns but never a bound, so a design priced by it is not certified.
    """

    def __init__(self, gains, n: int, eps: float) -> None:
        super().__init__(np.full(n, 1.0 / n), eps)
        self.gains, self.n = gains, n
        self.weights, self.top = (math.exp(-eps), 1.0), math.exp(eps)

    def _rays(self, Z: np.ndarray) -> np.ndarray:
        return 1.0 + self.E1 * np.asarray(Z, float).T

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        def rho(Z):
            S = self._rays(Z)
            return lam @ self.gains.gains(S) - mu @ S

        base = self._threshold_candidates(mu)
        Z, rc = self._ascend(np.vstack([base, ~base]), rho)
        best = np.argsort(-rc)[: self.n]
        best = best[rc[best] > _rc_tol()]
        return RayPricing(self._rays(Z[best]), None, "heuristic")


class LDPQuotientMilpPricer(LDPAscentPricer):
    """ε-LDP patterns for mse / histogram at k priors: the ascent, then an exact MILP when it finds nothing.

    f_i = N_i(z) / t_i(z), t_i = 1 + (e^ε − 1) P_iᵀz; N_i is linear in z for histogram
    (Σ P_i² + (e^{2ε} − 1) Σ_z P_i²) and quadratic for mse ((P_iᵀã + (e^ε − 1) Σ_z P_i ã)², products
    y_xy = z_x z_y linearised exactly on binaries, the side by the sign of ã_x ã_y). With h_i ≤ N_i / t_i
    written h_i + (e^ε − 1) Σ_x P_i(x) w_ix ≤ N_i and w_ix ≥ h_i z_x (w ≥ h_i − H_i(1 − z_x), w ≥ 0,
    exact on binaries; H_i a bound on f_i), max Σ λ_i h_i − μᵀs is max ρ exactly; the MILP's dual bound
    is the proven bound.
    """

    def __init__(self, gains, n: int, eps: float) -> None:
        super().__init__(gains, n, eps)
        from mechopt.utilities import SumMSE

        self.quad = isinstance(gains.utility, SumMSE)
        self.V = gains.vertices
        self.iu, self.ju = np.triu_indices(n, 1) if self.quad else (np.zeros(0, int), np.zeros(0, int))
        self.unit = float(np.abs(gains.gains(1.0 + self.E1 * np.eye(n))).max(initial=1.0)) or 1.0

    def _numerators(self):
        """Per prior: (constant, linear coefficients on z, pair coefficients on y)."""
        out = []
        for P in self.V:
            if self.quad:
                a = self.gains.utility.centred
                al, be = float(P @ a), self.E1 * P * a
                out.append((al * al, 2 * al * be + be * be, 2 * be[self.iu] * be[self.ju]))
            else:
                out.append((float(P @ P), math.expm1(2 * self.eps) * P * P, np.zeros(0)))
        return out

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        heur = super().price(lam, mu, deadline)
        if heur.rays.shape[1]:
            return heur
        return self._price_milp(lam, mu, deadline)

    def _price_milp(self, lam, mu, deadline) -> RayPricing:
        n, k, npair = self.n, len(self.V), self.iu.size
        nz, ny, nh, nw = n, npair, k, k * n
        N = nz + ny + nh + nw + 1
        zi, yi, hi_, wi = 0, nz, nz + ny, nz + ny + nh
        rows, ub = [], []
        nums = self._numerators()
        H = [c0 + np.clip(c1, 0, None).sum() + np.clip(c2, 0, None).sum() for c0, c1, c2 in nums]
        for i, (c0, c1, c2) in enumerate(nums):
            r = np.zeros(N)
            r[hi_ + i] = 1.0
            r[wi + i * n : wi + (i + 1) * n] = self.E1 * self.V[i]
            r[zi : zi + n] = -c1
            r[yi : yi + ny] = -c2
            rows.append(r)
            ub.append(c0)
            for x in range(n):  # h_i − w_ix + H_i z_x ≤ H_i
                r = np.zeros(N)
                r[hi_ + i], r[wi + i * n + x], r[zi + x] = 1.0, -1.0, H[i]
                rows.append(r)
                ub.append(H[i])
        sgn = np.sign(nums[0][2]) if ny else np.zeros(0)
        for p, (x, y) in enumerate(zip(self.iu, self.ju)):
            if sgn[p] > 0:  # y ≤ z_x, y ≤ z_y
                for v in (x, y):
                    r = np.zeros(N)
                    r[yi + p], r[zi + v] = 1.0, -1.0
                    rows.append(r)
                    ub.append(0.0)
            elif sgn[p] < 0:  # y ≥ z_x + z_y − 1
                r = np.zeros(N)
                r[zi + x], r[zi + y], r[yi + p] = 1.0, 1.0, -1.0
                rows.append(r)
                ub.append(1.0)
        mf = mu + lam @ self.gains.shift if isinstance(self.gains, ErrorGains) else mu  # f = g + shift·q
        cost = np.zeros(N)
        cost[zi : zi + n] = -self.E1 * mf
        cost[hi_ : hi_ + k] = lam
        cost[-1] = -float(mf.sum())
        box = Bounds(np.zeros(N), np.r_[np.ones(nz + ny), H, np.repeat(H, n), 1.0])
        box.lb[-1] = 1.0
        integ = np.r_[np.ones(nz), np.zeros(N - nz)]
        with settings.override(mip_rel_gap=MILP_REL_GAP, mip_abs_gap=MILP_ABS_GAP * self.unit):
            res = self._milp(-cost, [LinearConstraint(np.array(rows), -np.inf, np.array(ub))], integ, box, deadline)
        if res.x is None:
            return RayPricing(np.zeros((n, 0)), None, f"pricing MILP failed: {res.message}")
        z = np.round(res.x[:n])
        S = self._rays(z[None, :])
        true = float(lam @ self.gains.gains(S)[:, 0] - mu @ S[:, 0])
        rays = S if true > _rc_tol() else np.zeros((n, 0))
        if res.status != 0:
            return RayPricing(rays, None, f"pricing MILP stopped: {res.message}")
        return RayPricing(rays, max(-float(getattr(res, "mip_dual_bound", res.fun)), true), "milp")
