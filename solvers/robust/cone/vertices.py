"""Local search over the two-level columns of the posterior-box cone of a prior set (heuristic pricing, no bound).

The cone is K = {q ≥ 0 : lo·t_i ≤ q_x ≤ hi·t_i for every vertex i and row x}, t_i = P_i·q (lo = 0 under PML),
so every q_x lies in [L, U] with L = lo·max_i t_i, U = hi·min_i t_i. Its rays are mostly *two-level*: every
coordinate at U (a set A) or at L (the rest, B) but one free coordinate f, with a prior i at the minimum
(U = hi·t_i) and a prior j at the maximum (L = lo·t_j; PML: L = 0). Given (A, f, i, j), the normalisation
P̄·q = 1 and those two equalities are three linear equations in (U, L, q_f); the solution is a column of K
when L ≤ q_f ≤ U and every t_m lies in [U/hi, L/lo] (checked; a column of K is a valid column of the master
whether or not it is extreme).

:func:`vertex_search` climbs from start columns by the best of the moves "x changes level" (A ↔ B), "x
becomes the free coordinate (f takes x's level)" and any binding pair (i, j), each evaluated exactly (ρ of
the new column), until no move improves: the analogue of the 1-flip and swap search of the LDP patterns
(:mod:`mechopt.solvers.robust.search`). A heuristic: what it finds is a column, never a bound.

Examples
--------
>>> V = np.random.default_rng(0).dirichlet(np.ones(6), size=3)
>>> lo, hi = np.exp(-1.0), np.e
>>> lam, mu = np.full(3, 1 / 3), np.zeros(6)
>>> Q = vertex_search(V, lo, hi, lam, mu, np.ones((6, 1)))
>>> t = V @ Q
>>> bool(np.all(Q <= hi * t.min(axis=0) * (1 + 1e-9)) and np.all(Q >= lo * t.max(axis=0) * (1 - 1e-9)))
True
>>> bool(np.allclose(V.mean(axis=0) @ Q, 1.0))
True
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

__all__ = ["vertex_search", "two_level", "admissible", "rho"]

#: Rounds of moves per start (each takes the best improving move).
STEPS = 64
#: Relative tolerance of the cone's rows on a solved column (round-off of the 3 × 3 solve).
FEAS = 1e-9


def rho(V: np.ndarray, lam: np.ndarray, mu: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """ρ(q) = Σ_i λ_i f_i(q) − μᵀq of columns Q (n × m), f_i the mutual-information gain at prior i."""
    T = V @ Q
    return (lam @ V) @ xlogy(Q, Q) - mu @ Q - lam @ xlogy(T, T)


def two_level(V: np.ndarray, lo: float, hi: float, A: np.ndarray, f: np.ndarray, i: np.ndarray, j: np.ndarray):
    """Columns (n × m) of the states (A (m × n, bool: at U), f (free coordinate), i (prior at the minimum), j (at
    the maximum)) and a mask of those that are columns of K (module docstring); others hold zeros."""
    m, n = A.shape
    A = A.copy()
    A[np.arange(m), f] = False
    B = ~A
    B[np.arange(m), f] = False
    Pbar = V.mean(axis=0)
    Vi, Vj = V[i], V[j]  # (m, n)
    M = np.zeros((m, 3, 3))
    M[:, 0] = np.stack([(A * Pbar).sum(1), (B * Pbar).sum(1), Pbar[f]], axis=1)
    M[:, 1] = np.stack([(A * Vi).sum(1) - 1.0 / hi, (B * Vi).sum(1), Vi[np.arange(m), f]], axis=1)
    M[:, 2] = np.stack([lo * (A * Vj).sum(1), lo * (B * Vj).sum(1) - 1.0, lo * Vj[np.arange(m), f]], axis=1)
    rhs = np.zeros((m, 3))
    rhs[:, 0] = 1.0
    det = np.linalg.det(M)
    ok = np.abs(det) > 1e-14
    sol = np.zeros((m, 3))
    if ok.any():
        sol[ok] = np.linalg.solve(M[ok], rhs[ok][:, :, None])[:, :, 0]
    U, L, qf = sol.T
    tol = FEAS * np.abs(U)
    ok &= np.isfinite(sol).all(axis=1) & (L >= -tol) & (qf >= L - tol) & (qf <= U + tol) & (U > 0)
    L, qf = np.maximum(L, 0.0), np.maximum(qf, 0.0)  # PML's L = 0 solved to a few ulp either side
    Q = (A * U[:, None] + B * L[:, None]).T
    Q[f, np.arange(m)] = qf
    ok &= admissible(V, lo, hi, Q)
    return np.where(ok[None, :], Q, 0.0), ok


def admissible(V: np.ndarray, lo: float, hi: float, Q: np.ndarray) -> np.ndarray:
    """Which columns of Q (n × m) satisfy every row lo·t_i ≤ q_x ≤ hi·t_i of K (to a relative FEAS)."""
    T = V @ Q
    return np.all(Q <= hi * T.min(axis=0) * (1 + FEAS), axis=0) & np.all(Q >= lo * T.max(axis=0) * (1 - FEAS), axis=0)


def _state(V: np.ndarray, lo: float, hi: float, q: np.ndarray):
    """(A, f, i, j) of a column q: i, j its priors at the minimum and maximum, A its coordinates nearer U than L,
    f the coordinate farthest from both levels."""
    t = V @ q
    i, j = int(np.argmin(t)), int(np.argmax(t))
    U, L = hi * t[i], lo * t[j]
    off = np.minimum(np.abs(q - U), np.abs(q - L))
    return np.abs(q - U) < np.abs(q - L), int(np.argmax(off)), i, j


def _pairs(k: int, lo: float) -> np.ndarray:
    """The (i, j) pairs of priors at the minimum and maximum (PML, lo = 0: j is moot, one pair per i)."""
    return np.array([(a, b) for a in range(k) for b in (range(k) if lo > 0 else [0])])


def _moves(A: np.ndarray, f: int, pairs: np.ndarray):
    """The states one move from (A, f) (module docstring), each with every pair: (A, f, i, j) arrays."""
    n = A.size
    cand = []
    for x in range(n):  # x changes level; x becomes free (f takes x's level)
        a = A.copy()
        a[x] = ~a[x]
        cand.append((a, f))
        if x != f:
            a = A.copy()
            a[f] = A[x]
            cand.append((a, x))
    cA = np.repeat(np.array([c[0] for c in cand]), len(pairs), axis=0)
    cf = np.repeat(np.array([c[1] for c in cand]), len(pairs))
    return cA, cf, np.tile(pairs[:, 0], len(cand)), np.tile(pairs[:, 1], len(cand))


def vertex_search(V: np.ndarray, lo: float, hi: float, lam: np.ndarray, mu: np.ndarray, starts: np.ndarray,
                  steps: int = STEPS, score=None) -> np.ndarray:  # fmt: skip
    """The local maxima of ρ (columns of K, normalised P̄·q = 1) reached from each start column (n × s) by the
    moves of the module docstring; a start that is not two-level is first rounded to its nearest state.
    ``score`` (columns → their ρ) prices another gain than mutual information (the histogram's)."""
    V = np.asarray(V, float)
    if score is None:
        score = lambda Q: rho(V, lam, mu, Q)  # noqa: E731
    k, n = V.shape
    pairs = _pairs(k, lo)
    out = []
    for q0 in np.asarray(starts, float).T:
        A, f, i, j = _state(V, lo, hi, q0)
        Q, ok = two_level(V, lo, hi, A[None], np.array([f]), np.array([i]), np.array([j]))
        val = float(score(Q)[0]) if ok[0] else -np.inf
        for _ in range(steps):
            cA, cf, ci, cj = _moves(A, f, pairs)
            Q, ok = two_level(V, lo, hi, cA, cf, ci, cj)
            r = np.where(ok, score(Q), -np.inf)
            b = int(np.argmax(r))
            if r[b] <= val + 1e-15 * max(1.0, abs(val)):
                break
            A, f, i, j, val = cA[b], int(cf[b]), int(ci[b]), int(cj[b]), float(r[b])
        if np.isfinite(val):
            Q, _ = two_level(V, lo, hi, A[None], np.array([f]), np.array([i]), np.array([j]))
            out.append(Q[:, 0])
    return np.array(out).T if out else np.zeros((n, 0))
