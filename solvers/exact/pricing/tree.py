"""Exact pricing of policy-graph ε-LDP rays for mutual information when the policy graph is a forest.

**Rays.** Columns are c = P ∘ q with q_x ≤ e^{ε W[x,x']} q_x' on the constrained pairs; in log
space t = log q the constraints are t_x − t_x' ≤ ε W[x,x']. A pair is *redundant* when a path
through other nodes is at most as long, min_z D[x,z] + D[z,x'] ≤ W[x,x'] (D the shortest-path
distances: its constraint is a sum of others). When the remaining *essential* pairs form a forest
(a path graph, a tree, metric-LDP on a line or on a tree), a ray lives on one component and, on a
component with k nodes, the log polytope {t : |t_x − t_p| ≤ ε w, t_root = 0} is the box of the k − 1
edge differences, so its vertices are exactly the 2^{k−1} orientations t_x = t_p ± ε w (every edge
tight one way). :func:`essential_forest` finds the forest; ``graph_ldp_rays`` agrees (tests).

**Reduced cost.** With z_x = P_x e^{t_x} (so c = z), Z = Σ z_x, ρ = log(P / P_u) and g = ρ − ν,
the mutual information gain is μ(c) = Σ c_x (t_x + ρ_x) − Z log Z, so the reduced cost of the
normalised ray is

    rc = N / Z − log Z,   N = Σ_x z_x (t_x + g_x),

invariant under t → t + a. It depends on the orientation only through the two additive sums (Z, N)
and increases with N. **Peaks.** Every ray has a highest node m; fixing t_m = 0 and t ≤ 0 (heights
below the peak) gives Z ∈ [P_m, 1] and a finite set of heights per node (sums ±ε w along the tree
path; one lattice for unit weights), so every ray is priced once per peak of it.

**Bound.** For a multiplier λ, M(λ) = max (N − λ Z) over the orientations of a search node is a
separable tree dynamic program over (node, height) (children choose up or down given the parent's
height), exact; so N ≤ M(λ) + λ Z for every orientation: each λ gives a valid line, their minimum
is a concave majorant of N(Z), and since rc increases with N, max rc ≤ max over Z ∈ [Zmin, Zmax]
of f(E(Z), Z), f(N, Z) = N/Z − log Z, evaluated exactly on each linear piece (on N = M + λZ,
f' = −(M + Z)/Z², so the maximum is at Z = −M clipped to the piece). Lines are added at the chord
slopes between the DP's maximisers (real orientations, priced exactly as incumbents) until the
majorant is the concave hull where f is large. **Branch and bound**, best first over all peaks: a
search node restricts each node's height to an interval of its heights (the DP masks the rest);
it is split at the middle of the interval of the node where the two orientations around the
bound's largest piece differ most in mass z (two modes far apart are what the hull mixes). The
children partition the node's orientations, so a node whose bound is ≤ max(incumbent, target) +
slack is pruned, the reported bound is a proven upper bound on the largest reduced cost over
every ray, and with ``target=-inf`` the incumbent is the exact maximum.

Examples
--------
>>> import numpy as np
>>> from mechopt.notions import GraphLDP
>>> import networkx as nx
>>> P = np.array([0.1, 0.2, 0.3, 0.4])
>>> W = GraphLDP(1.0, nx.path_graph(4)).pair_weights(4)
>>> pr = TreeLDPMIPricer(P, 1.0, W, P, early=False, target=-np.inf)
>>> out = pr.price(np.zeros(4))              # ν = 0: the best ray by MI alone
>>> out.note, out.rays.shape[0], round(out.bound, 6)
('tree branch-and-bound', 4, 0.535643)
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from mechopt import settings
from mechopt.errors import TooLargeError
from mechopt.runtime.deadline import passed
from mechopt.solvers._advice import or_local
from mechopt.solvers.exact.pricing.base import Pricing
from mechopt.solvers.exact.pricing.rooting import Rooting, backtrack, dp_pass, envelope, rooting

__all__ = ["essential_graph", "essential_weights", "essential_forest", "TreeLDPMIPricer", "MAX_HEIGHTS"]

#: Most (node, height) entries the dynamic-programming tables of all peaks may hold: unit weights
#: give ~d³/4 (d = 64: ~70 000); incommensurate weights double the heights per level.
MAX_HEIGHTS = 3_000_000
#: Slack of the pruning test relative to max(1, |g|, ε·depth): float error of the DP sums.
BNB_SLACK = 1e-13
#: Refinement rounds per search node before it is branched on, new multipliers per round, and the
#: most multipliers (DP table columns) one peak's tables hold in one pricing call.
MAX_PASSES, MAX_ASK, MAX_LINES = 8, 8, 5000


def essential_graph(W: np.ndarray, tol: float | None = None):
    """The essential policy graph (networkx, weighted), or None when W is not symmetric within ``tol``.

    A pair (x, x') with weight w is redundant when min_{z ≠ x, x'} D[x,z] + D[z,x'] ≤ w (1 + tol),
    D the weighted shortest-path distances (``tol`` defaults to the ``dd_side`` tolerance, the side
    test of the vertex enumeration): its constraint is implied by the others within that tolerance.
    The smaller of W[x,x'] and W[x',x] is used. A zero weight (an equality) is never redundant.

    Examples
    --------
    >>> W = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], float)    # metric on the line 0 - 1 - 2
    >>> sorted(essential_graph(W).edges(data="weight"))
    [(0, 1, 1.0), (1, 2, 1.0)]
    """
    import networkx as nx
    from scipy.sparse.csgraph import shortest_path

    W = np.asarray(W, float)
    d = W.shape[0]
    off = np.isfinite(W) & ~np.eye(d, dtype=bool)
    tol = settings.resolve(tol, "dd_side")
    if not np.array_equal(off, off.T) or np.any(np.abs(W[off] - W.T[off]) > tol * W[off]):
        return None
    W = np.where(off, np.minimum(W, W.T), W)  # metric sums may differ in the last bit
    # csgraph reads a stored 0 as "no edge": a zero weight becomes a tiny one, and zero pairs stay essential
    D = shortest_path(np.where(off, np.maximum(W, 1e-300), 0.0), method="D", directed=False)
    xs, ys = np.nonzero(np.triu(off, 1))
    G = nx.Graph()
    G.add_nodes_from(range(d))
    for lo in range(0, xs.size, 4096):  # E × d sums, a block at a time
        x, y = xs[lo : lo + 4096], ys[lo : lo + 4096]
        via = D[x] + D[y]
        via[np.arange(x.size), x] = np.inf
        via[np.arange(x.size), y] = np.inf
        w = W[x, y]
        keep = (via.min(axis=1) > w * (1.0 + tol)) | (w == 0)
        G.add_weighted_edges_from(zip(x[keep].tolist(), y[keep].tolist(), w[keep].tolist()))
    return G


def essential_weights(W: np.ndarray, tol: float | None = None) -> np.ndarray:
    """W with every redundant pair unconstrained (``inf``): the same cone within ``tol``, fewer constraints.

    Examples
    --------
    >>> W = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], float)
    >>> essential_weights(W).tolist()
    [[0.0, 1.0, inf], [1.0, 0.0, 1.0], [inf, 1.0, 0.0]]
    """
    G = essential_graph(W, tol)
    if G is None:
        return np.asarray(W, float)
    out = np.full_like(np.asarray(W, float), np.inf)
    np.fill_diagonal(out, 0.0)
    for a, b, w in G.edges(data="weight"):
        out[a, b] = out[b, a] = w
    return out


def essential_forest(W: np.ndarray, tol: float | None = None) -> list[list[tuple[int, int, float]]] | None:
    """Edges of each component of the essential policy graph (:func:`essential_graph`), or None when
    it has a cycle or W is not symmetric within ``tol``.

    Examples
    --------
    >>> W = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]], float)    # metric on the line 0 - 1 - 2
    >>> essential_forest(W)
    [[(0, 1, 1.0), (1, 2, 1.0)]]
    >>> essential_forest(np.array([[0, 1, 1], [1, 0, 1], [1, 1, 0]], float)) is None   # a triangle
    True
    """
    import networkx as nx

    G = essential_graph(W, tol)
    if G is None or not nx.is_forest(G):
        return None
    return [
        sorted((min(a, b), max(a, b), float(w)) for a, b, w in G.subgraph(c).edges(data="weight"))
        for c in nx.connected_components(G)
    ]


class TreeLDPMIPricer:
    """Exact pricing of policy-graph ε-LDP rays for mutual information on a forest (module docstring).

    Parameters
    ----------
    P : ndarray
        The prior (positive entries).
    eps : float
        ε > 0.
    W : ndarray
        Pair weights (``GraphLDP.pair_weights``); its essential graph must be a forest.
    Pu : ndarray
        The prior inside the mutual information (usually P).
    batch : int, optional
        Most columns returned per call (default d).
    early : bool
        Stop once ``batch`` positive columns are found (the bound is then the largest bound of
        the open nodes, or None before every peak has one).
    target : float, optional
        Nodes whose bound is at most ``max(incumbent, target)`` are pruned. Default: a quarter of
        ``colgen_gap`` times |νᵀP|, as the ε-LDP knapsack; ``-inf`` gives the exact maximum.

    Attributes
    ----------
    nodes, passes : int
        Search nodes and dynamic-programming passes over all calls.
    """

    def __init__(
        self,
        P: np.ndarray,
        eps: float,
        W: np.ndarray,
        Pu: np.ndarray,
        batch: int | None = None,
        *,
        early: bool = True,
        target: float | None = None,
    ) -> None:
        self.P = np.asarray(P, float)
        self.eps = float(eps)
        self.rho = np.log(self.P / np.asarray(Pu, float))
        forest = essential_forest(W)
        if forest is None:
            raise ValueError("the essential policy graph has a cycle: no tree pricing")
        d = self.P.size
        self.batch = int(batch or max(4, d))
        self.early, self.target = early, target
        self.nodes = self.passes = self.calls = 0
        covered = set()
        self.roots: list[Rooting] = []
        size = 0
        for edges in forest:
            adj: dict[int, list[tuple[int, float]]] = {}
            for a, b, w in edges:
                adj.setdefault(a, []).append((b, w))
                adj.setdefault(b, []).append((a, w))
            comp = sorted(adj)
            covered.update(comp)
            for m in comp:
                r = rooting(comp, adj, m, self.eps, self.P, MAX_HEIGHTS - size)
                size += r.size if r is not None else MAX_HEIGHTS
                if r is None or size > MAX_HEIGHTS:
                    raise TooLargeError(
                        f"exact tree pricing needs more than {MAX_HEIGHTS} (node, height) entries "
                        "(edge weights that do not share a lattice double the heights per level); "
                        f"use edge weights on a common grid{or_local(d)}"
                    )
                self.roots.append(r)
        self.single = np.array(sorted(set(range(d)) - covered), int)  # isolated inputs: the ray e_x
        self.depth = max((max(-h.min() for h in r.H) for r in self.roots), default=0.0)

    # -- one search node ----------------------------------------------------------------------
    def _bound(self, r: Rooting, nv: list, lo: np.ndarray, hi: np.ndarray, lam0: np.ndarray, gamma, slack, found):
        """Proven upper bound of rc over the orientations with heights in [lo, hi]; multipliers for the
        children; and the position to branch on (or −1)."""
        lam = np.concatenate([[1.0, -1.0], lam0])
        wn = np.concatenate([[0.0, 0.0], np.ones(lam0.size)])
        M, Z, pick = dp_pass(r, nv, lo, hi, lam, wn)
        self.passes += 1
        if not math.isfinite(M[0]):
            return -math.inf, lam0, -1
        zmin, zmax = -M[0], M[1]
        Ms, Zs, ls, picks = [M[2:]], [Z[2:]], [lam[2:]], [(pick, 0, 2)]
        found(r, pick, 2, (M[2:] + lam[2:] * Z[2:]) / Z[2:] - np.log(Z[2:]))
        asked = set(np.round(lam0, 12).tolist())
        for _ in range(MAX_PASSES):
            Mc, Zc, lc = np.concatenate(Ms), np.concatenate(Zs), np.concatenate(ls)
            ub, ask, pair = envelope(Mc, Zc, lc, zmin, zmax, gamma())
            if ub <= gamma() + slack:
                break
            new = [s for s in ask if round(s, 12) not in asked][:MAX_ASK]
            if not new:
                break
            asked.update(round(s, 12) for s in new)
            lam = np.array(new)
            M, Z, pick = dp_pass(r, nv, lo, hi, lam, np.ones(lam.size))
            self.passes += 1
            Ms.append(M), Zs.append(Z), ls.append(lam), picks.append((pick, Mc.size, 0))
            found(r, pick, 0, (M + lam * Z) / Z - np.log(Z))
        Mc, Zc, lc = np.concatenate(Ms), np.concatenate(Zs), np.concatenate(ls)
        ub, _, pair = envelope(Mc, Zc, lc, zmin, zmax, gamma())
        keep = np.unique(lc)
        keep = keep[np.linspace(0, keep.size - 1, min(keep.size, MAX_ASK)).round().astype(int)]
        return ub, keep, self._branch(r, lo, hi, picks, pair)

    @staticmethod
    def _branch(r: Rooting, lo, hi, picks, pair) -> int:
        """The free position where the masses z = P e^h of the two orientations around the bound's
        largest piece differ most (else the widest free height range). Measured on the last round
        of a d = 64 path (ε = 1): 2 490 nodes, where the largest height difference took 20 434."""

        def locate(j):
            for pick, off, shift in reversed(picks):
                if j >= off:
                    return backtrack(r, pick, j - off + shift)

        free = hi > lo
        if not free.any():
            return -1
        if pair[0] != pair[1]:
            ha, hb = locate(pair[0]), locate(pair[1])
            diff = np.array([abs(r.z[i][ha[i]] - r.z[i][hb[i]]) if free[i] else -1.0 for i in range(len(r.H))])
            if diff.max() > 0:
                return int(np.argmax(diff))
        width = np.array([r.H[i][hi[i]] - r.H[i][lo[i]] for i in range(len(r.H))])
        return int(np.argmax(np.where(free, width, -1.0)))

    # -- pricing ------------------------------------------------------------------------------
    def price(self, nu: np.ndarray, deadline: float | None = None) -> Pricing:
        """Exact max of rc over all rays (``bound``) and up to ``batch`` best positive columns."""
        self.calls += 1
        nu = np.asarray(nu, float)
        g = self.rho - nu
        slack = BNB_SLACK * max(1.0, float(np.abs(g).max()), self.eps * self.depth)
        target = (
            self.target
            if self.target is not None
            else max(0.25 * settings.tolerance("colgen_gap") * abs(float(nu @ self.P)), slack)
        )
        rc_tol = settings.tolerance("reduced_cost")
        cands: dict[bytes, tuple[float, np.ndarray, np.ndarray]] = {}
        state = {"best": -math.inf}
        for x in self.single:  # isolated inputs: the ray e_x
            v = -math.log(self.P[x]) + float(self.rho[x]) - float(nu[x])  # μ(e_x) − ν_x, P_u = P e^{−ρ}
            state["best"] = max(state["best"], v)
            if v > rc_tol:
                cands.setdefault(b"s%d" % x, (v, np.array([x]), np.zeros(1)))

        def gamma() -> float:
            return max(state["best"], target)

        def found(r, pick, shift, vals):
            state["best"] = max(state["best"], float(vals.max()))
            good = np.flatnonzero(vals > rc_tol)
            o = np.argsort(r.nodes)
            for j in good[np.argsort(-vals[good])][: self.batch]:
                hidx = backtrack(r, pick, int(j) + shift)
                h = np.array([r.H[i][hidx[i]] for i in range(len(r.H))])[o]
                cands.setdefault(r.nodes[o].tobytes() + np.round(h, 9).tobytes(), (float(vals[j]), r.nodes[o], h))

        lam0 = np.linspace(float(g.min()) - self.eps * self.depth, float(g.max()) + 1.0, 6)
        heap, pruned, tick = [], -math.inf, 0
        nvs = []

        def visit(ri, lo, hi, lams):  # bound a node: close it or queue it
            nonlocal pruned, tick
            self.nodes += 1
            ub, cl, br = self._bound(self.roots[ri], nvs[ri], lo, hi, lams, gamma, slack, found)
            if ub <= gamma() + slack or br < 0:
                pruned = max(pruned, ub)
            else:
                tick += 1
                heapq.heappush(heap, (-ub, tick, ri, lo, hi, cl, br))

        for ri, r in enumerate(self.roots):  # every peak's root bound
            if passed(deadline):
                return self._result(cands, None, "tree branch-and-bound interrupted by the time limit")
            nvs.append([z * (h + g[x]) for z, h, x in zip(r.z, r.H, r.nodes)])
            visit(ri, np.zeros(len(r.H), int), np.array([h.size - 1 for h in r.H]), lam0)
            if self.early and len(cands) >= self.batch and ri < len(self.roots) - 1:
                return self._result(cands, None, "tree branch-and-bound (stopped early, no bound)")
        while heap:  # best first over all peaks
            if passed(deadline):
                return self._result(cands, None, "tree branch-and-bound interrupted by the time limit")
            if self.early and len(cands) >= self.batch:
                return self._result(
                    cands, max(state["best"], pruned, -heap[0][0]), "tree branch-and-bound (stopped early)"
                )
            nub, _, ri, lo, hi, lams, br = heapq.heappop(heap)
            if -nub <= gamma() + slack:
                pruned = max(pruned, -nub)
                continue
            mid = (lo[br] + hi[br]) // 2
            for a, b in ((mid + 1, hi[br]), (lo[br], mid)):  # upper heights first
                clo, chi = lo.copy(), hi.copy()
                clo[br], chi[br] = a, b
                visit(ri, clo, chi, lams)
        return self._result(cands, max(state["best"], pruned), "tree branch-and-bound")

    def _result(self, cands, bound, note) -> Pricing:
        d = self.P.size
        cols = []
        for v, nodes, h in sorted(cands.values(), key=lambda c: -c[0])[: self.batch]:
            c = np.zeros(d)
            c[nodes] = self.P[nodes] * np.exp(h - h.max())
            cols.append(c / c.sum())
        rays = np.array(cols).T if cols else np.zeros((d, 0))
        return Pricing(rays, None if bound is None else float(bound), note)
