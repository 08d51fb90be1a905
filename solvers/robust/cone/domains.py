"""The column domains D of the histogram pricer: the LIP / PML / ALIP cone slice and the ε-LDP pattern box.

Each domain gives :class:`~mechopt.solvers.robust.cone.hist.HistBoxPricer` its rows on (q, t), its root box, the
ratio ranges and range propagation of a node, a move of a point into D, an LP vertex and a heuristic climb.

Examples
--------
>>> import numpy as np
>>> D = PatternBox(np.array([[0.5, 0.5]]), 1.0)
>>> D.vertex(np.array([1.0, -1.0])).round(6).tolist()
[2.718282, 1.0]
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.solvers.robust.cone.box import BoxMIPricer
from mechopt.solvers.robust.cone.vertices import vertex_search
from mechopt.solvers.robust.lp import lp_model, run_lp

__all__ = ["ConeSlice", "PatternBox"]

_UP, _DOWN = 1.0 + 8 * float(np.finfo(float).eps), 1.0 - 8 * float(np.finfo(float).eps)


class ConeSlice:
    """D for LIP / PML / ALIP over a set: the slice P̄·q = 1 of the posterior-box cone of the rows of V (the
    rows of :class:`~mechopt.solvers.robust.cone.box.BoxMIPricer` on the columns q and t)."""

    def __init__(self, V: np.ndarray, lo: float, hi: float) -> None:
        b = BoxMIPricer(V, lo, hi, early=False)
        self.V, self.lo, self.hi, self.k, self.n = b.V, b.lo, b.hi, b.k, b.n
        self.A = b.A[: b.base, : self.n + self.k]
        self.rlo, self.rhi = b.rlo[: b.base], b.rhi[: b.base]
        self.root = (b.root[0], b.root[1], np.full(self.k, 1.0 / b.hi), np.full(self.k, b.tmax))
        self.norm, self.weights, self.top = b.Pbar, (1.0, 1.0), None  # P̄·r = 1: Σ w = 1
        self.into = b.into_cone
        self._lp = None

    def climb(self, starts: np.ndarray, score) -> np.ndarray:
        """Columns of D reached from ``starts`` by the two-level vertex search (a heuristic)."""
        return vertex_search(self.V, self.lo, self.hi, np.zeros(self.k), np.zeros(self.n), starts, score=score)

    def ratios(self, node):
        """(a, b) (k × n) with a ≤ q_x/t_i ≤ b on the node: lo·t_j ≤ q_x ≤ hi·t_j for every j (j = i: [lo, hi])."""
        ql, qu, tl, tu = node
        a = np.maximum(np.maximum(self.lo, self.lo * float(tl.max()) / tu)[:, None], ql[None, :] / tu[:, None])
        b = np.minimum(np.minimum(self.hi, self.hi * float(tu.min()) / tl)[:, None], qu[None, :] / tl[:, None])
        return a * _DOWN, b * _UP

    def propagate(self, ql, qu, tl, tu, passes: int = 3):
        """The node with t_i in [P_i·ql, P_i·qu] and lo·max tl ≤ q_x ≤ hi·min tu imposed (rounded outward); None when
        empty."""
        for _ in range(passes):
            tl, tu = np.maximum(tl, (self.V @ ql) * _DOWN), np.minimum(tu, (self.V @ qu) * _UP)
            ql = np.maximum(ql, self.lo * float(tl.max()) * _DOWN)
            qu = np.minimum(qu, self.hi * float(tu.min()) * _UP)
        return None if np.any(ql > qu) or np.any(tl > tu) else (ql, qu, tl, tu)

    def vertex(self, grad: np.ndarray) -> np.ndarray | None:
        """A vertex of D maximising gradᵀq (an LP over the slice), or None when HiGHS does not solve it."""
        import highspy

        if self._lp is None:
            self._lp = lp_model(self.A, self.rlo, self.rhi, np.r_[self.root[0], self.root[2]],
                                np.r_[self.root[1], self.root[3]])  # fmt: skip
        h, N = self._lp, self.n + self.k
        g = np.r_[grad, np.zeros(self.k)]
        h.changeColsCost(N, np.arange(N, dtype=np.int32), -g / (float(np.abs(g).max()) or 1.0))
        if run_lp(h) != highspy.HighsModelStatus.kOptimal:
            return None
        return self.into(np.array(h.getSolution().col_value)[: self.n])


class PatternBox:
    """D for ε-LDP: the box [1, e^ε]^n (its vertices are the patterns; rows only define t = Vq)."""

    def __init__(self, V: np.ndarray, eps: float) -> None:
        self.V = np.asarray(V, float)
        self.k, self.n = self.V.shape
        E = math.exp(eps)
        self.A = np.hstack([-self.V, np.eye(self.k)])
        self.rlo = self.rhi = np.zeros(self.k)
        self.root = (
            np.ones(self.n),
            np.full(self.n, E),
            self.V @ np.ones(self.n) * _DOWN,
            self.V @ np.full(self.n, E) * _UP,
        )
        self.norm, self.weights, self.top = None, (1.0 / E, 1.0), E  # entries in [1, e^ε]: Σ w in [e^−ε, 1]

    def ratios(self, node) -> None:
        return None  # the roof is exact at the box's ends already

    def propagate(self, ql, qu, tl, tu):
        tl, tu = np.maximum(tl, (self.V @ ql) * _DOWN), np.minimum(tu, (self.V @ qu) * _UP)
        return None if np.any(ql > qu) or np.any(tl > tu) else (ql, qu, tl, tu)

    def into(self, q: np.ndarray) -> np.ndarray:
        return np.clip(q, self.root[0], self.root[1])

    def climb(self, starts: np.ndarray, score) -> np.ndarray:
        """Patterns reached from ``starts`` (rounded) by best single flips while ρ rises (a heuristic)."""
        lo, hi = self.root[0], self.root[1]
        out = []
        for q in np.asarray(starts, float).T:
            q = np.where(q - lo > hi - q, hi, lo)
            val = float(score(q[:, None])[0])
            for _ in range(2 * self.n):
                flips = np.where(np.eye(self.n, dtype=bool), (lo + hi - q)[:, None], q[:, None])
                r = score(flips)
                b = int(np.argmax(r))
                if r[b] <= val + 1e-15 * max(1.0, abs(val)):
                    break
                q, val = flips[:, b], float(r[b])
            out.append(q)
        return np.array(out).T if out else np.zeros((self.n, 0))

    def vertex(self, grad: np.ndarray) -> np.ndarray:
        return np.where(grad > 0, self.root[1], self.root[0])
