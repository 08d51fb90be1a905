"""The admissible columns of each notion and their exact pricing: min (C_y − u)·q over the columns q.

A column q = Q[:, y] of a private channel lies in a cone K; the pricing of output y at row prices
u is ``min {(C[:, y] − u)·q : q ∈ K, q normalised}`` (module docstring of :mod:`~mechopt.solvers.lp.colgen`). Each
``price`` returns the minimiser q, its value, and a *lower bound* on the minimum that is valid
whatever the floating-point accuracy of the method (weak duality, below).

- :class:`MetricCone` — graph-, metric- and geo-LDP: q_x ≤ e^{ε d(x,x')} q_x' for every pair, q ≤ 1.
  Only *essential* pairs are rows of the pricing LP (HiGHS, dual simplex, one model re-solved per
  output from that output's last basis). Dropping a pair is exact when it is implied: if
  d(x, x') = d(x, z) + d(z, x') then q_x ≤ e^{ε d(x,z)} q_z ≤ e^{ε d(x,z)} e^{ε d(z,x')} q_x' =
  e^{ε d(x,x')} q_x', so the pair (x, x') adds nothing to the pairs (x, z), (z, x'); on a graph
  metric (shortest paths) only edges that are themselves shortest paths remain, on a grid with the
  grid metric the four neighbours. For a general metric (Euclidean, haversine) the LP starts from
  the essential pairs among each point's nearest neighbours and *row generation* adds every pair
  the minimiser violates (exact separation over all n² pairs) and re-solves. A relaxed LP (fewer
  rows) has a smaller minimum, so its bound is valid for the full cone at every stage. Every
  column is then made exactly admissible by q'_x = max_z q_z e^{−ε d(x,z)} (the least ε-Lipschitz
  majorant of log q; the triangle inequality makes it admissible for every pair), which also removes
  HiGHS's 1e-10 row tolerance.
- :class:`LDPCone` — ε-LDP on all pairs: q ∈ [m, e^ε m]; the minimum over q ≤ 1 has the closed form
  Σ_{c<0} c_x + e^{−ε} Σ_{c>0} c_x (q_x = 1 where c_x < 0, e^{−ε} elsewhere).
- :class:`LIPCone` — ε-LIP: q_x / λ ∈ [e^{−ε}, e^ε] with λ = P·q; normalised by λ = 1 the minimum
  of c·q is a fractional knapsack (raise q_x from e^{−ε} towards e^ε in increasing c_x / P_x until
  P·q = 1), solved exactly by sorting. ε-PML and ALIP are the same with the lower factor 0 or e^{−ε_l}.

**Bound.** For the pricing LP min c·q s.t. A q ≥ 0, 0 ≤ q ≤ 1 and any λ ≥ 0 (here HiGHS's row
duals, clipped), c·q = (c − Aᵀλ)·q + λᵀAq ≥ Σ_x min(0, (c − Aᵀλ)_x) for every feasible q: a lower
bound that needs no optimality or accuracy from HiGHS.

Examples
--------
>>> import numpy as np
>>> cone = LDPCone(n=3, eps=np.log(2))
>>> q, val, bound = cone.price(0, np.array([-1.0, 0.5, 0.5]), 0.0)
>>> q.tolist(), val, bound
([1.0, 0.5, 0.5], -0.5, -0.5)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.solvers._quiet import quiet_stdout

__all__ = ["MetricCone", "LDPCone", "LIPCone", "essential_pairs", "metric_closure"]


#: A pair not yet in the pricing LP is added when q_x e^{−ε d} − q_x' exceeds this (q ≤ 1): above the
#: chained row tolerance of HiGHS (1e-10 per pair along a path).
SEPARATION_TOL = 1e-8
#: The pricing rows Aᵀλ − s ≤ c are scaled to max |c| = ROW_SCALE: HiGHS's feasibility tolerance (at least
#: 1e-10) is absolute, and each row's slip enters the bound Σ min(0, c − Aᵀλ); summed over n rows and m
#: outputs at scale 1 it left relative gaps of 1e-7 (line of 400 points).
ROW_SCALE = 1e4
#: Pairs added per separation round, and nearest neighbours whose essential pairs start the LP.
MAX_NEW_PAIRS, NEIGHBOURS = 20_000, 8
#: Relative slack of the test "a path through z is as short as the pair" (d(x,z) + d(z,x') ≤ d (1 + tol)).
IMPLIED_TOL = 1e-12


def metric_closure(D: np.ndarray) -> np.ndarray:
    """Shortest-path distances of the complete graph weighted by D (D itself when D is a metric).

    >>> metric_closure(np.array([[0, 1, 5], [1, 0, 1], [5, 1, 0]], float))[0, 2]
    np.float64(2.0)
    """
    from scipy.sparse.csgraph import shortest_path

    off = ~np.eye(D.shape[0], dtype=bool)
    W = np.where(off & np.isfinite(D), np.maximum(D, 1e-300), 0.0)  # csgraph reads a stored 0 as "no edge"
    out = shortest_path(W, method="D", directed=False)
    out[off & (D == 0)] = 0.0
    np.fill_diagonal(out, 0.0)
    return out


def essential_pairs(D: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """The candidate pairs (rows x < x') that no third point z implies: d(x,z) + d(z,x') > d(x,x') (1 + tol).

    >>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))      # a line
    >>> essential_pairs(D, np.array([[0, 1], [0, 2], [1, 2]])).tolist()
    [[0, 1], [1, 2]]
    """
    keep = np.zeros(len(candidates), bool)
    for lo in range(0, len(candidates), 2048):
        x, z = candidates[lo : lo + 2048, 0], candidates[lo : lo + 2048, 1]
        via = D[x] + D[z]
        via[np.arange(x.size), x] = np.inf
        via[np.arange(x.size), z] = np.inf
        w = D[x, z]
        keep[lo : lo + 2048] = np.isfinite(w) & ((w == 0) | (via.min(axis=1) > w * (1 + IMPLIED_TOL)))
    return candidates[keep]


def _optimal() -> Any:
    import highspy

    return highspy.HighsModelStatus.kOptimal


def _highs() -> Any:
    import highspy

    with quiet_stdout():  # highspy >= 1.16 prints a banner on the first Highs()
        h = highspy.Highs()
    for key, val in (
        ("output_flag", False),
        ("presolve", "off"),
        ("solver", "simplex"),
        ("simplex_strategy", 1),  # dual simplex: its row duals are the accurate ones (primal's were off by 1e-8)
        ("primal_feasibility_tolerance", 1e-10),
        ("dual_feasibility_tolerance", 1e-10),
    ):
        h.setOptionValue(key, val)
    return h


class _PairLP:
    """The pricing LP of one output (or of all, on a policy graph), held in HiGHS in its dual form.

    Primal: min c·q s.t. e^{ε d} q_x' − q_x ≥ 0 for the directed pairs in the model, 0 ≤ q ≤ 1.
    Dual (what HiGHS holds: n rows, a column per pair, so the simplex basis is n × n however many
    pairs there are): min Σ_x s_x s.t. (Aᵀλ)_x − s_x ≤ c_x, λ, s ≥ 0; its optimum is −(primal optimum),
    q = −(row duals), and any λ ≥ 0 bounds the primal from below by Σ_x min(0, (c − Aᵀλ)_x).
    """

    def __init__(self, n: int, eps: float, D: np.ndarray, pairs: np.ndarray, shared: bool = False) -> None:
        self.n, self.eps, self.D = n, eps, D
        self.src = np.zeros(0, int)
        self.dst = np.zeros(0, int)
        self.gain = np.zeros(0)
        self.in_lp = np.zeros((n, n), bool)
        self.last: dict[int, np.ndarray] = {}
        self.bases: dict[int, Any] = {}  # each output's last optimal basis (warm start of its next solve)
        self.current = -1  # the key whose basis HiGHS holds
        self.h = _highs()
        # A model of one output: primal simplex (dual measured no faster). A model shared by every output
        # (a policy graph): each output's solve starts from that output's last basis, whose costs are unchanged
        # and only the row bounds c moved, so it is dual feasible: dual simplex (20x20 grid: 2766 -> 2450 LPs).
        self.h.setOptionValue("simplex_strategy", 1 if shared else 4)
        self.h.addVars(n, np.zeros(n), np.full(n, np.inf))  # the slacks s
        self.h.changeColsCost(n, np.arange(n, dtype=np.int32), np.ones(n))
        eye = np.arange(n, dtype=np.int32)
        self.h.addRows(n, np.full(n, -np.inf), np.zeros(n), n, eye, eye, -np.ones(n))
        self.add(pairs)

    def add(self, pairs: np.ndarray) -> int:
        """Columns λ for both directions of each new undirected pair; returns how many pairs were new."""
        pairs = np.asarray(pairs, int).reshape(-1, 2)
        pairs = pairs[~self.in_lp[pairs[:, 0], pairs[:, 1]]]
        if len(pairs) == 0:
            return 0
        x, z = pairs[:, 0], pairs[:, 1]
        self.in_lp[x, z] = self.in_lp[z, x] = True
        src, dst = np.concatenate([x, z]), np.concatenate([z, x])  # row e^{ε d} q_dst − q_src ≥ 0
        with np.errstate(over="ignore"):
            gain = np.exp(self.eps * self.D[src, dst])
        k = src.size
        start = (2 * np.arange(k)).astype(np.int32)
        index = np.column_stack([src, dst]).ravel().astype(np.int32)
        value = np.column_stack([-np.ones(k), gain]).ravel()
        self.h.addCols(k, np.zeros(k), np.zeros(k), np.full(k, np.inf), 2 * k, start, index, value)
        self.src, self.dst = np.concatenate([self.src, src]), np.concatenate([self.dst, dst])
        self.gain = np.concatenate([self.gain, gain])
        self.last.clear()
        self.bases.clear()
        return len(pairs)

    def solve(self, c: np.ndarray, key: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """The minimiser q and the multipliers λ (one per directed pair) for costs c, warm-started from
        the last basis of ``key`` (an output: its costs move little between rounds) when there is one."""
        scale = (float(np.abs(c).max()) or 1.0) / ROW_SCALE
        self.h.changeRowsBounds(self.n, np.arange(self.n, dtype=np.int32), np.full(self.n, -np.inf), c / scale)
        basis = self.bases.get(key) if key != self.current else None
        if basis is not None:
            self.h.setBasis(basis)
        self.current = key
        self.h.run()
        if self.h.getModelStatus() != _optimal():  # a warm start HiGHS refused (seen: kError, status not set)
            self.h.clearSolver()
            self.h.run()
        if self.h.getModelStatus() != _optimal():  # no multipliers: λ = 0 still bounds (Σ min(0, c)), q unknown
            return np.zeros(self.n), np.zeros(self.src.size)
        self.bases[key] = self.h.getBasis()
        sol = self.h.getSolution()
        q = np.clip(-np.asarray(sol.row_dual, float), 0.0, 1.0)
        lam = np.clip(np.asarray(sol.col_value, float)[self.n :], 0.0, None) * scale
        return q, lam

    def bound(self, c: np.ndarray, lam: np.ndarray) -> float:
        """Σ_x min(0, (c − Aᵀλ)_x): a lower bound on min c·q over the model's pairs (weak duality)."""
        At = np.zeros(self.n)
        np.add.at(At, self.src, -lam)
        np.add.at(At, self.dst, self.gain * lam)
        return float(np.minimum(c - At, 0.0).sum())


class MetricCone:
    """Columns with q_x ≤ e^{ε D[x,x']} q_x' for every pair, q ≤ 1 (module docstring).

    Parameters
    ----------
    D : ndarray (n, n)
        A metric (triangle inequality; ``inf`` for unconstrained pairs): shortest paths of a policy
        graph, or distances between locations (:func:`metric_closure` makes one of any table).
    eps : float
    start : ndarray (k, 2), optional
        Undirected pairs to start the LP with (default: the essential pairs among the
        ``NEIGHBOURS`` nearest neighbours of every point).
    complete : bool
        True when ``start`` implies every pair (a policy graph's essential edges): no separation.
    """

    combine = "sum"  # Q ≤ 1 entrywise: the bound adds the outputs' minima

    def __init__(self, D: np.ndarray, eps: float, start: np.ndarray | None = None, complete: bool = False) -> None:
        self.D, self.eps, self.n = np.asarray(D, float), float(eps), D.shape[0]
        with np.errstate(over="ignore"):
            self.E = np.exp(-self.eps * self.D)  # e^{−ε d}: 0 for unconstrained pairs
        self.complete = complete
        self.start = self._neighbour_pairs() if start is None else np.asarray(start, int).reshape(-1, 2)
        self.models: dict[int, _PairLP] = {}
        self.lp_solves = self.rows_added = 0

    def _neighbour_pairs(self) -> np.ndarray:
        k = min(NEIGHBOURS, self.n - 1)
        Dm = np.where(np.eye(self.n, dtype=bool), np.inf, self.D)
        near = np.argsort(Dm, axis=1, kind="stable")[:, :k]
        cand = np.column_stack([np.repeat(np.arange(self.n), k), near.ravel()])
        cand = cand[np.isfinite(self.D[cand[:, 0], cand[:, 1]])]
        cand = np.unique(np.sort(cand, axis=1), axis=0)
        return essential_pairs(self.D, cand)

    def initial(self, radii: tuple[float, ...]) -> np.ndarray:
        """Columns e^{−ε d(x, B)} for the balls B = {z : d(z, c) ≤ r} around every point c (shape (n, k))."""
        cols = []
        for r in radii:
            for c in range(self.n):
                ball = self.D[:, c] <= r
                cols.append(self.E[:, ball].max(axis=1))
        return np.array(cols).T

    def price(self, y: int, c: np.ndarray, tol: float) -> tuple[np.ndarray | None, float, float]:
        """(column or None, its value c·q, a lower bound on min c·q over q ∈ K, q ≤ 1)."""
        key = 0 if self.complete else y  # a policy graph's pairs serve every output: one model
        lp = self.models.get(key)
        if lp is None:
            lp = self.models[key] = _PairLP(self.n, self.eps, self.D, self.start, shared=self.complete)
            self.rows_added += 2 * len(self.start)
        elif lp.last.get(y) is not None:  # the last multipliers of this output may still prove c·q ≥ −tol
            cheap = lp.bound(c, lp.last[y])
            if cheap >= -tol:
                return None, 0.0, cheap
        while True:
            q, lam = lp.solve(c, y)
            self.lp_solves += 1
            if self.complete:
                break
            new = self._violated(q, lp.in_lp)
            if len(new) == 0:
                break
            self.rows_added += 2 * lp.add(new)
        lp.last[y] = lam
        bound = lp.bound(c, lam)
        if float(c @ q) >= -tol / 2:  # no column for the master: skip the O(n²) repair (it moves c·q by ~1e-10 |c|)
            return None, float(c @ q), bound
        q = self.repair(q)
        return q, float(c @ q), bound

    def _violated(self, q: np.ndarray, in_lp: np.ndarray) -> np.ndarray:
        """Pairs not in the LP with q_x e^{−ε d(x,x')} − q_x' > SEPARATION_TOL, most violated first."""
        V = q[:, None] * self.E - q[None, :]
        V[in_lp] = 0.0
        xs, zs = np.nonzero(V > SEPARATION_TOL)
        if xs.size > MAX_NEW_PAIRS:
            top = np.argsort(V[xs, zs])[::-1][:MAX_NEW_PAIRS]
            xs, zs = xs[top], zs[top]
        return np.unique(np.sort(np.column_stack([xs, zs]), axis=1), axis=0)

    def repair(self, q: np.ndarray) -> np.ndarray:
        """max_z q_z e^{−ε d(x,z)}: the least admissible column above q (exactly private, up to rounding)."""
        out = np.zeros(self.n)
        for lo in range(0, self.n, 512):
            out[lo : lo + 512] = (self.E[lo : lo + 512] * q[None, :]).max(axis=1)
        return out


class LDPCone:
    """ε-LDP columns: max q ≤ e^ε min q (closed-form pricing; module docstring)."""

    combine = "sum"

    def __init__(self, n: int, eps: float) -> None:
        self.n, self.eps, self.low = n, float(eps), math.exp(-float(eps))
        self.lp_solves = self.rows_added = 0

    def initial(self, radii: tuple[float, ...]) -> np.ndarray:
        """The patterns with one high entry (radius 0) and, for radius r > 0, none (the constant column)."""
        cols = np.full((self.n, self.n), self.low) + (1.0 - self.low) * np.eye(self.n)
        return np.column_stack([cols, np.ones(self.n)])

    def price(self, y: int, c: np.ndarray, tol: float) -> tuple[np.ndarray | None, float, float]:
        q = np.where(c < 0, 1.0, self.low)
        val = float(c @ q)
        return q, val, min(0.0, val)

    def repair(self, q: np.ndarray) -> np.ndarray:
        return np.maximum(q, self.low * q.max())


class LIPCone:
    """ε-LIP columns q / (P·q) ∈ [e^{−ε}, e^ε] (fractional-knapsack pricing; module docstring).

    Normalised by λ = P·q = 1, and since Σ_y λ_y = 1 for every channel, the bound takes the least
    of the outputs' minima (``combine = "min"``) instead of their sum.
    """

    combine = "min"

    def __init__(self, P: np.ndarray, eps: float, *, low: float | None = None) -> None:
        self.P, self.eps = np.asarray(P, float), float(eps)
        # ``low``: another lower factor of q / λ (ε-PML 0, (ε_u, ε_l)-ALIP e^{−ε_l}; the box of mechopt.notions.pml)
        self.lo, self.hi = (math.exp(-self.eps) if low is None else float(low)), math.exp(self.eps)
        self.n = self.P.size
        self.lp_solves = self.rows_added = 0

    def initial(self, radii: tuple[float, ...]) -> np.ndarray:
        """The knapsack vertices that favour one input each (costs −e_x), and the constant column."""
        cols = [self._knapsack(-np.eye(self.n)[x]) for x in range(self.n)]
        return np.column_stack([*cols, np.ones(self.n)])

    def _knapsack(self, c: np.ndarray) -> np.ndarray:
        q = np.full(self.n, self.lo)
        room = 1.0 - self.lo  # P·q = e^{−ε} so far
        for x in np.argsort(c / self.P, kind="stable"):
            if room <= 0:
                break
            step = min(self.hi - self.lo, room / self.P[x])
            q[x] += step
            room -= step * self.P[x]
        return q

    def price(self, y: int, c: np.ndarray, tol: float) -> tuple[np.ndarray | None, float, float]:
        q = self._knapsack(c)
        val = float(c @ q)
        return q, val, val

    def repair(self, q: np.ndarray) -> np.ndarray:
        lam = float(self.P @ q)
        return np.clip(q, self.lo * lam, self.hi * lam)
