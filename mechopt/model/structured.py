"""Audit of a mechanism given by structure when its d × n matrix Q is not materialised.

At d = 10⁵ a mechanism with d outputs needs 80 GB as a dense matrix; the exact
solver then returns a *structured mechanism* (``Result.extras["plan"]``): outputs
are rotations, within classes of inputs of equal prior and equal utility data,
of a few representative joint columns. Such an object satisfies the protocol
:class:`StructuredMechanism`, and :func:`audit_structured` audits it from the
problem data without building Q:

* **rows**: Σ_y Q[x, y] = 1 for every input x, from :meth:`StructuredMechanism.row_sums`
  (the plan computes them by circular convolutions, O(d log d));
* **privacy**: ε-LDP and ε-LIP are conditions on each column separately
  (max/min of Q[:, y], resp. Q[:, y] / λ_y), and both are unchanged when the
  column's entries are permuted within a class of equal prior; so the notion's
  own ``epsilon`` on the representative columns (:meth:`StructuredMechanism.column_types`)
  is the ε of the whole mechanism;
* **value**: the utility is a sum of positively homogeneous column gains that are
  unchanged by such permutations, so Σ_y μ(c_y) = Σ_j μ(C_j) over the column
  types C_j (each scaled to its total weight).

Other notions (policy graphs, posterior statistics, MIP) are not invariant under
those permutations: the audit lists a reason instead of a number.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="uniform:1000", notion="ldp", utility="mi", eps=1.0)
>>> r = mechopt.solve(prob, solver="exact", max_memory=1e6)     # 1000 × 1000 floats do not fit in 1 MB
>>> r.mechanism is None, r.status.value, r.violation <= 1e-9
(True, 'optimal', True)
>>> aud = audit_structured(r.extras["plan"], prob.prior, prob.notion, prob.utility)
>>> aud.reasons, abs(aud.value - r.value) < 1e-9
([], True)
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from mechopt import settings
from mechopt.model.problem_audit import ProblemAudit
from mechopt.notions import LDP, LIP, PrivacyNotion
from mechopt.utilities import Utility

__all__ = ["StructuredMechanism", "audit_structured"]


@runtime_checkable
class StructuredMechanism(Protocol):
    """A mechanism on d inputs given by structure (see the module docstring)."""

    @property
    def n_outputs(self) -> int: ...

    def row_sums(self, P: np.ndarray) -> np.ndarray:
        """Σ_y Q[x, y] for every input x (length d), without Q."""

    def column_types(self, P: np.ndarray) -> np.ndarray:
        """Joint columns C (d × k): every output is a class-wise permutation of a column of C scaled down,
        and the weights of type j sum to C[:, j].sum()."""


def audit_structured(
    mech: StructuredMechanism, prior: np.ndarray, notion: PrivacyNotion, utility: Utility
) -> ProblemAudit:
    """Audit ``mech`` for ``prior``: rows, privacy under ``notion``, value under ``utility`` (module docstring)."""
    from mechopt.runtime.deadline import check

    P = np.asarray(prior, dtype=float)
    reasons: list[str] = []
    check("auditing the structured mechanism")  # each stage takes seconds at d = 10⁷
    sums = np.asarray(mech.row_sums(P), dtype=float)
    if sums.shape != P.shape:
        return ProblemAudit(
            violation=None,
            notion=notion.name,
            eps=notion.eps,
            reasons=[f"structured mechanism has {sums.size} rows but the prior has {P.size} symbols"],
        )
    bad = np.abs(sums - 1.0)
    if not np.all(np.isfinite(sums)) or bad.max() > settings.tolerance("row_sum"):
        x = int(np.argmax(np.where(np.isfinite(bad), bad, np.inf)))
        reasons.append(f"row {x} of the structured mechanism sums to {sums[x]:.12g}, not 1")
    check("auditing the structured mechanism")
    C = np.asarray(mech.column_types(P), dtype=float)
    if np.any(C < 0) or not np.all(np.isfinite(C)):
        reasons.append("structured mechanism has a negative or non-finite entry")
        return ProblemAudit(violation=None, notion=notion.name, eps=notion.eps, reasons=reasons)
    if type(notion) not in (LDP, LIP):
        reasons.append(
            f"a structured mechanism can be audited under ldp and lip only, not {notion.name}; "
            "materialise Q (raise max_memory)"
        )
        return ProblemAudit(violation=None, notion=notion.name, eps=notion.eps, reasons=reasons)
    check("auditing the structured mechanism")
    live = P > 0
    Qt = np.zeros_like(C)
    Qt[live] = C[live] / P[live, None]
    eps = float(notion.epsilon(Qt, P))
    value = float(utility.column_value(C).sum())  # Σ_y κ(c_y): no offset to cancel against
    return ProblemAudit(
        violation=max(0.0, eps - notion.eps),
        eps_audited=eps,
        notion=notion.name,
        eps=notion.eps,
        reasons=reasons,
        value=value,
    )
