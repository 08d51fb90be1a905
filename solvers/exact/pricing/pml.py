"""Exact pricing over the vertices of an ε-PML posterior box {0 ≤ p ≤ h, 1ᵀp = 1} for a separable gain.

A vertex puts h_x on a set S, a free value v = 1 − h(S) ∈ [0, h_j] on one coordinate j ∉ S and 0
elsewhere. With f_x convex and f_x(0) = 0 (histogram p², mutual information p log p / P_u, minus
ν_x p), its reduced cost is Σ_{x∈S} g_x + f_j(1 − W), g_x = f_x(h_x), W = h(S). For each j this is
a 0/1 knapsack with a window 1 − h_j ≤ W ≤ 1 and a convex term in W. On a window [a, b] of W the
convex term lies below its chord (exact at both ends), so

    max_S rc ≤ max_S Σ_S (g_x − s h_x) + const,   a ≤ h(S) ≤ b,

a knapsack solved by HiGHS (``scipy.optimize.milp``, its proven dual bound) after the fractional
(LP) bound — a greedy fill — says it can beat the incumbent. The true reduced cost of the
knapsack's S is a vertex's; a window whose bound exceeds it by more than the target is split at
that S's W. Nodes whose bound is at most max(incumbent, target) are closed, so the bound returned
is ≥ the maximum over the vertices and ≤ max(maximum, target) + the solver's tolerance, as for
:func:`~mechopt.solvers.exact.pricing.bnb.separable_bnb`, whose interface this follows.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.pricing.bnb import separable_bnb
>>> h = np.minimum(np.e * np.array([0.1, 0.2, 0.3, 0.4]), 1.0)
>>> f = lambda p, idx: p * p - 0.1 * p
>>> a = pml_max(np.zeros(4), h, f, 4).bound
>>> b = separable_bnb(np.zeros(4), h, f, 4).bound
>>> bool(abs(a - b) < 1e-9)
True
"""

from __future__ import annotations

import heapq
import math
import time

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from mechopt.solvers.exact.pricing.bnb import BnBOut

__all__ = ["pml_max"]

#: Splits of one free coordinate's window before its bound is taken as it stands (never reached in tests).
MAX_SPLITS = 200


def _lp_bound(c: np.ndarray, w: np.ndarray, a: float, b: float) -> float:
    """max cᵀz over z ∈ [0, 1]^n with a ≤ wᵀz ≤ b (w > 0), by the greedy fill in the order of c / w."""
    order = np.argsort(-c / w, kind="stable")
    total, W = 0.0, 0.0
    for k in order:
        if c[k] <= 0 and W >= a:
            break
        room = (b if c[k] > 0 else a) - W
        if room <= 0:
            break
        t = min(1.0, room / w[k])
        total += t * c[k]
        W += t * w[k]
    return total if W >= a - 1e-12 else -math.inf


def _knapsack(c: np.ndarray, w: np.ndarray, a: float, b: float) -> tuple[float, np.ndarray | None]:
    """(proven upper bound, best z) of max cᵀz, z ∈ {0, 1}^n, a ≤ wᵀz ≤ b (HiGHS, zero gap)."""
    if c.size == 0:
        return (0.0, np.zeros(0)) if a <= 0 <= b else (-math.inf, None)
    res = milp(
        -c,
        constraints=LinearConstraint(w[None, :], a, b),
        integrality=np.ones(c.size),
        bounds=Bounds(0, 1),
        options={"mip_rel_gap": 0.0},
    )
    if res.x is None:
        return (-math.inf, None) if res.status == 2 else (_lp_bound(c, w, a, b), None)
    dual = getattr(res, "mip_dual_bound", None)
    bound = -float(dual) if dual is not None and math.isfinite(dual) else float(c @ np.round(res.x))
    return max(bound, float(c @ np.round(res.x))), np.round(res.x).astype(bool)


def pml_max(
    lo: np.ndarray,
    hi: np.ndarray,
    f,
    batch: int,
    deadline: float | None = None,
    *,
    target: float = -math.inf,
    early: bool | float = False,
) -> BnBOut:
    """Max of Σ_x f(p_x, x) over the vertices of {0 ≤ p ≤ hi, 1ᵀp = 1} (module docstring); ``lo`` must be 0.

    ``early`` is accepted for the interface and ignored (every call proves its bound).
    """
    h = np.asarray(hi, float)
    if np.any(np.asarray(lo) != 0):
        raise ValueError("pml_max prices boxes with lower bound 0 (ε-PML)")
    d = h.size
    g = np.asarray(f(h, np.arange(d)), float)
    best, cands, nodes, closed = -math.inf, [], 0, -math.inf
    heap: list = []

    def fj(j: int, v: float) -> float:
        return float(f(np.array([v]), np.array([j]))[0])

    def chord(j: int, a: float, b: float) -> tuple[np.ndarray, np.ndarray, float]:
        """(others, their knapsack values, constant): the chord of f_j over the window [a, b] of W."""
        others = np.delete(np.arange(d), j)
        v1, v2 = 1.0 - b, 1.0 - a  # the free value's range
        f1, f2 = fj(j, v1), fj(j, v2)
        s = (f2 - f1) / (v2 - v1) if v2 > v1 else 0.0  # the term is f1 + s (v − v1), v = 1 − W
        return others, g[others] - s * h[others], f1 + s * (1.0 - v1)

    def open_node(j: int, a: float, b: float, splits: int) -> None:
        """Queue the window [a, b] of free coordinate j under its fractional (LP) bound."""
        nonlocal closed
        others, c, const = chord(j, a, b)
        lp = _lp_bound(c, h[others], a, b) + const
        if lp <= max(best, target):
            closed = max(closed, lp)  # the node's own bound: at most max(incumbent, target)
        else:
            heapq.heappush(heap, (-lp, j, a, b, splits, None, False))

    def solve_node(j: int, a: float, b: float, splits: int) -> None:
        """The knapsack of the window: a vertex for the incumbent, and the node back under its proven bound."""
        nonlocal nodes, best, closed
        nodes += 1
        others, c, const = chord(j, a, b)
        ub, z = _knapsack(c, h[others], a, b)
        ub += const
        W = None
        if z is not None:
            S = others[z]
            W = float(h[S].sum())
            v = 1.0 - W
            if -1e-12 <= v <= h[j] + 1e-12:
                p = np.zeros(d)
                p[S] = h[S]
                p[j] = min(max(v, 0.0), h[j])
                rc = float(g[S].sum() + fj(j, p[j]))
                cands.append((rc, p))
                best = max(best, rc)
        if ub <= max(best, target) or splits >= MAX_SPLITS or b - a <= 1e-15:
            closed = max(closed, ub)
        else:
            heapq.heappush(heap, (-ub, j, a, b, splits, W, True))

    for j in range(d):
        if h[j] >= 1.0:  # δ_j alone
            p = np.zeros(d)
            p[j] = 1.0
            cands.append((float(g[j]), p))
            best = max(best, float(g[j]))
        open_node(j, max(0.0, 1.0 - h[j]), 1.0, 0)
    while heap:
        if deadline is not None and time.perf_counter() > deadline:
            return BnBOut(None, _top(cands, batch), nodes)
        neg, j, a, b, splits, W, solved = heapq.heappop(heap)
        if -neg <= max(best, target):
            closed = max(closed, -neg)
            continue
        if not solved:
            solve_node(j, a, b, splits)
            continue
        mid = W if W is not None and a + 1e-12 < W < b - 1e-12 else 0.5 * (a + b)
        open_node(j, a, mid, splits + 1)
        open_node(j, mid, b, splits + 1)
    return BnBOut(max(best, closed), _top(cands, batch), nodes)


def _top(cands: list, batch: int) -> list:
    cands.sort(key=lambda c: -c[0])
    return [p for _, p in cands[:batch]]
