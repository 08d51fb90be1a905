"""Robust MI pricing above enumeration: a flip-and-swap pattern search, then the exact branch and bound.

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

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np

from mechopt.errors import ParamError
from mechopt.runtime.deadline import passed
from mechopt.solvers.robust.answer import RayPricing, _rc_tol, certified_tol
from mechopt.solvers.robust.bnb import MIBranchBound
from mechopt.solvers.robust.near import box_patterns
from mechopt.solvers.robust.pricing import LDPMIMilpPricer

__all__ = [
    "pattern_search",
    "near_patterns",
    "mi_pricer",
    "TREE_LIMIT",
    "LDPMIBranchPricer",
    "NODE_BUDGET",
    "NODE_CAP",
    "SEARCH_CAP",
]

#: Nodes of one branch-and-bound call of :class:`LDPMIBranchPricer` at first, and at most (4× per miss), and
#: the most random starts of one search pass.
NODE_BUDGET, NODE_CAP, SEARCH_CAP = 500, 200_000, 4096

#: Tuples of a tree search of :class:`LDPMITreePricer` after which it returns the columns in hand, and at most.
TREE_BUDGET, TREE_CAP = 50_000, 3_200_000

#: Left patterns listed per try of :func:`near_patterns`, and its tries (h doubles each).
NEAR_BUDGET, NEAR_TRIES = 1 << 20, 6

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
    deadline: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(distinct local optima, rows of bool patterns; their ρ), from ``Z0`` and ``starts`` random patterns.

    ``psi`` maps subset sums (any shape, the prior last) to ψ; ``V`` holds the priors as rows (k × n). A
    ``deadline`` (``time.perf_counter()`` seconds) stops the moves: the patterns reached so far are returned.
    """
    n = V.shape[1]
    rng = np.random.default_rng(seed)
    Z = np.vstack([np.asarray(Z0, bool).reshape(-1, n), rng.random((starts, n)) < density])
    Z = np.unique(Z, axis=0)
    U = Z @ V.T
    val = c0 + Z @ c + psi(U) @ lam
    live = np.ones(len(Z), bool)
    for _ in range(max_moves):
        if not live.any() or passed(deadline):
            break
        idx = np.flatnonzero(live)
        parts = [
            _best_moves(V, lam, c0, c, psi, Z[j], U[j], val[j]) for j in np.array_split(idx, -(-idx.size // CHUNK))
        ]
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


def near_patterns(V: np.ndarray, peak: float, count: int, *, budget: int = NEAR_BUDGET,
                  deadline: float | None = None) -> tuple[np.ndarray, float, bool]:  # fmt: skip
    """(about ``count`` patterns (at most 16·``count``) with every subset sum V_i z within h of ``peak``, h, and
    whether they are all such patterns), from cells around the target's share of the left blocks
    (:func:`~mechopt.solvers.robust.near.box_patterns`); rows of bool, fewer if NEAR_TRIES tries of at most
    ``budget`` listed left patterns each find fewer, or the ``deadline`` stops them (incomplete).

    A first try lists ``budget``/8 left patterns at h a quarter of the normal approximation's guess (sums of
    independent fair coins, the priors taken as independent); then h is rescaled by (count / expected)^(1/k)
    (the count in a box grows as h^k, and with the patterns listed) for the whole budget, and again if short.
    """
    k, n = V.shape
    mean, var = 0.5 * V.sum(axis=1), 0.25 * (V * V).sum(axis=1)  # z uniform on {0,1}^n
    dens = np.exp(-0.5 * (peak - mean) ** 2 / var) / np.sqrt(2 * np.pi * var)
    listed = min(float(budget), 2.0 ** (n - n // 2))  # left patterns listed, about (all of them at small n)
    h = 0.25 * (count / (listed * 2.0 ** (n // 2) * dens.prod())) ** (1.0 / k)
    top = min(peak, 1.0 - peak)  # a box reaching past 0 or 1 is no longer around the peak (ε = 30: u* = 2.9e-12,
    h = min(h, top)  # the normal guess h = 6.4 listed all 2^21 patterns of d = 21 for 61 s before the first master)
    if not h > 0:
        return np.zeros((0, n), bool), 0.0, True
    part = 8
    for _ in range(NEAR_TRIES):
        Z, done = box_patterns(V, np.full(k, peak), np.full(k, h), budget=budget // part, enough=16 * count,
                               deadline=deadline)  # fmt: skip
        late = passed(deadline)
        if late or (part == 1 and (len(Z) >= count or (done and h >= top))):
            break
        expected = len(Z) * (part if not done else 1)
        h = min(top, h * float(np.clip(1.1 * (count / max(expected, 1)) ** (1.0 / k), 0.25, 4.0)))
        part = 1
    return Z, h, done


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
    Us = np.clip(
        U[:, None, None, :] - V.T[None, :, None, :] + V.T[None, None, :, :], 0.0, 1.0
    )  # masked below if not a swap
    sw = (c[None, None, :] - c[None, :, None]) + psi(Us) @ lam - old[:, None, None]
    sw = np.where(Z[:, :, None] & ~Z[:, None, :], sw, -np.inf)
    flat = sw.reshape(m, -1).argmax(axis=1)
    sgain = sw.reshape(m, -1)[np.arange(m), flat]
    better = sgain > gain
    gain = np.where(better, sgain, gain)
    move[better] = np.stack([flat[better] // n, flat[better] % n], axis=1)
    return gain, move


class LDPMIBranchPricer(LDPMIMilpPricer):
    """ε-LDP patterns for mutual information at k priors: a flip-and-swap search, then an exact branch and bound.

    The heuristic step is :func:`~mechopt.solvers.robust.search.pattern_search` from the ascent's
    patterns and ``starts`` random ones (seeded by the call count); the exact step is
    :class:`~mechopt.solvers.robust.bnb.MIBranchBound` (Lagrangian bounds on the concave ψ(P_iᵀz),
    proof in its module docstring) in place of the tangent-cut MILP, its patterns polished by the search.
    """

    def __init__(self, V: np.ndarray, eps: float, starts: int = 32) -> None:
        super().__init__(V, eps)
        self.bb = MIBranchBound(self.V, eps, max_nodes=NODE_BUDGET)  # its tol is set per pricing (_price_milp)
        self.stop = 0.5  # a round ends once a column within half of the bound is found (the bound stays proven)
        self.starts, self.calls = starts, 0
        self.density = float(np.clip(self._peak(), 0.05, 0.95))

    def _search(self, lam, mu, Z0, starts: int):
        """Improving patterns (best first, at most n) of one search pass from the best of Z0 and ``starts`` random."""
        const, coef = self._lin(lam, mu)
        Z0 = np.unique(np.asarray(Z0, bool), axis=0)
        Z0 = Z0[np.argsort(-self.rho(Z0, lam, mu))[: self.starts // 2]]  # the best given patterns start
        self.calls += 1
        Z, rc = pattern_search(self.V, lam, const, coef, lambda U: self._psi(U)[0], Z0, starts=int(starts),
                               density=self.density, seed=self.calls)  # fmt: skip
        best = np.argsort(-rc)[: self.n]
        return Z[best[rc[best] > _rc_tol()]]

    def seed_rays(self, count: int, near: int = 0, deadline: float | None = None) -> np.ndarray:
        """Patterns of ρ near its maximum 0 at :meth:`start_duals` (every subset sum near u*): seed columns.

        ``count`` random starts of the search (seeded), all local optima kept, and at most 4·``near``·n patterns
        of least loss among those whose sums all lie within h of u* (:func:`near_patterns`, about ``near``·n
        asked for; n × at most ``count`` + 4·``near``·n). None once the ``deadline`` has passed (the ray LP then
        returns the constant channel), fewer near-u* ones if it passes during their search.
        """
        if passed(deadline):
            return np.zeros((self.n, 0))
        lam, mu = self.start_duals()
        const, coef = self._lin(lam, mu)
        Z, _ = pattern_search(self.V, lam, const, coef, lambda U: self._psi(U)[0], np.zeros((0, self.n), bool),
                              starts=count, density=self.density, seed=0, deadline=deadline)  # fmt: skip
        if near > 0:
            Zn = near_patterns(self.V, self._peak(), near * self.n, deadline=deadline)[0]
            Zn = Zn[np.argsort(-self.rho(Zn, lam, mu), kind="stable")[: 4 * near * self.n]]
            Z = np.unique(np.vstack([Z, Zn]), axis=0)
        return self._rays(Z[(Z.sum(axis=1) > 0) & (Z.sum(axis=1) < self.n)])

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        """Search passes of 4× more random starts each (at most ``SEARCH_CAP``); from the third miss on, the
        branch and bound between passes, its node budget 4× per miss (``NODE_BUDGET`` to ``NODE_CAP``), until
        a column, a proven bound, the node cap or the deadline."""
        const, coef = self._lin(lam, mu)
        keys = [-coef] + [-coef / np.maximum(P, 1e-300) for P in self.V] + [-coef / np.maximum(lam @ self.V, 1e-300)]
        Z0 = np.vstack([self._threshold_candidates(k) for k in keys])
        Z0 = np.vstack([Z0, self._surrogate(Z0, lam, coef)])
        budget = NODE_BUDGET
        for widen in itertools.count():
            Z = self._search(lam, mu, Z0, min(self.starts * 4**widen, SEARCH_CAP))
            if len(Z):
                return RayPricing(self._rays(Z), None, "heuristic")
            if widen < 2:
                continue
            self.bb.max_nodes = budget
            pr = self._price_milp(lam, mu, deadline)
            late = passed(deadline)
            if pr.bound is not None or pr.rays.shape[1] or late or budget >= NODE_CAP:
                return pr
            budget = min(4 * budget, NODE_CAP)
        raise AssertionError("unreachable")  # pragma: no cover

    def _price_milp(self, lam, mu, deadline) -> RayPricing:
        self.bb.tol = certified_tol(lam, mu, np.zeros(len(lam)))  # relative to the mi certified (1ᵀμ)
        Z, ub = self.bb.solve(lam, mu, deadline, stop=self.stop)
        true = self.rho(Z, lam, mu)
        Z = np.unique(
            np.vstack([Z[true > _rc_tol()].astype(bool), self._search(lam, mu, Z > 0.5, self.starts)]), axis=0
        )
        rays = self._rays(Z)
        if ub is None:
            return RayPricing(rays, None, "branch and bound stopped (deadline or node cap)")
        return RayPricing(rays, max(ub, float(true.max())), "branch and bound")


class LDPMITreePricer(LDPMIBranchPricer):
    """ε-LDP patterns for mutual information at k priors: exact pricing by the block trees of
    :class:`~mechopt.solvers.robust.tree.SubsetTrees` (meet in the middle over the subset sums) every round; the
    start duals and seed columns are the branch pricer's."""

    def __init__(self, V: np.ndarray, eps: float, starts: int = 32, block: int = 16) -> None:
        super().__init__(V, eps, starts=starts)
        from mechopt.solvers.robust.tree import SubsetTrees

        self.tree = SubsetTrees(self.V, eps, block=block)  # its tol is set per pricing (price)

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None) -> RayPricing:
        """One tree search until a proven bound, the deadline or ``TREE_CAP`` tuples, returning early (no bound)
        with the columns in hand once past ``TREE_BUDGET`` tuples (one search: a proof is never restarted)."""
        self.tree.tol = self.tree.bb.tol = certified_tol(lam, mu, np.zeros(len(lam)))  # relative to the mi (1ᵀμ)
        Z, ub = self.tree.solve(lam, mu, deadline, stop=self.stop, keep=self.n, budget=TREE_CAP, early=TREE_BUDGET)
        true = self.rho(Z, lam, mu)
        if ub is None and not np.any(true > _rc_tol()):  # what it held was under the reduced-cost tolerance
            Z, ub = self.tree.solve(lam, mu, deadline, stop=self.stop, keep=self.n, budget=TREE_CAP)
            true = self.rho(Z, lam, mu)
        rays = self._rays(Z[true > _rc_tol()].astype(bool))
        if ub is not None:
            return RayPricing(rays, max(ub, float(true.max())), "block trees")
        return RayPricing(rays, None, "block trees stopped (columns in hand, deadline or tuple cap)")


#: The most symbols the tree pricer takes (two blocks of 2^20 patterns; building them takes ~13 s at 40).
TREE_LIMIT = 40

#: Near-u* seed columns asked for per symbol (option ``seed_near`` = None) with the trees, and above them: to d = 40
#: every pattern near u* is listed (cheap), so the first master holds the optimum's columns and the duals at which
#: one exact tree pass proves the bound (d = 40, 5 priors); above, fewer and nearer ones (the bound is v*).
NEAR_TREE, NEAR_BRANCH = 128, 16

#: The most near-u* seed columns per symbol an option may ask for (1024 at d = 40: 15.7 s, at load 2).
NEAR_MAX = 1024


def _count(val: Any, key: str, top: int | None, what: str) -> Any:
    """``val`` when None or an integer in [0, top] (top None: no cap); else a one-line ParamError."""
    if val is None:
        return None
    if isinstance(val, bool) or not isinstance(val, (int, np.integer)) or val < 0 or (top is not None and val > top):
        cap = "" if top is None else f" at most {top}"
        raise ParamError(f"{key}={val!r} is not a count: give an integer >= 0{cap}; it asks for {what}")
    return int(val)


def mi_pricer(V: np.ndarray, n: int, eps: float, opts: dict[str, Any], seed: np.ndarray,
              deadline: float | None = None):  # fmt: skip
    """(pricer, seed columns, a word) for ε-LDP mi above enumeration, by ``mi_pricer``: ``auto`` is the trees
    to ``tree_max`` symbols (at most TREE_LIMIT), the search and branch and bound above."""
    kind = opts["mi_pricer"]  # one of the words robust-rays checks (rays.WORDS)
    if kind == "milp":
        return LDPMIMilpPricer(V, eps), seed, "tangent-cut MILP (exact)"
    if kind == "tree" and n > TREE_LIMIT:
        raise ParamError(f"mi_pricer='tree' lists every pattern of two halves: d = {n} is above {TREE_LIMIT}; "
                         "use 'auto' or 'branch'")  # fmt: skip
    near = _count(opts["seed_near"], "seed_near", NEAR_MAX, "seed_near·d near-u* seed columns (0 turns them "
                  f"off; None: the default, {NEAR_TREE} with the trees, {NEAR_BRANCH} above)")  # fmt: skip
    _count(opts["seed_starts"], "seed_starts", None, "seed_starts pattern-search starts for the seed columns")
    starts = int(opts["search_starts"])
    if kind == "tree" or (kind == "auto" and n <= min(int(opts["tree_max"]), TREE_LIMIT)):
        pricer = LDPMITreePricer(V, eps, starts=starts, block=-(-n // 2))
        how = "exact search over two blocks' subset-sum trees (meet in the middle)"
        near = NEAR_TREE if near is None else near
    else:
        pricer = LDPMIBranchPricer(V, eps, starts=starts)
        how = "pattern search, then an exact Lagrangian branch and bound"
        near = NEAR_BRANCH if near is None else near
    return pricer, np.hstack([seed, pricer.seed_rays(int(opts["seed_starts"]), int(near), deadline)]), how
