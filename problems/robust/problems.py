"""Robust (minimax) channel design over a set of priors: privacy at every prior, the worst utility optimised.

The program, for a prior set S = hull(P_1..P_k) and a loss L linear in Q:

    minimise  max_v Σ_x P_v(x) Σ_y Q[x, y] L[x, y]   s.t.   Q a channel, private at every P in S.

For a sublinear utility (mi, mse, histogram: :mod:`~mechopt.problems.robust.gains`) the worst case
is taken over the vertices: max_Q min_v I(P_v; Q), or min_Q max_v MSE(P_v, Q). I(P; Q) is concave
in P, so for mi the worst prior of the hull is a vertex and the vertex problem is the hull's. An
MMSE is concave in P too, so its worst prior in the hull can be interior: for mse / histogram the
design is over the finite set of vertices given, and its value is a lower bound on the hull's
minimax MSE; with ``hull=True`` the worst case is over the hull (the value is the channel's
certified worst case there, :func:`~mechopt.problems.robust.hull.hull_worst_case`).

Privacy over S reduces to the vertices (:mod:`~mechopt.problems.robust.priorsets`): for LIP, PML
and ALIP, column q = Q[:, y] must satisfy e^{−ε_l} P·q ≤ q_x ≤ e^{ε_u} P·q, linear in P, for every
x with mass under some prior of S (a row with mass under one vertex is constrained at every vertex:
the hull holds priors with P(x) > 0 arbitrarily close to each vertex). LDP does not depend on the
prior. Prior-free (minimax) design is S = the simplex (vertices e_x).

Examples
--------
>>> prob = RobustDesign.from_params(prior_set="0.2,0.8;0.5,0.5", notion="lip", utility="mae", eps=1.0)
>>> prob.notion.name, len(prob.prior_set.vertices), prob.objective
('lip', 2, 'worst-case mae')
>>> Q = [[0.7, 0.3], [0.3, 0.7]]
>>> prob.levels(Q).round(4).tolist(), round(prob.evaluate(Q), 4)
([0.7259, 0.5108], 0.3)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.problem import Problem
from mechopt.model.problem_audit import ProblemAudit
from mechopt.notions import LDP, LIP, PosteriorBox, PrivacyNotion, make_notion
from mechopt.problems.robust.gains import GAIN_UTILITIES, VertexGains
from mechopt.problems.robust.priorsets import PriorSet
from mechopt.results.result import Result
from mechopt.utilities import Utility, make_utility

__all__ = ["RobustDesign", "robust_levels", "robust_sides", "box_factors", "NOTIONS"]

NOTIONS = ("ldp", "lip", "pml", "alip")


def box_factors(notion: PrivacyNotion) -> tuple[float, float] | None:
    """(lo, hi) with lo·P·q ≤ q_x ≤ hi·P·q for a prior-dependent notion; None for LDP (prior-free).

    >>> box_factors(make_notion("pml", 1.0)) == (0.0, math.e)
    True
    """
    if type(notion) is LDP:
        return None
    if type(notion) is LIP:
        return math.exp(-notion.eps), math.exp(notion.eps)
    if isinstance(notion, PosteriorBox):
        return notion.factors()
    raise ProblemError(f"robust design takes notion {', '.join(NOTIONS)}, not {notion.name}")


def robust_levels(notion: PrivacyNotion, Q: Any, vertices: np.ndarray) -> np.ndarray:
    """The audited ε of ``Q`` at each vertex, on the rows the set constrains (mass under some vertex).

    For LDP every entry is the channel's LDP level. For LIP/PML/ALIP the level at vertex v is the
    notion's audit with λ = P_v Q on the rows of the set's support (∞ when a used output has
    λ_y = 0 at v, or a lower bound meets Q[x, y] = 0): from the two sides of :func:`robust_sides`.
    """
    if type(notion) is LDP:
        return np.full(len(vertices), float(notion.epsilon(np.asarray(Q, float), None)))
    upper, lower = robust_sides(Q, vertices)
    if type(notion) is LIP:
        return np.maximum(upper, lower)
    if notion.eps_lower == math.inf:  # PML: the upper side only
        return upper
    return np.maximum(upper, lower + (notion.eps - notion.eps_lower))  # ALIP: PosteriorBox.epsilon's number


def robust_sides(Q: Any, vertices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ε_u, ε_l) of ``Q`` at each vertex: max and −min of log Q[x, y] / λ_y, λ = P_v Q, over the rows of the
    set's support and the used outputs (both ∞ where a used output has λ_y = 0; ε_l ∞ where Q[x, y] = 0).

    >>> up, low = robust_sides([[0.75, 0.25], [0.25, 0.75]], np.array([[1.0, 0.0], [0.5, 0.5]]))
    >>> np.round(up, 6).tolist(), np.round(low, 6).tolist()  # at (1, 0) λ = (.75, .25): both sides log 3
    ([1.098612, 0.405465], [1.098612, 0.693147])
    """
    V = np.asarray(vertices, float)
    M = np.asarray(Q, float)
    Mr = M[V.max(axis=0) > 0]
    used = Mr.max(axis=0) > 0
    hi, lo = Mr[:, used].max(axis=0), Mr[:, used].min(axis=0)
    upper, lower = np.full(len(V), math.inf), np.full(len(V), math.inf)
    for i, P in enumerate(V):
        lam = P @ M
        if np.any(lam[used] <= 0):
            continue
        ll = np.log(lam[used])
        upper[i] = max(0.0, float(np.max(np.log(hi) - ll)))
        if not np.any(lo <= 0):
            lower[i] = max(0.0, float(np.max(ll - np.log(lo))))
    return upper, lower


@dataclass(frozen=True, eq=False)
class RobustDesign(Problem):
    """Minimise the worst expected loss over ``prior_set`` under ``notion`` at every prior of the set."""

    prior_set: PriorSet
    notion: PrivacyNotion
    utility: Utility
    hull: bool = False  # mse / histogram: the worst case over the hull, not only the vertices

    id: ClassVar[str] = "robust"
    paper: ClassVar[str] = ""

    def __post_init__(self) -> None:
        if not isinstance(self.prior_set, PriorSet):
            raise ProblemError("prior_set must be a PriorSet (see mechopt.problems.robust.PriorSet)")
        if self.prior_set.d < 2:  # as a single prior: there is nothing to hide or estimate
            raise ProblemError("the prior set has one symbol: a design needs at least 2 input symbols")
        box_factors(self.notion)  # a typed error for a notion without a robust form
        for V in self.prior_set.vertices:
            self.notion.check_prior(V)
        U = self.utility
        if not isinstance(U, Utility) or (
            U.linear_cost(self.prior_set.vertices[0]) is None and U.name not in GAIN_UTILITIES
        ):
            raise ProblemError(
                f"robust design takes a utility linear in Q (mae) or one of {', '.join(GAIN_UTILITIES)}, "
                f"not {getattr(U, 'name', U)!r}"
            )
        a = getattr(self.utility, "a", None)
        if a is not None and a.size != self.prior_set.d:
            raise ProblemError(f"{a.size} values but the prior set has {self.prior_set.d} symbols")

    @property
    def sense(self) -> str:  # type: ignore[override]
        return self.utility.sense

    @property
    def hull_mse(self) -> bool:
        """Whether the worst case is taken over the hull for an MSE (an interior prior can be worst)."""
        return bool(self.hull) and self.utility.name in ("mse", "histogram")

    def hull_bracket(self, Q: Any) -> tuple[float, float, np.ndarray]:
        """(MSE at the worst prior found, a certified upper bound on Q's worst MSE over the hull, that prior)."""
        from mechopt.problems.robust.hull import hull_worst_case

        return hull_worst_case(np.asarray(Q, float), self.prior_set.vertices, self.utility)

    @property
    def is_linear(self) -> bool:
        """Whether the utility is linear in Q (the one-LP ``robust-lp`` form), else a column gain."""
        return self.utility.name not in GAIN_UTILITIES

    @property
    def objective(self) -> str:  # type: ignore[override]
        return f"worst-case {self.utility.name}"

    @property
    def unit(self) -> str | None:  # type: ignore[override]
        return getattr(self.utility, "unit", None)

    @classmethod
    def from_params(  # type: ignore[override]
        cls,
        *,
        prior_set: Any,
        notion: str,
        utility: str,
        eps: Any,
        values: Any = None,
        outputs: Any = None,
        eps_lower: Any = None,
        hull: bool = False,
    ) -> "RobustDesign":
        """From CLI-style values: ``prior_set`` a :class:`PriorSet`, an
        :class:`~mechopt.problems.robust.EmpiricalPrior` (its set), ``"p,..;p,.."``, a .json file or a list."""
        S = prior_set.prior_set() if callable(getattr(prior_set, "prior_set", None)) else PriorSet.parse(prior_set)
        key = str(notion).lower()
        if key not in NOTIONS:
            raise ProblemError(f"robust design takes notion {', '.join(NOTIONS)}, not {notion!r}")
        kw = {} if eps_lower is None else {"eps_lower": eps_lower}
        N = make_notion(key, eps, **kw)
        ukey = str(utility).lower()
        if ukey not in ("mae", *GAIN_UTILITIES):
            raise ProblemError(f"robust design takes --utility mae, {', '.join(GAIN_UTILITIES)}, not {utility!r}")
        from mechopt.problems.design import _numbers

        vals = _numbers(values, "values", "one per input symbol")
        outs = _numbers(outputs, "output estimates", "one per output")
        if ukey in ("mae", "mse") and vals is None:
            vals = np.arange(S.d, dtype=float)
        return cls(prior_set=S, notion=N, utility=make_utility(ukey, values=vals, outputs=outs), hull=bool(hull))

    # -- the data a solver reads ---------------------------------------------------
    def loss_matrix(self) -> np.ndarray:
        """L[x, y] with expected loss at prior P = Σ_x P(x) Σ_y Q[x, y] L[x, y]."""
        return np.asarray(self.utility.linear_cost(np.ones(self.prior_set.d)), float)

    def robust_program(self) -> dict[str, Any]:
        """The LP's data: vertices (k × d), loss L (d × m), the rows the set constrains, the box factors."""
        if not self.is_linear:
            raise ProblemError(f"utility {self.utility.name} is not linear in Q: use solver 'robust-rays'")
        return {
            "vertices": self.prior_set.vertices,
            "loss": self.loss_matrix(),
            "rows": self.prior_set.support,
            "factors": box_factors(self.notion),
            "ldp_eps": self.notion.eps if type(self.notion) is LDP else None,
        }

    def vertex_gains(self) -> VertexGains | None:
        """The column gains at every vertex (the ray LP's data, ``robust-rays``); None for a linear utility."""
        return None if self.is_linear else VertexGains(self.prior_set.vertices, self.utility)

    # -- audit -----------------------------------------------------------------------
    def losses(self, Q: Any) -> np.ndarray:
        """The utility's value of Q at each vertex (a linear utility: its expected loss)."""
        M = np.asarray(Q, float)
        if not self.is_linear:
            return VertexGains(self.prior_set.vertices, self.utility).values(M)
        return self.prior_set.vertices @ np.sum(M * self.loss_matrix(), axis=1)

    def evaluate(self, Q: Any) -> float:
        """The worst value of Q over the vertices (the max of a loss, the min of an information)."""
        if self.hull_mse:  # the certified upper end of Q's worst case over the hull
            return self.hull_bracket(Q)[1]
        vals = self.losses(Q)
        return float(np.min(vals) if self.sense == "max" else np.max(vals))

    def levels(self, Q: Any) -> np.ndarray:
        """The audited ε of Q at each vertex (:func:`robust_levels`)."""
        return robust_levels(self.notion, Q, self.prior_set.vertices)

    def audit_channel(self, Q: Any) -> ProblemAudit:
        M = validate_channel(Q, n_inputs=self.prior_set.d)
        lv = self.levels(M)
        eps = float(lv.max())
        return ProblemAudit(violation=max(0.0, eps - self.notion.eps), eps_audited=eps,
                            notion=self.notion.name, eps=self.notion.eps,
                            value=self.evaluate(M))  # fmt: skip

    def audit(self, result: Result) -> ProblemAudit:
        if result.mechanism is None:
            return ProblemAudit(violation=None, notion=self.notion.name, eps=self.notion.eps)
        return self.audit_channel(result.Q)

    def params(self) -> dict[str, Any]:
        out = {"prior_set": self.prior_set.vertices.tolist(), **self.notion.params(), **self.utility.params()}
        return {**out, "hull": True} if self.hull else out
