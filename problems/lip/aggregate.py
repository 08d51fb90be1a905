"""N users with local priors: the decomposition of Proposition 2 (eq. (9)).

min over (q^1..q^N) of E(q^1..q^N) = Σ_i min E_i(q^i): the N-user MMSE of a sum
is the sum of the users' MMSEs (eqs. (10)-(13)), so each distinct user is
solved alone, by any solver passed in as a callback (problems never import
solvers), and the optima are added with multiplicities.

Examples
--------
>>> from mechopt.problems.lip.aggregate import LIPAggregate
>>> agg = LIPAggregate.local_binary("0.2,0.2,0.7", eps=1.0)
>>> agg.n_users, len(agg.users)
(3, 2)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.problem import Problem
from mechopt.problems.lip import closed as cf  # noqa: F401  (the doctests use it)
from mechopt.problems.lip.problems import LIPBinary, LIPWeightedSum, parse_floats
from mechopt.results.result import Result

__all__ = ["LIPAggregate", "AggregateResult"]


@dataclass(frozen=True)
class AggregateResult:
    """Σ_i of per-user optima (Proposition 2, eq. (9)).

    ``results[j]`` solves distinct user j, ``counts[j]`` users share it;
    ``per_user`` is the value of each distinct user.
    """

    total: float
    per_user: np.ndarray
    counts: np.ndarray
    results: list[Result]
    statuses: list[str] = field(default_factory=list)


@dataclass(frozen=True, eq=False)
class LIPAggregate:
    """N independent users, each its own channel problem (Proposition 2).

    min Σ_i E_i(q^i) over q^1..q^N = Σ_i min E_i(q^i): each distinct user is
    solved alone and the optima are summed with multiplicities ``counts``
    (default 1 each; users with identical parameters are merged).

    Examples
    --------
    >>> agg = LIPAggregate.local_binary([0.3, 0.5, 0.3], eps=1.0)
    >>> out = agg.solve_with(lambda p: p.closed_form())
    >>> len(out.results), agg.n_users, out.counts.tolist()
    (2, 3, [2, 1])
    >>> bool(np.isclose(out.total, sum(cf.binary_lip_mse(p, 1.0) for p in [0.3, 0.5, 0.3])))
    True
    """

    users: tuple[Problem, ...]
    counts: np.ndarray | None = None

    def __post_init__(self) -> None:
        users = tuple(self.users)
        if len(users) == 0:
            raise ProblemError("an aggregate needs at least one user")
        counts = np.ones(len(users), dtype=int) if self.counts is None else np.asarray(self.counts, dtype=int)
        if counts.shape != (len(users),) or np.any(counts < 1):
            raise ProblemError("counts must give a positive multiplicity for every user")
        keys: dict[str, int] = {}
        reps: list[Problem] = []
        merged: list[int] = []
        for u, c in zip(users, counts):
            key = repr((type(u).__name__, sorted(u.params().items())))
            if key in keys:
                merged[keys[key]] += int(c)
            else:
                keys[key] = len(reps)
                reps.append(u)
                merged.append(int(c))
        object.__setattr__(self, "users", tuple(reps))
        object.__setattr__(self, "counts", np.array(merged, dtype=int))

    @property
    def n_users(self) -> int:
        return int(self.counts.sum())

    @classmethod
    def local_binary(cls, p1s: Any, eps: Any, notion: str = "lip") -> "LIPAggregate":
        """N surveyed users with local priors P(X_i = 1) = p1s[i] (equal priors merged)."""
        vals, counts = np.unique(parse_floats(p1s, "p1s"), return_counts=True)
        return cls(tuple(LIPBinary(p1=p, eps=eps, kind=notion) for p in vals), counts)

    @classmethod
    def weighted_sum(
        cls, prior: Any, eps: Any, weights: Any, offsets: Any = None, values: Any = None, notion: str = "lip"
    ) -> "LIPAggregate":
        """S = Σ_i (a_i X_i + b_i) with a global prior and per-user weights/offsets."""
        a = parse_floats(weights, "weights")
        b = np.zeros_like(a) if offsets is None else parse_floats(offsets, "offsets")
        if b.size != a.size:
            raise ProblemError(f"{a.size} weights but {b.size} offsets")
        return cls(
            tuple(
                LIPWeightedSum(prior=prior, eps=eps, values=values, kind=notion, weight=w, offset=o)
                for w, o in zip(a, b)
            )
        )

    def solve_with(self, solve: Callable[[Problem], Result]) -> AggregateResult:
        """Solve every distinct user with ``solve`` (e.g. ``lambda p: mechopt.solve(p, "exact")``) and sum."""
        results = [solve(u) for u in self.users]
        vals = np.array([np.nan if r.value is None else r.value for r in results])
        total = float(self.counts @ vals) if np.all(np.isfinite(vals)) else float("inf")
        return AggregateResult(total, vals, self.counts.copy(), results, [r.status.value for r in results])
