"""The robust LP over a prior ball held by its inequalities: each min or max over the ball by its LP dual.

For a :class:`~mechopt.problems.robust.ballset.BallSet` S and a vector q linear in the LP's variables,
``m ≤ min_{P∈S} P·q`` holds exactly when some dual point z (a few variables) satisfies linear
constraints with ``m ≤ g(q, z)`` (strong LP duality; S is non-empty and bounded):

- TV ball (centre c, radius r; P = c − a + b, 0 ≤ a ≤ c, 1ᵀa = 1ᵀb ≤ r):
  g = c·q − r β − c·γ over α ≤ q_x, γ_x ≥ q_x − α − β, β, γ ≥ 0 (d + 2 variables, 2d rows);
- L∞ ball (bounds l ≤ P ≤ u, 1ᵀP = 1): g = α + l·s − u·w over α + s_x − w_x = q_x, s, w ≥ 0 (2d + 1, d rows).

So privacy at every prior of S (q_x ≤ hi · min_P P·q_y; q_x ≥ lo · max_P P·q_y = −lo · min_P P·(−q_y)) and
the epigraph t ≥ max_P P·ℓ(Q) = −min_P P·(−ℓ) are linear, with no vertex list. Every input q here lies in
[−1, 1]^d (Q ∈ [0, 1], the loss scaled to max |L| = 1 and rows of Q summing to 1), and then an optimal z
lies in the box α ∈ [−1, 1], β, γ, s, w ∈ [0, 2] (α* = min q for TV, a breakpoint q_x for L∞; the rest are
positive parts of differences of entries): those boxes keep the optimum and let
:func:`mechopt.solvers.robust.lp.dual_bound` bound every variable, so the certificate stays rigorous.

Examples
--------
>>> from mechopt.problems.robust.ballset import BallSet
>>> B = BallSet(np.array([0.5, 0.3, 0.2]), 0.1, "tv")
>>> lp = build_ball_lp(B, np.array([[0.0, 1.0], [1.0, 0.0], [0.5, 0.5]]), B.support, (0.0, 2.0), None)
>>> lp["A_ub"].shape[1] == 3 * 2 + 3 * (3 + 2) + 1, lp["t_box"]
(True, (0.0, 1.0))
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["build_ball_lp", "inner_priors", "ldp_rows"]

#: The box of each dual variable (see the module docstring): α, then the rest.
_ALPHA, _REST = (-1.0, 1.0), (0.0, 2.0)


def build_ball_lp(B: Any, L: np.ndarray, rows: np.ndarray, factors: Any, ldp_eps: Any) -> dict[str, Any]:
    """The LP in scipy's form, as :func:`mechopt.solvers.robust.lp.build_lp` (variables vec(Q), then the
    LDP envelope or the dual blocks, then t), for the ball ``B`` and the loss ``L`` (max |L| = 1)."""
    n, m = L.shape
    N = n * m
    cols: list[tuple[float, float]] = [(0.0, 1.0)] * N
    ub: list[sp.csr_matrix] = []
    eq: list[sp.csr_matrix] = []
    if factors is None:  # LDP is prior-free: its envelope rows; the ball enters through the loss only
        ub.append(ldp_rows(n, m, ldp_eps))
        cols += [(0.0, 1.0)] * m
    qcol = [_select(n, m, y) for y in range(m)]  # q_y = Q[:, y] as a map from vec(Q)
    loss = sp.csr_matrix((L.ravel(), (np.repeat(np.arange(n), m), np.arange(N))), shape=(n, N))  # ℓ(Q)
    blocks = []  # (input map on vec(Q), sign of the rows it serves, rows)
    if factors is not None:
        lo, hi = factors
        R = np.flatnonzero(rows)
        for y in range(m):
            blocks.append((qcol[y], ("upper", hi, R, y)))
            if lo > 0:
                blocks.append((-qcol[y], ("lower", lo, R, y)))
    blocks.append((-loss, ("loss", 1.0, None, None)))
    g_rows, specs, layout = [], [], []
    n_ub, n_eq = sum(A.shape[0] for A in ub), n  # rows so far (the row sums are the first equality rows)
    for Aq, spec in blocks:
        start = len(cols)
        u, e, g, bounds = _block(B, Aq, start)
        layout.append({"ub": n_ub, "eq": n_eq})  # where this block's rows start: TV 2d ≤ rows, L∞ d = rows
        n_ub, n_eq = n_ub + sum(A.shape[0] for A in u), n_eq + sum(A.shape[0] for A in e)
        ub += u
        eq += e
        cols += bounds
        g_rows.append(g)
        specs.append(spec)
    total = len(cols) + 1  # t last
    ub = [_pad(A, total) for A in ub]
    eq = [_pad(A, total) for A in eq]
    for g, (kind, f, R, y), at in zip(g_rows, specs, layout):
        g = _pad(g, total)
        at["use"], at["f"] = (n_ub, 1 if kind == "loss" else R.size), f  # the rows where g enters, times f
        n_ub += at["use"][1]
        if kind == "loss":  # −g − t ≤ 0
            ub.append(-g - sp.csr_matrix(([1.0], ([0], [total - 1])), shape=(1, total)))
            continue
        sign = 1.0 if kind == "upper" else -1.0  # upper: q_x − hi·g ≤ 0; lower: −q_x − lo·g' ≤ 0
        Qx = sp.csr_matrix((np.full(R.size, sign), (np.arange(R.size), R * m + y)), shape=(R.size, total))
        ub.append(Qx - f * sp.vstack([g] * R.size))
    A_eq = sp.vstack([_pad(sp.kron(sp.eye(n), np.ones((1, m))), total)] + eq).tocsr()
    b_eq = np.r_[np.ones(n), np.zeros(A_eq.shape[0] - n)]
    A_ub = sp.vstack(ub).tocsr()
    c = np.zeros(total)
    c[-1] = 1.0
    t_box = (float(L.min(axis=1).min()), float(L.max(axis=1).max()))  # t* = max_P P·ℓ, ℓ_x in [min L_x, max L_x]
    return {"c": c, "A_ub": A_ub, "b_ub": np.zeros(A_ub.shape[0]), "A_eq": A_eq, "b_eq": b_eq,
            "bounds": cols + [(None, None)], "t_box": t_box, "layout": layout}  # fmt: skip


def inner_priors(B: Any, lp: dict[str, Any], y_ub: Any, y_eq: Any) -> np.ndarray:
    """The priors of the ball that the LP's duals put behind each block (the inner minimisers, by LP duality): with
    θ = Σ |duals of the rows where its g enters| × their factor, TV P = c − a/θ + b/θ (a, b the duals of its two row
    sets), L∞ P = |duals of its equality rows| / θ. Rounded to the ball's simplex; a block without weight gives none.
    They are a start for the witness (:mod:`mechopt.solvers.robust.witness`), which checks what they prove."""
    yu, ye = np.abs(np.asarray(y_ub, float)), np.abs(np.asarray(y_eq, float))
    d, out = B.d, []
    for at in lp["layout"]:
        i, k = at["use"]
        theta = float(yu[i : i + k].sum()) * at["f"]
        if not theta > 0:
            continue
        if B.kind == "tv":
            a, b = yu[at["ub"] : at["ub"] + d], yu[at["ub"] + d : at["ub"] + 2 * d]
            P = B.center - a / theta + b / theta
        else:
            P = ye[at["eq"] : at["eq"] + d] / theta
        P = np.clip(P, 0.0, None)
        if P.sum() > 0:
            out.append(P / P.sum())
    return np.array(out).reshape(-1, d)


def _select(n: int, m: int, y: int) -> sp.csr_matrix:
    """The map vec(Q) -> Q[:, y] (n × n·m)."""
    return sp.csr_matrix((np.ones(n), (np.arange(n), np.arange(n) * m + y)), shape=(n, n * m))


def _pad(A: Any, total: int) -> sp.csr_matrix:
    """A with zero columns appended up to ``total``."""
    A = sp.csr_matrix(A)
    return sp.hstack([A, sp.csr_matrix((A.shape[0], total - A.shape[1]))]).tocsr()


def _block(B: Any, Aq: sp.csr_matrix, start: int):
    """(≤ rows, = rows, the row g, the variables' boxes) of the dual of min_{P∈B} P·q, q = Aq·x, its variables
    from column ``start``; rows are as wide as they need be (padded later)."""
    d = B.d
    Aq = sp.csr_matrix(Aq)
    width = start + (d + 2 if B.kind == "tv" else 2 * d + 1)
    Aq = _pad(Aq, width)
    I = np.arange(d)

    def unit(cols, vals, nrows=d):
        return sp.csr_matrix((vals, (np.arange(len(cols)) if nrows == d else np.zeros(len(cols), int), cols)),
                             shape=(nrows, width))  # fmt: skip

    a = start
    if B.kind == "tv":
        b, G = start + 1, start + 2 + I
        first = Aq - unit(np.full(d, a), np.ones(d)) - unit(np.full(d, b), np.ones(d)) - unit(G, np.ones(d))
        second = unit(np.full(d, a), np.ones(d)) - Aq  # α ≤ q_x
        c = B.center
        g = sp.csr_matrix(c @ Aq) - unit([b], [B.radius], 1) - unit(G, c, 1)
        return [first, second], [], g, [_ALPHA, _REST] + [_REST] * d
    lo, hi = B.box
    S, W = start + 1 + I, start + 1 + d + I
    rows_eq = unit(np.full(d, a), np.ones(d)) + unit(S, np.ones(d)) - unit(W, np.ones(d)) - Aq
    g = unit([a], [1.0], 1) + unit(S, lo, 1) - unit(W, hi, 1)
    return [], [rows_eq], g, [_ALPHA] + [_REST] * (2 * d)


def ldp_rows(n: int, m: int, eps: float) -> sp.csr_matrix:
    """With an envelope variable w_y per output: w_y − Q[x, y] ≤ 0 and Q[x, y] − e^ε w_y ≤ 0 (2·n·m rows).

    max_x Q[x, y] ≤ e^ε min_x Q[x, y] holds exactly when some w_y lies between them; columns (Q, w).
    """
    r = np.arange(n * m)
    y = np.tile(np.arange(m), n)
    low = sp.csr_matrix((np.r_[-np.ones(r.size), np.ones(r.size)], (np.r_[r, r], np.r_[r, n * m + y])),
                        shape=(r.size, n * m + m))  # fmt: skip
    up = sp.csr_matrix((np.r_[np.ones(r.size), np.full(r.size, -math.exp(eps))], (np.r_[r, r], np.r_[r, n * m + y])),
                       shape=(r.size, n * m + m))  # fmt: skip
    return sp.vstack([low, up]).tocsr()
