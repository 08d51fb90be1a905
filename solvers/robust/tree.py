"""Exact robust-MI pricing by meet in the middle: trees over the subset sums of a few coordinate blocks.

The robust MI pricing objective (:mod:`mechopt.solvers.robust.bnb`) is

    ρ(z) = c₀ + cᵀz + Σ_i λ_i ψ(u_i),   u = V z,   z ∈ {0,1}^n,   ψ concave, λ ≥ 0.

Near the ray LP's optimum cᵀz nearly cancels the tangents of ψ, so ρ is almost a function of the
k subset sums u alone, and the coordinate branch and bound (whose bound relaxes z, not u) stalls.
Here the coordinates are split into blocks of at most ``block`` (all 2^m patterns of each block are
listed once, with their k subset sums), and each block's patterns are held in a k-d tree over their
sums (median splits; a node is a range of patterns with a box of sums). A tuple of nodes, one per
block, covers every pattern made of one pattern from each node.

**The bound (proof).** For any a ∈ R^k, with s_b(z_b) = c_bᵀz_b + aᵀu_b per block b and
h_i(t) = λ_i ψ(t) − a_i t,

    ρ(z) = c₀ + Σ_b s_b(z_b) + Σ_i h_i(u_i)   (an identity: the a-terms cancel, u = Σ_b u_b),

and over a tuple of nodes u_i lies in [Σ_b lo_bi, Σ_b hi_bi], so ρ ≤ c₀ + Σ_b max_node s_b +
Σ_i max_{[lo_i, hi_i]} h_i, the last in closed form (h_i is concave: its maximum is at its stationary
point t*_i clipped to the interval; for λ_i = 0, a_i = 0 and h_i = 0). Every a gives a valid bound;
a = λ ∘ ψ'(ū) at the continuous relaxation's ū makes the s_b nearly flat, so the bound is tight
where the boxes are small.

**Exactness.** Best-first over tuples, splitting the widest node of a tuple into its two children
(which cover it); a tuple of leaves is evaluated pattern by pattern. A tuple is discarded when its
bound is ≤ θ, θ the ``keep``-th best ρ found or ``target`` (whichever is larger): every pattern lies
in exactly one tuple that was discarded or evaluated, so max(best ρ, θ) is an upper bound on max ρ.
With ``stop`` < 1 the search ends once the best ρ ≥ ``stop`` × the largest open bound (the bound then
covers the open tuples). Rounding: the bound adds ``tol``.

Examples
--------
>>> V = np.array([[0.2, 0.3, 0.5, 0.0, 0.0], [0.1, 0.2, 0.3, 0.2, 0.2]])
>>> tree = SubsetTrees(V, 1.0, block=3, leaf=2)
>>> lam, mu = np.array([0.5, 0.5]), np.full(5, 0.02)
>>> Z, ub = tree.solve(lam, mu)
>>> every = [tree.rho(np.array(z, float), lam, mu) for z in np.ndindex(*[2] * 5)]
>>> bool(max(every) <= ub <= max(max(every), 0.0) + 1e-9), bool(np.isclose(tree.rho(Z[0], lam, mu), max(every)))
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.rays import bits
from mechopt.solvers.robust.bnb import MIBranchBound

__all__ = ["BlockTree", "SubsetTrees"]


class BlockTree:
    """A k-d tree over the 2^m patterns of one block of coordinates, by their subset sums (built once).

    Nodes are ranges [start, end) of the patterns in tree order (``Z``, ``U``: patterns and sums);
    ``lo``/``hi`` the box of their sums; ``left``/``right`` the children (−1 at a leaf); node 0 the root.

    >>> t = BlockTree(np.array([[0.5, 0.25], [0.1, 0.2]]), leaf=1)
    >>> t.Z.shape, t.U.shape, int((t.left < 0).sum()), t.hi[0].tolist()
    ((4, 2), (4, 2), 4, [0.75, 0.30000000000000004])
    """

    def __init__(self, V: np.ndarray, leaf: int = 64) -> None:
        m = V.shape[1]
        Z = bits(np.arange(2**m), m)
        U = Z @ V.T
        perm = np.arange(2**m)
        nodes: list[list[int]] = []  # start, end, left, right, depth
        stack = [(0, 2**m, -1, 0)]
        while stack:
            start, end, parent, depth = stack.pop()
            if parent >= 0:
                nodes[parent][2 if nodes[parent][2] < 0 else 3] = len(nodes)
            nodes.append([start, end, -1, -1, depth])
            if end - start > leaf:
                seg = perm[start:end]
                dim = int(np.argmax(np.ptp(U[seg], axis=0)))
                perm[start:end] = seg[np.argsort(U[seg, dim], kind="stable")]
                mid, me = (start + end) // 2, len(nodes) - 1
                stack += [(mid, end, me, depth + 1), (start, mid, me, depth + 1)]
        a = np.array(nodes)
        self.start, self.end, self.left, self.right, depth = (a[:, j] for j in range(5))
        self.Z, self.U = Z[perm], U[perm]
        inner = self.left >= 0
        self.levels = [np.flatnonzero((depth == d) & inner) for d in range(int(depth.max()), -1, -1)]
        leaves = np.flatnonzero(~inner)
        self.leaves = leaves[np.argsort(self.start[leaves])]
        self.lo, self.hi = self.node_reduce(self.U, np.minimum), self.node_reduce(self.U, np.maximum)

    def node_reduce(self, s: np.ndarray, op=np.maximum) -> np.ndarray:
        """``op`` (a numpy ufunc: maximum, minimum) of the per-pattern values ``s`` (tree order) over every node."""
        out = np.empty((self.start.size,) + s.shape[1:])
        out[self.leaves] = op.reduceat(s, self.start[self.leaves], axis=0)
        for lv in self.levels:  # deepest first: children before parents
            out[lv] = op(out[self.left[lv]], out[self.right[lv]])
        return out


#: Tuples taken from the open list per step, and patterns evaluated per tuple of leaves (about).
BATCH, LEAF_WORK = 256, 4096


class SubsetTrees:
    """max_z c₀ + cᵀz + Σ_i λ_i ψ(V_iᵀz) over z ∈ {0,1}^n by best-first search over tuples of block-tree nodes.

    The coordinates are dealt round-robin (by total prior mass) into ⌈n / ``block``⌉ blocks; each block's
    tree (:class:`BlockTree`) is built once. ``leaf`` defaults to about LEAF_WORK^(1/blocks) patterns.
    """

    def __init__(self, V: np.ndarray, eps: float, *, block: int = 16, leaf: int | None = None,
                 tol: float = 1e-10) -> None:  # fmt: skip
        self.bb = MIBranchBound(V, eps, tol=tol)
        self.V, self.tol = self.bb.V, tol
        n = self.V.shape[1]
        parts = max(1, -(-n // block))
        order = np.argsort(-self.V.sum(axis=0), kind="stable")
        self.blocks = [np.sort(order[b::parts]) for b in range(parts)]
        self.leaf = leaf or max(2, round(LEAF_WORK ** (1.0 / parts)))
        self._trees: list[BlockTree] = []  # built on first use (d = 40: two trees of 2^20 patterns, ~8 s each)
        self.tuples = 0  # tuples expanded or evaluated, over every call

    @property
    def trees(self) -> list[BlockTree]:
        """The block trees (built now if they are not yet)."""
        self._grow(None)
        return self._trees

    def _grow(self, deadline: float | None) -> bool:
        """Build the block trees not yet built, each only before the deadline; whether all are built."""
        while len(self._trees) < len(self.blocks):
            if passed(deadline):
                return False
            self._trees.append(BlockTree(self.V[:, self.blocks[len(self._trees)]], self.leaf))
        return True

    def rho(self, z: np.ndarray, lam: np.ndarray, mu: np.ndarray) -> float:
        return self.bb.rho(z, lam, mu)

    def _prepare(self, lam, mu, a=None) -> _Scope:
        """The per-call data: a defaults to λ ∘ ψ'(ū) at the continuous relaxation's sums ū (any a is valid);
        t* the stationary points of h_i(t) = λ_i ψ(t) − a_i t (a_i = 0 where λ_i = 0: h_i ≡ 0 there)."""
        sc = _Scope()
        sc.lam = np.maximum(np.asarray(lam, float), 0.0)
        sc.c0, c = self.bb.coefficients(sc.lam, mu)
        if a is None:
            n = self.V.shape[1]
            a = self.bb._node(np.full(n, -1, np.int8), sc.lam, sc.c0, c, np.full(n, 0.5))[3]
        sc.a = np.where(sc.lam > 0, a, 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            x = np.where(sc.lam > 0, np.clip(-sc.a / (sc.lam * self.bb.E1) - 1.0, -700.0, 700.0), 0.0)
        sc.tstar = np.expm1(x) / self.bb.E1
        sc.cz = [tr.Z @ c[idx] for tr, idx in zip(self.trees, self.blocks)]
        sc.smax = [tr.node_reduce(z + tr.U @ sc.a) for tr, z in zip(self.trees, sc.cz)]
        return sc

    def bounds(self, lam: np.ndarray, mu: np.ndarray, T: np.ndarray, a: np.ndarray | None = None) -> np.ndarray:
        """Upper bounds on ρ over the patterns of each tuple of nodes (rows of ``T``: one node per block) for the
        multipliers ``a`` (default: the relaxation's; module docstring: any a is valid)."""
        return self._bounds(np.atleast_2d(T), self._prepare(lam, mu, a))

    def _bounds(self, T: np.ndarray, sc: _Scope) -> np.ndarray:
        lo = sum(tr.lo[T[:, b]] for b, tr in enumerate(self.trees))
        hi = sum(tr.hi[T[:, b]] for b, tr in enumerate(self.trees))
        t = np.clip(sc.tstar, lo, hi)  # h_i is concave: its maximum over [lo_i, hi_i]
        h = (sc.lam * self.bb.psi(t)[0] - sc.a * t).sum(axis=-1)
        return sc.c0 + sum(m[T[:, b]] for b, m in enumerate(sc.smax)) + h

    def solve(
        self,
        lam: np.ndarray,
        mu: np.ndarray,
        deadline: float | None = None,
        *,
        stop: float = 1.0,
        target: float = 0.0,
        keep: int = 64,
        budget: int | None = None,
        early: int | None = None,
    ) -> tuple[np.ndarray, float | None]:
        """(patterns with ρ > ``target`` found, best first (rows; the best pattern seen if none), a proven upper
        bound on max ρ, or None when stopped by the deadline, after ``budget`` tuples, or past ``early`` tuples
        with a pattern above ``target`` + ``tol`` in hand). The block trees are built here once, each only
        before the deadline."""
        if not self._grow(deadline):
            return np.zeros((1, self.V.shape[1])), None
        sc = self._prepare(lam, mu)
        T = np.zeros((1, len(self.trees)), np.int64)
        B = self._bounds(T, sc)
        pool, spent = _Pool(keep, target, self), 0
        while B.size:
            top = B.max()
            if top <= pool.theta + self.tol:
                break
            if pool.best > target and pool.best >= stop * top:
                return pool.patterns(), max(pool.best, top) + self.tol
            spent += min(BATCH, B.size)
            self.tuples += min(BATCH, B.size)
            late = passed(deadline)
            done_early = early is not None and spent > early and pool.best > target + self.tol
            if late or done_early or (budget is not None and spent > budget):
                return pool.patterns(), None
            pick = np.argpartition(-B, min(BATCH, B.size) - 1)[:BATCH] if B.size > BATCH else np.arange(B.size)
            rest = np.ones(B.size, bool)
            rest[pick] = False
            Tp = T[pick][B[pick] > pool.theta + self.tol]
            leafy = np.all([tr.left[Tp[:, b]] < 0 for b, tr in enumerate(self.trees)], axis=0)
            if leafy.any():
                self._evaluate(Tp[leafy], sc, pool)
            kids = self._split(Tp[~leafy], sc)
            T, B = np.vstack([T[rest], kids]), np.concatenate([B[rest], self._bounds(kids, sc)])
            live = B > pool.theta + self.tol
            T, B = T[live], B[live]
        return pool.patterns(), max(pool.best, pool.theta) + self.tol

    def _split(self, T: np.ndarray, sc: _Scope) -> np.ndarray:
        """Each tuple's widest inner node (λ-weighted widths of its box) replaced by its two children."""
        width = np.stack([np.where(tr.left[T[:, b]] >= 0, (tr.hi[T[:, b]] - tr.lo[T[:, b]]) @ (sc.lam + 1e-3), -1.0)
                          for b, tr in enumerate(self.trees)], axis=1)  # fmt: skip
        p = width.argmax(axis=1)
        out = np.repeat(T, 2, axis=0)
        for b, tr in enumerate(self.trees):
            rows = np.flatnonzero(p == b)
            out[2 * rows, b] = tr.left[T[rows, b]]
            out[2 * rows + 1, b] = tr.right[T[rows, b]]
        return out

    def _evaluate(self, T: np.ndarray, sc: _Scope, pool: _Pool) -> None:
        """ρ of every pattern of each tuple of leaves (padded to the largest leaf, the padding at −∞)."""
        val = np.full((len(T),), sc.c0)
        U = np.zeros((len(T), self.V.shape[0]))
        for b, tr in enumerate(self.trees):
            size = int((tr.end - tr.start)[tr.leaves].max())
            idx = tr.start[T[:, b]][:, None] + np.arange(size)
            ok = idx < tr.end[T[:, b]][:, None]
            idx = np.where(ok, idx, tr.start[T[:, b]][:, None])
            part = np.where(ok, sc.cz[b][idx], -np.inf)  # (m, size)
            val = val[..., None] + part.reshape(part.shape[:1] + (1,) * (val.ndim - 1) + part.shape[1:])
            U = U[..., None, :] + tr.U[idx].reshape((len(T),) + (1,) * (U.ndim - 2) + (size, U.shape[-1]))
        rho = val + self.bb.psi(U)[0] @ sc.lam
        hit = np.argwhere(rho > pool.theta)
        pool.add(rho[tuple(hit.T)], T[hit[:, 0]], hit[:, 1:])


class _Scope:
    """One call's data (:meth:`SubsetTrees._prepare`): duals, multipliers, per-block values and node maxima."""

    lam: np.ndarray
    a: np.ndarray
    tstar: np.ndarray
    c0: float
    cz: list[np.ndarray]
    smax: list[np.ndarray]


class _Pool:
    """The best patterns found (at most ``keep``, ρ > ``target``); θ = max(target, the keep-th best ρ)."""

    def __init__(self, keep: int, target: float, trees: SubsetTrees) -> None:
        self.keep, self.target, self.trees = keep, target, trees
        self.best, self.theta = -math.inf, target
        self.items: dict[bytes, tuple[float, np.ndarray]] = {}

    def add(self, vals: np.ndarray, nodes: np.ndarray, local: np.ndarray) -> None:
        if vals.size > self.keep:  # only the best ``keep`` can stay
            top = np.argpartition(-vals, self.keep - 1)[: self.keep]
            vals, nodes, local = vals[top], nodes[top], local[top]
        for v, T, loc in zip(vals, nodes, local):
            z = np.zeros(self.trees.V.shape[1])
            for b, (tr, idx) in enumerate(zip(self.trees.trees, self.trees.blocks)):
                z[idx] = tr.Z[tr.start[T[b]] + loc[b]]
            self.best = max(self.best, float(v))
            self.items[z.tobytes()] = (float(v), z)
        if len(self.items) > self.keep:
            self.items = dict(sorted(self.items.items(), key=lambda kv: -kv[1][0])[: self.keep])
        if len(self.items) >= self.keep:
            self.theta = max(self.target, min(v for v, _ in self.items.values()))

    def patterns(self) -> np.ndarray:
        if not self.items:
            return np.zeros((1, self.trees.V.shape[1]))
        return np.vstack([z for _, z in sorted(self.items.values(), key=lambda v: -v[0])])
