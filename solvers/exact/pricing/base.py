"""Pricing oracles for column generation: max_r μ(r) − νᵀr over the rays of a cone.

Each pricer's ``price(nu, deadline)`` returns new rays with positive reduced
cost and, when the search was exact, a proven upper bound on the maximum
reduced cost over every normalised ray (``bound``; None after a heuristic).

- :class:`StoredPricer`: all rays held in memory, priced by one matrix product.
- :class:`LDPEnumPricer`: ε-LDP, all 2^d patterns priced through subset sums
  (no ray matrix: O(2^d) memory and time per round), for MI, histogram MSE and
  the MSE of a weighted sum.
- :class:`LDPMIPricer`: ε-LDP mutual information for large d. A pattern
  z ∈ {0,1}^d gives c = P ∘ (1 + (e^ε − 1) z), t = 1ᵀc = 1 + (e^ε − 1)Pᵀz and
  t·(μ(r) − νᵀr) = const + coefᵀz − t log t; the concave −t log t of the scalar
  u = Pᵀz is modelled by tangent cuts in a MILP (HiGHS via scipy.optimize.milp),
  re-solved with a new cut until the model is exact at the optimum; the MILP's
  dual bound is the proven bound (math.md §3).
- :class:`LDPQuadPricer`: ε-LDP with a gain for which t²·(μ(r) − νᵀr) is a
  quadratic in binary z (histogram MSE, MSE of a weighted sum): a MILP with the
  products z_x z_y linearised exactly (McCormick on binaries).

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import MutualInfo
>>> P = np.array([0.1, 0.2, 0.3, 0.4])
>>> pr = LDPMIPricer(P, 1.0, P)
>>> out = pr.price(np.zeros(4))           # ν = 0: the best pattern by MI alone
>>> out.rays.shape[0], out.note
(4, 'heuristic')
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp

from mechopt import settings
from mechopt.solvers._quiet import quiet_stdout

__all__ = [
    "Pricing",
    "ShiftedPricer",
    "shifted",
    "StoredPricer",
    "LDPEnumPricer",
    "LDPMIPricer",
    "LDPQuadPricer",
    "ldp_seed",
    "pattern_rays",
]


def _rc_tol() -> float:
    """Reduced cost below which a column is not worth adding (``settings`` ``reduced_cost``)."""
    return settings.tolerance("reduced_cost")


def pattern_rays(P: np.ndarray, eps: float, Z: np.ndarray) -> np.ndarray:
    """Normalised LDP rays for patterns Z (rows in {0,1}^d) as columns."""
    C = P[:, None] * (1.0 + math.expm1(eps) * np.asarray(Z, float).T)
    return C / C.sum(axis=0)


def ldp_seed(P: np.ndarray, eps: float) -> np.ndarray:
    """Initial LDP columns: P itself and the d single-high patterns."""
    return np.hstack([P[:, None], pattern_rays(P, eps, np.eye(P.size))])


@dataclass
class Pricing:
    rays: np.ndarray  # new columns (d, k)
    bound: float | None  # proven upper bound on max reduced cost; None if heuristic
    note: str = ""
    exhaustive: bool = True  # False: finding no ray does not show that none has a positive reduced cost


class ShiftedPricer:
    """A pricer of the utility's μ used for the column program's gain μ(c) − shiftᵀc (``ColumnProgram.shift``).

    It prices at ν + shift: μ(r) − (ν + shift)ᵀr = gain(r) − νᵀr, the same
    reduced cost and the same proven bound. Other attributes are the inner pricer's.
    """

    def __init__(self, inner, shift: np.ndarray) -> None:
        self.__dict__["inner"] = inner
        self.__dict__["shift"] = np.asarray(shift, float)

    def price(self, nu: np.ndarray, deadline: float | None = None) -> "Pricing":
        return self.inner.price(np.asarray(nu, float) + self.shift, deadline)

    def dual_bound(self, deadline: float | None = None):
        """The inner pricer's (bound on Σ μ, duals) in the program's units: (bound − shiftᵀP, ν − shift)."""
        inner = getattr(self.inner, "dual_bound", None)
        out = None if inner is None else inner(deadline)
        return None if out is None else (out[0] - float(self.shift @ self.inner.P), out[1] - self.shift)

    def __getattr__(self, name: str):
        return getattr(self.__dict__["inner"], name)

    def __setattr__(self, name: str, value) -> None:  # e.g. ``early``: column generation switches it
        setattr(self.inner, name, value)


def shifted(pricer, shift: np.ndarray):
    """``pricer`` itself when the shift is zero, else a :class:`ShiftedPricer`."""
    return pricer if not np.any(shift) else ShiftedPricer(pricer, shift)


class StoredPricer:
    """Exact pricing over rays held in memory (columns of R, gains mu)."""

    def __init__(self, R: np.ndarray, mu: np.ndarray, batch: int | None = None) -> None:
        self.R, self.mu = R, mu
        self.batch = batch or 2 * R.shape[0]

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        rc = self.mu - nu @ self.R
        k = min(self.batch, rc.size)
        top = np.argpartition(-rc, k - 1)[:k]
        top = top[rc[top] > _rc_tol()]
        return Pricing(self.R[:, top], float(rc.max()))


class LDPEnumPricer:
    """Exact pricing over all 2^d ε-LDP patterns through subset sums.

    With c = P ∘ s, s = 1 + (e^ε − 1)z, every quantity is a subset sum over
    {x : z_x = 1}: t = 1 + (e^ε − 1)S_P, νᵀc = νᵀP + (e^ε − 1)S_{ν∘P}, and
    μ(c) for MI (Σ P s log(s P/P_u) − t log t), histogram MSE (Σ c²/t) and
    weighted-sum MSE ((aᵀc)²/t). Reduced cost of the normalised ray:
    (μ(c) − νᵀc)/t.
    """

    def __init__(self, P: np.ndarray, eps: float, utility, batch: int | None = None) -> None:
        from mechopt.solvers.exact.rays import subset_sums
        from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

        self.P, self.eps, self.E1 = P, eps, math.expm1(eps)
        self.batch = batch or 2 * P.size
        self._ss = subset_sums
        self.t = 1.0 + self.E1 * subset_sums(P)
        if isinstance(utility, MutualInfo):
            rho = np.log(P / utility.prior)
            lin = subset_sums(P * (eps * math.exp(eps) + self.E1 * rho)) + float(P @ rho)
            self.muc = lin - self.t * np.log(self.t)
        elif isinstance(utility, HistogramMSE):
            self.muc = (float(P @ P) + math.expm1(2 * eps) * subset_sums(P * P)) / self.t
        elif isinstance(utility, SumMSE):
            self.muc = (float(utility.centred @ P) + self.E1 * subset_sums(utility.centred * P)) ** 2 / self.t
        else:
            raise TypeError(f"no subset-sum pricing for {type(utility).__name__}")

    @staticmethod
    def supports(utility) -> bool:
        from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

        return isinstance(utility, (HistogramMSE, SumMSE)) or (
            isinstance(utility, MutualInfo) and utility.prior is not None
        )

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        from mechopt.solvers.exact.rays import bits

        rc = (self.muc - float(nu @ self.P) - self.E1 * self._ss(nu * self.P)) / self.t
        k = min(self.batch, rc.size)
        top = np.argpartition(-rc, k - 1)[:k]
        top = top[rc[top] > _rc_tol()]
        return Pricing(pattern_rays(self.P, self.eps, bits(top, self.P.size)), float(rc.max()), "enumeration")


class _LDPPricerBase:
    def __init__(self, P: np.ndarray, eps: float) -> None:
        self.P, self.eps, self.E1 = P, eps, math.expm1(eps)
        self.milp_calls = 0

    def _threshold_candidates(self, order_key: np.ndarray) -> np.ndarray:
        order = np.argsort(order_key)
        Z = np.zeros((self.P.size - 1, self.P.size), bool)
        for k in range(1, self.P.size):
            Z[k - 1, order[:k]] = True
        return Z

    def _ascend(self, Z: np.ndarray, score, keep: int = 8, rounds: int = 4) -> tuple[np.ndarray, np.ndarray]:
        """Greedy 1-flip local search from the best ``keep`` patterns (a heuristic: proves nothing)."""
        d = self.P.size
        pool = np.asarray(Z, bool)
        flip = np.eye(d, dtype=bool)[None]
        for _ in range(rounds):
            top = pool[np.argsort(-score(pool))[:keep]]
            pool = np.unique(np.vstack([top, (top[:, None, :] ^ flip).reshape(-1, d)]), axis=0)
        return pool, score(pool)

    def _milp(self, c, cons, integrality, bounds, deadline):
        """HiGHS MILP with tight integrality and absolute-gap tolerances (passed verbatim)."""
        self.milp_calls += 1
        opts = {
            "mip_rel_gap": settings.tolerance("mip_rel_gap"),
            "mip_abs_gap": settings.tolerance("mip_abs_gap"),
            "mip_feasibility_tolerance": settings.tolerance("mip_feasibility"),
            "output_flag": False,
        }
        if deadline is not None:
            opts["time_limit"] = max(1e-3, deadline - time.perf_counter())
        with warnings.catch_warnings(), quiet_stdout():
            warnings.simplefilter("ignore", RuntimeWarning)  # "options passed to HiGHS verbatim"
            return milp(np.asarray(c), constraints=cons, integrality=integrality, bounds=bounds, options=opts)


MILP_SCALE_EPS = 25.0  # above this ε the MI pricing MILP is rescaled (a range switch, not a tolerance)


class LDPMIPricer(_LDPPricerBase):
    """Exact pricing of ε-LDP patterns for the mutual-information gain (see module docstring)."""

    def __init__(self, P: np.ndarray, eps: float, Pu: np.ndarray, cut_tol: float | None = None) -> None:
        super().__init__(P, eps)
        self.rho = np.log(P / Pu)
        self.cuts = list(np.linspace(0.0, 1.0, 9))
        self.cut_tol = settings.resolve(cut_tol, "tangent_cut")

    def _psi(self, u):
        t = 1.0 + self.E1 * np.asarray(u, float)
        return -t * np.log(t), -self.E1 * (np.log(t) + 1.0)

    def _lin(self, nu):
        P, E = self.P, math.exp(self.eps)
        const = float(P @ self.rho - nu @ P)
        coef = P * (self.eps * E + self.E1 * (self.rho - nu))
        return const, coef

    def num(self, Z: np.ndarray, nu: np.ndarray) -> np.ndarray:
        const, coef = self._lin(nu)
        return const + Z @ coef + self._psi(Z @ self.P)[0]

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        const, coef = self._lin(nu)
        Z, rc = self._ascend(
            self._threshold_candidates(-coef / self.P), lambda Z: self.num(Z, nu) / (1.0 + self.E1 * (Z @ self.P))
        )
        good = rc > _rc_tol()
        if np.any(good):
            best = np.argsort(-rc)[: max(1, min(int(good.sum()), self.P.size))]
            return Pricing(pattern_rays(self.P, self.eps, Z[best][rc[best] > _rc_tol()]), None, "heuristic")
        return self._price_milp(nu, const, coef, deadline)

    def _price_milp(self, nu, const, coef, deadline) -> Pricing:
        d, P = self.P.size, self.P
        # Above ε = 25 the MILP is posed divided by E = e^{ε−25} (ψ and the coefficients grow like
        # ε e^ε: at ε = 50 they pass 1e20, which HiGHS reads as infinite: "Model error"); fun and the
        # dual bound scale back. Below, the model is unchanged (E = 1).
        E = math.exp(max(0.0, self.eps - MILP_SCALE_EPS))
        lo_psi = -math.exp(self.eps) * self.eps / E
        while True:
            u = np.array(self.cuts)
            val, slope = self._psi(u)
            A = np.hstack([-(slope / E)[:, None] * P[None, :], np.ones((u.size, 1))])
            cons = LinearConstraint(A, -np.inf, (val - slope * u) / E)
            res = self._milp(
                -np.append(coef / E, 1.0),
                cons,
                np.append(np.ones(d), 0.0),
                Bounds(np.append(np.zeros(d), lo_psi), np.append(np.ones(d), 0.0)),
                deadline,
            )
            if res.x is None:
                return Pricing(np.zeros((d, 0)), None, f"pricing MILP failed: {res.message}")
            z = np.round(res.x[:d])
            uz = float(P @ z)
            true = const + coef @ z + float(self._psi(uz)[0])
            model = const - E * res.fun
            near = settings.tolerance("cut_point")
            if model - true > self.cut_tol and not any(abs(uz - c) < near for c in self.cuts):
                self.cuts.append(uz)
                continue
            if res.status != 0:
                return Pricing(self._as_rays(z, true), None, f"pricing MILP stopped: {res.message}")
            ub_num = const - E * float(getattr(res, "mip_dual_bound", res.fun))
            ub_num = max(ub_num, model, true)
            ub = ub_num if ub_num >= 0 else ub_num / math.exp(self.eps)
            return Pricing(self._as_rays(z, true), ub, "milp")

    def _as_rays(self, z, true_num) -> np.ndarray:
        if true_num <= _rc_tol():
            return np.zeros((self.P.size, 0))
        return pattern_rays(self.P, self.eps, z[None, :])


class LDPQuadPricer(_LDPPricerBase):
    """Exact pricing of ε-LDP patterns when t²·(μ(r) − νᵀr) is quadratic in binary z."""

    def __init__(self, P: np.ndarray, eps: float, gain) -> None:
        super().__init__(P, eps)
        self.gain = gain
        d = P.size
        self.iu, self.ju = np.triu_indices(d, 1)

    def F(self, Z: np.ndarray, nu: np.ndarray) -> np.ndarray:
        C = self.P[:, None] * (1.0 + self.E1 * np.asarray(Z, float).T)
        t = C.sum(axis=0)
        return t * self.gain(C) - t * (nu @ C)

    def _coefficients(self, nu):
        d = self.P.size
        f0 = float(self.F(np.zeros((1, d)), nu)[0])
        f1 = self.F(np.eye(d), nu)
        pairs = np.zeros((self.iu.size, d))
        pairs[np.arange(self.iu.size), self.iu] = 1
        pairs[np.arange(self.iu.size), self.ju] = 1
        f2 = self.F(pairs, nu)
        lin = f1 - f0
        quad = f2 - f1[self.iu] - f1[self.ju] + f0
        return f0, lin, quad

    def is_quadratic(self, rng: np.random.Generator, nu: np.ndarray | None = None) -> bool:
        """Check the quadratic model against F on random patterns."""
        nu = np.zeros(self.P.size) if nu is None else nu
        f0, lin, quad = self._coefficients(nu)
        Z = rng.integers(0, 2, size=(16, self.P.size)).astype(float)
        model = f0 + Z @ lin + (Z[:, self.iu] * Z[:, self.ju]) @ quad
        true = self.F(Z, nu)
        tol = settings.tolerance("quadratic_check")
        return bool(np.all(np.abs(model - true) <= tol * max(1.0, float(np.abs(true).max()))))

    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        Z = self._threshold_candidates(nu)
        Z, rc = self._ascend(np.vstack([Z, ~Z]), lambda Z: self.F(Z, nu) / (1.0 + self.E1 * (Z @ self.P)) ** 2)
        if np.any(rc > _rc_tol()):
            best = np.argsort(-rc)[: self.P.size]
            return Pricing(pattern_rays(self.P, self.eps, Z[best][rc[best] > _rc_tol()]), None, "heuristic")
        return self._price_milp(nu, deadline)

    def _price_milp(self, nu, deadline) -> Pricing:
        d, npair = self.P.size, self.iu.size
        f0, lin, quad = self._coefficients(nu)
        rows, cols, vals, ub = [], [], [], []
        r = 0
        for k in range(npair):
            y = d + k
            if quad[k] > 0:  # y ≤ z_i, y ≤ z_j
                for zi in (self.iu[k], self.ju[k]):
                    rows += [r, r]
                    cols += [y, zi]
                    vals += [1.0, -1.0]
                    ub.append(0.0)
                    r += 1
            elif quad[k] < 0:  # y ≥ z_i + z_j − 1
                rows += [r, r, r]
                cols += [self.iu[k], self.ju[k], y]
                vals += [1.0, 1.0, -1.0]
                ub.append(1.0)
                r += 1
        cons = (
            [LinearConstraint(sparse.csr_array((vals, (rows, cols)), shape=(r, d + npair)), -np.inf, ub)] if r else []
        )
        res = self._milp(
            -np.concatenate([lin, quad]),
            cons,
            np.append(np.ones(d), np.zeros(npair)),
            Bounds(np.zeros(d + npair), np.ones(d + npair)),
            deadline,
        )
        if res.x is None:
            return Pricing(np.zeros((d, 0)), None, f"pricing MILP failed: {res.message}")
        z = np.round(res.x[:d])
        true = float(self.F(z[None, :], nu)[0])
        rays = pattern_rays(self.P, self.eps, z[None, :]) if true > _rc_tol() else np.zeros((d, 0))
        if res.status != 0:
            return Pricing(rays, None, f"pricing MILP stopped: {res.message}")
        ubF = max(f0 - float(getattr(res, "mip_dual_bound", res.fun)), true)
        return Pricing(rays, ubF if ubF >= 0 else ubF / math.exp(2 * self.eps), "milp")
