"""ε-PML mutual information: a primal within t of the chord bound ε from a fractional exact cover by prior slices.

**Columns.** For a set S of inputs, the posterior p_S = P·1_S / π(S) (π(S) = Σ_{x∈S} P_x; the output
"X ∈ S, uniformly in the prior's proportions") obeys ε-PML iff p_S ≤ e^ε P, i.e. iff π(S) ≥ a = e^{−ε}.
Its information density is KL(p_S ‖ P) = log(1/π(S)) = ε − log(π(S)/a). An input with P_x ≥ a may stand
alone (S = {x}: p = δ_x, KL = log(1/P_x), which is its chord value φ_x(h_x)/h_x, h_x = 1).

**Cover (proven).** Weights c_S ≥ 0 with Σ_S c_S 1_S = 1 on the support of P (an exact fractional cover) give
the mixture Σ_S (c_S π(S)) p_S = P, with weights w_S = c_S π(S) summing to 1, so the mechanism
Q[x, S] = c_S 1_S(x) is row-stochastic and ε-PML, with mutual information Σ_S w_S log(1/π(S)). When every
set is a *window set*, a ≤ π(S) ≤ a(1 + t), that is at least ε − log(1 + t) ≥ ε − t: within t of the chord
bound ε (:mod:`~mechopt.solvers.exact.pricing.pml`, MI ≤ ε under ε-PML), so the chord duals certify it. The
cover of most information over a pool of sets is an LP (HiGHS), solved in the scaled form
min Σ_S w_S log(π(S)/a) s.t. Σ_S c_S 1_S = 1.

**Obstruction (proven).** Such a cover needs a window set of at most ⌊d a (1 + t)⌋ inputs (d the inputs
with P_x > 0, no input of mass ≥ a): summing the cover, Σ_S c_S |S| = d, and weighting it by P,
Σ_S c_S π(S) = 1, so Σ_S c_S ≥ 1 / (a(1 + t)); if every |S| ≥ m + 1 > d a (1 + t) then
d ≥ (m + 1) Σ_S c_S > d, a contradiction. :func:`cover_obstructed` decides it exactly by meet in the
middle over the sets of at most m inputs when m ≤ ``OBSTRUCTION_MAX``, with an LP that also counts how much
weight those few small sets can carry (the function's docstring). At d = 64, ε = 2, Dirichlet(1) priors (seeds
64, 65, 66) m = 8 and no window cover with t ≤ 4e-10 exists (the nearest set of ≤ 8 inputs above a is 4.6e-10,
1.5e-11 and 3.9e-10 away, relative, and one or a few such sets cannot carry the weight), so this route cannot
certify those cases to the 1e-10 column-generation gap (``benchmarks/RESULTS.md``); the stratified pricing
(:mod:`~mechopt.solvers.exact.pricing.strata`) bounds them instead.

**Search (not a bound).** Window sets are found by meet in the middle over seeded random restrictions
(``RESTRICT_D`` inputs, two halves of 2^{RESTRICT_D/2} sums, one sorted, windows by ``searchsorted``); when
a > half the mass the complements (π ≤ M − a) are searched instead.

Examples
--------
>>> import math
>>> P = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 25, 27]) / 128      # many subsets of mass 1/4
>>> out = window_cover(P, math.log(4) + 1e-12, seed=0)
>>> bool(abs(out.value - math.log(4)) < 1e-13), bool(np.allclose(out.Q.sum(axis=1), 1.0))
(True, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.pricing.strata import _subsets

__all__ = ["Cover", "cover_obstructed", "slice_columns", "window_cover", "window_sets", "WINDOW_T"]

#: Relative width t of the window a ≤ π(S) ≤ a(1 + t): the cover is within t of the chord bound.
WINDOW_T = 2e-11
#: Relative margin above a (π(S) ≥ a(1 + margin)): the columns stay private after rounding.
MARGIN = 1e-14
#: Inputs per random restriction (2^{RESTRICT_D/2} subset sums per half, ~16 MB each at 20).
RESTRICT_D = 40
#: The search gives up after ``GIVE_UP_ROUND`` rounds when more than ``GIVE_UP_MASS`` of the prior is still uncovered.
GIVE_UP_ROUND, GIVE_UP_MASS = 3, 0.25
#: Most inputs m of the obstruction's exhaustive search (sets of ≤ m/2 inputs per half: C(64, 4) = 635 376).
OBSTRUCTION_MAX = 8


@dataclass
class Cover:
    """A fractional exact cover by window sets: columns (posteriors), their weights, the mechanism, its MI."""

    R: np.ndarray  # d × n posteriors p_S
    w: np.ndarray  # mixture weights (Σ w R = P)
    Q: np.ndarray  # the mechanism, Q[x, S] = c_S 1_S(x)
    value: float  # Σ_S w_S log(1/π(S))
    sets: int  # window sets in the pool


def _mass(P: np.ndarray, S: np.ndarray) -> np.ndarray:
    """π(S) of each row of the boolean matrix S, summed exactly (``math.fsum``)."""
    return np.array([math.fsum(P[row]) for row in S])


def slice_columns(P: np.ndarray, eps: float, S: np.ndarray, t: float = WINDOW_T) -> np.ndarray:
    """Which rows of the boolean matrix S are window sets: a(1 + margin) ≤ π(S) ≤ a(1 + t), a = e^{−ε}.

    Singletons {x} with P_x ≥ a are accepted too (module docstring).

    >>> P = np.array([0.25, 0.25, 0.5])   # a = e^{-1} ≈ 0.37: no set in the thin window; P_2 ≥ a stands alone
    >>> slice_columns(P, 1.0, np.array([[1, 0, 1], [1, 1, 0], [0, 0, 1]], bool)).tolist()
    [False, False, True]
    """
    S = np.atleast_2d(np.asarray(S, bool))
    a = math.exp(-eps)
    pi = _mass(P, S)
    window = (pi >= a * (1 + MARGIN)) & (pi <= a * (1 + t))
    alone = (S.sum(axis=1) == 1) & (pi >= a * (1 + MARGIN))
    return window | alone


def _sorted_sums(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(every subset sum of v ascending, its bit mask): doubling, each step a merge of two sorted runs."""
    s, m = np.zeros(1), np.zeros(1, np.int64)
    for k, x in enumerate(v):
        s, m = np.concatenate([s, s + x]), np.concatenate([m, m | (1 << k)])
        order = np.argsort(s, kind="stable")  # timsort: linear on two sorted runs
        s, m = s[order], m[order]
    return s, m


def _restriction(P, U, lo, hi) -> np.ndarray:
    """Boolean rows: every subset T of the inputs U with lo ≤ π(T) ≤ hi (meet in the middle).

    Both halves' sums are sorted, so the window queries are sorted too (a cache-friendly
    ``searchsorted``: 3× faster than unsorted queries at 2^20 sums per half).
    """
    A, B = U[0::2], U[1::2]
    (sA, mA), (sB, mB) = _sorted_sums(P[A]), _sorted_sums(P[B])
    i0 = np.searchsorted(sB, (lo - sA)[::-1], "left")[::-1]
    i1 = np.searchsorted(sB, (hi - sA)[::-1], "right")[::-1]
    n = np.maximum(i1 - i0, 0)
    ia = np.repeat(np.arange(sA.size), n)
    ib = np.repeat(i0, n) + (np.arange(ia.size) - np.repeat(np.cumsum(n) - n, n))
    T = np.zeros((ia.size, P.size), bool)
    T[:, A] = (mA[ia][:, None] >> np.arange(A.size)) & 1
    T[:, B] = (mB[ib][:, None] >> np.arange(B.size)) & 1
    return T


def window_sets(
    P: np.ndarray,
    eps: float,
    restrictions: int,
    rng: np.random.Generator,
    t: float = WINDOW_T,
    deadline: float | None = None,
) -> np.ndarray:
    """Window sets (boolean rows, module docstring) found in ``restrictions`` seeded random restrictions (fewer
    when ``deadline``, a ``time.perf_counter()`` value, passes: the first, and those searched by then).

    >>> P = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 25, 27]) / 128
    >>> S = window_sets(P, math.log(4) + 1e-12, 1, np.random.default_rng(0))   # π(S) = 1/4 exactly
    >>> len(S), sorted(  # all 30 subsets of mass 32/128 (12 inputs: one exhaustive search)
    ... {round(float(P[s].sum()) * 128) for s in S})
    (30, [32])
    """
    a = math.exp(-eps)
    small = np.flatnonzero((P > 0) & (P < a))
    M = math.fsum(P[small])
    comp = a > M / 2  # search the complements, π(small ∖ S) ≤ M − a
    lo, hi = (M - a * (1 + t), M - a * (1 + MARGIN)) if comp else (a * (1 + MARGIN), a * (1 + t))
    found = [np.zeros((0, P.size), bool)]
    for _ in range(restrictions):
        if len(found) > 1 and passed(deadline):
            break
        U = rng.permutation(small)[:RESTRICT_D]
        T = _restriction(P, U, lo, hi)
        if comp:
            T = ~T & np.isin(np.arange(P.size), small)
        found.append(T)
    S = np.unique(np.vstack(found), axis=0)
    return S[slice_columns(P, eps, S, t)] if S.size else S


def _cover_lp(P: np.ndarray, eps: float, S: np.ndarray) -> Cover | None:
    """The cover of most information over the rows of S (window sets and big singletons), or None."""
    a, live = math.exp(-eps), P > 0
    pi = _mass(P, S)
    loss = np.log(pi / a)  # ε − KL(p_S ‖ P); big singletons: log(P_x / a) ≥ 0 is their chord's own loss
    big = np.flatnonzero(P >= a)
    loss[(S.sum(axis=1) == 1) & np.isin(S.argmax(axis=1), big)] = 0.0
    A = S[:, live].T.astype(float)
    scale = 1.0 / max(float(loss.max()), 1e-300)  # costs of order one for HiGHS
    r = linprog(pi * loss * scale, A_eq=A, b_eq=np.ones(A.shape[0]), bounds=(0, None), method="highs")
    if r.status != 0:
        return None
    c = np.clip(r.x, 0.0, None)
    used = c > 0
    S, c, pi = S[used], c[used], pi[used]
    Q = S.T * c  # Q[x, S] = c_S 1_S(x)
    Q[live] /= Q[live].sum(axis=1, keepdims=True)
    w = P @ Q
    R = (P[:, None] * Q) / w
    kl = -np.log(pi)
    return Cover(R, w, Q, float(w @ kl), int(used.size))


def window_cover(
    P: np.ndarray,
    eps: float,
    *,
    seed: int = 0,
    t: float = WINDOW_T,
    rounds: int = 16,
    per_round: int = 4,
    deadline: float | None = None,
) -> Cover | None:
    """A fractional exact cover by window sets (within t of ε, module docstring), or None if none was found.

    Rounds of ``per_round`` random restrictions, then the cover LP over the pool, until it is feasible
    (at most ``rounds`` rounds, a work budget: the same search on every machine, or until the run's ``deadline``,
    ``time.perf_counter()`` seconds); None at once when :func:`cover_obstructed` proves no
    such cover exists. A search budget, not a proof: the search also gives up when after
    ``GIVE_UP_ROUND`` rounds the pool's packing (max Σ_S c_S π(S) s.t. Σ_S c_S 1_S ≤ 1) still leaves more than
    ``GIVE_UP_MASS`` of the prior uncovered (d = 64: 7 % and 2 % at ε = 0.5 and 1, which then succeed; 44 %
    at ε = 1.75, which had found no cover after 10 rounds).
    """
    P = np.asarray(P, float)
    if cover_obstructed(P, eps, t):
        return None
    rng = np.random.default_rng(seed)
    d = P.size
    big = np.flatnonzero(P >= math.exp(-eps))
    pool = np.eye(d, dtype=bool)[big]
    whole = int(np.count_nonzero((P > 0) & (P < math.exp(-eps)))) <= RESTRICT_D  # one search is exhaustive
    for k in range(1 if whole else rounds):
        pool = np.unique(np.vstack([pool, window_sets(P, eps, 1 if whole else per_round, rng, t)]), axis=0)
        packed = _packing(P, pool)
        out = _cover_lp(P, eps, pool) if packed >= 1 - 1e-9 else None
        if out is not None:
            out.sets = int(pool.shape[0])
            return out
        if passed(deadline) or (k + 1 >= GIVE_UP_ROUND and packed < 1 - GIVE_UP_MASS):
            break
    return None


def _packing(P: np.ndarray, S: np.ndarray) -> float:
    """max Σ_S c_S π(S) s.t. Σ_S c_S 1_S ≤ 1, c ≥ 0 (HiGHS): the prior mass the pool can cover; 1 iff a cover exists."""
    if not S.size:
        return 0.0
    live = P > 0
    r = linprog(-_mass(P, S), A_ub=S[:, live].T.astype(float), b_ub=np.ones(int(live.sum())), method="highs")
    return -float(r.fun) if r.status == 0 else 0.0


def cover_obstructed(P: np.ndarray, eps: float, t: float = WINDOW_T) -> bool:
    """True when no window cover can exist (the cardinality obstruction of the module docstring, LP form).

    With κ = d a, m = ⌊κ(1 + t)⌋, 𝒮 the window sets of at most m inputs (enumerated exactly by meet in the
    middle when m ≤ ``OBSTRUCTION_MAX``, d ≤ 64, no input of mass ≥ a) and C the cover's total weight c on the
    other window sets (each of ≥ m + 1 inputs and mass ≤ a(1 + t)), a cover satisfies

    - Σ_{S∈𝒮, S∋x} c_S ≤ 1 for every input x (the cover is exact, c ≥ 0);
    - Σ_{S∈𝒮} c_S π(S) + a(1 + t) C ≥ 1 (the weighted cover, Σ_S c_S π(S) = 1);
    - Σ_{S∈𝒮} c_S (d π(S) − |S|) ≥ (m + 1 − κ(1 + t)) C, from Σ_S c_S |S| = d = d Σ_S c_S π(S).

    So the cover is impossible when the LP max Σ_𝒮 c_S π(S) + a(1 + t) C under the first and third rows stays
    below 1 (below 1 − 1e-6 here, far outside HiGHS's 1e-7 tolerances). With 𝒮 empty the third row forces
    C = 0. Sums near the window's ends are rounded outward (a set within 1e-13 of it counts as in it). False
    means "not proven" (also when not decided).

    >>> cover_obstructed(np.full(10, 0.1), math.log(4.0))          # π(S) ∈ {0.1 k}: none in [0.25, 0.25(1 + t)]
    True
    """
    P = np.asarray(P, float)
    a = math.exp(-eps)
    live = P[P > 0]
    d, kappa = live.size, live.size * a * (1 + t)
    m = math.floor(kappa)
    if d > 64 or np.any(live >= a) or m > OBSTRUCTION_MAX:
        return False
    s, mk = _subsets(live, (m + 1) // 2)[:2]  # (π, bit masks) of every set of at most (m + 1) // 2 inputs
    lo, hi = a * (1 - 1e-13), a * (1 + t) * (1 + 1e-13)
    i0, i1 = np.searchsorted(s, lo - s, "left"), np.searchsorted(s, hi - s, "right")
    n = i1 - i0
    ia = np.repeat(np.arange(s.size), n)
    ib = np.repeat(i0, n) + (np.arange(ia.size) - np.repeat(np.cumsum(n) - n, n))
    ok = (mk[ia] & mk[ib]) == 0
    union = np.unique(mk[ia[ok]] | mk[ib[ok]])
    S = ((union[:, None] >> np.arange(d, dtype=np.uint64)) & np.uint64(1)).astype(bool)
    S = S[S.sum(axis=1) <= m]
    pi, size = _mass(live, S) if S.size else np.zeros(0), S.sum(axis=1)
    # variables (c_S for S ∈ 𝒮, C): max mass, packing rows, balance row
    A = np.vstack([np.hstack([S.T.astype(float), np.zeros((d, 1))]), np.append(size - d * pi, m + 1 - kappa)])
    r = linprog(-np.append(pi, a * (1 + t)), A_ub=A, b_ub=np.append(np.ones(d), 0.0), method="highs")
    return r.status == 0 and -r.fun < 1 - 1e-6
