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

import math
import time
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from mechopt import settings
from mechopt.errors import SolverError
from mechopt.model.channel import merge_outputs
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact import centred as _centred

__all__ = ["Master", "solve_master", "dual_bound", "recover_channel", "cost_unit", "IPM_COLUMNS", "IPM_MAX_ITER"]

# A speed switch, not a tolerance (both methods return a basic optimal solution): above this many
# columns the interior point method (+ crossover) is much faster than dual simplex.
IPM_COLUMNS = 2000
#: Most HiGHS interior-point iterations of one master attempt (IPX converges in well under 1000 on these LPs).
#: Without a cap, IPX without presolve spun forever on a 45 x 16 master (PML MI, prior entries 1e-300 and
#: 1e-200: 323 783 iterations in 8 s, no convergence); an attempt that reaches it counts as failed.
IPM_MAX_ITER = 10_000


@dataclass
class Master:
    """A solved master LP: weights θ, duals ν (of the max problem), value Σ θ μ."""

    status: str  # "optimal" | "time_limit" | "failed"
    theta: np.ndarray
    nu: np.ndarray
    value: float
    message: str = ""


def solve_master(
    R: np.ndarray, mu: np.ndarray, P: np.ndarray, *, time_limit: float | None = None, centred: bool = True
) -> Master:
    """Solve the master LP with HiGHS (``scipy.optimize.linprog(method="highs")``).

    Returns a basic optimal solution (at most d positive weights) and the
    duals ν of the equality rows in the maximisation's sign convention.
    ``centred`` allows the centred rows of :mod:`mechopt.solvers.exact.centred` when the rays are near P;
    column generation turns it off: its pricers evaluate νᵀr themselves, and the
    centred duals (~1/(σ P(x)) for a mass P(x)) make those products cancel.
    """
    if R.shape[1] == 0:  # no admissible column was found (an enumeration that lost every ray)
        return Master("failed", np.zeros(0), np.zeros(np.size(P)), -np.inf, "the master LP has no columns")
    if R.shape[0] == 1 and np.all(R > 0):
        return _one_row(R[0], np.asarray(mu, float), float(np.ravel(P)[0]))
    # Unit-free: HiGHS's tolerances are absolute, so the costs go in divided by a power of two near their
    # largest magnitude (exact in floating point: ν and the value scale back bit for bit). Gains of 1e-12
    # (mutual information at ε = 1e-6) or 1e24 (an MSE of values in 1e12 units) become costs of order one.
    mu = np.asarray(mu, float)
    unit = cost_unit(mu)
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    m = _solve_costs(R, mu / unit, P, time_limit, centred)
    # An optimum far below the largest cost (near-deterministic columns at ε = 50 lose 1e-21 of MSE against
    # costs of order one) is below HiGHS's resolution: re-solve with the costs over the value's own scale.
    # The re-solves share the one time limit (each had the whole limit again: 4x it in all).
    for _ in range(REFINE_ROUNDS):
        if m.status != "optimal" or _settled(m, R, P, mu / unit) or not math.isfinite(m.value):
            break
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0:
            break
        fine = cost_unit(np.array([m.value, dual_bound(m.nu, P, R, mu / unit)]))
        if not fine < REFINE_BELOW:
            break
        capped = np.maximum(mu / unit / fine, -REFINE_CAP)  # a relaxation: its duals still bound the LP
        cand = _solve_costs(R, capped, P, left, centred)
        if cand.status != "optimal":
            break
        cand = Master(
            "optimal",
            cand.theta,
            best_duals(R, mu / unit, P, cand.theta, cand.nu * fine),
            float(cand.theta @ (mu / unit)),
            cand.message,
        )
        m = _better(m, cand, R, P, mu / unit)
    return Master(m.status, m.theta, m.nu * unit, m.value * unit, m.message)


#: Rounds of re-solving a master whose optimum is far below its largest cost, and when: the value is
#: below REFINE_BELOW times the costs' unit. Costs are capped at −REFINE_CAP (in units of the value).
REFINE_ROUNDS = 3
REFINE_BELOW = 2.0**-20
REFINE_CAP = 2.0**40


def cost_unit(mu: np.ndarray) -> float:
    """A power of two near max |μ| (1 when every gain is 0): dividing by it is exact.

    >>> cost_unit(np.array([3e-12, -1e-13])) == 2.0**-38, cost_unit(np.zeros(2))
    (True, 1.0)
    """
    top = float(np.max(np.abs(mu))) if np.size(mu) else 0.0
    if not (top > 0 and math.isfinite(top)):
        return 1.0
    return math.ldexp(1.0, math.frexp(top)[1])


def _solve_costs(R: np.ndarray, mu: np.ndarray, P: np.ndarray, time_limit: float | None, centred: bool) -> Master:
    """The master LP with costs ``mu`` of order one (:func:`solve_master` after cost scaling)."""
    tol = settings.tolerance("lp_feasibility")
    opts = {"primal_feasibility_tolerance": tol, "dual_feasibility_tolerance": tol}
    method = "highs-ipm" if R.shape[1] > IPM_COLUMNS else "highs-ds"
    if time_limit is not None:
        opts["time_limit"] = max(float(time_limit), 1e-3)
    # A prior entry below ``lp_scale_below`` is resolved by the LP only to relative accuracy
    # lp_feasibility / P(x), so its row of Q would be noise. Then solve in mechanism scale:
    # row x divided by P(x) (Σ_j φ_j q_j(x) = 1) and column j by c_j = max_x r_j(x)/P(x), so
    # every coefficient is in [0, 1]; θ = c φ and ν = ν̃ / P map back (reduced costs are c_j
    # times the original ones). The duals are then less accurate in the original units, so
    # well-scaled priors keep the plain LP and its tighter certificate.
    P = np.asarray(P, float)
    mu = np.asarray(mu, float)
    scaled = bool(P.min() < settings.tolerance("lp_scale_below"))
    other = "highs-ipm" if method == "highs-ds" else "highs-ds"
    sigma = _centred.deviation_scale(R, P) if centred else 0.0
    # HiGHS can stall on a nearly degenerate LP ("status unknown" or "not set": ε → 0 makes every
    # ray ≈ P; a prior mass of 1e-12 spreads coefficients over 12 decades), call a feasible one
    # "infeasible" in presolve (ε = 1e-6, LIP, d = 12), or stop at a basis that is optimal only to
    # its tolerances (rows of Q off by 1e-4, a certificate gap of 2e-5 when masses span 6 decades).
    # So the answer is checked — rows of the recovered Q, value against the dual bound over the
    # columns given — and on failure the LP is re-solved in the other scale, with the other method,
    # then without presolve; the best weights and the lowest bound found are kept.
    attempts = [
        (sc, meth, pre, COST_SCALE) for pre in (True, False) for meth in (method, other) for sc in (scaled, not scaled)
    ]
    attempts.insert(1, (scaled, method, True, COST_SCALE**2))  # first retry: costs scaled further
    if _centred.centres(sigma):  # rays within a factor 1 ± σ of P: rows centred at P first
        attempts.insert(0, ("centred", method, True, COST_SCALE))
    best: Master | None = None
    res, stalled = None, False
    deadline = None if time_limit is None else time.perf_counter() + float(time_limit)
    for sc, meth, pre, cost in attempts:
        if deadline is not None:  # retries share the one time limit
            if best is not None and passed(deadline):
                break
            opts["time_limit"] = max(deadline - time.perf_counter(), 1e-3)
        cap = {"maxiter": IPM_MAX_ITER} if meth == "highs-ipm" else {}
        res = _highs(R, mu, P, sc, meth, {**opts, **cap, "presolve": pre}, cost, sigma)
        stalled = bool(cap) and res.status == 1 and getattr(res, "nit", 0) >= IPM_MAX_ITER  # not a time limit
        if stalled or res.status not in (0, 1) or res.x is None or not np.all(np.isfinite(res.x)):
            continue
        theta, nu = _extract(R, P, res, sc, cost, sigma)
        cand = Master(
            "optimal" if res.status == 0 else "time_limit",
            theta,
            best_duals(R, mu, P, theta, nu),
            float(theta @ mu),
            res.message,
        )
        best = cand if best is None else _better(best, cand, R, P, mu)
        if res.status == 1 or _settled(best, R, P, mu):
            break
    if best is None:
        if res is not None and res.status == 1 and not stalled:
            return Master("time_limit", np.zeros(R.shape[1]), np.zeros(P.size), -np.inf, res.message)
        why = (
            ""
            if res is None
            else res.message
            if res.x is None or np.all(np.isfinite(res.x))
            else f"{res.message}; non-finite weights"
        )
        return Master("failed", np.zeros(R.shape[1]), np.zeros(P.size), -np.inf, why)
    return best


def _settled(m: Master, R: np.ndarray, P: np.ndarray, mu: np.ndarray) -> bool:
    """Rows of Q sum to 1 within ``row_sum`` and the dual bound over R meets the value within a tenth of
    ``gap``, relative (the objective is the master's value times a constant: ColumnProgram.value_of)."""
    bound = dual_bound(m.nu, P, R, mu)
    return _row_error(R, P, m.theta) <= settings.tolerance("row_sum") and bound - m.value <= 0.1 * settings.tolerance(
        "gap"
    ) * max(abs(bound), abs(m.value))


def _better(a: Master, b: Master, R: np.ndarray, P: np.ndarray, mu: np.ndarray) -> Master:
    """Weights: rows within ``row_sum`` first, then the larger value; duals: the lower bound."""
    tol = settings.tolerance("row_sum")
    key = lambda m: (_row_error(R, P, m.theta) <= tol, m.value)  # noqa: E731
    w = b if key(b) > key(a) else a
    nu = b.nu if dual_bound(b.nu, P, R, mu) < dual_bound(a.nu, P, R, mu) else a.nu
    status = "optimal" if "optimal" in (a.status, b.status) else w.status
    return Master(status, w.theta, nu, w.value, w.message)


def _extract(R: np.ndarray, P: np.ndarray, res, mode, cost: float, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """(θ polished, ν) of a HiGHS answer in the original units."""
    marg = np.asarray(res.eqlin.marginals, dtype=float)
    if mode == "centred":
        *_, T = _centred.centred_system(R, P, sigma)
        return polish(R, P, np.clip(res.x, 0.0, None), sigma), -(T.T @ marg) / cost
    rows, c = _scales(R, P, mode)
    theta = polish(R, P, np.clip(res.x, 0.0, None) * c, sigma)
    with np.errstate(over="ignore", invalid="ignore"):  # rows = 1/P reach 1e300 for prior entries of 1e-300
        nu = -marg * rows / cost
    return theta, np.where(np.isfinite(nu), nu, 0.0)  # any finite ν bounds (dual_bound): an overflow becomes 0


def _row_error(R: np.ndarray, P: np.ndarray, theta: np.ndarray) -> float:
    """How far the rows of the recovered Q are from balancing (:func:`mechopt.solvers.exact.centred.row_error`)."""
    return _centred.row_error(R, P, theta)


def best_duals(R: np.ndarray, mu: np.ndarray, P: np.ndarray, theta: np.ndarray, nu: np.ndarray) -> np.ndarray:
    """HiGHS's duals or the basis duals (r_jᵀν = μ_j on the support of θ), whichever bounds lower.

    Any ν gives a valid bound νᵀP + max_j (μ_j − νᵀr_j) (:func:`dual_bound`), so choosing the
    smaller keeps the certificate proven; the basis duals, solved in mechanism scale, remove
    the error HiGHS's tolerance leaves in ν when prior masses span many decades.

    Examples
    --------
    >>> R = np.array([[0.75, 0.25, 0.5], [0.25, 0.75, 0.5]]); mu = np.array([1.0, 1.0, 0.0])
    >>> P = np.array([0.5, 0.5]); th = np.array([0.5, 0.5, 0.0])
    >>> best_duals(R, mu, P, th, np.array([3.0, -1.0])).round(12).tolist()    # bound 2 replaced by bound 1
    [1.0, 1.0]
    """
    used = np.flatnonzero(theta > 0)
    if used.size == 0 or used.size > P.size:
        return nu
    best, best_bound = nu, (dual_bound(nu, P, R, mu) if np.all(np.isfinite(nu)) else np.inf)
    # The basis system in mechanism scale (r_jᵀν = Σ_x M[x, j] (P(x) ν(x))) and in the original
    # scale: each is the more accurate one for some priors (a mass of 5e-7 at ε = 22 leaves 4e-9 of
    # bound in mechanism scale and none in the original one), and the lower bound is kept.
    for M, back in ((R[:, used] / P[:, None], P), (R[:, used], np.ones_like(P))):
        try:
            w, *_ = np.linalg.lstsq(M.T, mu[used], rcond=None)
        except np.linalg.LinAlgError:
            continue
        cand = w / back
        if np.all(np.isfinite(cand)):
            b = dual_bound(cand, P, R, mu)
            if b < best_bound:
                best, best_bound = cand, b
    return best


#: Factor on the master LP's costs inside HiGHS. HiGHS's dual feasibility tolerance (≥ 1e-10) is
#: absolute in reduced cost, so the certificate νᵀP + max_j (μ_j − νᵀr_j) of an unscaled master can be
#: 1e-10 above the value — a gap of 1e-7 below the objective's gap floor (issue 19). Scaling the costs
#: by 100 leaves reduced costs of at most 1e-12 in the original units; a master whose certificate is
#: still not settled (:func:`_settled`) is re-solved first with the costs scaled by 100².
COST_SCALE = 100.0


def _scales(R: np.ndarray, P: np.ndarray, scaled: bool) -> tuple[np.ndarray, np.ndarray]:
    """Row and column scales of the master LP (ones, or the mechanism scale)."""
    if scaled:
        return 1.0 / P, 1.0 / (R / P[:, None]).max(axis=0)
    return np.ones(P.size), np.ones(R.shape[1])


def _highs(R: np.ndarray, mu: np.ndarray, P: np.ndarray, mode, method: str, opts: dict, cost: float, sigma: float):
    if mode == "centred":
        A, b, _ = _centred.centred_system(R, P, sigma)
        c = np.ones(R.shape[1])
    else:
        rows, c = _scales(R, P, mode)
        A, b = R * rows[:, None] * c, P * rows
    try:
        return linprog(-mu * c * cost, A_eq=A, b_eq=b, bounds=(0, None), method=method, options=opts)
    except ValueError as exc:
        raise SolverError(f"HiGHS rejected the master LP: {exc}") from exc


def polish(R: np.ndarray, P: np.ndarray, theta: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """Re-solve Σ_j θ_j r_j = P exactly on the support of a basic solution θ.

    HiGHS meets the equality rows to an absolute tolerance, which for a prior
    entry P(x) ≪ 1 is a large relative error in row x of Q = θ r / P (and, after
    renormalising the rows, a privacy violation). On the support B of θ (at most
    d columns) the system (R_B / P) θ_B = 1 is solved in mechanism scale by least
    squares; the result replaces θ when it is non-negative and its relative
    residual max_x |Σ_j θ_j r_j(x) / P(x) − 1| is smaller.

    Examples
    --------
    >>> P = np.array([1 - 1e-12, 1e-12]); s = np.array([[np.e, 1.0], [1.0, np.e]])
    >>> R = P[:, None] * s; R = R / R.sum(axis=0)               # the two ε-LDP rays at ε = 1
    >>> th = np.linalg.solve(R, P + np.array([0.0, 1e-13]))     # row 1 met to 1e-13 (HiGHS: 1e-10)
    >>> row = lambda t: float((R[1] * t).sum() / P[1])          # row sum of the tiny row of Q
    >>> round(row(th), 6), abs(row(polish(R, P, th)) - 1) < 1e-9
    (1.1, True)
    """
    used = np.flatnonzero(theta > 0)
    if used.size == 0 or used.size > P.size:
        return theta
    sigma = _centred.deviation_scale(R, P) if sigma is None else sigma
    if _centred.centres(sigma):  # rays near P: the centred system is the well-conditioned one
        cand = _centred.centred_polish(R, P, used, sigma)
        if cand is not None and np.all(cand > 0):
            full = np.zeros_like(theta)
            full[used] = cand
            if _centred.row_error(R, P, full, sigma) < _centred.row_error(R, P, theta, sigma):
                return full
        return theta
    M = R[:, used] / P[:, None]
    scale = M.max(axis=0)

    def resid(th: np.ndarray) -> float:
        return float(np.max(np.abs(M @ th - 1.0)))

    phi, *_ = np.linalg.lstsq(M / scale, np.ones(P.size), rcond=None)
    cand = phi / scale
    if np.all(cand > 0) and resid(cand) < resid(theta[used]):
        out = np.zeros_like(theta)
        out[used] = cand
        return out
    return theta


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
    (or, under symmetry, one representative per orbit). Rounded outward by the
    floating-point error of its sums, (d + 2) ulp of their terms' magnitudes: at
    small ε the duals that balance rays near P are ~1/ε and their products cancel.
    """
    rc = reduced_costs(nu, R, mu)
    j = int(np.argmax(rc))
    size = np.abs(nu) @ P + abs(float(mu[j])) + np.abs(nu) @ R[:, j]
    return float(nu @ P + rc[j] + (P.size + 2) * np.finfo(float).eps * size)


def recover_channel(P: np.ndarray, R: np.ndarray, theta: np.ndarray, *, drop: float = 0.0) -> np.ndarray:
    """Q[x, j] = θ_j r_j(x) / P(x) over the used rays, outputs with one posterior merged.

    Rows are renormalised (the master LP is solved row-scaled, so they sum to
    1 up to HiGHS's tolerance). A row left with no mass at all (a prior entry
    below what floating point resolves) gets the output marginal λ, which LDP
    and LIP admit exactly; the caller's audit still checks the result.

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
    sums = Q.sum(axis=1)
    bad = ~(sums > 0)
    if np.any(bad):
        good = ~bad
        lam = P[good] @ (Q[good] / sums[good, None])
        Q[bad] = lam / lam.sum()
        sums[bad] = 1.0
    return Q / sums[:, None]
