"""Branch and bound for a separable convex function over the vertices of a box cut by 1ᵀp = 1.

Program: maximise F(p) = Σ_x f_x(p_x), f_x convex, over B = {p : lo ≤ p ≤ hi, 1ᵀp = 1}
(the posterior box of ε-LIP; :mod:`mechopt.solvers.exact.pricing.lip`). F is convex, so
its maximum over B is attained at a vertex: every coordinate at a bound except
at most one, the *free* one. Write p = lo + Δ∘z (Δ = hi − lo, z ∈ [0, 1]^d) with
budget Σ_x Δ_x z_x = R = 1 − 1ᵀlo, item values v_x = f_x(hi_x) − f_x(lo_x) and
keys v_x / Δ_x.

Nodes fix coordinates at hi (set I) or lo, and may *designate* the free one j.

- Undesignated node: relaxing each free f_x to its chord on [lo_x, hi_x] (its
  concave envelope, ≥ f_x) gives a fractional knapsack with exact budget: the
  greedy fill in key order, with one fractional item k. Its value bounds every
  point of the node; the greedy point itself is a vertex of B whose true value is
  an incumbent (they differ only in f_k: chord minus f_k). If k is at a bound the
  node is solved; otherwise three children partition it: p_k = lo_k, p_k = hi_k,
  or k is the free coordinate (then every other coordinate is at a bound).
- Designated node (free j): the others are binary, so F = const + V(S) + g_j(R' − W(S))
  with g_j(r) = f_j(lo_j + r) − f_j(lo_j) convex and W(S) ∈ [R' − Δ_j, R']. V is
  bounded by the concave piecewise-linear envelope V̄(W) through the prefix sets in
  key order; on each segment V̄ + g_j is convex, so its maximum over the allowed
  W-interval is at a breakpoint (a prefix set: a vertex, evaluated exactly) or at
  an end of the interval (one fractional item k). If the maximum is at a
  breakpoint the node is solved; otherwise k is branched on (lo / hi).

Every branching fixes or designates a coordinate, so the search is finite; a
node is pruned only when its bound is at most the incumbent plus ``BNB_SLACK``,
and the reported bound (the incumbent plus the largest pruned excess) is a proven
upper bound on max_B F.

Examples
--------
>>> import numpy as np
>>> lo, hi = np.array([0.1, 0.1, 0.2]), np.array([0.4, 0.5, 0.6])
>>> out = separable_bnb(lo, hi, lambda p, i: p * p, 3)
>>> round(float(out.bound), 6), np.round(out.points[0], 6).tolist()      # max Σ p² at (0.1, 0.3, 0.6)
(0.46, [0.1, 0.3, 0.6])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.pricing.knapsack import BNB_SLACK

__all__ = ["separable_bnb", "BnBOut"]

_FIX_HI, _FIX_LO, _FREE = 1, 2, 3


@dataclass
class BnBOut:
    bound: float | None  # proven max of F over B (None if interrupted)
    points: list = field(default_factory=list)  # best vertices found, best first
    nodes: int = 0


class _Search:
    def __init__(self, lo, hi, f, batch, target):
        d = lo.size
        idx = np.arange(d)
        flo, fhi = f(lo, idx), f(hi, idx)
        delta = hi - lo
        self.order = np.argsort(-((fhi - flo) / delta), kind="stable")
        o = self.order
        self.lo, self.delta, self.idx = lo[o], delta[o], idx[o]
        self.flo, self.v = flo[o], (fhi - flo)[o]
        self.key = self.v / self.delta
        self.f, self.batch, self.d = f, batch, d
        self.R = 1.0 - float(lo.sum())
        self.base = float(flo.sum())
        self.tol = 1e-15 * max(1.0, self.R)
        self.slack = BNB_SLACK * max(1.0, float(np.abs(flo).sum()), float(np.abs(fhi).sum()))
        self.best, self.pruned, self.nodes = -math.inf, -math.inf, 0
        self.target = target
        self.cands: list[tuple[float, np.ndarray]] = []
        self.cut = settings.tolerance("reduced_cost")

    def g(self, k, r):
        """f_k(lo_k + r) − f_k(lo_k) for sorted item k."""
        return self.f(self.lo[k] + r, self.idx[k]) - self.flo[k]

    def point(self, z, k=None, r=0.0):
        p = self.lo + self.delta * z
        if k is not None:
            p[k] = self.lo[k] + r
        out = np.empty(self.d)
        out[self.order] = p
        return out

    def record(self, val, z, k=None, r=0.0):
        self.best = max(self.best, val)
        if val > self.cut:
            self.cands.append((val, self.point(z, k, r)))
            if len(self.cands) > 4 * self.batch:
                self.cands.sort(key=lambda c: -c[0])
                del self.cands[self.batch :]
                self.cut = max(self.cut, self.cands[-1][0])

    def close(self, ub) -> bool:
        """Whether a node with bound ``ub`` is done (pruned or solved); keeps the proven excess."""
        if ub <= max(self.best, self.target) + self.slack:
            self.pruned = max(self.pruned, ub)
            return True
        return False

    def expand(self, status, j):
        F = status == 0
        inI = status == _FIX_HI
        Rp = self.R - float(self.delta[inI].sum())
        const = self.base + float(self.v[inI].sum())
        cW = np.concatenate([[0.0], np.cumsum(np.where(F, self.delta, 0.0))])
        cV = np.concatenate([[0.0], np.cumsum(np.where(F, self.v, 0.0))])
        ar = np.arange(self.d)
        return (self._undesignated if j < 0 else self._designated)(status, j, F, inI, Rp, const, cW, cV, ar)

    def _undesignated(self, status, j, F, inI, Rp, const, cW, cV, ar):
        if Rp < -self.tol or Rp > cW[-1] + self.tol:
            return -math.inf, []
        if Rp >= cW[-1] - self.tol:  # every free item at hi: a vertex, solved
            val = const + cV[-1]
            self.record(val, (inI | F).astype(float))
            self.close(val)
            return val, []
        k = min(int(np.searchsorted(cW, max(Rp, 0.0), side="right")) - 1, self.d - 1)
        r = max(Rp, 0.0) - cW[k]
        z = (inI | (F & (ar < k))).astype(float)
        ub = const + cV[k] + r * self.key[k]
        self.record(const + cV[k] + float(self.g(k, r)), z, k, r)
        if self.close(ub) or r <= self.tol or r >= self.delta[k] - self.tol:
            self.pruned = max(self.pruned, ub)  # solved: ub is a vertex's value (to rounding)
            return ub, []
        kids = []
        for s in (_FREE, _FIX_LO, _FIX_HI) if r < 0.5 * self.delta[k] else (_FREE, _FIX_HI, _FIX_LO):
            c = status.copy()
            c[k] = s
            kids.append((c, k if s == _FREE else -1))
        return ub, kids

    def _designated(self, status, j, F, inI, Rp, const, cW, cV, ar):
        dj = self.delta[j]
        Wlo, Whi = max(Rp - dj, 0.0), min(Rp, cW[-1])
        if Wlo > Whi + self.tol:
            return -math.inf, []
        inside = np.flatnonzero((cW >= Wlo - self.tol) & (cW <= Whi + self.tol))
        bvals = const + cV[inside] + self.g(j, np.clip(Rp - cW[inside], 0.0, dj))
        ub, frac = -math.inf, None
        if inside.size:
            b = int(np.argmax(bvals))
            ub = float(bvals[b])
            for t in np.flatnonzero(bvals > self.cut)[: self.batch].tolist() + [b]:
                k = int(inside[t])
                self.record(float(bvals[t]), (inI | (F & (ar < k))).astype(float), j, min(max(Rp - cW[k], 0.0), dj))
        for W in (Wlo, Whi):
            k = min(int(np.searchsorted(cW, W, side="right")) - 1, self.d - 1)
            w = W - cW[k]
            if w <= self.tol or not F[k]:
                continue
            r = min(max(Rp - W, 0.0), dj)
            val = const + cV[k] + w * self.key[k] + float(self.g(j, r))
            z = (inI | (F & (ar < k))).astype(float)
            z[k] = w / self.delta[k]
            self.record(const + cV[k] + float(self.g(k, w)) + float(self.g(j, r)), z, j, r)
            if val > ub:
                ub, frac = val, k
        if self.close(ub) or frac is None:
            self.pruned = max(self.pruned, ub)
            return ub, []
        kids = []
        for s in (_FIX_LO, _FIX_HI):
            c = status.copy()
            c[frac] = s
            kids.append((c, j))
        return ub, kids


def separable_bnb(
    lo: np.ndarray,
    hi: np.ndarray,
    f,
    batch: int,
    deadline: float | None = None,
    *,
    target: float = -math.inf,
    early: bool | float = False,
    max_nodes: int | None = None,
) -> BnBOut:
    """Exact max of Σ_x f(p_x, x) over the vertices of {lo ≤ p ≤ hi, 1ᵀp = 1} (module docstring).

    ``f(p, idx)`` evaluates f_x elementwise (convex in p). Nodes whose bound is at
    most max(incumbent, ``target``) are pruned, so the bound returned is ≥ max_B F
    and ≤ max(max_B F, target) + slack (``target = -inf``: the exact maximum).
    With ``early`` the search stops once ``batch`` vertices above the
    ``reduced_cost`` tolerance are found (or one, after 8d nodes), and the bound
    is the largest bound of the open nodes; ``early`` = ρ ∈ (0, 1] (a float)
    also waits until the best vertex is at least ρ times that bound. Returns the bound (None when the
    deadline or ``max_nodes`` (a work budget: the same stop on every machine) interrupted the search), up to
    ``batch`` best vertices found (best first) and the node count.
    """
    s = _Search(np.asarray(lo, float), np.asarray(hi, float), f, batch, target)
    stack = []
    for j in range(s.d - 1, -1, -1):  # one designated root per free coordinate (all vertices)
        st = np.zeros(s.d, np.int8)
        st[j] = _FREE
        stack.append((math.inf, st, j))
    while stack:
        if passed(deadline) or (max_nodes is not None and s.nodes >= max_nodes):
            return BnBOut(None, _best(s, batch), s.nodes)
        if early and (len(s.cands) >= batch or (s.cands and s.nodes >= 8 * s.d)):
            top = max(u for u, _, _ in stack)
            if early is True or s.best >= float(early) * top:
                return BnBOut(max(s.best, s.pruned, top), _best(s, batch), s.nodes)
        _, status, j = stack.pop()
        s.nodes += 1
        ub, kids = s.expand(status, j)
        stack += [(ub, c, jj) for c, jj in kids]
    return BnBOut(max(s.best, s.pruned), _best(s, batch), s.nodes)


def _best(s: _Search, batch: int) -> list:
    s.cands.sort(key=lambda c: -c[0])
    return [p for _, p in s.cands[:batch]]
