"""Exact pricing of ε-LDP patterns for robust mutual information by branch and bound with Lagrangian bounds.

The pricing problem of :class:`~mechopt.solvers.robust.pricing.LDPMIMilpPricer` is

    max_{z ∈ {0,1}^n} ρ(z) = c₀ + cᵀz + Σ_i λ_i ψ(t_i),   t_i = V_iᵀz,   ψ(t) = −(1 + E t) log(1 + E t),

E = e^ε − 1, V_i ≥ 0 the priors (Σ_x V_i(x) = 1, so t_i ∈ [0, 1]), ψ concave.

**The bound (proof).** Fix some coordinates (O the ones set to 1, Z those set to 0, F the free ones) and
put s_i = V_i(O)·1, t_i = s_i + V_{iF}ᵀz_F ∈ [s_i, s_i + V_i(F)·1] =: [lo_i, hi_i]. For any a ∈ R^k,
adding Σ_i a_i (s_i + V_{iF}ᵀz_F − t_i) = 0,

    ρ(z) = c₀ + c(O)·1 + Σ_i [λ_i ψ(t_i) − a_i t_i + a_i s_i] + Σ_{x∈F} w_x z_x,   w = c_F + V_Fᵀa,

so ρ(z) ≤ B(a) := c₀ + c(O)·1 + Σ_i (g_i(a_i) + a_i s_i) + Σ_{x∈F} max(0, w_x) with
g_i(a) = max_{t ∈ [lo_i, hi_i]} λ_i ψ(t) − a t, in closed form: for λ_i > 0 the concave maximum is at
ψ'(t) = a/λ_i clipped to the interval, t = (exp(−a/(λ_i E) − 1) − 1)/E; for λ_i ≤ 0 the function is convex
and its maximum is at an endpoint. Every a gives a valid bound; a good one comes from the continuous
relaxation over z_F ∈ [0,1]^F (a smooth concave program, L-BFGS-B): a_i = λ_i ψ'(t̄_i) at its solution
(then B(a) is the relaxation's value when the solve is exact, by its KKT conditions).

**Fixing (proof).** With θ the pruning level, forcing z_x = 1 − [w_x > 0] lowers the separable term by
|w_x| and leaves the rest of B(a) a valid bound, so that subtree's maximum is ≤ B(a) − |w_x|; if that is
≤ θ the coordinate is fixed to [w_x > 0] and B(a) − |w_x| joins the recorded bounds.

**Exactness.** Best-first branch and bound over the free coordinates: a node is closed when its bound
is ≤ θ = max(incumbent, 0) + tol (its bound is recorded) or when every coordinate is fixed (its exact
ρ is recorded). The returned bound is the maximum of the incumbent and every recorded bound: every z
lies in exactly one closed subtree, so it is an upper bound on max ρ, within tol of it when max ρ ≥ 0
(the pricing's question is whether a column with ρ > 0 exists). Floating-point rounding of B is covered
by the master's margin (``raylp._margin``) and tol.

Examples
--------
>>> import numpy as np
>>> V = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
>>> bb = MIBranchBound(V, 1.0)
>>> lam, mu = np.array([0.5, 0.5]), np.array([0.3, 0.3, 0.3])
>>> Z, ub = bb.solve(lam, mu)
>>> every = [bb.rho(np.array(z, float), lam, mu) for z in np.ndindex(2, 2, 2)]
>>> bool(max(every) - 1e-12 <= ub <= max(max(every), 0.0) + 1e-9), bool(bb.rho(Z[0], lam, mu) == max(every))
(True, True)
"""

from __future__ import annotations

import heapq
import itertools
import math

import numpy as np
from scipy.optimize import minimize

from mechopt.runtime.deadline import passed

__all__ = ["MIBranchBound"]


class MIBranchBound:
    """Branch and bound for max_z c₀ + cᵀz + Σ_i λ_i ψ(V_iᵀz) over z ∈ {0,1}^n (module docstring: the proof)."""

    def __init__(self, V: np.ndarray, eps: float, tol: float = 1e-10, max_nodes: int = 200_000) -> None:
        self.V = np.asarray(V, float)
        self.eps, self.E1 = eps, math.expm1(eps)
        self.tol, self.max_nodes = tol, max_nodes
        self.nodes = 0

    def psi(self, t):
        """ψ(t) and ψ'(t)."""
        u = 1.0 + self.E1 * np.asarray(t, float)
        return -u * np.log(u), -self.E1 * (np.log(u) + 1.0)

    def coefficients(self, lam: np.ndarray, mu: np.ndarray) -> tuple[float, np.ndarray]:
        """(c₀, c) of the pricing objective for master duals λ (priors) and μ (rows)."""
        return -float(mu.sum()), self.eps * math.exp(self.eps) * (lam @ self.V) - self.E1 * mu

    def rho(self, z: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> float:
        c0, c = self.coefficients(lam, mu)
        z = np.asarray(z, float)
        return float(c0 + c @ z + lam @ self.psi(self.V @ z)[0])

    def _g(self, a: np.ndarray, lam: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """g_i(a_i) = max over t ∈ [lo_i, hi_i] of λ_i ψ(t) − a_i t (closed form)."""
        out = np.empty(lam.size)
        for i, (ai, li) in enumerate(zip(a, lam)):
            if li > 0:
                x = np.clip(-ai / (li * self.E1) - 1.0, -700.0, 700.0)
                ts = [float(np.clip((math.exp(x) - 1.0) / self.E1, lo[i], hi[i]))]
            else:
                ts = [lo[i], hi[i]]
            out[i] = max(li * float(self.psi(t)[0]) - ai * t for t in ts)
        return out

    def _bound(self, fix: np.ndarray, a: np.ndarray, lam, c0, c):
        """(B(a), w) of a node for multipliers a (any a: a valid bound)."""
        F, O = fix < 0, fix == 1
        VF = self.V[:, F]
        s = self.V[:, O].sum(axis=1)
        w = c[F] + a @ VF
        B = c0 + float(c[O].sum()) + float((self._g(a, lam, s, s + VF.sum(axis=1)) + a * s).sum())
        return B + float(np.clip(w, 0, None).sum()), w

    def _node(self, fix: np.ndarray, lam, c0, c, y0: np.ndarray):
        """(bound, w, relaxed z (n), multipliers) of a node; ``fix`` holds −1 (free), 0 or 1."""
        F, O = fix < 0, fix == 1
        VF = self.V[:, F]
        s = self.V[:, O].sum(axis=1)
        cF = c[F]

        def neg(y):
            val, slope = self.psi(s + VF @ y)
            return -(cF @ y + lam @ val), -(cF + (lam * slope) @ VF)

        y = np.clip(y0[F], 0.0, 1.0)
        if y.size:
            opts = {"ftol": 1e-15, "gtol": 1e-13, "maxiter": 200}
            y = minimize(neg, y, jac=True, method="L-BFGS-B", bounds=[(0.0, 1.0)] * y.size, options=opts).x
        a = np.where(lam > 0, lam * self.psi(s + VF @ y)[1], 0.0)
        B, w = self._bound(fix, a, lam, c0, c)
        full = fix.astype(float)
        full[F] = y
        return B, w, full, a

    def solve(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None,
              stop: float = 1.0) -> tuple[np.ndarray, float | None]:  # fmt: skip
        """(patterns found, best first (rows), proven upper bound on max ρ); the bound is None when stopped by
        the deadline or node cap. With ``stop`` < 1 the search ends once the best ρ > 0 is ≥ stop × the bound
        (the bound then covers the open nodes too: each is ≤ its parent's bound)."""
        lam = np.asarray(lam, float)
        c0, c = self.coefficients(lam, mu)
        n = self.V.shape[1]
        best_z = np.zeros(n)
        best = self.rho(best_z, lam, mu)
        closed = -math.inf  # the largest bound of a closed subtree
        found: dict[bytes, tuple[float, np.ndarray]] = {}
        order = itertools.count()
        heap = [(-math.inf, next(order), np.full(n, -1, np.int8), None, np.full(n, 0.5))]
        count = 0
        while heap:
            key, _, fix, a0, y0 = heapq.heappop(heap)
            self.nodes += 1
            count += 1
            if count > self.max_nodes or passed(deadline):
                return self._found(found, best_z), None
            if best > 0 and best >= stop * max(best, closed, -heap[0][0] if heap else -math.inf, -key):
                return self._found(found, best_z), max(best, closed, -heap[0][0] if heap else -math.inf, -key)
            if a0 is not None:  # the parent's multipliers first: a valid bound without a solve
                B0, _ = self._bound(fix, a0, lam, c0, c)
                if B0 <= max(best, 0.0) + self.tol:
                    closed = max(closed, B0)
                    continue
            B, w, y, a = self._node(fix, lam, c0, c, y0)
            F = fix < 0
            for cand in self._candidates(fix, F, y[F], w):
                val = self.rho(cand, lam, mu)
                if val > 0:
                    found[cand.tobytes()] = (val, cand)
                if val > best:
                    best, best_z = val, cand
            theta = max(best, 0.0) + self.tol
            if B <= theta:
                closed = max(closed, B)
                continue
            idx = np.flatnonzero(F)
            drop = B - np.abs(w)
            sure = drop <= theta
            if np.any(sure):
                closed = max(closed, float(drop[sure].max()))
                fix = fix.copy()
                fix[idx[sure]] = (w[sure] > 0).astype(np.int8)
            free = np.flatnonzero(fix < 0)
            if free.size == 0:
                z = fix.astype(float)
                val = self.rho(z, lam, mu)
                closed = max(closed, val)
                if val > 0:
                    found[z.tobytes()] = (val, z)
                if val > best:
                    best, best_z = val, z
                continue
            if np.any(sure):  # re-bound the node with its fixings
                heapq.heappush(heap, (-B, next(order), fix, a, y))
                continue
            x = free[np.argmin(np.abs(y[free] - 0.5))]
            for v in (1, 0):
                child = fix.copy()
                child[x] = v
                heapq.heappush(heap, (-B, next(order), child, a, y))
        return self._found(found, best_z), max(best, closed)

    @staticmethod
    def _found(found: dict, best_z: np.ndarray, keep: int = 64) -> np.ndarray:
        """The patterns with ρ > 0 seen (best first, at most ``keep``), or the best pattern."""
        if not found:
            return best_z[None, :]
        vals = sorted(found.values(), key=lambda v: -v[0])[:keep]
        return np.vstack([z for _, z in vals])

    @staticmethod
    def _candidates(fix, F, y, w):
        """Roundings of the node's relaxation: z_F = [y > 1/2] and z_F = [w > 0]."""
        out = []
        for zf in (y > 0.5, w > 0):
            z = np.where(fix == 1, 1.0, 0.0)
            z[F] = zf
            out.append(z)
        return out
