"""Local search over the multi-level columns of the posterior-box cone of a prior set (heuristic pricing, no bound).

The two-level columns of :mod:`~mechopt.solvers.robust.cone.vertices` have one free coordinate and one prior at
each of the extremes of t_i = P_i·q. The columns that the branch and bound of
:mod:`~mechopt.solvers.robust.cone.box` found late in a column generation (LIP, d = 24, 3 priors) had several
priors at the minimum: t_1 = t_2 = t_3 with three free coordinates, or two priors tied with two free ones; the
two-level search cannot reach them. Here a state is (A, F, I, J): the coordinates at U = hi·min t (A), the free ones
F, the priors at the minimum (I, U = hi·t_i for each) and at the maximum (J, L = lo·t_j; PML: L = 0, one j), the rest
at L, with |F| = |I| + |J| − 1, so that with P̄·q = 1 the |F| + 2 unknowns (U, L, q_F) solve a square system; the
solution is a column of K when L ≤ q_F ≤ U and every row of K holds (checked).

:func:`face_search` climbs by the best of: x changes level, x swaps with a free coordinate, a prior joins I or J with
a coordinate freed, a prior leaves I or J with a free coordinate put at a level; each move's column is solved and
ρ evaluated exactly. A heuristic: what it finds is a column, never a bound.

Examples
--------
>>> V = np.random.default_rng(0).dirichlet(np.ones(6), size=3)
>>> lo, hi = np.exp(-1.0), np.e
>>> Q = face_search(V, lo, hi, np.full(3, 1 / 3), np.zeros(6), np.ones((6, 1)))
>>> bool(np.all(admissible(V, lo, hi, Q)) and np.allclose(V.mean(axis=0) @ Q, 1.0))
True
"""

from __future__ import annotations

import numpy as np

from mechopt.solvers.robust.cone.vertices import FEAS, _state, admissible, rho

__all__ = ["face_search", "solve_states"]

#: Rounds of moves per start.
STEPS = 32


def solve_states(V: np.ndarray, lo: float, hi: float, states: list) -> tuple[np.ndarray, np.ndarray]:
    """Columns (n × m) of the states (A (bool n), F, I, J: tuples of indices, |F| = |I| + |J| − 1) and a mask of
    those that are columns of K (module docstring); others hold zeros."""
    k, n = V.shape
    Pbar = V.mean(axis=0)
    Q, ok = np.zeros((n, len(states))), np.zeros(len(states), bool)
    groups: dict[tuple, list] = {}
    for s, (_, F, I, J) in enumerate(states):
        groups.setdefault((len(F), len(I), len(J)), []).append(s)
    for (nf, _, _), idx in groups.items():
        A = np.array([states[s][0] for s in idx])
        F = np.array([states[s][1] for s in idx]).reshape(len(idx), nf)
        I = np.array([states[s][2] for s in idx])
        J = np.array([states[s][3] for s in idx])
        freeF = np.zeros_like(A)
        np.put_along_axis(freeF, F, True, axis=1)
        A = A & ~freeF
        B = ~A & ~freeF
        m = len(idx)
        M = np.zeros((m, nf + 2, nf + 2))
        M[:, 0] = np.c_[(A * Pbar).sum(1), (B * Pbar).sum(1), Pbar[F]]
        r = 1
        for c in range(I.shape[1]):
            Vi = V[I[:, c]]
            M[:, r] = np.c_[(A * Vi).sum(1) - 1.0 / hi, (B * Vi).sum(1), np.take_along_axis(Vi, F, 1)]
            r += 1
        for c in range(J.shape[1]):
            Vj = V[J[:, c]]
            M[:, r] = np.c_[lo * (A * Vj).sum(1), lo * (B * Vj).sum(1) - 1.0, lo * np.take_along_axis(Vj, F, 1)]
            r += 1
        rhs = np.zeros((m, nf + 2))
        rhs[:, 0] = 1.0
        good = np.abs(np.linalg.det(M)) > 1e-14
        sol = np.zeros((m, nf + 2))
        if good.any():
            sol[good] = np.linalg.solve(M[good], rhs[good][:, :, None])[:, :, 0]
        U, L, qF = sol[:, 0], sol[:, 1], sol[:, 2:]
        tol = FEAS * np.abs(U)
        good &= np.isfinite(sol).all(1) & (U > 0) & (L >= -tol)
        good &= np.all((qF >= L[:, None] - tol[:, None]) & (qF <= U[:, None] + tol[:, None]), axis=1)
        X = A * U[:, None] + B * np.maximum(L, 0.0)[:, None]
        np.put_along_axis(X, F, np.maximum(qF, 0.0), axis=1)
        Q[:, idx] = X.T
        ok[idx] = good
    ok &= admissible(V, lo, hi, Q)
    return np.where(ok[None, :], Q, 0.0), ok


def _moves(state, k: int, pml: bool) -> list:
    """The states one move from ``state`` (module docstring)."""
    A, F, I, J = state
    n, out = A.size, []
    Fs = set(F)
    for x in range(n):
        if x in Fs:
            continue
        a = A.copy()
        a[x] = ~a[x]
        out.append((a, F, I, J))  # x changes level
        for y in F:  # x swaps with the free y (y takes x's level)
            a = A.copy()
            a[y] = A[x]
            out.append((a, tuple(sorted(Fs - {y} | {x})), I, J))
        F2 = tuple(sorted(Fs | {x}))
        for p in range(k):  # a prior joins I (or J) and x is freed
            if p not in I and p not in J:
                out.append((A, F2, tuple(sorted(I + (p,))), J))
                if not pml:
                    out.append((A, F2, I, tuple(sorted(J + (p,)))))
    if len(F) > 1:  # a prior leaves I or J, a free y goes to a level
        for y in F:
            F2 = tuple(sorted(Fs - {y}))
            for lvl in (True, False):
                a = A.copy()
                a[y] = lvl
                for p in I if len(I) > 1 else ():
                    out.append((a, F2, tuple(c for c in I if c != p), J))
                for p in J if len(J) > 1 else ():
                    out.append((a, F2, I, tuple(c for c in J if c != p)))
    return out


def face_search(V: np.ndarray, lo: float, hi: float, lam: np.ndarray, mu: np.ndarray, starts: np.ndarray,
                steps: int = STEPS) -> np.ndarray:  # fmt: skip
    """The local maxima of ρ over the multi-level columns (columns of K, P̄·q = 1) reached from each start column
    (n × s) by the moves of the module docstring; a start is first rounded to its two-level state."""
    V = np.asarray(V, float)
    k, n = V.shape
    out = []
    for q0 in np.asarray(starts, float).T:
        A, f, i, j = _state(V, lo, hi, q0)
        state = (A, (f,), (i,), (j,))
        Q, ok = solve_states(V, lo, hi, [state])
        val = float(rho(V, lam, mu, Q)[0]) if ok[0] else -np.inf
        for _ in range(steps):
            cand = _moves(state, k, lo == 0)
            Q, ok = solve_states(V, lo, hi, cand)
            r = np.where(ok, rho(V, lam, mu, Q), -np.inf)
            b = int(np.argmax(r))
            if r[b] <= val + 1e-15 * max(1.0, abs(val)):
                break
            state, val = cand[b], float(r[b])
        if np.isfinite(val):
            out.append(solve_states(V, lo, hi, [state])[0][:, 0])
    return np.array(out).T if out else np.zeros((n, 0))
