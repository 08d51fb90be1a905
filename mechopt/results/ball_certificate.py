"""The certificate file of a design over a prior ball held by its inequalities (``"kind": "robust-ball"``).

It carries the ball (center, radius, kind; the sample counts, δ and bound when it came from counts), the loss,
Q, and the witness of :mod:`mechopt.solvers.robust.witness`: finitely many priors of the ball with the
vertex-form LP's weights, ν and cone multipliers. :mod:`mechopt.certball` re-proves it in exact arithmetic:
privacy and the worst loss over the whole ball (its extreme priors, exactly), the radius from the counts, each
witness prior inside the ball, and the bound from the duals. For mutual information (vertex generation,
:mod:`mechopt.solvers.robust.ballrays`) the witness is the generated priors W with the ray LP's weights λ and ν
(no loss, no multipliers): the bound is proven over the extreme rays of W's privacy cone (:mod:`mechopt.certball`).

Examples
--------
>>> import json, mechopt, tempfile, os
>>> from mechopt.problems.robust import BallDesign
>>> prob = BallDesign.from_params(notion="pml", eps=1.0, prior_counts="40,30,20,10,0", delta=0.01)
>>> r = mechopt.solve(prob, solver="robust-lp")
>>> path = os.path.join(tempfile.mkdtemp(), "ball.json")
>>> r.save_certificate(path)
>>> doc = json.load(open(path))
>>> doc["problem"]["kind"], doc["problem"]["ball"]["kind"], doc["problem"]["ball"]["counts"]
('robust-ball', 'tv', ['40', '30', '20', '10', '0'])
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import CertificateError
from mechopt.results.certificate_file import RobustEvidence, _loss_data, _vector, exact, notion_data

__all__ = ["BallEvidence", "ball_data", "MI_PROOF", "MI_BALL_PROOF"]


@dataclass(frozen=True, eq=False)
class BallEvidence(RobustEvidence):
    """:class:`~mechopt.results.certificate_file.RobustEvidence` on ``priors`` (points of the problem's ball, not
    its vertices), found in ``rounds`` rounds of constraint generation."""

    priors: np.ndarray | None = None
    rounds: int = 0
    proven: float = -np.inf  # the bound the witness proves (the file claims the lower of it and the result's)
    cone: str = "priors"  # mi: "ball" when the bound is over the ball's own privacy cone (W the information priors)

    def _check_size(self) -> None:  # certball takes any d up to its MAX_D
        from mechopt.certball import MAX_D

        if self.problem.prior_set.d > MAX_D:
            raise CertificateError(f"{self.problem.prior_set.d} inputs: the ball checker takes at most {MAX_D}")

    def _claimable(self, bound: float) -> float:
        """The lower of the result's bound and the witness's (what the checker can prove from the file)."""
        return min(bound, self.proven)

    def _problem_doc(self) -> dict[str, Any]:
        prob = self.problem
        return {
            "kind": "robust-ball",
            "ball": ball_data(prob.prior_set),
            "notion": notion_data(prob.notion),
            **(_loss_data(prob) if self.mu is not None else {"utility": self._gain_data()}),
            "sense": prob.sense,
            "objective": prob.objective,
            "source": prob.prior_set.source,
        }

    def _dual_doc(self) -> dict[str, Any]:
        proof = {} if self.mu is not None else {"proof": MI_PROOF}
        if self.mu is None and self.cone == "ball":
            proof = {"cone": "ball", "proof": MI_BALL_PROOF}
        return {"priors": [_vector(v) for v in self.priors], **super()._dual_doc(), **proof}


#: What a mutual-information ball file proves, in its ``dual`` (the checker re-proves it; it does not read this).
MI_PROOF = (
    "privacy over the whole ball (the extreme prior of each column) and the value min over every vertex of the "
    "ball of I(P; Q) are checkable exactly from this file; the bound is 1'nu + d max_r (sum_v lambda_v mu_v(r) - "
    "nu'r) / 1'r over the extreme rays r of the privacy cone at `priors` (moved onto the ball), lambda = weights / "
    "sum: the solver's pricing of those rays is not in this file, so a checker must enumerate them (certball: up "
    "to its RAYS_MAX_D inputs, else it reports 'partial': the bound not verified)"
)


#: The same for a bound over the ball's own privacy cone (``"cone": "ball"``: the pricer held the ball exactly).
MI_BALL_PROOF = MI_PROOF.replace(
    "the privacy cone at `priors` (moved onto the ball)",
    "the ball's own privacy cone (`cone`: its rows at every vertex of the ball; `priors` carry only the weights)",
)


def ball_data(B: Any) -> dict[str, Any]:
    """The ball as the checker reads it: kind, radius, center; with the counts, δ and bound it came from, if any.

    >>> from mechopt.problems.robust import BallSet
    >>> ball_data(BallSet(np.array([0.5, 0.5]), 0.25, "linf"))
    {'kind': 'linf', 'radius': '1/4', 'center': ['1/2', '1/2']}
    """
    out: dict[str, Any] = {"kind": B.kind, "radius": exact(B.radius), "center": _vector(B.center)}
    E = B.origin
    if E is not None:
        out.update(counts=[str(int(c)) for c in E.counts], delta=exact(E.delta), bound=E.bound)
    return out
