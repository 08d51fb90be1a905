"""The tree dynamic program behind :mod:`mechopt.solvers.exact.pricing.tree`: rootings, λ tables, envelope.

A component of the essential policy forest rooted at a peak m is walked breadth first; position i
holds the heights H[i] ≤ 0 its node can take (sums of ±ε w along the path from m, merged to 1e-11),
z = P_x e^H and, for each height of its parent, the index of the height one edge below (``dn``)
and above (``up``, −1 above the peak). For multipliers λ (the columns of one pass) and per-node
values n = z (H + g), :func:`dp_pass` computes bottom up F[i][h, j], the maximum of
wn_j·N − λ_j Z over the orientations of the subtree of position i standing at height H[i][h]
(children pick up or down), restricted to a height-index interval per position (the search
node), with the Z of the maximiser and the choices (:func:`backtrack`). :func:`envelope` turns the
resulting lines N ≤ M_j + λ_j Z into a proven upper bound of f(N, Z) = N/Z − log Z.

Examples
--------
>>> import numpy as np
>>> r = rooting([0, 1, 2], {0: [(1, 1.0)], 1: [(0, 1.0), (2, 1.0)], 2: [(1, 1.0)]}, 1, 1.0, np.full(3, 1 / 3))
>>> r.nodes.tolist(), [h.tolist() for h in r.H]          # peak 1 in the middle: both ends at −ε or 0
([1, 0, 2], [[0.0], [-1.0], [-1.0]])
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Rooting", "rooting", "dp_pass", "backtrack", "envelope"]


@dataclass
class Rooting:
    """One component rooted at a peak: BFS order, parents, heights ≤ 0 and child index maps."""

    nodes: np.ndarray  # input indices in BFS order (nodes[0] is the peak)
    parent: np.ndarray  # BFS position of the parent (-1 at the peak)
    children: list[list[int]]
    H: list[np.ndarray]  # heights reachable at each position (≤ 0)
    z: list[np.ndarray]  # P_x e^H
    dn: list[np.ndarray]  # per parent height: index of (parent − εw) in H[i]
    up: list[np.ndarray]  # per parent height: index of (parent + εw), −1 above the peak

    @property
    def size(self) -> int:
        return int(sum(h.size for h in self.H))


def rooting(
    nodes: list[int],
    adj: dict[int, list[tuple[int, float]]],
    peak: int,
    eps: float,
    P: np.ndarray,
    max_size: float = math.inf,
) -> Rooting | None:
    """Breadth-first rooting of one tree at ``peak`` with the heights ≤ 0 of every position.

    None when the (position, height) entries would exceed ``max_size`` (checked as they grow).
    """
    order, parent, wpar = [peak], [-1], [0.0]
    pos = {peak: 0}
    for i in range(len(nodes)):
        for v, w in adj[order[i]]:
            if v not in pos:
                pos[v] = len(order)
                order.append(v)
                parent.append(i)
                wpar.append(w)
    H, dn, up, children = [np.zeros(1)], [np.zeros(0, int)], [np.zeros(0, int)], [[] for _ in order]
    size = 1
    for i in range(1, len(order)):
        p = parent[i]
        children[p].append(i)
        step = eps * wpar[i]
        cand = np.concatenate([H[p] - step, H[p] + step])
        ok = cand <= 1e-9 * step  # at or below the peak (sums round)
        vals = np.minimum(cand[ok], 0.0)
        _, first, inv = np.unique(np.round(vals, 11), return_index=True, return_inverse=True)
        idx = np.full(cand.size, -1)
        idx[ok] = inv
        H.append(vals[first])
        size += first.size
        if size > max_size:
            return None
        dn.append(idx[: H[p].size])
        up.append(idx[H[p].size :])
    return Rooting(np.array(order), np.array(parent), children, H, [P[x] * np.exp(h) for x, h in zip(order, H)], dn, up)


def dp_pass(
    r: Rooting, nv: list[np.ndarray], lo: np.ndarray, hi: np.ndarray, lam: np.ndarray, wn: np.ndarray
) -> tuple[np.ndarray, np.ndarray, list]:
    """max of wn_j·N − λ_j Z over the orientations whose height index at position i lies in [lo_i, hi_i].

    One bottom-up pass for all columns j (children pick up or down given the parent's height);
    returns M (−inf when no orientation is left), the Z of the maximiser and the choices.
    """
    F, ZT, pick = [None] * len(r.H), [None] * len(r.H), [None] * len(r.H)
    L = lam.size
    for i in range(len(r.H) - 1, -1, -1):
        z = r.z[i]
        n = z.size
        Fi = np.empty((n + 1, L))  # a last row −inf (Z 0): "up" above the peak
        Zi = np.zeros((n + 1, L))
        np.subtract(np.multiply.outer(nv[i], wn), np.multiply.outer(z, lam), out=Fi[:n])
        Fi[n] = -np.inf
        Zi[:n] = z[:, None]
        for c in r.children[i]:
            a, b = F[c][r.dn[c]], F[c][r.up[c]]
            go = b > a
            Fi[:n] += np.maximum(a, b)
            Zi[:n] += np.where(go, ZT[c][r.up[c]], ZT[c][r.dn[c]])
            pick[c] = go
        if lo[i] > 0 or hi[i] < n - 1:
            Fi[: lo[i]] = -np.inf
            Fi[hi[i] + 1 : n] = -np.inf
        F[i], ZT[i] = Fi, Zi
    return F[0][0], ZT[0][0], pick


def backtrack(r: Rooting, pick: list, j: int) -> np.ndarray:
    """Height index per position of the orientation that attains column j of a pass."""
    hi = np.zeros(len(r.H), int)
    for c in range(1, len(r.H)):
        p = hi[r.parent[c]]
        hi[c] = r.up[c][p] if pick[c][p, j] else r.dn[c][p]
    return hi


def envelope(M: np.ndarray, Z: np.ndarray, lam: np.ndarray, zmin: float, zmax: float, gamma: float):
    """Max of f(N, Z) = N/Z − log Z under N ≤ min_j (M_j + λ_j Z), Z ∈ [zmin, zmax].

    Every line is valid for every orientation, so any choice of line per piece bounds from above;
    each line is used from its vertex (Z_j, on the line) to the crossing with its neighbours (or
    across the gap when slopes are out of order). Returns the bound, for the pieces whose
    maximum exceeds ``gamma`` away from a vertex the chord slopes that would tighten them, and the
    columns of the two vertices around the largest piece (the orientations to separate by branching).

    Examples
    --------
    >>> envelope(np.array([0.0]), np.array([1.0]), np.array([0.0]), 1.0, 1.0, 0.0)
    (0.0, [], (0, 0))
    """
    o = np.lexsort((-lam, Z))
    M, Z, lam = M[o], Z[o], lam[o]
    N = M + lam * Z
    n = Z.size
    lo, hi = np.empty(n), np.empty(n)
    lo[0], hi[-1] = zmin, zmax
    dec = lam[:-1] > lam[1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        cross = np.clip((M[1:] - M[:-1]) / np.where(dec, lam[:-1] - lam[1:], 1.0), Z[:-1], Z[1:])
    lo[1:] = np.where(dec, cross, Z[:-1])
    hi[:-1] = np.where(dec, cross, Z[1:])
    lo, hi = np.maximum(lo, zmin), np.minimum(hi, zmax)
    zs = np.clip(-M, lo, hi)
    val = np.where(hi >= lo, M / zs + lam - np.log(zs), -np.inf)
    top = int(np.argmax(val))
    ub = float(val[top])
    ask = []
    pair = (int(o[top]), int(o[top]))
    for j in np.argsort(-val)[: int(np.sum(val > gamma))]:
        if abs(zs[j] - Z[j]) <= 1e-13 * Z[j]:
            continue  # the maximum is a real orientation
        if zs[j] > Z[j]:
            nb = j + 1 if j + 1 < n and Z[j + 1] > Z[j] else None
            s = (N[nb] - N[j]) / (Z[nb] - Z[j]) if nb is not None else lam[j] - max(1.0, abs(lam[j]))
        else:
            nb = j - 1 if j > 0 and Z[j - 1] < Z[j] else None
            s = (N[j] - N[nb]) / (Z[j] - Z[nb]) if nb is not None else lam[j] + max(1.0, abs(lam[j]))
        if j == top and nb is not None:
            pair = (int(o[j]), int(o[nb]))
        if math.isfinite(s):
            ask.append(float(s))
    return ub, ask, pair
