"""The master LP over rays, its dual certificate, and the mechanism it encodes.

    maximise Σ_j θ_j μ(r_j)   s.t.   Σ_j θ_j r_j = P,  θ ≥ 0          (math.md §1)

with rays normalised (1ᵀr_j = 1, so Σ_j θ_j = 1). For any dual ν,

    optimum ≤ νᵀP + max_r (μ(r) − νᵀr)      over all normalised rays r of K,

which is the certificate the exact solver reports.

Examples
--------
>>> import numpy as np
>>> R = np.array([[0.75, 0.25, 0.5], [0.25, 0.75, 0.5]]); mu = np.array([1.0, 1.0, 0.0])
>>> m = solve_master(R, mu, np.array([0.5, 0.5]))
>>> m.status, round(m.value, 9), m.theta.round(6)
('optimal', 1.0, array([0.5, 0.5, 0. ]))
>>> round(dual_bound(m.nu, np.array([0.5, 0.5]), R, mu), 9)
1.0
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from mechopt.channel import merge_outputs
from mechopt.errors import SolverError

__all__ = ["Master", "solve_master", "dual_bound", "recover_channel", "HIGHS_TOL"]

HIGHS_TOL = 1e-10    # HiGHS primal/dual feasibility tolerance for the master LP
IPM_COLUMNS = 2000   # above this many columns the interior point method (+ crossover) is much faster


@dataclass
class Master:
    """A solved master LP: weights θ, duals ν (of the max problem), value Σ θ μ."""

    status: str          # "optimal" | "time_limit" | "failed"
    theta: np.ndarray
    nu: np.ndarray
    value: float
    message: str = ""


def solve_master(R: np.ndarray, mu: np.ndarray, P: np.ndarray, *, time_limit: float | None = None) -> Master:
    """Solve the master LP with HiGHS (``scipy.optimize.linprog(method="highs")``).

    Returns a basic optimal solution (at most d positive weights) and the
    duals ν of the equality rows in the maximisation's sign convention.
    """
    if R.shape[0] == 1 and np.all(R > 0):
        return _one_row(R[0], np.asarray(mu, float), float(np.ravel(P)[0]))
    opts = {"primal_feasibility_tolerance": HIGHS_TOL, "dual_feasibility_tolerance": HIGHS_TOL}
    method = "highs-ipm" if R.shape[1] > IPM_COLUMNS else "highs-ds"
    if time_limit is not None:
        opts["time_limit"] = max(float(time_limit), 1e-3)
    try:
        res = linprog(-np.asarray(mu, float), A_eq=R, b_eq=P, bounds=(0, None), method=method, options=opts)
    except ValueError as exc:
        raise SolverError(f"HiGHS rejected the master LP: {exc}") from exc
    if res.status == 1 and res.x is None:
        return Master("time_limit", np.zeros(R.shape[1]), np.zeros(P.size), -np.inf, res.message)
    if res.status not in (0, 1) or res.x is None:
        return Master("failed", np.zeros(R.shape[1]), np.zeros(P.size), -np.inf, res.message)
    theta = np.clip(res.x, 0.0, None)
    nu = -np.asarray(res.eqlin.marginals, dtype=float)
    return Master("optimal" if res.status == 0 else "time_limit", theta, nu, float(-res.fun), res.message)


def _one_row(r: np.ndarray, mu: np.ndarray, b: float) -> Master:
    """max Σθμ s.t. Σθ r = b, θ ≥ 0 with r > 0: all weight on the best ratio μ_j / r_j."""
    ratio = mu / r
    j = int(np.argmax(ratio))
    theta = np.zeros(r.size)
    theta[j] = b / r[j]
    return Master("optimal", theta, np.array([ratio[j]]), float(b * ratio[j]))


def reduced_costs(nu: np.ndarray, R: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """μ(r_j) − νᵀr_j for each column."""
    return np.asarray(mu, float) - nu @ R


def dual_bound(nu: np.ndarray, P: np.ndarray, R: np.ndarray, mu: np.ndarray) -> float:
    """νᵀP + max_j (μ(r_j) − νᵀr_j): an upper bound on the LP over the rays ``R``.

    It bounds the design problem itself when ``R`` holds every ray of the cone
    (or, under symmetry, one representative per orbit).
    """
    return float(nu @ P + np.max(reduced_costs(nu, R, mu)))


def recover_channel(P: np.ndarray, R: np.ndarray, theta: np.ndarray, *, drop: float = 0.0) -> np.ndarray:
    """Q[x, j] = θ_j r_j(x) / P(x) over the used rays, outputs with one posterior merged.

    Rows are renormalised (they sum to 1 up to the LP's feasibility tolerance).

    Examples
    --------
    >>> R = np.array([[0.75, 0.25, 0.75], [0.25, 0.75, 0.25]])
    >>> recover_channel(np.array([0.5, 0.5]), R, np.array([0.25, 0.5, 0.25]))
    array([[0.75, 0.25],
           [0.25, 0.75]])
    """
    used = np.flatnonzero(theta > drop)
    if used.size == 0:
        raise SolverError("the master LP returned no positive weight")
    Q = R[:, used] * theta[used] / P[:, None]
    Q, _ = merge_outputs(Q)
    Q = np.clip(Q, 0.0, None)
    return Q / Q.sum(axis=1, keepdims=True)
