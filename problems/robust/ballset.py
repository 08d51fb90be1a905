"""A prior ball held by its inequalities, {P ∈ Δ : dist(P, c) ≤ r} for TV or L∞: its closed-form worst priors.

The ball has up to ~2^d vertices, so :class:`~mechopt.problems.robust.PriorSet` stops at d = 10; a linear function
of P minimised over the ball has a closed form instead (mass moved greedily), which the ball design's audit
(:class:`~mechopt.problems.robust.balls.BallDesign`) and the LP duals of :mod:`mechopt.solvers.robust.ball` use.
A TV ball's vertices have a closed form too (:meth:`BallSet.all_vertices`: their number is set by the subsets of
light symbols the radius can empty, 1328 at d = 16 for counts 50·(d − i)), where mutual information finds its worst
prior (:mod:`mechopt.solvers.robust.ballrays`).

Examples
--------
>>> B = BallSet(np.array([0.5, 0.3, 0.2]), 0.1, "tv")
>>> P = B.extreme(np.array([1.0, 0.0, 0.5]))    # the prior of the ball minimising P·q: 0.1 moved from 0 to 1
>>> P.round(12).tolist(), B.describe()
([0.4, 0.4, 0.2], 'ball: tv ball of radius 0.1 on 3 symbols (by its inequalities)')
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ProblemError, TooLargeError

__all__ = ["BallSet", "ball_radius", "MAX_VERTICES"]

#: Vertices of a TV ball enumerated at most (:meth:`BallSet.all_vertices`; 8·d bytes each).
MAX_VERTICES = 200_000


def ball_radius(radius: Any) -> float:
    """``radius`` as a float in [0, 1] (no two priors are farther apart in TV or L∞), else a ProblemError.

    >>> ball_radius("0.25")
    0.25
    """
    try:
        r = float(radius)
    except (TypeError, ValueError, OverflowError):
        r = math.nan
    if not 0.0 <= r <= 1.0:  # NaN fails too
        raise ProblemError(
            f"a prior ball's radius must be a number in [0, 1] (no two priors are farther apart), got {radius!r}"
        )
    if 0.0 < r < sys.float_info.min:  # subnormal: 1e-320 is held as 9.99989e-321 (the set named a radius not given)
        raise ProblemError(
            f"a prior ball's radius {radius!r} is below {sys.float_info.min:.3g} (a subnormal float, not held to "
            "full precision): give 0 for the center alone, or a radius of at least that"
        )
    return r


@dataclass(frozen=True, eq=False)
class BallSet:
    """{P ∈ Δ : dist(P, ``center``) ≤ ``radius``}, dist the total variation (``"tv"``) or L∞ (``"linf"``)."""

    center: np.ndarray
    radius: float
    kind: str = "tv"
    source: str = "ball"
    origin: Any = None  # the EmpiricalPrior the ball came from (its counts, δ and bound), if any

    def __post_init__(self) -> None:
        c = np.asarray(self.center, float).ravel()
        if c.size == 0 or not np.all(np.isfinite(c)) or c.min() < 0 or abs(c.sum() - 1) > 1e-9:
            raise ProblemError("the ball's center must be a prior (entries >= 0 summing to 1)")
        r = ball_radius(self.radius)
        if self.kind not in ("tv", "linf"):
            raise ProblemError(f"ball kind {self.kind!r}: use 'tv' or 'linf'")
        object.__setattr__(self, "center", c / c.sum())
        object.__setattr__(self, "radius", r)

    @property
    def d(self) -> int:
        """The number of symbols."""
        return int(self.center.size)

    @property
    def box(self) -> tuple[np.ndarray, np.ndarray]:
        """(l, u): the bounds of each P(x) over the ball (L∞: the box itself, with Σ P = 1)."""
        return np.maximum(self.center - self.radius, 0.0), np.minimum(self.center + self.radius, 1.0)

    def inner(self) -> np.ndarray:
        """A prior of the ball with mass on its whole support: (1 − t)·c + t·uniform, t = min(r, 1)."""
        t = min(self.radius, 1.0)
        return (1 - t) * self.center + t * self.support / self.support.sum()

    @property
    def support(self) -> np.ndarray:
        """The symbols some prior of the ball gives mass (all of them once the radius is positive)."""
        return np.asarray(self.box[1] > 0)

    def contains(self, P: Any, tol: float = 1e-12) -> bool:
        """Whether ``P`` is a prior of the ball, to ``tol`` (relative to the radius, plus ``tol`` absolute).

        >>> B = BallSet(np.array([0.5, 0.5]), 0.1, "linf")
        >>> B.contains([0.6, 0.4]), B.contains([0.7, 0.3])
        (True, False)
        """
        P = np.asarray(P, float)
        if P.shape != self.center.shape or P.min() < -tol or abs(P.sum() - 1) > tol:
            return False
        gap = P - self.center
        dist = 0.5 * float(np.abs(gap).sum()) if self.kind == "tv" else float(np.abs(gap).max())
        return dist <= self.radius * (1 + tol) + tol

    def extreme(self, q: np.ndarray) -> np.ndarray:
        """The prior of the ball minimising P·q, in closed form (vectorised; the max of P·q is at ``extreme(-q)``).

        TV: mass min(r, ·) taken from the dearest symbols (argsort of −q, ties by the first index) and put on the
        first cheapest; L∞: the box's lower corner filled up to mass 1 in order of q. The same prior the greedy
        loop over symbols gives (``tests/problems/test_robust_balls.py`` keeps that loop as the reference).

        >>> B = BallSet(np.array([0.5, 0.3, 0.2]), 0.1, "tv")
        >>> q = np.array([1.0, 0.0, 0.5])
        >>> B.extreme(q).round(12).tolist(), round(float(B.extreme(q) @ q), 12), B.extreme(-q).round(12).tolist()
        ([0.4, 0.4, 0.2], 0.5, [0.6, 0.2, 0.2])
        """
        q = np.asarray(q, float)
        if self.kind == "tv":  # take up to r from the dearest symbols, put it on the cheapest
            P, have, order, left = self.center.copy(), self.center, np.argsort(-q, kind="stable"), self.radius
        else:  # fill the box from its lower corner, cheapest symbols first
            lo, hi = self.box
            P, have, order, left = lo.copy(), hi - lo, np.argsort(q, kind="stable"), 1.0 - float(lo.sum())
        h = have[order]
        # what is left before each symbol, subtracted in order as a loop would (cumsum is sequential: the same bits)
        left_before = np.cumsum(np.r_[left, -h])
        move = np.minimum(h, np.maximum(left_before[:-1], 0.0))  # what each symbol gives (TV) or takes (L∞)
        if self.kind == "tv":
            P[order] -= move
            P[int(np.argmin(q))] += self.radius - max(float(left_before[-1]), 0.0)
        else:
            P[order] += move
        return P

    def all_vertices(self, limit: int = MAX_VERTICES) -> np.ndarray:
        """Every vertex of the TV ball (k × d) in closed form (no Qhull); a TooLargeError above ``limit`` of them.

        A vertex moves the radius r onto one symbol u (P_u = c_u + r) from a set Z emptied (P_Z = 0, c(Z) ≤ r) and
        one symbol i that gives the rest (P_i = c_i − (r − c(Z)) ≥ 0), the others at c; or it is a point mass e_u
        when 1 − c_u ≤ r. The list holds every vertex (and may hold a few points of the ball that are not vertices,
        where such sums tie): a minimum of a concave function over the ball is a minimum over this list.

        >>> B = BallSet(np.array([0.5, 0.3, 0.2]), 0.1, "tv")
        >>> len(B.all_vertices()), bool(all(B.contains(P) for P in B.all_vertices()))
        (6, True)
        """
        if self.kind != "tv":
            raise ProblemError("the vertices of an L∞ ball are not enumerated in closed form: use a TV ball")
        c, r, d = self.center, self.radius, self.d
        if r == 0.0 or d == 1:
            return c[None, :].copy()
        out = [np.eye(d)[u] for u in range(d) if 1.0 - c[u] <= r]
        pos = [int(x) for x in np.argsort(c, kind="stable") if c[x] > 0]
        count = 0
        for Z in _subsets(c, pos, r):
            rest = r - float(c[Z].sum()) if Z else r
            base = c.copy()
            base[Z] = 0.0
            for i in pos:
                if i in Z or c[i] < rest * (1 - 1e-12):
                    continue
                P = base.copy()
                P[i] = max(0.0, c[i] - rest)
                us = [u for u in range(d) if u != i and u not in Z]
                count += len(us)
                if count > limit:
                    raise TooLargeError(
                        f"the TV ball of radius {r:.4g} on {d} symbols has more than {limit} vertices (the subsets "
                        "of symbols its radius can empty): merge rare symbols, or take more samples"
                    )
                for u in us:
                    out.append(P.copy())
                    out[-1][u] += r
        return np.unique(np.array(out), axis=0)

    def privacy_priors(self, Q: Any) -> np.ndarray:
        """The priors of the ball at which each used column of ``Q`` is worst on either side (min and max of
        P·q), after one with mass on the ball's whole support (every row audited): over them
        :func:`~mechopt.problems.robust.problems.robust_levels` is the ball's exact worst case."""
        M = np.asarray(Q, float)
        rows = [self.inner()]
        for q in M[:, M.max(axis=0) > 0].T:
            rows += [self.extreme(q), self.extreme(-q)]
        return np.array(rows)

    def describe(self) -> str:
        """One line: where the ball came from and what it is."""
        return f"{self.source}: {self.kind} ball of radius {self.radius:.4g} on {self.d} symbols (by its inequalities)"


def _subsets(c: np.ndarray, pos: list[int], r: float) -> list[list[int]]:
    """Every set Z of the symbols ``pos`` (sorted by mass, ascending) with c(Z) ≤ r, the empty one first."""
    out: list[list[int]] = []

    def grow(Z: list[int], mass: float, start: int) -> None:
        out.append(Z)
        for k in range(start, len(pos)):
            m = mass + float(c[pos[k]])
            if m > r * (1 + 1e-12):
                break  # ascending masses: every later symbol overshoots too
            grow(Z + [pos[k]], m, k + 1)

    grow([], 0.0, 0)
    return out
