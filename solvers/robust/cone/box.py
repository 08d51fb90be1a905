"""Exact pricing of mutual information over the cone of columns private at every prior of a set (LIP, PML, ALIP).

The cone is K = {q ≥ 0 : lo·t_i ≤ q_x ≤ hi·t_i for every vertex i and row x}, t_i = P_i·q (lo = 0
under PML; ALIP: lo = e^{−ε_l}). Rays are normalised by the mean of the vertices, P̄·q = mean_i t_i = 1;
then Σ_r w_r r = 1 gives Σ_r w_r = P̄·1 = 1, so the pricer's range of Σ w is (1, 1). On that slice
t_i ∈ [1/hi, hi] (1 = P̄q ≤ hi·min t, and t_i ≤ max q ≤ hi·min t ≤ hi) and q_x ∈ [lo, hi].

For mutual information f_i(q) = Σ_x P_i(x) q_x log q_x − t_i log t_i, so at duals (λ, μ)

    ρ(q) = Σ_x g_x(q_x) + Σ_i λ_i ψ(t_i),   g_x(q) = a_x q log q − μ_x q,  a = λᵀV ≥ 0,  ψ(t) = −t log t,

each g_x convex and ψ concave. **Bound (proven).** A node is a box ql ≤ q ≤ qu inside the slice's
(the root's is [lo, hi]). On [ql_x, qu_x] g_x lies below its chord (convexity), and ψ lies below each
of its tangents at the cut points τ (concavity; a cut φ_i ≤ ψ(τ) + ψ'(τ)(t_i − τ) for each τ), so the
LP "maximise Σ_x chord_x(q_x) + Σ_i λ_i φ_i over the node's part of the slice, φ_i under the cuts"
bounds ρ at every point of the node. Its value is not taken from HiGHS: for any multipliers y on its
rows (HiGHS's row duals), weak duality gives max cᵀz ≤ Σ_j max(r_j l_j, r_j u_j) + Σ_rows max(y·L, y·U),
r = c − Aᵀy, every variable boxed (q as above, t_i ∈ [1/hi, hi], φ_i ∈ [−hi log hi − 1, 1]), each
row's multiplier clipped to the sign its finite sides allow, plus a rounding margin
(:func:`~mechopt.solvers.robust.lp.dual_max`).
Any y gives a bound, so HiGHS's accuracy only moves how tight it is; a node HiGHS reports empty is
dropped (its rows are those of the slice and the node box).

**Search.** Best-first branch and bound: at a node's LP point z* the tangent of ψ_i at t*_i joins the
cuts (valid everywhere) when λ_i's overshoot φ*_i − ψ(t*_i) is the largest error; otherwise the
coordinate of largest chord excess is split halfway between q*_x and the middle of its range.
A node whose bound B is above θ (the larger of the incumbent and ``target`` below) hands its children a
smaller box: by weak duality with the LP's reduced costs r (:func:`~mechopt.solvers.robust.lp.dual_max`),
the points with q_x below qu_x − (B − θ)/r_x (r_x > 0; above ql_x + (B − θ)/|r_x| when r_x < 0) have a
bound at most θ, so that part of the range is dropped (and θ enters the closed nodes' bound): the
children's chords are tighter (the last proof at PML d = 16: 3859 → 2631 nodes; LIP d = 16: 8049 → 7545).
A node is closed when its bound is at most the larger of the incumbent
and ``target`` (half the certificate's ``gap`` times |1ᵀμ|, the master's value for mi) or when
its excess is below round-off; the reported bound is the largest bound of a closed or open node and of
the incumbent, so it is proven even when the search stops early (time, or its first improving column).
Every LP point is a column of K (mixed with the interior column 1 just enough to satisfy every row when
HiGHS's tolerances left it a few ulp outside); an improving one is pushed to a vertex by linear ascent
(LPs over the slice at the gradient of ρ: a vertex v with ρ(v) ≥ ρ(q) + ∇ρ(q)(v − q) ≥ ρ(q), ρ convex).
In column generation (``early``) a heuristic stage runs before the tree
(:mod:`~mechopt.solvers.robust.cone.heuristics`: that ascent from the last 2n columns returned, the two-level
vertex search, and with ``multi_level`` the multi-level one); its columns come with no bound. In the tree, until
a first column is found, the two-level search also climbs from the LP points of its first 64 nodes, and from the
tree's columns at the end (more columns per round).

(A relaxation by perspectives, f_i = Σ_x P_i(x) t_i φ(q_x / t_i) with chords of φ over boxes of the
ratios q_x / t_i, is exact at a ratio's ends only for the vertex i that binds row x, so every other
pair needs branching: 40-100× the nodes of this one at d = 4-8, measured.)

Examples
--------
>>> import numpy as np
>>> V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
>>> pr = BoxMIPricer(V, np.exp(-1.0), np.e, early=False)
>>> lam, mu = np.full(3, 1 / 3), np.zeros(5)
>>> out = pr.price(lam, mu)                       # μ = 0: the most informative column, proven
>>> bool(abs(out.bound - pr.rho(out.rays, lam, mu).max()) <= 1e-9)
True
"""

from __future__ import annotations

import heapq
import math

import numpy as np
from scipy.special import xlogy

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.robust.answer import RayPricing, _rc_tol
from mechopt.solvers.robust.cone.heuristics import HeuristicStage
from mechopt.solvers.robust.cone.vertices import rho, vertex_search
from mechopt.solvers.robust.lp import add_row, dual_max, lp_model, run_lp

__all__ = ["BoxMIPricer", "BOX_NODES"]

#: Nodes (LPs, ~1 ms each) of branch and bound per pricing call: a work budget, the same stop on every machine (was
#: 600 s of wall clock; LIP MI, 3 priors, d = 16 takes at most a few hundred); its bound stays proven when it stops
#: (the largest open node's). The run's deadline stops the search too.
BOX_NODES = 200_000
#: Initial tangent points of ψ per vertex (geometric on [1/hi, hi]).
TANGENTS = 9
#: Moves of the vertex search from each node's LP point until a first column is found, in the first NODE_CLIMBS
#: nodes of a call (column generation only; LIP d = 24, three mid-run calls: 26–36 nodes where the tree alone took
#: 139–259, in about the same time; a call that finds no column is the proof, and climbing at all its nodes
#: doubled their cost: PML d = 16, 11 ms a node against 5).
NODE_STEPS, NODE_CLIMBS = 16, 64


class BoxMIPricer(HeuristicStage):
    """max ρ over the slice P̄·q = 1 of the posterior-box cone of the rows of V (module docstring), proven.

    Parameters
    ----------
    V : ndarray
        The vertices on the set's support rows (k × n); also the priors of the gains.
    lo, hi : float
        The box factors (``box_factors``; lo = 0 under PML).
    max_nodes : int
        Branch and bound nodes (LPs) per pricing call (``BOX_NODES``): a work budget, so a run stops at the same node
        on every machine; the bound of the open nodes stays proven. The run's deadline stops it too.
    early : bool
        Stop at the first node with an improving column (column generation); False searches to the proof.
    multi_level : bool
        Run the multi-level vertex search (:mod:`~mechopt.solvers.robust.cone.faces`) when the two-level one finds
        nothing (option ``multi_level`` of robust-rays; off by default: same-time A/B, LIP, 3 priors, load 5–9,
        d = 32 gap at 600 s 1.53e-2 → 1.24e-2 but d = 24 certified in 734 s against 626 s).
    """

    def __init__(self, V: np.ndarray, lo: float, hi: float, max_nodes: int = BOX_NODES, early: bool = True,
                 multi_level: bool = False) -> None:  # fmt: skip
        self.V = np.asarray(V, float)
        self.k, self.n = self.V.shape
        self.lo, self.hi = float(lo), float(hi)
        self.Pbar = self.V.mean(axis=0)
        self.norm = self.Pbar  # the rays' normalisation ωᵀr = 1 (the certificate file's ν, rays._evidence)
        self.weights = (1.0, 1.0)
        self.batch = 2 * self.n
        self.max_nodes = int(max_nodes)
        self.early = early
        self.multi_level = multi_level
        self.more = self.n  # nodes searched for more columns after the first improving one
        self.slack = 0.0  # nodes whose bound is within this of the incumbent are closed (tests: an absolute tolerance)
        self.target: float | None = None  # nodes bounded by this are closed; None: half the gap tolerance times |1ᵀμ|
        self.nodes = 0
        self.seen: set[bytes] = set()  # the columns returned so far
        self.history: list[np.ndarray] = []  # and themselves, in order (the ascent's starts)
        k, n = self.k, self.n
        I, T, Z = np.tile(np.eye(n), (k, 1)), np.repeat(np.eye(k), n, axis=0), np.zeros((k * n, k))
        rows = [
            np.hstack([-self.V, np.eye(k), np.zeros((k, k))]),
            np.r_[np.zeros(n), np.full(k, 1 / k), np.zeros(k)][None],
        ]
        rows += [np.hstack([I, -self.hi * T, Z]), np.hstack([I, -self.lo * T, Z])]  # q_x − hi·t_i ≤ 0 ≤ q_x − lo·t_i
        m = k * n
        self.A = np.vstack(rows)
        self.rlo = np.r_[np.zeros(k), 1.0, np.full(m, -np.inf), np.zeros(m)]
        self.rhi = np.r_[np.zeros(k), 1.0, np.zeros(m), np.full(m, np.inf)]
        self.base = self.A.shape[0]
        # on the slice P̄q = 1: q_x ≤ 1/P̄_x and t_i ≤ max_x P_ix/P̄_x (not only hi: at ε = 30, hi = 1e13 left
        # HiGHS 'unknown' on the nodes)
        self.tmax = min(self.hi, float((self.V / self.Pbar).max()))
        self.taus = [list(np.geomspace(1.0 / self.hi, self.tmax, TANGENTS)) for _ in range(k)]
        self.root = (np.full(n, self.lo), np.minimum(self.hi, 1.0 / self.Pbar))
        self.unsure = False  # a node's LP ended neither optimal nor infeasible (its part is then unbounded)
        self.extra = 0  # variables after (q, t, φ) (the ball's dual point in :mod:`~.ballbox`), cost 0

    def rho(self, Q: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
        """ρ of columns Q (n × m): Σ_i λ_i f_i(q) − μᵀq (:func:`~mechopt.solvers.robust.cone.vertices.rho`)."""
        return rho(self.V, lam, mu, np.asarray(Q, float))

    def _bounds(self, box) -> tuple[np.ndarray, np.ndarray]:
        k = self.k
        phi_lo = min(0.0, -self.tmax * math.log(self.tmax)) - 1.0  # below ψ on [1/hi, tmax]
        return np.r_[box[0], np.full(k, 1.0 / self.hi), np.full(k, phi_lo)], np.r_[
            box[1], np.full(k, self.tmax), np.ones(k)
        ]

    def _model(self):
        self.A, self.rlo, self.rhi = self.A[: self.base], self.rlo[: self.base], self.rhi[: self.base]
        h = lp_model(self.A, self.rlo, self.rhi, *self._bounds(self.root))
        for i, taus in enumerate(self.taus):
            for tau in taus:
                self._cut(h, i, tau)
        return h

    def _cut(self, h, i: int, tau: float) -> None:
        """The tangent row φ_i − ψ'(τ) t_i ≤ ψ(τ) − ψ'(τ)τ = τ (ψ'(τ) = −log τ − 1), in HiGHS and in ``A``."""
        row = np.zeros(self.A.shape[1])
        row[self.n + i] = math.log(tau) + 1.0
        row[self.n + self.k + i] = 1.0
        add_row(h, row, -np.inf, tau)
        self.A = np.vstack([self.A, row])
        self.rlo, self.rhi = np.r_[self.rlo, -np.inf], np.r_[self.rhi, tau]

    def _solve(self, h, c, box):
        """(z, row duals, column bounds) of max cᵀz over the model in ``box``; None unless HiGHS ends optimal
        (``empty`` says whether it ended infeasible: otherwise the box is not known to be empty)."""
        import highspy

        N = c.size
        idx = np.arange(N, dtype=np.int32)
        lo, hi = self._bounds(box)
        h.changeColsCost(N, idx, -c)
        h.changeColsBounds(N, idx, lo, hi)
        status = run_lp(h)
        if status != highspy.HighsModelStatus.kOptimal:
            self.empty = status == highspy.HighsModelStatus.kInfeasible
            return None
        sol = h.getSolution()
        return np.array(sol.col_value), -np.array(sol.row_dual), (lo, hi)

    def into_cone(self, q: np.ndarray) -> np.ndarray:
        """q (n,) mixed with the interior column 1 just enough to satisfy every row of K, then P̄q = 1."""
        q = np.maximum(np.asarray(q, float), 0.0)
        t = self.V @ q
        g = [(self.hi * t[:, None] - q[None, :]).ravel(), np.full(self.k * self.n, self.hi - 1.0)]
        if self.lo > 0:
            g = [
                np.r_[g[0], (q[None, :] - self.lo * t[:, None]).ravel()],
                np.r_[g[1], np.full(self.k * self.n, 1 - self.lo)],
            ]
        bad = (g[0] < 0) & (g[1] > g[0])
        if np.any(bad):
            theta = min(1.0, float(np.max(-g[0][bad] / (g[1][bad] - g[0][bad]))) * (1 + 1e-9) + 1e-15)
            q = (1 - theta) * q + theta
        return q / float(self.Pbar @ q)

    def _ascend(self, h, q, lam, mu) -> np.ndarray:
        """A vertex of the slice with ρ at least q's: LPs at the gradient of ρ (module docstring)."""
        a = lam @ self.V
        val = float(self.rho(q[:, None], lam, mu)[0])
        for _ in range(8):
            t = self.V @ q
            grad = a * (np.log(np.maximum(q, 1e-300)) + 1.0) - mu - (lam * (np.log(t) + 1.0)) @ self.V
            out = self._solve(h, np.r_[grad, np.zeros(2 * self.k + self.extra)], self.root)
            if out is None:
                break
            v = self.into_cone(out[0][: self.n])
            new = float(self.rho(v[:, None], lam, mu)[0])
            if new <= val + 1e-15 * max(1.0, abs(val)):
                break
            q, val = v, new
        return q

    def seed_rays(self) -> np.ndarray:
        """The column 1 and, for each vertex i, a vertex of the slice with large f_i (t_i at its largest, then the
        ascent at λ = e_i, μ = 0): gains of the seed's order, so the master's unit is set by them."""
        h, cols = self._model(), [np.ones(self.n)]
        for i in range(self.k):
            c = np.zeros(self.n + 2 * self.k + self.extra)
            c[self.n + i] = 1.0
            out = self._solve(h, c, self.root)
            if out is not None:
                lam = np.eye(self.k)[i]
                cols.append(self._ascend(h, self.into_cone(out[0][: self.n]), lam, np.zeros(self.n)))
        return np.array(cols).T

    def _node(self, h, box, lam, mu):
        """(bound, z, chord excess per x) of a node's LP, cuts added while ψ's overshoot is the largest error;
        bound −inf and z None when HiGHS finds the node empty; then the reduced costs of q
        (:func:`~mechopt.solvers.robust.lp.dual_max`)."""
        ql, qu = box
        a = lam @ self.V
        w = qu - ql
        wide = w > 1e-300
        sig = np.where(
            wide, (xlogy(qu, qu) - xlogy(ql, ql)) / np.where(wide, w, 1.0), np.log(np.maximum(ql, 1e-300)) + 1
        )
        const = a * (xlogy(ql, ql) - sig * ql)
        c = np.r_[a * sig - mu, np.zeros(self.k), lam, np.zeros(self.extra)]
        while True:
            out = self._solve(h, c, box)
            if out is None:
                self.unsure |= not self.empty
                return -math.inf, None, None, None
            z, y, (lo, hi) = out
            n, k = self.n, self.k
            bound, r = dual_max(c, lo, hi, self.A, self.rlo, self.rhi, y, reduced=True)
            bound += math.fsum(const) + 1e-15 * float(np.abs(const).sum())
            q, t, phi = np.clip(z[:n], ql, qu), z[n : n + k], z[n + k : n + 2 * k]
            excess = a * (sig * (q - ql) + xlogy(ql, ql) - xlogy(q, q))
            over = lam * (phi + xlogy(t, t))
            i = int(np.argmax(over))
            if over[i] > excess.max() and over[i] > 0 and min(abs(t[i] - s) for s in self.taus[i]) > 1e-12 * t[i]:
                self.taus[i].append(float(t[i]))
                self._cut(h, i, float(t[i]))
                continue
            return bound, z, excess, r[:n]

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        """The best columns found and the largest bound of any node (proven; module docstring)."""
        lam, mu = np.asarray(lam, float), np.asarray(mu, float)
        h = self._model()
        if self.early and self.history:
            found = self.heuristics(h, lam, mu)
            if found is not None:
                return found
        last = self.nodes + self.max_nodes
        target = 0.5 * settings.tolerance("gap") * abs(float(mu.sum())) if self.target is None else self.target
        tol = _rc_tol()
        best, closed, cols, tick, spent = -math.inf, -math.inf, [], 0, 0
        self.unsure = False
        heap, start = [(-math.inf, 0, self.root)], self.nodes
        while heap:
            neg, _, box = heapq.heappop(heap)
            if -neg <= max(best + self.slack, target):
                closed = max(closed, -neg)
                heap = []
                break
            bound, z, excess, r = self._node(h, box, lam, mu)
            self.nodes += 1
            if z is None:
                continue
            theta = max(best + self.slack, target)
            if bound > theta:  # the children inherit the box without its parts bounded by θ (their chords tighter)
                box, cut = self._tighten(box, r, bound, theta)
                if cut:
                    closed = max(closed, theta)
                if box is None:
                    continue
            q = self.into_cone(z[: self.n])
            val = float(self.rho(q[:, None], lam, mu)[0])
            if self.early and not cols and val <= tol and self.nodes - start <= NODE_CLIMBS:  # climb from it
                v = self._project(vertex_search(self.V, self.lo, self.hi, lam, mu, q[:, None], steps=NODE_STEPS))
                better = float(self.rho(v, lam, mu).max(initial=-math.inf))
                if better > val:
                    q, val = v[:, 0], better
            if val > tol:
                q = self._ascend(h, q, lam, mu)
                val = float(self.rho(q[:, None], lam, mu)[0])
                key = np.round(q, 12).tobytes()
                if key not in self.seen:  # a column returned before (the master holds it): search on
                    self.seen.add(key)
                    self.history.append(q)
                    cols.append((val, q))
            best = max(best, val)
            if bound <= max(best + self.slack, target) or excess.max() <= 1e-15 * max(1.0, abs(bound)):
                closed = max(closed, bound)
            else:
                for child in self._split(box, z, excess):
                    tick += 1
                    heapq.heappush(heap, (-bound, tick, child))
            spent = spent + 1 if cols else 0  # nodes searched since the first improving column
            if (self.early and spent > self.more) or self.nodes >= last or passed(deadline):
                break
        bound = max([best, closed] + [-b for b, _, _ in heap])
        cols.sort(key=lambda c: -c[0])
        R = np.array([q for _, q in cols[: self.batch]]).T if cols else np.zeros((self.n, 0))
        if self.early and cols:  # more columns around the tree's (cheap): fewer rounds
            R = np.hstack([R, self._climb(lam, mu, R)])[:, : self.batch]
        if self.unsure:  # a node dropped without a proof that it is empty: no bound
            return RayPricing(R, None, "box branch and bound (a node's LP ended unsolved: no bound)")
        return RayPricing(R, float(bound), "box branch and bound")

    def _tighten(self, box, r, bound: float, theta: float):
        """(the node's box without the parts where its bound is at most θ, the largest share of a range cut).

        By :func:`~mechopt.solvers.robust.lp.dual_max`, keeping q_x in [ql_x, s] lowers the bound by
        r_x (qu_x − s) when r_x > 0 (in [s, qu_x] by −r_x (s − ql_x) when r_x < 0), so the points with q_x below
        qu_x − (bound − θ)/r_x (above ql_x + (bound − θ)/|r_x|) have a bound below θ: cut (with a relative 1e-9
        to spare, and propagated).
        """
        ql, qu = box
        w = qu - ql
        with np.errstate(divide="ignore"):
            reach = (bound - theta) / np.abs(r) * (1 + 1e-9)
        nl = np.where(r > 0, np.maximum(ql, qu - reach), ql)
        nu = np.where(r < 0, np.minimum(qu, ql + reach), qu)
        cut = float(np.max(np.where(w > 0, (w - (nu - nl)) / np.where(w > 0, w, 1.0), 0.0)))
        if cut <= 0:
            return box, 0.0
        return self._propagate(nl, nu), cut

    def _split(self, box, z, excess):
        """Two children of ``box``: the coordinate of largest chord excess split halfway between q*_x and its
        range's middle (the range shrinks by at least a quarter; at the last pricing of LIP d = 8 this took 1827
        nodes where splitting at q*_x took 6333 and at the middle 2518)."""
        ql, qu = box
        x = int(np.argmax(excess))
        s = 0.5 * (0.5 * (ql[x] + qu[x]) + float(np.clip(z[x], ql[x], qu[x])))
        a, b = qu.copy(), ql.copy()
        a[x], b[x] = s, s
        return [c for c in (self._propagate(ql, a), self._propagate(b, qu)) if c is not None]

    def _propagate(self, ql, qu, passes: int = 3):
        """The node with lo·max_i P_i·ql ≤ q_x ≤ hi·min_i P_i·qu imposed (t_i = P_i·q lies in [P_i·ql, P_i·qu]);
        None when empty. Products rounded outward (a relative 8 ulp), so no point of the node is cut."""
        up, down = 1.0 + 8 * float(np.finfo(float).eps), 1.0 - 8 * float(np.finfo(float).eps)
        for _ in range(passes):
            ql = np.maximum(ql, self.lo * float((self.V @ ql).max()) * down)
            qu = np.minimum(qu, self.hi * float((self.V @ qu).min()) * up)
        return None if np.any(ql > qu) else (ql, qu)
