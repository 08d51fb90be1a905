"""A 60-digit reference for small designs (d ≤ 4): exact optima to compare certified answers with.

Independent of mechopt's solvers: the extreme rays of the LDP and LIP column cones
are written down in mpmath (LDP: P ∘ e^{εs} for s ∈ {0, 1}^d; LIP: the vertices of
{p ∈ Δ : e^{-ε}P ≤ p ≤ min(e^ε P, 1)}, every coordinate at a bound but at most one),
their values (MSE, histogram MSE, mutual information) evaluated at 60 digits, and the
LP over rays (math.md §1) solved by a two-phase simplex with Bland's rule in mpmath.
MAE, linear in Q, is the same LP with each ray sent to its cheapest output. The prior is normalised in mpmath (the
floats given may sum to 1 ± 1e-16, which at ε = 1e-6 is 1e-3 of the information).
"""

from __future__ import annotations

import itertools

import mpmath as mp
import numpy as np

mp.mp.dps = 60
TINY = mp.mpf(10) ** -45


def prior_mp(p) -> list:
    v = [mp.mpf(float(x)) for x in p]
    s = sum(v)
    return [x / s for x in v]


def ldp_rays(P: list, eps: float) -> list:
    E = mp.exp(mp.mpf(eps))
    out = []
    for s in itertools.product((0, 1), repeat=len(P)):
        c = [P[x] * (E if s[x] else 1) for x in range(len(P))]
        out.append(c)
    return out


def lip_rays(P: list, eps: float) -> list:
    e = mp.mpf(eps)
    lo = [x * mp.exp(-e) for x in P]
    hi = [min(x * mp.exp(e), mp.mpf(1)) for x in P]
    d, out = len(P), []
    for j in range(-1, d):
        others = [x for x in range(d) if x != j]
        for s in itertools.product((0, 1), repeat=len(others)):
            c = [mp.mpf(0)] * d
            for x, b in zip(others, s):
                c[x] = hi[x] if b else lo[x]
            if j < 0:
                if abs(sum(c) - 1) <= TINY:
                    out.append(c)
                continue
            c[j] = 1 - sum(c)
            if lo[j] - TINY <= c[j] <= hi[j] + TINY:
                out.append(c)
    return out


def column_value(utility: str, c: list, P: list, a: list | None) -> mp.mpf:
    """Each column's share of the objective (an MSE's within-column MSE, ≥ 0; the information)."""
    m = sum(c)
    if m == 0:
        return mp.mpf(0)
    if utility == "mse":
        est = sum(a[x] * c[x] for x in range(len(c))) / m
        return sum(c[x] * (a[x] - est) ** 2 for x in range(len(c)))
    if utility == "histogram":
        return sum(c[x] * (1 - c[x] / m) for x in range(len(c)))
    return sum(c[x] * mp.log(c[x] / (P[x] * m)) for x in range(len(c)) if c[x] > 0)


def simplex(cols: list, cost: list, rhs: list, maximise: bool) -> mp.mpf:
    """max (or min) Σ θ_j cost_j s.t. Σ θ_j cols_j = rhs, θ ≥ 0 (rhs ≥ 0): two phases, Bland's rule, in mpmath."""
    d, n = len(rhs), len(cols)
    sign = 1 if maximise else -1
    art = [[mp.mpf(1) if x == k else mp.mpf(0) for x in range(d)] for k in range(d)]
    allcols = cols + art
    basis = list(range(n, n + d))
    phase1 = [mp.mpf(0)] * n + [mp.mpf(-1)] * d  # maximise −Σ artificials
    basis = _pivot(allcols, phase1, rhs, basis, n + d)
    if any(j >= n for j in basis):  # an artificial left at 0 (redundant row): swap in any column that can replace it
        basis = _drive_out(allcols, rhs, basis, n)
    costs = [sign * c for c in cost] + [mp.mpf(0)] * d
    basis = _pivot(allcols, costs, rhs, basis, n)
    theta = mp.lu_solve(_mat(allcols, basis, d), mp.matrix(rhs))
    return sum(theta[i] * cost[basis[i]] for i in range(d))


def _mat(cols: list, basis: list, d: int) -> mp.matrix:
    return mp.matrix([[cols[j][x] for j in basis] for x in range(d)])


def _pivot(cols: list, cost: list, rhs: list, basis: list, usable: int) -> list:
    d = len(rhs)
    for _ in range(10000):
        B = _mat(cols, basis, d)
        theta = mp.lu_solve(B, mp.matrix(rhs))
        nu = mp.lu_solve(B.T, mp.matrix([cost[j] for j in basis]))
        enter = next(
            (j for j in range(usable) if j not in basis and cost[j] - sum(nu[x] * cols[j][x] for x in range(d)) > TINY),
            None,
        )
        if enter is None:
            return basis
        dirn = mp.lu_solve(B, mp.matrix(cols[enter]))
        rows = [i for i in range(d) if dirn[i] > TINY]
        if not rows:
            raise ArithmeticError("unbounded LP")
        best = min(theta[i] / dirn[i] for i in rows)
        leave = min((i for i in rows if theta[i] / dirn[i] <= best + TINY), key=lambda i: basis[i])
        basis = basis[:leave] + [enter] + basis[leave + 1 :]
    raise ArithmeticError("simplex did not finish")


def _drive_out(cols: list, rhs: list, basis: list, n: int) -> list:
    d = len(rhs)
    for i, j in enumerate(basis):
        if j < n:
            continue
        for k in range(n):
            if k in basis:
                continue
            trial = basis[:i] + [k] + basis[i + 1 :]
            if abs(mp.det(_mat(cols, trial, d))) > TINY:
                basis = trial
                break
    return basis


def optimum(notion: str, utility: str, prior, eps: float, values=None) -> mp.mpf:
    """The exact optimum (MSE and histogram minimised, information maximised) at 60 digits."""
    P = prior_mp(prior)
    a = None if values is None else [mp.mpf(float(x)) for x in values]
    rays = ldp_rays(P, eps) if notion == "ldp" else lip_rays(P, eps)
    rays = [[x / sum(r) for x in r] for r in rays]
    cost = [column_value(utility, r, P, a) for r in rays]
    return simplex(rays, cost, P, maximise=(utility == "mi"))


def mae_optimum(notion: str, prior, eps: float, values, outputs) -> mp.mpf:
    """min Σ P(x) Q[x, y] |a_x − b_y| over ε-private Q, as the ray LP with costs min_y Σ_x r_x |a_x − b_y|.

    A column c_y of Q lies in the cone, so it is a combination of rays; sending each ray
    to its cheapest output y keeps Σ_y c_y = P and every column private, and costs no more.
    """
    P = prior_mp(prior)
    a = [mp.mpf(float(x)) for x in values]
    b = [mp.mpf(float(x)) for x in outputs]
    rays = ldp_rays(P, eps) if notion == "ldp" else lip_rays(P, eps)
    rays = [[x / sum(r) for x in r] for r in rays]
    cost = [min(sum(r[x] * abs(a[x] - by) for x in range(len(P))) for by in b) for r in rays]
    return simplex(rays, cost, P, maximise=False)


def value_of_q(utility: str, Q: np.ndarray, prior, values=None, outputs=None) -> mp.mpf:
    """The objective of the float channel Q, evaluated at 60 digits."""
    P = prior_mp(prior)
    Qm = [[mp.mpf(float(v)) for v in row] for row in np.asarray(Q, float)]
    d, n = len(Qm), len(Qm[0])
    if utility == "mae":
        a = [mp.mpf(float(x)) for x in values]
        b = [mp.mpf(float(x)) for x in outputs]
        return sum(P[x] * Qm[x][y] * abs(a[x] - b[y]) for x in range(d) for y in range(n))
    a = None if values is None else [mp.mpf(float(x)) for x in values]
    return sum(column_value(utility, [P[x] * Qm[x][y] for x in range(d)], P, a) for y in range(n))


def eps_of_q(notion: str, Q: np.ndarray, prior) -> mp.mpf:
    """The smallest ε the float channel Q satisfies, at 60 digits (LDP: column ratios; LIP: Q / λ)."""
    P = prior_mp(prior)
    Qm = [[mp.mpf(float(v)) for v in row] for row in np.asarray(Q, float)]
    worst = mp.mpf(0)
    for y in range(len(Qm[0])):
        col = [row[y] for row in Qm]
        if max(col) == 0:
            continue
        if min(col) == 0:
            return mp.inf
        if notion == "ldp":
            worst = max(worst, mp.log(max(col) / min(col)))
        else:
            lam = sum(p * q for p, q in zip(P, col))
            worst = max(worst, max(abs(mp.log(q / lam)) for q in col))
    return worst
