"""What a robust pricer answers (:class:`RayPricing`: new columns and a proven bound or none) and the tolerances
its columns and bounds are judged by.

Every pricer of :mod:`~mechopt.solvers.robust.pricing`, :mod:`~mechopt.solvers.robust.ratios`,
:mod:`~mechopt.solvers.robust.search` and :mod:`~mechopt.solvers.robust.cone` returns a :class:`RayPricing`.

Examples
--------
>>> import numpy as np
>>> RayPricing(np.zeros((2, 0)), None, "heuristic").bound is None
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechopt.solvers.exact.pricing.base import _rc_tol as _rc_tol  # re-exported: one reduced-cost threshold

__all__ = ["RayPricing", "certified_tol", "MILP_REL_GAP", "MILP_ABS_GAP"]


@dataclass
class RayPricing:
    rays: np.ndarray  # new columns (n × j)
    bound: float | None  # proven upper bound on max ρ over every ray of the pricer's normalisation; None: heuristic
    note: str = ""


#: The pricing MILP's gaps (relative, and absolute in units of ε e^ε): its dual bound is the proof whatever
#: the gap, so these trade MILP time against rounds; column generation stops at ``gap``/100 relative.
MILP_REL_GAP, MILP_ABS_GAP = 1e-6, 1e-10


def certified_tol(lam: np.ndarray, mu: np.ndarray, const: np.ndarray) -> float:
    """An exact pricer's absolute tolerance at duals (λ, μ): ``MILP_ABS_GAP`` times the score certified, λᵀc + 1ᵀμ
    (mi, or −MSE); in units of E[a²] or ε·e^ε it was a gap floor (mse, ε = 10; mi, ε = 20: ~1 against 2.6).

    >>> certified_tol(np.array([1.0]), np.array([0.25, 0.25]), np.zeros(1)) == MILP_ABS_GAP / 2
    True
    """
    return MILP_ABS_GAP * abs(float(np.asarray(lam) @ np.asarray(const)) + float(np.sum(mu)))
