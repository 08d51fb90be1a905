"""Exact robust-mse pricing over the cone of columns private at every prior of a set (LIP, PML, ALIP).

The cone is K = {q ≥ 0 : lo·t_j ≤ q_x ≤ hi·t_j, t_j = P_j·q, every vertex j of the set and row x}
(:mod:`mechopt.solvers.robust.cone.box`: the slice P̄·q = 1, its bounds and its LP). For the mse of a sum
with centred values a a column q has at prior P_i the gain f_i = N_i² / T_i, N_i = Σ_x P_ix a_x q_x,
T_i = P_i·q (the priors of the gains may be more than the set's vertices: the hull rounds). The ray LP prices
it relative to the identity's gain Σ_x P_ix a_x² q_x (:class:`~mechopt.problems.robust.gains.ErrorGains`; duals
of plain gains are moved there by :func:`~mechopt.problems.robust.gains.error_duals`): the error
e_i(q) = Σ_x P_ix q_x (a_x − N_i/T_i)², so at duals (λ ≥ 0, μ) the pricing problem is max over the slice of
ρ(q) = −Σ_i λ_i e_i(q) − μᵀq: a convex function, largest at a vertex of the slice (an extreme ray).

**The representation (proof).** N²/T = max_s (2sN − s²T) for T > 0, attained at s = N/T (as in
:mod:`mechopt.solvers.robust.ratios`), so ρ(q) = max_{s ∈ R^k} Σ_x q_x w_x(s) with
w_x(s) = −Σ_i λ_i P_ix (a_x − s_i)² − μ_x, and the maximiser s_i = N_i/T_i is a mean of the a_x
with P_ix > 0: s lies in the box of those ranges.

**The bound (proven).** For a box S = Π [l_i, h_i] of ratios, every q of the slice with N_i/T_i ∈ S
(the window rows l_i T_i ≤ N_i ≤ h_i T_i: linear in q) has N_i²/T_i = s_i² T_i ≤ (l_i + h_i) N_i − l_i h_i T_i
((s − l)(s − h) ≤ 0: the chord of s², exact at the window's ends, at most (h − l)² T / 4 above); less the
identity's gain it reads −Σ_x P_ix q_x (a_x − l_i)(a_x − h_i), products of differences (no E[a²] − Σ gains). So
the LP "max −Σ_x q_x (Σ_i λ_i P_ix (a_x − l_i)(a_x − h_i) + μ_x) over the slice and the windows" bounds ρ on the
part of the slice whose ratios lie in S; its value is taken from any row multipliers by weak duality
(:func:`~mechopt.solvers.robust.lp.dual_max`, every variable boxed, a rounding allowance per column that scales
with the bound, not with the costs), not from HiGHS, and a box HiGHS proves empty is dropped (a box
HiGHS leaves unsolved leaves the pricing without a bound). Every q lies in some box of a partition of the
root box, so the largest box bound bounds max ρ.

**Search.** Best-first over boxes; each LP point (mixed with the interior column 1 just enough to lie in K)
is priced exactly, and an improving one is pushed up by alternation (s = N/T of the point, then the LP at
w(s) over the whole slice, the chord at l = h = s: ρ never drops, as ρ(q') ≥ Σ q'_x w_x(s) ≥ Σ q_x w_x(s)
= ρ(q)). A box is split at the side i whose chord error λ_i T_i (s_i − l_i)(h_i − s_i) at the LP point is
largest, halfway between s_i = N_i/T_i and the side's middle. A box is closed when its bound is at most
the larger of the incumbent and ``target`` (half the gap tolerance times the master's value |1ᵀμ|, the
MSE), or when the chord's error at its LP point is below the LP's own slack (its recomputed bound less the LP
point's value: HiGHS's tolerances, which no split reduces; the bound stays proven, only looser). PML ε = 5,
d = 6, an MSE 1.3e-5 of E[a²]: priced as E[a²] − Σ gains it ended ``optimal_inaccurate`` at gap 2e-6; in the
errors, with the allowance per column, it is certified at 2.9e-8. The search stops early once an improving
column reaches ``stop`` times the largest open bound. The chord's error shrinks with the square of the box's
width, so the search ends.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.robust.gains import VertexGains
>>> from mechopt.utilities import SumMSE
>>> V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
>>> G = VertexGains(V, SumMSE(np.arange(5.0)))
>>> pr = ConeMSEPricer(G, V, np.exp(-1.0), np.e)
>>> pr.target, pr.stop, pr.slack = -np.inf, 1.0, 1e-10  # search to the maximum itself
>>> lam, mu = np.full(3, 1 / 3), np.zeros(5)               # μ = 0: the most informative column, proven
>>> out = pr.price(lam, mu)
>>> bool(0 <= out.bound - pr.rho(out.rays, lam, mu).max() <= 1e-8)
True
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from mechopt import settings
from mechopt.model.gains import mse_loss
from mechopt.problems.robust.gains import error_duals
from mechopt.runtime.deadline import passed
from mechopt.solvers.robust.answer import RayPricing, _rc_tol
from mechopt.solvers.robust.cone.box import BOX_NODES, BoxMIPricer
from mechopt.solvers.robust.lp import dual_max, lp_model, run_lp

__all__ = ["ConeMSEPricer"]


class ConeMSEPricer:
    """max ρ over the slice P̄·q = 1 of the posterior-box cone of ``cone``'s rows, for the mse gains ``gains``.

    Parameters
    ----------
    gains : VertexGains
        The mse gains (a :class:`~mechopt.utilities.SumMSE`) on the set's support rows.
    cone : ndarray
        The set's vertices on its support rows (k × n): the cone's priors.
    lo, hi : float
        The box factors (``box_factors``; lo = 0 under PML).
    max_nodes : int
        Branch and bound nodes (LPs) per pricing call: a work budget, the same stop on every machine (its bound stays
        proven when it stops); the run's deadline stops it too.
    """

    smoothing = 0.8  # every round prices exactly (a bound each round); the duals oscillate without it

    def __init__(self, gains, cone: np.ndarray, lo: float, hi: float, max_nodes: int = BOX_NODES) -> None:
        self.box = BoxMIPricer(cone, lo, hi, max_nodes)  # the slice: its bounds, its rows, into_cone
        self.V, self.gains = np.asarray(gains.vertices, float), gains
        a = np.asarray(gains.utility.centred, float)
        self.sig = float(np.abs(a).max(initial=0.0)) or 1.0  # the ratios are kept in units of max |a| (unit-free)
        self.a = a / self.sig
        self.k, self.n = self.V.shape
        self.norm = self.box.norm
        self.weights = (1.0, 1.0)
        self.batch = 2 * self.n
        self.max_nodes = int(max_nodes)
        self.target: float | None = None  # None: half the gap tolerance times the master's value
        self.stop = 0.5
        self.slack = 0.0  # boxes bounded within this of the incumbent are closed (tests: an absolute tolerance)
        self.nodes = 0
        self.slack_lp = 0.0
        self.smin = np.where(self.V > 0, self.a, np.inf).min(axis=1)  # the range of s_i = N_i / T_i
        self.smax = np.where(self.V > 0, self.a, -np.inf).max(axis=1)
        self._rows()

    def _rows(self) -> None:
        """The LP over columns (q, t_j, N_i, T_i): the slice's rows, N and T defined, the two window rows per i."""
        b, k, n = self.box, self.k, self.n
        kc = b.k
        base = b.A[: b.base, : n + kc]  # q and t_j only (no φ: mi's epigraph columns)
        define = np.hstack([-np.vstack([self.V * self.a, self.V]), np.zeros((2 * k, kc)), np.eye(2 * k)])
        window = np.hstack([np.zeros((2 * k, n + kc)), np.vstack([np.eye(k), np.eye(k)]), np.zeros((2 * k, k))])
        self.A = np.vstack([np.hstack([base, np.zeros((b.base, 2 * k))]), define, window])
        self.rlo = np.r_[b.rlo[: b.base], np.zeros(2 * k), np.zeros(k), np.full(k, -np.inf)]
        self.rhi = np.r_[b.rhi[: b.base], np.zeros(2 * k), np.full(k, np.inf), np.zeros(k)]
        self.win = b.base + 2 * k  # first window row: N_i − l_i T_i ≥ 0, then N_i − h_i T_i ≤ 0
        self.Tcol = n + kc + k
        qlo, qhi = b.root
        lo, hi = b._bounds(b.root)
        nlo = self.V @ (np.minimum(self.a, 0.0) * qhi)
        nhi = self.V @ (np.maximum(self.a, 0.0) * qhi)
        self.lo = np.r_[qlo, lo[n : n + kc], nlo, np.zeros(k)]
        self.hi = np.r_[qhi, hi[n : n + kc], nhi, self.V @ qhi]

    def _model(self):
        return lp_model(self.A, self.rlo, self.rhi, self.lo, self.hi)

    def rho(self, Q: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """ρ of columns Q (n × m): −Σ_i λ_i e_i(q) − μᵀq, e_i = Σ_x P_ix q_x (a_x − N_i/T_i)² summed from its terms."""
        return self._rho(Q, lam, error_duals(self.gains, lam, mu))

    def _rho(self, Q: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """ρ at duals μ of the error frame (:func:`~mechopt.problems.robust.gains.error_duals`)."""
        Q = np.asarray(Q, float)
        e = np.vstack([mse_loss(self.a, P[:, None] * Q) for P in self.V])
        return -(self.sig**2) * (lam @ e) - mu @ Q

    def _window(self, h, L: np.ndarray, H: np.ndarray) -> None:
        """Set the window rows to the box [L, H] (in HiGHS and in ``A``)."""
        for i in range(self.k):
            for r, v in ((self.win + i, L[i]), (self.win + self.k + i, H[i])):
                h.changeCoeff(r, self.Tcol + i, -float(v))
                self.A[r, self.Tcol + i] = -float(v)

    def _chord(self, L, H, lam, mu) -> np.ndarray:
        """The LP's costs on (q, t_j, N_i, T_i): −Σ_i λ_i P_ix (a_x − l_i)(a_x − h_i) − μ_x on q_x, 0 on the rest: the
        chord of N_i²/T_i over the window l_i ≤ N_i/T_i ≤ h_i, less the identity's Σ_x P_ix a_x² q_x (module
        docstring), written as products of differences (no E[a²] − Σ gains)."""
        lam = lam * self.sig**2
        cost = -np.einsum("i,ix,ix->x", lam, self.V, (self.a[None, :] - L[:, None]) * (self.a[None, :] - H[:, None]))
        return np.r_[cost - mu, np.zeros(self.box.k + 2 * self.k)]

    def _lp(self, h, c, L, H):
        """(bound, q) of max cᵀz over the slice with ratios in [L, H]; (−inf, None) when HiGHS proves it empty,
        None when HiGHS leaves it unsolved."""
        import highspy

        self._window(h, L, H)
        unit = float(np.abs(c).max()) or 1.0  # HiGHS's tolerances are absolute: costs of order 1 (the bound rescaled)
        c = c / unit
        idx = np.arange(c.size, dtype=np.int32)
        h.changeColsCost(c.size, idx, -c)
        status = run_lp(h)
        if status == highspy.HighsModelStatus.kInfeasible:
            return -math.inf, None
        if status != highspy.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        z = np.array(sol.col_value)
        bound = unit * dual_max(c, self.lo, self.hi, self.A, self.rlo, self.rhi, -np.array(sol.row_dual))
        self.slack_lp = max(0.0, bound - unit * float(c @ z))  # the LP's numerical slack at this box
        return bound, z[: self.n]

    def _ascend(self, h, q, lam, mu):
        """(q, ρ(q)) after alternation from q: s = N/T, then the LP at w(s) over the whole slice (ρ never drops)."""
        val = float(self._rho(q[:, None], lam, mu)[0])
        for _ in range(8):
            s = ((self.V * self.a) @ q) / (self.V @ q)
            out = self._lp(h, self._chord(s, s, lam, mu), self.smin, self.smax)
            if out is None or out[1] is None:
                break
            v = self.box.into_cone(out[1])
            new = float(self._rho(v[:, None], lam, mu)[0])
            if new <= val + 1e-15 * max(1.0, abs(val)):
                break
            q, val = v, new
        return q, val

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        """The best columns found and the largest bound of any box (proven; module docstring)."""
        lam = np.maximum(np.asarray(lam, float), 0.0)
        mu = error_duals(self.gains, lam, mu)  # gains relative to the identity's: ρ = −Σ λ_i e_i(q) − μᵀq
        h = self._model()
        last = self.nodes + self.max_nodes
        gap = settings.tolerance("gap")
        target = 0.5 * gap * abs(float(mu.sum())) if self.target is None else self.target
        root = (self.smin.copy(), self.smax.copy())
        tol, best, closed, cols, tick = _rc_tol(), -math.inf, -math.inf, {}, 0
        heap = [(-math.inf, 0, root)]
        unsure = False
        while heap:
            neg, _, (L, H) = heapq.heappop(heap)
            if -neg <= max(best + self.slack, target):
                closed = max(closed, -neg)
                heap = []
                break
            if (cols and best >= self.stop * -neg and best > tol) or self.nodes >= last or passed(deadline):
                tick += 1
                heapq.heappush(heap, (neg, tick, (L, H)))  # still open: its bound stays in the answer
                break
            out = self._lp(h, self._chord(L, H, lam, mu), L, H)
            self.nodes += 1
            if out is None:
                unsure = True
                continue
            bound, z = out
            if z is None:
                continue
            q = self.box.into_cone(z)
            val = float(self._rho(q[:, None], lam, mu)[0])
            if val > tol:
                q, val = self._ascend(h, q, lam, mu)
                cols.setdefault(np.round(q, 12).tobytes(), (val, q))
            best = max(best, val)
            children, err = self._split(L, H, z, lam)
            if bound <= max(best + self.slack, target) or err <= self.slack_lp:
                closed = max(closed, bound)
                continue
            for child in children:
                tick += 1
                heapq.heappush(heap, (-bound, tick, child))
        bound = max([best, closed] + [-b for b, _, _ in heap])
        good = sorted((c for c in cols.values() if c[0] > tol), key=lambda c: -c[0])[: self.batch]
        R = np.array([q for _, q in good]).T if good else np.zeros((self.n, 0))
        if unsure:
            return RayPricing(R, None, "ratio branch and bound over the cone (a box's LP ended unsolved: no bound)")
        return RayPricing(R, float(bound), "ratio branch and bound over the cone")

    def _split(self, L, H, z, lam):
        """(two boxes, the chord's error at the LP point): the side of largest error λ_i T_i (s_i − l_i)(h_i − s_i)
        at the LP point is cut halfway between its ratio s_i and its middle."""
        q = np.maximum(z, 0.0)
        T = self.V @ q
        s = np.clip(((self.V * self.a) @ q) / np.maximum(T, 1e-300), L, H)
        err = lam * T * (s - L) * (H - s) * self.sig**2
        excess = np.where(H > L, err + 1e-300 * (H - L), -1.0)
        i = int(np.argmax(excess))
        cut = 0.5 * (0.5 * (L[i] + H[i]) + s[i])
        H1, L2 = H.copy(), L.copy()
        H1[i], L2[i] = cut, cut
        return [(L, H1), (L2, H)], float(err.sum())
