"""Exact robust-histogram pricing: a branch and bound over boxes of the columns q and the masses t_i = P_i·q.

The histogram gain of a column q at prior P_i is f_i(q) = Σ_x P_ix² q_x² / t_i, t_i = P_i·q
(:class:`~mechopt.utilities.HistogramMSE`: μ(c) = Σ_x c_x² / 1ᵀc at c = P_i ∘ q), a sum of
quadratic-over-linear terms q_x²/t_i, each convex in (q_x, t_i). At duals (λ ≥ 0, μ) the pricing problem
is max ρ(q) = Σ_i λ_i f_i(q) − μᵀq over a polytope D of columns, ρ convex, so the maximum sits at a vertex:

- LIP / PML / ALIP over a set (:class:`~mechopt.solvers.robust.cone.domains.ConeSlice`): D is the slice
  P̄·q = 1 of the cone {q ≥ 0 : lo·t_j ≤ q_x ≤ hi·t_j, every vertex j} (:mod:`mechopt.solvers.robust.cone.box`);
- ε-LDP (:class:`~mechopt.solvers.robust.cone.domains.PatternBox`): D is the box [1, e^ε]^n, whose vertices are
  the patterns 1 + (e^ε − 1)z (every ray of the LDP cone, scaled to least entry 1, lies in it).

**The bound (proven).** A node is a box ql ≤ q ≤ qu, tl ≤ t ≤ tu. On a rectangle [a, b] × [c, e] the
concave envelope of the convex g(q, t) = q²/t is the roof through its four corner values, whose two
faces are the planes through the corners (a, c), (a, e), (b, c) and (b, e), (b, c), (a, e) (the diagonal
(a, e)–(b, c) is the upper one: g(a,c) + g(b,e) − g(a,e) − g(b,c) = (a² − b²)(1/c − 1/e) ≤ 0), so
g ≤ both planes on the rectangle. The LP "maximise Σ_i λ_i Σ_x P_ix² w_ix − μᵀq over D and the node,
w_ix under both planes of (q_x, t_i)" therefore bounds ρ on the node's part of D. Its value is taken
from HiGHS's row multipliers by weak duality (:func:`~mechopt.solvers.robust.lp.dual_max`, every
variable boxed), plus a rounding allowance of the planes; a node HiGHS proves empty is dropped, one it
leaves unsolved leaves the pricing without a bound. Every point of D lies in a node of the partition,
so the largest node bound bounds max ρ.

**Exactness.** The roof is exact on the edges q_x ∈ {a, b} up to the chord of 1/t over [c, e] (error
q²(t − c)(e − t)/(c e t): quadratic in t's width), so at a pattern (every q_x at an end of [1, e^ε]) only t
needs narrowing; a coordinate inside its range (at most ~2k at a vertex of the node's LP) is split. Under
LIP the levels lo·max t and hi·min t move with t: each pair also gets the chord of v² over the range
[a_ix, b_ix] of v = q_x/t_i that the cone's rows give on the node (lo·t_j ≤ q_x ≤ hi·t_j: exact at the
level the prior binds), and the node's ranges are propagated (lo·max tl ≤ q_x ≤ hi·min tu,
P_i·ql ≤ t_i ≤ P_i·qu). The LP point's error is charged to q_x and t_i by what remains were the other exact;
the largest charge is split halfway between the point and the range's middle. The widths shrink, so do
the errors, and the search ends.

**Search.** Best-first, one HiGHS model per call (the faces' entries and bounds changed per node, the parent's
basis set); a node is closed when its bound is at most the larger of the incumbent and ``target`` (half the
gap tolerance times the master's score |λᵀc + 1ᵀμ|), or when its point's error is below the LP's own slack
(HiGHS's tolerances; the bound stays proven, only looser). Each LP point (moved into D) is priced exactly
and pushed to a vertex by linear ascent (ρ(v) ≥ ρ(q) + ∇ρ(q)(v − q) ≥ ρ(q)); the search stops once a
column reaches ``stop`` times the largest open bound (the open bounds stay in the answer). In column
generation (``early``) a heuristic climb from earlier columns runs first (LIP: the two-level vertex search
of :mod:`~mechopt.solvers.robust.cone.vertices`; LDP: single flips) and its columns come with no bound;
the tree runs when it finds nothing.

**Reuse.** A tree call that directly follows another (the same live pairs) starts from that call's partition of D
(its closed leaves and open nodes, with their LP's row multipliers y) instead of the root: by weak duality any y
bounds a node's LP at the new costs (:func:`~mechopt.solvers.robust.lp.dual_max`, no LP), so a leaf whose refreshed
bound is at most ``target`` stays closed and the others enter the heap at that bound (a node without y at ∞). The
leaves cover D (a node is dropped only when it is empty, which does not depend on the duals), so the bound stays
proven. Only consecutive tree calls reuse (between them the climb's rounds move the duals far: at LIP d = 24 a
partition carried over those rounds cost twice the LPs per call); above ``max_leaves`` leaves the next call restarts.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.robust.gains import VertexGains
>>> from mechopt.utilities import HistogramMSE
>>> V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
>>> G = VertexGains(V, HistogramMSE())
>>> pr = HistBoxPricer(G, ConeSlice(V, np.exp(-1.0), np.e))
>>> pr.target, pr.stop = -np.inf, 1.0                       # search to the maximum itself
>>> lam, mu = np.full(3, 1 / 3), np.zeros(5)
>>> out = pr.price(lam, mu)
>>> bool(0 <= out.bound - pr.rho(out.rays, lam, mu).max() <= 1e-8 * out.bound)
True
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.robust.answer import RayPricing, _rc_tol
from mechopt.solvers.robust.cone.box import BOX_NODES
from mechopt.solvers.robust.cone.domains import ConeSlice, PatternBox
from mechopt.solvers.robust.lp import dual_max, lp_model, run_lp

__all__ = ["HistBoxPricer", "ConeSlice", "PatternBox", "roof"]

#: Rounding allowance of a roof plane, relative to the largest corner value (ulp of a few operations).
ROOF_ULP = 64 * float(np.finfo(float).eps)


def roof(ql, qu, tl, tu):
    """The two planes w ≤ g0 + gq·(q − q0) + gt·(t − t0) over the rectangles [ql, qu] × [tl, tu] (arrays of one
    shape) whose minimum is the concave envelope of q²/t there: ((g0, gq, gt, q0, t0) of each face, the largest
    corner value).

    >>> (p1, p2), top = roof(np.array([1.0]), np.array([2.0]), np.array([1.0]), np.array([2.0]))
    >>> q, t = 1.5, 1.3                                    # inside: q²/t lies under both planes
    >>> all(bool(g0 + gq * (q - q0) + gt * (t - t0) >= q * q / t) for g0, gq, gt, q0, t0 in (p1, p2))
    True
    """
    f00, f01, f10, f11 = ql * ql / tl, ql * ql / tu, qu * qu / tl, qu * qu / tu
    dq, dt = qu - ql, tu - tl
    wq, wt = np.where(dq > 0, dq, 1.0), np.where(dt > 0, dt, 1.0)
    face1 = (f00, np.where(dq > 0, (f10 - f00) / wq, 0.0), np.where(dt > 0, (f01 - f00) / wt, 0.0), ql, tl)
    face2 = (f11, np.where(dq > 0, (f11 - f01) / wq, 0.0), np.where(dt > 0, (f11 - f10) / wt, 0.0), qu, tu)
    return (face1, face2), np.maximum(f10, f01)


class HistBoxPricer:
    """max ρ over D (a :class:`ConeSlice` or :class:`PatternBox`) for the histogram gains ``gains``, proven.

    Parameters
    ----------
    gains : VertexGains
        The histogram gains on the set's support rows (the priors of the t_i: under LIP those of D).
    domain : ConeSlice or PatternBox
        The columns priced (module docstring).
    max_nodes : int
        Branch and bound nodes (LPs) per pricing call: a work budget, the same stop on every machine (the bound
        stays proven when it stops: the open nodes' bounds are in it); the run's deadline stops it too.
    """

    smoothing = 0.8  # every round prices exactly (a bound each round); the duals oscillate without it

    def __init__(self, gains, domain, max_nodes: int = BOX_NODES) -> None:
        self.V = np.asarray(gains.vertices, float)
        self.k, self.n = self.V.shape
        self.D = domain
        self.P2 = self.V * self.V
        self.c = gains.constants()
        self.norm, self.weights, self.top = domain.norm, domain.weights, domain.top
        self.batch = 2 * self.n
        self.max_nodes = int(max_nodes)
        self.target: float | None = None  # None: half the gap tolerance times the master's score
        self.stop = 0.5
        self.nodes = 0
        self._h = None  # the HiGHS model of the current pricing call
        self.reuse = True  # start from the last call's leaves (their bounds refreshed) instead of the root
        self.leaves: list = []  # that partition of D: (node, row multipliers or None, basis)
        self._key = None  # the live pairs it was built for, and the call that built it (reused by the next one only)
        self.calls = 0
        self.refreshed = 0
        self.max_leaves = 20_000  # a larger partition is dropped (the next call starts from the root)
        self.early = True  # column generation: the heuristic climb first, the tree only when it finds nothing
        self.seen: set[bytes] = set()  # the columns returned so far
        self.history: list[np.ndarray] = []  # and themselves, in order (the climb's starts)

    def rho(self, Q: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """ρ of columns Q (n × m): Σ_i λ_i Σ_x P_ix² q_x² / t_i − μᵀq."""
        Q = np.asarray(Q, float)
        with np.errstate(divide="ignore", invalid="ignore"):  # (the climb's unsolved states are zero columns)
            return lam @ ((self.P2 @ (Q * Q)) / (self.V @ Q)) - mu @ Q

    def _grad(self, q, lam, mu):
        t, S = self.V @ q, self.P2 @ (q * q)
        return 2 * q * ((lam / t) @ self.P2) - (lam * S / (t * t)) @ self.V - mu

    def _rows(self, node, live):
        """(A, rlo, rhi, lo, hi) of a node's LP on the columns (q, t, w): D's rows, then per live pair (i, x) the two
        faces of the roof of q_x²/t_i and (under LIP) the chord of the ratio q_x/t_i (module docstring)."""
        ql, qu, tl, tu = node
        n, k = self.n, self.k
        ii, xx = live
        m = ii.size
        (f1, f2), top = roof(ql[xx], qu[xx], tl[ii], tu[ii])
        faces = [(-gq, -gt, g0 - gq * q0 - gt * t0 + ROOF_ULP * (top + np.abs(gq * q0) + np.abs(gt * t0)))
                 for g0, gq, gt, q0, t0 in (f1, f2)]  # w − gq·q − gt·t ≤ g0 − gq·q0 − gt·t0  # fmt: skip
        ratio = self.D.ratios(node)
        if ratio is not None:  # q_x/t_i in [a, b] on the node: q_x²/t_i ≤ (a + b) q_x − ab·t_i (the chord of v²)
            a, b = ratio[0][ii, xx], ratio[1][ii, xx]
            faces.append((-(a + b), a * b, ROOF_ULP * (top + (a + b) * qu[xx] + a * b * tu[ii])))
        base = self.D.A
        A = np.zeros((base.shape[0] + len(faces) * m, n + k + m))
        A[: base.shape[0], : n + k] = base
        for j, (cq, ct, _) in enumerate(faces):
            r = base.shape[0] + j * m + np.arange(m)
            A[r, xx], A[r, n + ii], A[r, n + k + np.arange(m)] = cq, ct, 1.0
        rlo = np.concatenate([self.D.rlo, np.full(len(faces) * m, -np.inf)])
        rhi = np.concatenate([self.D.rhi] + [f[2] for f in faces])
        lo = np.concatenate([ql, tl, np.zeros(m)])
        return A, rlo, rhi, lo, np.concatenate([qu, tu, top * (1 + ROOF_ULP)])

    def _load(self, A, rlo, rhi, lo, hi, live, basis):
        """The HiGHS model of these rows and columns: built once per pricing call, then the faces' rows replaced (one
        delete, one add: their entries change), the column bounds changed (and the parent node's basis set: a warm
        start)."""
        N, M = A.shape[1], A.shape[0]
        if self._h is None:
            self._h = lp_model(A, rlo, rhi, lo, hi)
            return self._h
        h, n, nb = self._h, self.n, self.D.A.shape[0]
        ii, xx = live
        m, F = ii.size, M - nb
        j = np.arange(F) % m
        idx = np.stack([xx[j], n + ii[j], n + self.k + j], axis=1)  # each face row: q_x, t_i, w_ix (ascending)
        val = A[nb + np.arange(F)[:, None], idx]
        h.deleteRows(F, np.arange(nb, M, dtype=np.int32))
        h.addRows(F, rlo[nb:], rhi[nb:], 3 * F, np.arange(0, 3 * F, 3, dtype=np.int32), idx.ravel().astype(np.int32),
                  val.ravel())  # fmt: skip
        h.changeColsBounds(N, np.arange(N, dtype=np.int32), lo, hi)
        if basis is not None:
            h.setBasis(basis)
        return h

    def _costs(self, lam, mu, live):
        """The node LP's costs on (q, t, w) and their unit (HiGHS's tolerances are absolute: costs of order 1)."""
        ii, xx = live
        c = np.concatenate([-mu, np.zeros(self.k), lam[ii] * self.P2[ii, xx]])
        return c, float(np.abs(c).max()) or 1.0

    def _refresh(self, node, lam, mu, live, y) -> float:
        """A proven bound of a node at new duals without an LP: :func:`~mechopt.solvers.robust.lp.dual_max` at row
        multipliers y found at other duals (any y bounds the LP; ∞ without one)."""
        if y is None:
            return math.inf
        A, rlo, rhi, lo, hi = self._rows(node, live)
        c, unit = self._costs(lam, mu, live)
        self.refreshed += 1
        return unit * dual_max(c / unit, lo, hi, A, rlo, rhi, y / unit)

    def _node(self, node, lam, mu, live, basis=None):
        """(bound, q, t, error per live pair, the LP's slack, its basis, its row multipliers in the costs' units) of a
        node's LP; bound −inf and q None when HiGHS proves it empty, None when it leaves it unsolved."""
        import highspy

        n, k = self.n, self.k
        ii, xx = live
        A, rlo, rhi, lo, hi = self._rows(node, live)
        c, unit = self._costs(lam, mu, live)
        h = self._load(A, rlo, rhi, lo, hi, live, basis)
        h.changeColsCost(c.size, np.arange(c.size, dtype=np.int32), -c / unit)
        status = run_lp(h)
        if status == highspy.HighsModelStatus.kInfeasible:
            return -math.inf, None, None, None, 0.0, None, None
        if status != highspy.HighsModelStatus.kOptimal:
            return None
        sol = h.getSolution()
        z = np.array(sol.col_value)
        y = -np.array(sol.row_dual)
        bound = unit * dual_max(c / unit, lo, hi, A, rlo, rhi, y)
        slack = max(0.0, bound - float(c @ z))  # the LP's numerical slack here (no split reduces it)
        q, t, w = np.clip(z[:n], node[0], node[1]), np.clip(z[n : n + k], node[2], node[3]), z[n + k :]
        err = lam[ii] * self.P2[ii, xx] * np.maximum(w - q[xx] ** 2 / t[ii], 0.0)
        return bound, q, t, err, slack, h.getBasis(), unit * y

    def _ascend(self, q, lam, mu):
        """(q, ρ(q)) after linear ascent from q: vertices of D at ∇ρ while ρ rises (module docstring)."""
        val = float(self.rho(q[:, None], lam, mu)[0])
        for _ in range(8):
            v = self.D.vertex(self._grad(q, lam, mu))
            if v is None:
                break
            new = float(self.rho(v[:, None], lam, mu)[0])
            if new <= val + 1e-15 * max(1.0, abs(val)):
                break
            q, val = v, new
        return q, val

    def _keep(self, cols) -> np.ndarray:
        """The columns (n × j) not returned before, now remembered."""
        new = []
        for q in cols:
            key = np.round(q, 12).tobytes()
            if key not in self.seen:
                self.seen.add(key)
                self.history.append(q)
                new.append(q)
        return np.array(new).T if new else np.zeros((self.n, 0))

    def _climb(self, lam, mu) -> np.ndarray:
        """New improving columns by the domain's climb from the n earlier columns of largest ρ and the n last ones
        (a heuristic, no bound), best first, at most ``batch``."""
        H = np.array(self.history).T
        top = np.argsort(-self.rho(H, lam, mu), kind="stable")[: self.n]
        starts = H[:, np.unique(np.r_[top, np.arange(max(0, H.shape[1] - self.n), H.shape[1])])]
        Q = self.D.climb(starts, lambda X: self.rho(X, lam, mu))
        val = self.rho(Q, lam, mu)
        order = [j for j in np.argsort(-val, kind="stable") if val[j] > _rc_tol()]
        return self._keep([Q[:, j] for j in order])[:, : self.batch]

    def _split(self, node, q, t, err, live):
        """Two children: the largest error charge (a coordinate inside its range: q_x; else t_i) split halfway
        between the LP point and the range's middle (module docstring)."""
        ql, qu, tl, tu = node
        ii, xx = live
        wq = self.lamP2 * (q[xx] - ql[xx]) * (qu[xx] - q[xx]) / t[ii]  # the roof's error were t_i exact
        qq = q[xx] ** 2
        wt = self.lamP2 * qq * (t[ii] - tl[ii]) * (tu[ii] - t[ii]) / (tl[ii] * tu[ii] * t[ii])  # were q_x exact
        cq = np.bincount(xx, np.minimum(wq, err), minlength=self.n)
        ct = np.bincount(ii, np.minimum(wt, err), minlength=self.k)
        if cq.max() >= ct.max():
            x = int(np.argmax(cq))
            cut = 0.5 * (0.5 * (ql[x] + qu[x]) + q[x])
            a, b = qu.copy(), ql.copy()
            a[x], b[x] = cut, cut
            kids = [(ql, a, tl, tu), (b, qu, tl, tu)]
        else:
            i = int(np.argmax(ct))
            cut = 0.5 * (0.5 * (tl[i] + tu[i]) + t[i])
            a, b = tu.copy(), tl.copy()
            a[i], b[i] = cut, cut
            kids = [(ql, qu, tl, a), (ql, qu, b, tu)]
        return [kid for kid in (self.D.propagate(*c) for c in kids) if kid is not None]

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        """The best columns found and the largest bound of any node (proven; module docstring)."""
        lam, mu = np.maximum(np.asarray(lam, float), 0.0), np.asarray(mu, float)
        self.calls += 1
        if self.early and self.history:
            found = self._climb(lam, mu)
            if found.shape[1]:
                return RayPricing(found, None, "vertex search from earlier columns (heuristic)")
        live = np.nonzero((lam[:, None] > 0) & (self.V > 0))
        gap = settings.tolerance("gap")
        target = 0.5 * gap * abs(float(lam @ self.c + mu.sum())) if self.target is None else self.target
        last = self.nodes + self.max_nodes
        tol, best, closed, cols, tick, unsure = _rc_tol(), -math.inf, -math.inf, {}, 0, False
        key = (live[0].tobytes(), live[1].tobytes())
        if not (
            self.reuse and self.leaves and self._key == (key, self.calls - 1) and len(self.leaves) <= self.max_leaves
        ):
            root = self.D.propagate(*self.D.root)
            self.leaves = [] if root is None else [(root, None, None)]
        self._key, start, self.leaves, heap = (key, self.calls), self.leaves, [], []
        for node, y, basis in start:  # the last call's partition of D, its bounds refreshed at these duals
            b = math.inf if passed(deadline) else self._refresh(node, lam, mu, live, y)
            if b <= target:
                closed = max(closed, b)
                self.leaves.append((node, y, basis))
            else:
                tick += 1
                heap.append((-b, tick, node, basis, y))
        heapq.heapify(heap)
        self._h = None
        while heap:
            neg, _, node, basis, y = heapq.heappop(heap)
            if -neg <= max(best, target):
                closed = max(closed, -neg)
                heap.append((neg, 0, node, basis, y))
                break
            if (cols and best >= self.stop * -neg and best > tol) or self.nodes >= last or passed(deadline):
                tick += 1
                heapq.heappush(heap, (neg, tick, node, basis, y))  # still open: its bound stays in the answer
                break
            out = self._node(node, lam, mu, live, basis)
            self.nodes += 1
            if out is None:
                unsure = True
                self.leaves.append((node, None, None))
                continue
            bound, q, t, err, slack, basis, y = out
            if q is None:
                continue
            self.lamP2 = lam[live[0]] * self.P2[live]
            v = self.D.into(q)
            val = float(self.rho(v[:, None], lam, mu)[0])
            if val > tol:
                v, val = self._ascend(v, lam, mu)
                cols.setdefault(np.round(v, 12).tobytes(), (val, v))
            best = max(best, val)
            if bound <= max(best, target) or err.sum() <= slack:
                closed = max(closed, bound)
                self.leaves.append((node, y, basis))
                continue
            for kid in self._split(node, q, t, err, live):
                tick += 1
                heapq.heappush(heap, (-bound, tick, kid, basis, y))
        self.leaves += [(node, y, basis) for _, _, node, basis, y in heap]  # the partition the next call starts from
        bound = max([best, closed] + [-b for b, *_ in heap])
        good = sorted((c for c in cols.values() if c[0] > tol), key=lambda c: -c[0])[: self.batch]
        self._keep([q for _, q in good])  # remembered (the climb's starts), returned even if returned before
        R = np.array([q for _, q in good]).T if good else np.zeros((self.n, 0))
        if unsure:
            return RayPricing(R, None, "histogram box branch and bound (a node's LP ended unsolved: no bound)")
        return RayPricing(R, float(bound), "histogram box branch and bound")
