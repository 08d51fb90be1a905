"""Every 0/1 pattern whose k subset sums lie in a box: a meet in the middle over four blocks, sliced.

For priors V (k × n) the robust MI pricing at the start duals (:meth:`LDPMIMilpPricer.start_duals`)
depends on a pattern z only through its sums u = V z, and vanishes only at u = u*·1 (u* the prior-free
peak): the columns of a near-optimal design are patterns with every sum near u*. Finding them is a
k-dimensional subset-sum problem. The coordinates are dealt into four blocks A, B, C, D (each block's
2^m patterns listed once with their sums); a pattern is a pair (l, r) of a left pattern l ∈ A × B and a
right one r ∈ C × D, and u = u_l + u_r lies in the box |u − T| ≤ h (per prior) exactly when

    |u_{l,i} + u_{r,i} − T_i| ≤ h_i  for every prior i.

The left patterns are taken in slices by their first sum (a window [x, y) of u_{l,0}), listed pair by
pair from the sorted sums of B; the right patterns that can match a slice have u_{r,0} in
[T_0 − y − h_0, T_0 − x + h_0], listed the same way from D; the two lists are joined on all k sums
by a k-d tree (``scipy.spatial.cKDTree``, Chebyshev distance in units of h). The slices partition the
left patterns, so the union over every slice is exactly the set of patterns in the box (**complete**);
slices are taken from the densest first, and a budget of listed pairs may stop the search early
(then the patterns found are a subset, flagged incomplete).

Examples
--------
>>> V = np.random.default_rng(0).dirichlet(np.ones(10), size=3)
>>> Z, done = box_patterns(V, np.full(3, 0.45), np.full(3, 0.03))
>>> every = ((np.arange(2**10)[:, None] >> np.arange(10)) & 1).astype(float)
>>> inside = every[np.all(np.abs(every @ V.T - 0.45) <= 0.03, axis=1)]
>>> done, sorted(map(tuple, Z.astype(int))) == sorted(map(tuple, inside.astype(int)))
(True, True)
"""

from __future__ import annotations

import itertools

import numpy as np

from mechopt.errors import ParamError
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.rays import bits

__all__ = ["box_patterns", "CELL"]

#: Left patterns listed per cell (about, at the densest); the relative slack of the joins (the box test is exact on z).
CELL, SLACK = 1 << 17, 1e-9

#: The most cells of a join whose ranges are tabulated (else found by binary search); candidate pairs per step.
TABLE, CHUNK = 1 << 22, 1 << 22

#: The most right patterns, or patterns in the box, one cell may list (more: the search stops, incomplete).
LIMIT = 1 << 23


def box_patterns(V: np.ndarray, target: np.ndarray, half: np.ndarray, *, budget: int | None = None,
                 enough: int | None = None, cell_size: int = CELL,
                 deadline: float | None = None) -> tuple[np.ndarray, bool]:  # fmt: skip
    """(patterns z ∈ {0,1}^n with |V z − target| ≤ half in every row of V (rows of a bool array), complete?).

    ``budget`` caps the left patterns listed and the search stops after a cell once ``enough`` patterns are found
    (None: every cell, the answer complete; a cell needing more than LIMIT right patterns or hits stops it too,
    incomplete, as does the ``deadline`` (``time.perf_counter()`` seconds), checked between cells); ``half`` > 0.
    """
    V = np.asarray(V, float)
    k, n = V.shape
    target, half = np.asarray(target, float), np.asarray(half, float)
    if target.shape != (k,) or half.shape != (k,) or not np.all(half > 0) or not np.all(np.isfinite(target)):
        raise ParamError(f"box_patterns needs a finite target and half widths > 0, one per row of V ({k}): got "
                         f"target {target.tolist()}, half {half.tolist()}")  # fmt: skip
    order = np.argsort(-V.sum(axis=0), kind="stable")
    blocks = [np.sort(order[b::4]) for b in range(4)]
    Z = [bits(np.arange(2 ** len(idx)), len(idx)) for idx in blocks]
    U = [z @ V[:, idx].T for z, idx in zip(Z, blocks)]
    g = list(range(min(k, 2)))  # the cells' dimensions
    pad = half[g] * (1 + SLACK) + SLACK * np.abs(target[g]).max()
    origin, w, cells = _grid(U, target, half, g, cell_size)
    found: list[np.ndarray] = []
    listed = hits = 0
    total = len(U[0]) * len(U[1])  # left patterns: once all are listed, every pattern in the box is found
    for cell in cells:
        if listed >= total:
            break
        late = passed(deadline)
        if late or (budget is not None and listed >= budget) or (enough is not None and hits >= enough):
            return _patterns(found, n), False
        lo, hi = origin + cell * w, origin + (cell + 1) * w
        la, lb = _join(U[0][:, g], U[1][:, g], lo - w * SLACK, hi + w * SLACK)
        s = U[0][la][:, g] + U[1][lb][:, g]
        own = np.all((s >= lo) & (s < hi), axis=1)  # the cell's own pairs: the cells partition the left patterns
        la, lb = la[own], lb[own]
        listed += la.size
        if la.size == 0:
            continue
        right = _join(U[2][:, g], U[3][:, g], target[g] - hi - pad, target[g] - lo + pad, limit=LIMIT)
        if right is None:  # a box far wider than the cells: stop (memory), the answer incomplete
            return _patterns(found, n), False
        ra, rb = right
        if ra.size == 0:
            continue
        pairs = _join(U[0][la] + U[1][lb] - target, U[2][ra] + U[3][rb], -half * (1 + SLACK), half * (1 + SLACK),
                      dims=(list(range(len(g), k)) + g)[:3], limit=LIMIT)  # fmt: skip
        if pairs is None:
            return _patterns(found, n), False
        i, r = pairs
        z = np.zeros((i.size, n), bool)
        for a_idx, part in ((la[i], 0), (lb[i], 1), (ra[r], 2), (rb[r], 3)):
            z[:, blocks[part]] = Z[part][a_idx]
        found.append(z[np.all(np.abs(z @ V.T - target) <= half, axis=1)])
        hits += len(found[-1])
    return _patterns(found, n), True


def _patterns(found: list[np.ndarray], n: int) -> np.ndarray:
    return np.unique(np.vstack(found), axis=0) if found else np.zeros((0, n), bool)


def _grid(U: list[np.ndarray], target: np.ndarray, half: np.ndarray, g: list[int], size: int):
    """(origin, width, cells) of a uniform grid over the left sums in the dimensions ``g``: about ``size`` left
    patterns in a cell at the densest point (normal approximation); every cell that can hold
    a left pattern, nearest first to the target's share of the left blocks (target × their mass): patterns from
    around that point are the ones a mixture with equal coverage of every coordinate is made of."""
    mL = U[0][:, g].mean(0) + U[1][:, g].mean(0)
    vL = U[0][:, g].var(0) + U[1][:, g].var(0)
    centre = target[g] * mL / np.maximum(2 * mL + 2 * (U[2][:, g].mean(0) + U[3][:, g].mean(0)), 1e-300) * 2
    peak = len(U[0]) * len(U[1]) / np.prod(np.sqrt(2 * np.pi * np.maximum(vL, 1e-300)))
    w = np.full(len(g), (size / peak) ** (1.0 / len(g)))
    lo = U[0][:, g].min(0) + U[1][:, g].min(0)
    hi = U[0][:, g].max(0) + U[1][:, g].max(0)
    origin = lo - w * (1 + SLACK)  # a cell of margin each side: round-off never leaves the grid
    span = np.floor((hi - origin) / w).astype(np.int64) + 2
    cells = np.stack(np.unravel_index(np.arange(int(np.prod(span))), tuple(span)), axis=1)
    gap = ((origin + (cells + 0.5) * w - centre) / np.sqrt(np.maximum(vL, 1e-300))) ** 2
    return origin, w, cells[np.argsort(gap.sum(axis=1), kind="stable")]


def _join(P: np.ndarray, Q: np.ndarray, lo: np.ndarray, hi: np.ndarray, dims: list[int] | None = None,
          limit: int | None = None):  # fmt: skip
    """Index pairs (p, q) with lo ≤ P_p + Q_q ≤ hi in every column (a superset by round-off only), Q bucketed on
    ``dims`` (default all) by cells wider than hi − lo: each p's box meets at most two cells per dimension; None
    when more than ``limit`` pairs are found (memory)."""
    dims = list(range(P.shape[1])) if dims is None else dims
    width = (hi - lo)[dims] * (1 + 1e-6) + 1e-300
    origin = Q[:, dims].min(0) - width
    cell = np.floor((Q[:, dims] - origin) / width).astype(np.int64)
    shape = tuple(cell.max(0) + 3)
    key = np.ravel_multi_index(tuple(cell.T), shape)
    order = np.argsort(key, kind="stable")
    keys = key[order]
    cells = int(np.prod(shape))
    table = np.searchsorted(keys, np.arange(cells + 1)) if cells <= TABLE else None  # each cell's range in ``keys``
    corner = np.floor((lo[dims] - P[:, dims] - origin - SLACK * width) / width).astype(np.int64)
    runs = []  # (start, count) of each p's candidates in ``keys``, one pair per cell offset
    for off in itertools.product((0, 1), repeat=len(dims)):
        c = corner + np.array(off)
        ok = np.all((c >= 0) & (c < np.array(shape)), axis=1)
        kk = np.ravel_multi_index(tuple(np.where(ok[:, None], c, 0).T), shape)
        if table is not None:
            start, stop = table[kk], table[kk + 1]
        else:  # sorted needles: numpy's binary search starts from the previous answer
            srt = np.argsort(kk, kind="stable")
            start, stop = np.empty_like(kk), np.empty_like(kk)
            start[srt] = np.searchsorted(keys, kk[srt], side="left")
            stop[srt] = np.searchsorted(keys, kk[srt], side="right")
        runs.append((start, np.where(ok, stop - start, 0)))
    per_p = sum(cnt for _, cnt in runs)
    cuts = np.searchsorted(np.cumsum(per_p), np.arange(1, -(-int(per_p.sum()) // CHUNK)) * CHUNK)
    out_p, out_q, found = [], [], 0
    for rows in np.split(np.arange(P.shape[0]), cuts):  # about CHUNK candidates at a time: bounded memory
        for start, cnt in runs:
            p = np.repeat(rows, cnt[rows])
            q = order[np.repeat(start[rows] - (np.cumsum(cnt[rows]) - cnt[rows]), cnt[rows]) + np.arange(p.size)]
            s = P[p] + Q[q]
            keep = np.all((s >= lo - SLACK * (hi - lo)) & (s <= hi + SLACK * (hi - lo)), axis=1)
            out_p.append(p[keep])
            out_q.append(q[keep])
            found += int(keep.sum())
            if limit is not None and found > limit:
                return None
    return np.concatenate(out_p), np.concatenate(out_q)
