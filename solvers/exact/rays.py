"""Extreme rays of the column cones of the privacy notions (math.md §1).

Every ray is returned normalised as a posterior, r = c / 1ᵀc, and the rays
of one cone are the columns of a (d, n) matrix.

- ε-LDP (complete graph): r ∝ P ∘ s with s ∈ {1, e^ε}^d (staircase patterns).
- ε-LIP: vertices of B = {p ∈ Δ : e^{-ε}P ≤ p ≤ e^{ε}P}: every coordinate at a
  bound except at most one; ε-PML and ALIP: the same for their boxes (:func:`box_vertices`).
- centralized IP with one statistic (rank [G; 1] ≤ 2, e.g. a binomial sum):
  point masses δ_s and two-point mixtures of δ_s, δ_t on a bound.
- any cone {c ≥ 0 : A c ≥ 0} (policy graphs, a general G): the double
  description method, for small d.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.rays import ldp_rays, lip_vertices
>>> ldp_rays(np.array([0.5, 0.5]), np.log(3.0)).round(3)
array([[0.5 , 0.75, 0.25],
       [0.5 , 0.25, 0.75]])
>>> lip_vertices(np.array([0.5, 0.5]), np.log(1.5)).round(3)
array([[0.667, 0.333],
       [0.333, 0.667]])
"""

from __future__ import annotations

import math

import numpy as np

from mechopt import settings
from mechopt.errors import TooLargeError
from mechopt.runtime.deadline import TimeLimitReached, passed

__all__ = [
    "lip_deviations",
    "ldp_rays",
    "ldp_patterns",
    "lip_vertices",
    "box_vertices",
    "lip_vertex_count",
    "two_point_vertices",
    "single_statistic",
    "dd_rays",
    "dedupe",
    "subset_sums",
    "bits",
]


def bits(idx: np.ndarray, d: int) -> np.ndarray:
    """Binary expansion: row i holds the d low bits of ``idx[i]`` (bit x in column x)."""
    return ((np.asarray(idx, dtype=np.int64)[:, None] >> np.arange(d)) & 1).astype(bool)


def ldp_patterns(d: int) -> np.ndarray:
    """All z ∈ {0,1}^d except the all-ones one (it gives the same ray as z = 0), shape (2^d − 1, d)."""
    return bits(np.arange(2**d - 1), d)


def ldp_rays(P: np.ndarray, eps: float) -> np.ndarray:
    """The 2^d − 1 distinct staircase rays r ∝ P ∘ (1 + (e^ε − 1) z), as columns.

    Examples
    --------
    >>> ldp_rays(np.array([0.25, 0.75]), 0.0)
    array([[0.25],
           [0.75]])
    """
    P = np.asarray(P, dtype=float)
    if eps == 0:
        return P[:, None].copy()
    Z = ldp_patterns(P.size)
    C = P[:, None] * (1.0 + math.expm1(eps) * Z.T)
    return C / C.sum(axis=0)


def subset_sums(w: np.ndarray) -> np.ndarray:
    """Σ_{x ∈ S} w_x for every subset S, indexed by the bitmask of S (bit x = element x).

    Examples
    --------
    >>> subset_sums(np.array([1.0, 10.0]))
    array([ 0.,  1., 10., 11.])
    """
    w = np.asarray(w, dtype=float)
    out = np.empty(2**w.size)
    out[0] = 0.0
    for k, wx in enumerate(w):
        n = 1 << k
        np.add(out[:n], wx, out=out[n : 2 * n])
    return out


def _lip_bounds(P: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    return math.exp(-eps) * P, np.minimum(math.exp(eps) * P, 1.0)


def lip_deviations(P: np.ndarray, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo − P, hi − P) of the LIP box, each to a few ulp relative (no difference of nearby numbers).

    The free coordinate of a vertex is P_j minus the others' deviations (Σ P = 1):
    formed as 1 − Σ others it would carry an absolute error of 1e-16, which at
    ε = 1e-6 and P_j = 0.02 is 5e-9 of its distance to P_j — and of the vertex's
    information.

    >>> dlo, dhi = lip_deviations(np.array([0.5, 0.5]), 1e-9)
    >>> float(dlo[0] / -5e-10), float(dhi[1] / 5e-10)
    (0.9999999995, 1.0000000005)
    """
    P = np.asarray(P, float)
    dhi = np.where(math.exp(eps) * P < 1.0, P * math.expm1(eps), 1.0 - P)
    return P * math.expm1(-eps), dhi


def _lip_masks(P: np.ndarray, eps: float, tol: float):
    """Yield (free index or -1, masks of coordinates at the upper bound, free values) of the LIP box."""
    dlo, dhi = lip_deviations(P, eps)
    yield from _box_masks(P, dlo, dhi, tol)


def _box_masks(P: np.ndarray, dlo: np.ndarray, dhi: np.ndarray, tol: float):
    """:func:`_lip_masks` for any box {p ∈ Δ : P + dlo ≤ p ≤ P + dhi} given by its deviations from P."""
    d = P.size
    width = dhi - dlo  # hi − lo without cancellation at small ε
    # Σ_x p_x − 1 of every all-at-bounds point, from deviations; tolerances relative to the box's widths
    # (a mass of 1e-12 at ε = 1e-9 has a box 2e-21 wide: an absolute 1e-12 would swallow every vertex)
    excess = subset_sums(width) + dlo.sum()
    at_bounds = np.flatnonzero(np.abs(excess) <= tol * width.max())
    yield -1, at_bounds, None
    for j in range(d):
        others = np.delete(np.arange(d), j)
        dv = -(subset_sums(width[others]) + dlo[others].sum())  # v − P_j: v = 1 − Σ others, from deviations
        v = P[j] + dv
        ok = np.flatnonzero((dv > dlo[j] + tol * width[j]) & (dv < dhi[j] - tol * width[j]))
        # re-insert bit j (= 0) into the masks of the other coordinates
        low_part = ok & ((1 << j) - 1)
        masks = low_part | ((ok >> j) << (j + 1))
        yield j, masks, v[ok]


def lip_vertex_count(P: np.ndarray, eps: float, tol: float | None = None) -> int:
    """Number of vertices of B, counted without building them (memory O(2^d)).

    Examples
    --------
    >>> lip_vertex_count(np.array([0.2, 0.3, 0.5]), 1.0)
    4
    """
    tol = settings.resolve(tol, "vertex")
    return sum(m.size for _, m, _ in _lip_masks(np.asarray(P, float), eps, tol))


def lip_vertices(P: np.ndarray, eps: float, tol: float | None = None) -> np.ndarray:
    """Vertices of B = {p ∈ Δ : e^{-ε}P ≤ p ≤ min(e^{ε}P, 1)} as columns.

    A vertex of a box cut by the hyperplane 1ᵀp = 1 has every coordinate at a
    bound except at most one (math.md §1; LIP paper, Theorem 4 on the output
    range). Coordinates strictly inside (by more than ``tol``, default the
    ``vertex`` tolerance) are the free one.
    """
    P = np.asarray(P, dtype=float)
    if eps == 0:
        return P[:, None].copy()
    return _vertices(P, *lip_deviations(P, eps), *_lip_bounds(P, eps), tol)


def box_vertices(
    P: np.ndarray, dlo: np.ndarray, dhi: np.ndarray, tol: float | None = None, bounds: tuple | None = None
) -> np.ndarray:
    """Vertices of the box {p ∈ Δ : P + dlo ≤ p ≤ P + dhi} (dlo ≤ 0 ≤ dhi) as columns, as :func:`lip_vertices`.

    The boxes of ε-PML and ALIP (:meth:`mechopt.notions.pml.PosteriorBox.deviations`). ``bounds`` = (lo, hi),
    the corners themselves (:meth:`~mechopt.notions.pml.PosteriorBox.box`), gives the coordinates at a bound
    to an ulp: P + dlo loses them when the corner is far below P (ALIP's e^{−30} P came out 4e-4 off, a
    privacy violation of as much).

    Examples
    --------
    >>> P = np.array([0.25, 0.75])
    >>> box_vertices(P, -P, np.array([0.25, 0.25])).round(3)       # ε-PML with e^ε = 2
    array([[0. , 0.5],
           [1. , 0.5]])
    """
    P = np.asarray(P, dtype=float)
    if not np.any(dhi - dlo > 0):
        return P[:, None].copy()
    lo, hi = (P + dlo, P + dhi) if bounds is None else bounds
    return _vertices(P, dlo, dhi, lo, hi, tol)


def _vertices(P, dlo, dhi, lo, hi, tol) -> np.ndarray:
    tol = settings.resolve(tol, "vertex")
    d = P.size
    cols = []
    for j, masks, vals in _box_masks(P, dlo, dhi, tol):
        if masks.size == 0:
            continue
        B = bits(masks, d)
        V = np.where(B, hi, lo)
        if j >= 0:
            V[:, j] = vals
        cols.append(V)
    R = np.vstack(cols).T if cols else P[:, None].copy()
    return R / R.sum(axis=0)


def single_statistic(A: np.ndarray, tol: float | None = None) -> bool:
    """Whether every row of A is a combination of one vector g and 1 (rank [A; 1] ≤ 2).

    Then {p ∈ Δ : A p ≥ 0} = {p ∈ Δ : a ≤ gᵀp ≤ b} is a simplex cut by a slab.
    """
    tol = settings.resolve(tol, "rank")
    M = np.vstack([A, np.ones(A.shape[1])])
    s = np.linalg.svd(M, compute_uv=False)
    return bool(np.sum(s > tol * s[0]) <= 2)


def two_point_vertices(A: np.ndarray, tol: float | None = None, *, scale: float | None = None) -> np.ndarray:
    """Vertices of {p ∈ Δ : A p ≥ 0} with support ≤ 2, as columns.

    The admissible point masses δ_s, and for every pair (s, t) and every row a
    with a_s, a_t of opposite signs the mixture λδ_s + (1 − λ)δ_t with aᵀp = 0,
    kept when it satisfies all rows. When :func:`single_statistic` holds these
    are exactly the vertices (the slab's hyperplanes meet the simplex only on
    its edges at vertices); otherwise vertices may have larger support.
    Constraints are tested to ``tol`` times ``scale`` (default max(1, max|A|));
    rows already relative to their bound (:meth:`PosteriorStatNotion.relative_cone`)
    pass ``scale=1``. Both weights of a mixture are computed directly (1 − λ is
    not formed: at ε = 50 it is ~1e-22 and would round to 0).

    Examples
    --------
    >>> A = np.array([[1.0, -1.0, -3.0]])   # p0 ≥ p1 + 3 p2
    >>> two_point_vertices(A).round(3)
    array([[1.  , 0.5 , 0.75],
           [0.  , 0.5 , 0.  ],
           [0.  , 0.  , 0.25]])
    """
    tol = settings.resolve(tol, "vertex")
    d = A.shape[1]
    scale = max(1.0, float(np.abs(A).max())) if scale is None else float(scale)
    cols = [np.eye(d)[:, s] for s in range(d) if np.all(A[:, s] >= -tol * scale)]
    s_idx, t_idx = np.triu_indices(d, 1)
    for a in A:
        As, At = a[s_idx], a[t_idx]
        cross = As * At < 0
        s, t = s_idx[cross], t_idx[cross]
        gap = a[t] - a[s]  # λ a_s + (1-λ) a_t = 0
        Pm = np.zeros((d, s.size))
        Pm[s, np.arange(s.size)] = a[t] / gap
        Pm[t, np.arange(s.size)] = -a[s] / gap
        ok = np.all(A @ Pm >= -tol * scale, axis=0)
        cols.extend(Pm[:, ok].T)
    if not cols:
        return np.zeros((d, 0))
    return dedupe(np.array(cols).T)


def dedupe(R: np.ndarray, tol: float | None = None) -> np.ndarray:
    """Drop duplicate columns (equal within ``tol`` in max-norm, default ``ray_dedupe``), keeping the first."""
    if R.shape[1] <= 1:
        return R
    tol = settings.resolve(tol, "ray_dedupe")
    keys = np.round(R / tol).T
    _, first = np.unique(keys, axis=0, return_index=True)
    return R[:, np.sort(first)]


def dd_rays(A: np.ndarray, *, tol: float | None = None, max_rays: int = 200_000,
            deadline: float | None = None) -> np.ndarray:  # fmt: skip
    """Extreme rays of K = {c ≥ 0 : A c ≥ 0} by the double description method.

    Starts from the orthant's rays e_x and adds the rows of A one at a time:
    rays on the positive side stay, and every adjacent (positive, negative)
    pair gives a new ray on the hyperplane. Adjacency is the combinatorial
    test: no third ray is tight on every constraint tight at both. Rays are
    returned normalised (1ᵀr = 1) as columns. Raises TooLargeError when an
    intermediate ray set exceeds ``max_rays``, and ``TimeLimitReached`` when the
    ``deadline`` (``time.perf_counter()`` seconds) passes between rows (a partial
    ray set would price wrongly).

    Examples
    --------
    >>> A = np.array([[2.0, -1.0], [-1.0, 2.0]])   # c1 ≤ 2 c0 and c0 ≤ 2 c1
    >>> dd_rays(A).round(4)
    array([[0.3333, 0.6667],
           [0.6667, 0.3333]])
    """
    tol = settings.resolve(tol, "dd_side")
    A = np.asarray(A, dtype=float)
    d = A.shape[1]
    R = np.eye(d)  # rays as rows
    Z = ~np.eye(d, dtype=bool)  # Z[r, i]: constraint i tight at ray r
    for a in A:
        if passed(deadline):
            raise TimeLimitReached("enumerating the cone's extreme rays")
        scale = tol * max(1.0, float(np.abs(a).max()))
        v = R @ a
        pos, neg = np.flatnonzero(v > scale), np.flatnonzero(v < -scale)
        zer = np.flatnonzero(np.abs(v) <= scale)
        new_R, new_Z = [], []
        if pos.size and neg.size:
            common_cnt = Z[pos].astype(np.int32) @ Z[neg].T.astype(np.int32)
            pi, ni = np.nonzero(common_cnt >= d - 2)
            for p, n in zip(pos[pi], neg[ni]):
                common = Z[p] & Z[n]
                if np.count_nonzero(np.all(Z | ~common, axis=1)) != 2:
                    continue
                r = v[p] * R[n] - v[n] * R[p]
                new_R.append(r / r.sum())
                new_Z.append(common)
        keep = np.concatenate([pos, zer])
        R = np.vstack([R[keep]] + ([np.array(new_R)] if new_R else []))
        col = np.concatenate([np.zeros(pos.size, bool), np.ones(zer.size + len(new_R), bool)])
        Z = np.vstack([Z[keep]] + ([np.array(new_Z)] if new_Z else []))
        Z = np.hstack([Z, col[:, None]])
        if R.shape[0] > max_rays:
            from mechopt.solvers._advice import sqp_takes

            raise TooLargeError(
                f"the cone has more than {max_rays} rays after {Z.shape[1] - d} of {A.shape[0]} "
                "constraints; "
                + (
                    "use solver='sqp' (local, uncertified)"
                    if sqp_takes(d)
                    else "no other solver takes it (sqp takes d ≤ 100 symbols)"
                )
            )
    R = np.clip(R, 0.0, None)
    return dedupe((R / R.sum(axis=1, keepdims=True)).T)


def graph_ldp_rays(W: np.ndarray, eps: float, *, tol: float | None = None) -> np.ndarray:
    """Extreme rays q of {q ≥ 0 : q_x ≤ e^{ε W[x,x']} q_x'} (policy-graph LDP), in log space.

    ``W[x, x']`` is the multiplier of ε for a constrained pair (``inf``:
    unconstrained). A zero entry forces zeros on its whole connected component,
    so a ray lives on one component C and is positive there. On C, with
    t = log q, q is extreme exactly when t is a vertex of the polytope
    {t : t_x − t_x' ≤ ε W[x, x'], t_c = 0} (the tight pairs span C in both
    spaces), so the vertices are enumerated by the double description method on
    the homogenised polytope, whose coefficients are ±1 and εW: well scaled for
    every ε, where the same method on q meets ratios e^{ε·dist} that overflow
    its side tolerance (ε = 50: e^50 ≈ 5e21). Returns q = exp(t − max t) as
    columns, each normalised to sum 1 (the caller multiplies by the prior).

    Examples
    --------
    >>> W = np.array([[0.0, 1.0, np.inf], [1.0, 0.0, 1.0], [np.inf, 1.0, 0.0]])   # path 0 - 1 - 2
    >>> q = graph_ldp_rays(W, 50.0)
    >>> q.shape, bool(np.all(q > 0))
    ((3, 4), True)
    >>> np.sort(np.log(q[1] / q[0])).round(6).tolist()      # every edge ratio is e^{±50} or 1
    [-50.0, -50.0, 50.0, 50.0]
    """
    import networkx as nx

    W = np.asarray(W, dtype=float)
    d = W.shape[0]
    G = nx.Graph()
    G.add_nodes_from(range(d))
    xs, xps = np.nonzero(np.isfinite(W) & ~np.eye(d, dtype=bool))
    G.add_edges_from(zip(xs.tolist(), xps.tolist()))
    cols = []
    for comp in nx.connected_components(G):
        C = sorted(comp)
        for t in _log_vertices(W[np.ix_(C, C)], eps, tol):
            q = np.zeros(d)
            q[C] = np.exp(t - t.max())
            cols.append(q / q.sum())
    # no dedupe in q: at ε = 50 distinct vertices differ only in entries ~e^{-50} (deduped in t already)
    return np.array(cols).T


def _log_vertices(Wc: np.ndarray, eps: float, tol: float | None) -> list[np.ndarray]:
    """Vertices t (t_0 = 0) of {t : t_x − t_x' ≤ ε Wc[x, x']} on one connected component."""
    k = Wc.shape[0]
    if k == 1 or eps == 0:
        return [np.zeros(k)]
    import networkx as nx

    G = nx.Graph()
    xs, xps = np.nonzero(np.isfinite(Wc) & ~np.eye(k, dtype=bool))
    G.add_weighted_edges_from((int(a), int(b), float(Wc[a, b])) for a, b in zip(xs, xps))
    D = eps * max(nx.single_source_dijkstra_path_length(G, 0).values())
    # y = (t', s) ≥ 0 with t' = t + D s: rows ε W s − t'_x + t'_x' ≥ 0 and t'_0 = D s (two rows)
    rows = []
    for a, b in zip(xs, xps):
        r = np.zeros(k + 1)
        r[a], r[b], r[k] = -1.0, 1.0, eps * Wc[a, b]
        rows.append(r)
    eq = np.zeros(k + 1)
    eq[0], eq[k] = 1.0, -D
    Y = dd_rays(np.array([eq, -eq] + rows), tol=tol)  # the equality first: fewer intermediate rays
    Y = Y[:, Y[k] > 0]
    return [Y[:k, j] / Y[k, j] - D for j in range(Y.shape[1])]
