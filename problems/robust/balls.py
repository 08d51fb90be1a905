"""Robust design over a prior ball held by its inequalities (no vertices): a TV or L∞ ball of any size.

The ball (:class:`~mechopt.problems.robust.ballset.BallSet`) has up to ~2^d vertices, so
:class:`~mechopt.problems.robust.PriorSet` stops at d = 10. Every robust constraint here is a linear function of
P minimised or maximised over the ball, which has a closed form (move mass greedily) for the audit and an LP dual
with d + 2 (TV) or 2d + 1 (L∞) variables for the design (:mod:`mechopt.solvers.robust.ball`): privacy at every
prior of the ball and the worst expected loss, exactly, at any d. :class:`BallDesign` is the robust design over
such a ball (utility ``mae``, solver ``robust-lp``; or ``mi`` over a TV ball, solver ``robust-rays`` by vertex
generation, :mod:`mechopt.solvers.robust.ballrays`; problem id ``robust-ball``); its audit takes the worst prior
of the ball for each column (and for mi the vertex of least information, over every vertex of the ball).

Examples
--------
>>> prob = BallDesign.from_params(notion="pml", eps=1.0, prior_counts="120,80,40,10", delta=1e-3)
>>> prob.id, prob.prior_set.kind, prob.prior_set.d
('robust-ball', 'tv', 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.problem import ProblemAudit
from mechopt.problems.robust.ballset import BallSet
from mechopt.problems.robust.empirical import EmpiricalPrior
from mechopt.problems.robust.gains import VertexGains
from mechopt.problems.robust.problems import RobustDesign, box_factors, robust_levels

__all__ = ["BallDesign", "not_certified"]


@dataclass(frozen=True, eq=False)
class BallDesign(RobustDesign):
    """The worst expected loss (mae) or information (mi) over a :class:`BallSet`, optimised under a notion at every
    prior of the ball."""

    prior_set: BallSet  # type: ignore[assignment]
    id: ClassVar[str] = "robust-ball"

    def __post_init__(self) -> None:
        if not isinstance(self.prior_set, BallSet):
            raise ProblemError("prior_set must be a BallSet")
        box_factors(self.notion)
        name = self.utility.name
        if name != "mae" and not (name == "mi" and self.prior_set.kind == "tv"):
            raise ProblemError(not_certified(name, self.prior_set.d, self.notion.name, self.prior_set.kind))
        if name == "mae" and self.utility.a.size != self.prior_set.d:
            raise ProblemError(f"{self.utility.a.size} values but the ball has {self.prior_set.d} symbols")

    @classmethod
    def from_params(  # type: ignore[override]
        cls, *, notion: str, eps: Any, utility: str = "mae", prior_set: Any = None, prior_ball: Any = None,
        prior: Any = None, prior_counts: Any = None, delta: Any = None, bound: str = "weissman", values: Any = None,
        outputs: Any = None, eps_lower: Any = None, hull: bool = False,
    ) -> "BallDesign":  # fmt: skip
        """From CLI-style values. The ball is one of: ``prior_set`` a :class:`BallSet` or an
        :class:`~mechopt.problems.robust.EmpiricalPrior`; ``prior_counts`` (``"120,80,40"``) with ``delta`` (and
        ``bound``); ``prior_ball`` ``"R:KIND"`` with ``prior`` (its center), or the dict :meth:`params` writes.

        >>> prob = BallDesign.from_params(notion="pml", eps=1.0, prior_ball="0.05:tv", prior="0.5,0.3,0.2")
        >>> prob.id, prob.prior_set.kind, prob.prior_set.radius
        ('robust-ball', 'tv', 0.05)
        """
        B = _ball_of(prior_set, prior_ball, prior, prior_counts, delta, bound)
        if hull:
            raise ProblemError("a ball design takes no hull: its loss (mae) is linear in the prior")
        center = B.center.reshape(1, -1)  # the parent's parsing, on one prior of the ball, then the ball
        R = RobustDesign.from_params(prior_set=center, notion=notion, utility=utility, eps=eps, values=values,
                                     outputs=outputs, eps_lower=eps_lower)  # fmt: skip
        return cls(prior_set=B, notion=R.notion, utility=R.utility)

    def robust_program(self) -> dict[str, Any]:
        """The LP's data: the ball (no vertices), loss L, the rows it constrains, the box factors."""
        from mechopt.notions import LDP

        if not self.is_linear:
            raise ProblemError(f"utility {self.utility.name} over a ball is not linear in Q: use solver 'robust-rays'")

        ldp_eps = self.notion.eps if type(self.notion) is LDP else None
        return {"vertices": None, "ball": self.prior_set, "loss": self.loss_matrix(), "rows": self.prior_set.support,
                "factors": box_factors(self.notion), "ldp_eps": ldp_eps}  # fmt: skip

    def vertex_gains(self) -> None:
        return None

    def ball_vertices(self) -> np.ndarray:
        """Every vertex of the ball (:meth:`~mechopt.problems.robust.ballset.BallSet.all_vertices`), enumerated
        once: mutual information is concave in the prior, so its worst prior is one of them."""
        got = self.__dict__.get("_vertices")
        if got is None:
            got = self.prior_set.all_vertices()
            got.flags.writeable = False
            object.__setattr__(self, "_vertices", got)
        return got

    def worst_priors(self, Q: Any) -> np.ndarray:
        """The priors of the ball at which Q is worst: for the utility (mae: the loss's closed form; mi: the vertex
        of least information, over all of them), and per used column for each privacy side."""
        M = np.asarray(Q, float)
        B = self.prior_set
        if self.is_linear:
            worst = B.extreme(-np.sum(M * self.loss_matrix(), axis=1))
        else:
            V = self.ball_vertices()
            worst = V[int(np.argmin(VertexGains(V, self.utility).values(M)))]
        return np.vstack([worst, B.privacy_priors(M)])

    def losses(self, Q: Any) -> np.ndarray:
        """The utility of Q at its worst prior of the ball (one entry: an expected loss, or an information)."""
        P = self.worst_priors(Q)[:1]
        if not self.is_linear:
            return VertexGains(P, self.utility).values(np.asarray(Q, float))
        return P @ np.sum(np.asarray(Q, float) * self.loss_matrix(), axis=1)

    def levels(self, Q: Any) -> np.ndarray:
        """The audited ε of Q at the priors of the ball where each column is worst (:func:`robust_levels`)."""
        return robust_levels(self.notion, Q, self.worst_priors(Q))

    def audit_channel(self, Q: Any) -> ProblemAudit:
        M = validate_channel(Q, n_inputs=self.prior_set.d)
        eps = float(self.levels(M).max())
        return ProblemAudit(violation=max(0.0, eps - self.notion.eps), eps_audited=eps, notion=self.notion.name,
                            eps=self.notion.eps, value=self.evaluate(M))  # fmt: skip

    def params(self) -> dict[str, Any]:
        B = self.prior_set
        ball = {"center": B.center.tolist(), "radius": B.radius, "kind": B.kind}
        return {"prior_ball": ball, **self.notion.params(), **self.utility.params()}


def not_certified(utility: str, d: int, notion: str, kind: str = "tv") -> str:
    """Why a ball on ``d`` symbols (beyond the vertex form's 10) has no certified design for ``utility``: one line.

    >>> not_certified("mse", 16, "pml").split(":")[0]
    'mse over a prior ball on 16 symbols is not certified'
    """
    head = f"{utility} over a prior ball on {d} symbols is not certified: "
    if utility == "mi" and kind != "tv":
        why = ("its worst prior is a vertex of the ball, and only a TV ball's vertices are enumerated in closed form "
               "(an L∞ ball's, up to d·2^(d−1), are not)")  # fmt: skip
        return head + why + "; use the weissman bound (a TV ball), --utility mae, or merge rare symbols to 10 or fewer"
    if utility in ("mse", "histogram"):
        why = ("its worst prior over the ball may be interior (a Bayes risk is concave in the prior), and the hull "
               "search (--hull) needs the ball's vertices, which grow as 2^d beyond 10 symbols")  # fmt: skip
    else:
        why = "a ball held by its inequalities takes utility mae only"
    return head + why + "; use --utility mae (any d), or merge rare symbols to 10 or fewer"


def _ball_of(prior_set: Any, prior_ball: Any, prior: Any, counts: Any, delta: Any, bound: str) -> BallSet:
    """The :class:`BallSet` of :meth:`BallDesign.from_params`'s ball arguments (exactly one way given)."""
    given = [
        k for k, v in (("prior_set", prior_set), ("prior_ball", prior_ball), ("prior_counts", counts)) if v is not None
    ]
    if len(given) != 1:
        raise ProblemError("a ball design takes one of prior_set (a BallSet), prior_ball (R:KIND with prior) or "
                           f"prior_counts (with delta); got {', '.join(given) or 'none'}")  # fmt: skip
    if counts is not None:
        if delta is None:
            raise ProblemError("prior_counts needs delta (the probability in (0, 1) that the ball misses the prior)")
        return EmpiricalPrior.from_counts(counts, delta, bound).ball()
    if prior_set is not None:
        B = prior_set.ball() if isinstance(prior_set, EmpiricalPrior) else prior_set
        if not isinstance(B, BallSet):
            raise ProblemError("a ball design's prior_set is a BallSet or an EmpiricalPrior")
        return B
    if isinstance(prior_ball, dict):  # what params() writes
        return BallSet(np.asarray(prior_ball.get("center"), float), prior_ball.get("radius"), prior_ball.get("kind"))
    r, sep, kind = str(prior_ball).partition(":")
    if not sep or prior is None:
        raise ProblemError(f"prior_ball takes R:KIND (e.g. 0.1:tv) and a prior (its center), got {prior_ball!r}")
    from mechopt.model.priors import read_prior

    return BallSet(read_prior(prior)[0], r.strip(), kind.strip().lower())
