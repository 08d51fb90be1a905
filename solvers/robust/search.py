"""Local search for ε-LDP patterns of high reduced cost in robust MI pricing: flips and swaps, from many starts.

The robust MI pricing objective (:mod:`mechopt.solvers.robust.bnb`) is

    ρ(z) = c₀ + cᵀz + Σ_i λ_i ψ(V_iᵀz),   z ∈ {0,1}^n,

with ψ concave. Near the optimum of the ray LP the best patterns have every subset sum V_iᵀz near the
same point u*, a k-dimensional subset-sum problem on which 1-flip ascent from threshold patterns
stalls. This search moves every pattern of a batch at once (numpy, one array per move kind) to its
best neighbour by one flip or one swap (one coordinate in, one out: the sums change by V_b − V_a, the
size stays), until no move improves it. Starts: the given patterns and ``starts`` random patterns of
density ``density`` (seeded: same input, same patterns). A heuristic: it proves nothing; the pricer's
bound comes from the exact branch and bound only.

Examples
--------
>>> import numpy as np
>>> V = np.array([[0.2, 0.3, 0.5, 0.0], [0.1, 0.2, 0.3, 0.4]])
>>> lam, c0, c = np.array([0.5, 0.5]), -1.0, np.array([1.0, 0.5, 0.2, 0.9])
>>> psi = lambda u: -(1 + u) * np.log1p(u)
>>> Z, val = pattern_search(V, lam, c0, c, psi, np.zeros((1, 4), bool), starts=4, seed=0)
>>> every = [c0 + c @ z + lam @ psi(V @ z) for z in np.ndindex(2, 2, 2, 2)]
>>> bool(np.isclose(val.max(), max(every)))
True
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["pattern_search"]

#: Patterns whose swap neighbourhoods (CHUNK × n × n × k numbers) are evaluated at once.
CHUNK = 64


def pattern_search(
    V: np.ndarray,
    lam: np.ndarray,
    c0: float,
    c: np.ndarray,
    psi: Callable[[np.ndarray], np.ndarray],
    Z0: np.ndarray,
    *,
    starts: int = 32,
    density: float = 0.5,
    seed: int = 0,
    max_moves: int = 200,
) -> tuple[np.ndarray, np.ndarray]:
    """(distinct local optima, rows of bool patterns; their ρ), from ``Z0`` and ``starts`` random patterns.

    ``psi`` maps subset sums (any shape, the prior last) to ψ; ``V`` holds the priors as rows (k × n).
    """
    n = V.shape[1]
    rng = np.random.default_rng(seed)
    Z = np.vstack([np.asarray(Z0, bool).reshape(-1, n), rng.random((starts, n)) < density])
    Z = np.unique(Z, axis=0)
    U = Z @ V.T
    val = c0 + Z @ c + psi(U) @ lam
    live = np.ones(len(Z), bool)
    for _ in range(max_moves):
        if not live.any():
            break
        idx = np.flatnonzero(live)
        parts = [_best_moves(V, lam, c0, c, psi, Z[j], U[j], val[j]) for j in np.array_split(idx, -(-idx.size // CHUNK))]
        gain, move = np.concatenate([g for g, _ in parts]), np.vstack([m for _, m in parts])
        up = gain > 0
        live[idx[~up]] = False
        for i, (a, b) in zip(idx[up], move[up]):
            Z[i, a] = ~Z[i, a]
            if b >= 0:
                Z[i, b] = ~Z[i, b]
        U[idx[up]] = Z[idx[up]] @ V.T
        val[idx[up]] = c0 + Z[idx[up]] @ c + psi(U[idx[up]]) @ lam
    Z, first = np.unique(Z, axis=0, return_index=True)
    return Z, val[first]


def _best_moves(V, lam, c0, c, psi, Z, U, val):
    """(gain, (a, b)) of each pattern's best flip (b = −1) or swap (a leaves, b joins)."""
    m, n = Z.shape
    sign = np.where(Z, -1.0, 1.0)  # flipping x adds sign_x·V_x to the sums
    Uf = np.clip(U[:, None, :] + sign[:, :, None] * V.T[None], 0.0, 1.0)  # in [0, 1] but for round-off
    old = val - Z @ c - c0  # Σ λ_i ψ(u_i) now
    flip = sign * c[None] + psi(Uf) @ lam - old[:, None]
    best_flip = flip.argmax(axis=1)
    gain = flip[np.arange(m), best_flip]
    move = np.stack([best_flip, np.full(m, -1)], axis=1)
    # swaps: a ∈ z out, b ∉ z in; the linear part changes by c_b − c_a
    Us = np.clip(U[:, None, None, :] - V.T[None, :, None, :] + V.T[None, None, :, :], 0.0, 1.0)  # masked below if not a swap
    sw = (c[None, None, :] - c[None, :, None]) + psi(Us) @ lam - old[:, None, None]
    sw = np.where(Z[:, :, None] & ~Z[:, None, :], sw, -np.inf)
    flat = sw.reshape(m, -1).argmax(axis=1)
    sgain = sw.reshape(m, -1)[np.arange(m), flat]
    better = sgain > gain
    gain = np.where(better, sgain, gain)
    move[better] = np.stack([flat[better] // n, flat[better] % n], axis=1)
    return gain, move
