"""Column generation over rays with exact pricing (math.md §3).

Restricted master LP over a few rays (always including P itself, an
admissible column, so it is feasible); its duals ν; a pricer (see
:mod:`mechopt.solvers.exact.pricing.base`) returns new rays with positive reduced cost
μ(r) − νᵀr and, when it is exact, a proven upper bound on
max_r (μ(r) − νᵀr) over *all* normalised rays, so that νᵀP + that bound is a
certificate. A round whose pricing is only heuristic proves nothing.

Columns the master already holds are skipped; when a round prices only such
columns (the master's duals leave a small positive reduced cost on its own
columns, HiGHS's absolute dual tolerance), an exact pricing pass proves the bound
at those duals, and the warm master's costs are scaled (×100, twice at most)
before column generation gives up with ``"stalled"`` and the bound it proved.
The warm master's pool is capped at ``POOL_HIGH``·d columns: above that, the
non-basic columns of most negative reduced cost go (down to ``POOL_LOW``·d).

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import MutualInfo
>>> from mechopt.solvers.exact.pricing.base import LDPMIPricer, ldp_seed
>>> P = np.array([0.1, 0.2, 0.3, 0.4])
>>> out = column_generation(P, MutualInfo(P).gain, LDPMIPricer(P, 1.0, P), ldp_seed(P, 1.0))
>>> out.status, out.proven, bool(out.bound - out.master.value < 1e-9)
('optimal', True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mechopt import settings
from mechopt.runtime.deadline import LATE_GRACE_S, late, passed
from mechopt.solvers.exact.lp import Master, cost_unit, solve_master
from mechopt.solvers.exact.master import WarmMaster

__all__ = ["ColGenResult", "column_generation", "gain_units", "GAIN_TOLERANCES"]


@dataclass
class ColGenResult:
    status: str  # "optimal" | "time_limit" | "iteration_limit" | "failed" | "stalled"
    master: Master
    R: np.ndarray
    bound: float  # best proven bound on Σ μ (inf if none)
    proven: bool  # whether the final pricing was exact
    iterations: int
    notes: list[str] = field(default_factory=list)
    nu: np.ndarray | None = None  # the duals π that proved ``bound`` (bound = πᵀP + the pricer's bound)


def _key(col: np.ndarray) -> bytes:
    """Identity of a column (rounded to 1e-14) for skipping columns the master already holds."""
    return np.round(col, 14).tobytes()


#: The master keeps at most POOL_HIGH·d columns: above that, the non-basic columns of most negative
#: reduced cost are deleted down to POOL_LOW·d (exact pricing brings back any that are needed).
POOL_HIGH, POOL_LOW = 30, 15


def _prune(wm: WarmMaster, master: Master, keys: set) -> tuple[np.ndarray, np.ndarray]:
    """Delete non-basic columns of the warm master, the most negative reduced costs first."""
    stay = master.theta > 0  # the support and HiGHS's basis stay
    basic = wm.basic()
    if basic is not None and basic.size == stay.size:
        stay |= basic
    rc = wm.mu - master.nu @ wm.R
    keep = np.zeros(rc.size, bool)
    keep[np.argsort(-rc, kind="stable")[: POOL_LOW * wm.P.size]] = True
    keep |= stay
    for j in np.flatnonzero(~keep):
        keys.discard(_key(wm.R[:, j]))
    wm.drop(keep)
    master.theta = master.theta[keep]
    return wm.R, wm.mu


def _exact_pass(pricer, nu: np.ndarray, deadline: float | None):
    """Price once without the early stop (pricers with an ``early`` switch), for a proven bound."""
    early = getattr(pricer, "early", None)
    if early:
        pricer.early = False
    try:
        return pricer.price(nu, deadline)
    finally:
        if early:
            pricer.early = early


def column_generation(
    P: np.ndarray,
    gain,
    pricer,
    R0: np.ndarray,
    *,
    max_iter: int = 500,
    deadline: float | None = None,
    tol: float | None = None,
    warm: bool = True,
    smoothing: float = 0.0,
    pool: int | None = None,
    progress: Callable[..., None] | None = None,
    start: np.ndarray | None = None,
) -> ColGenResult:
    """Restricted master + pricing until the proven bound meets the master value.

    Columns (and the MI pricer's tangent cuts) persist across rounds; with
    ``warm`` the master LP is one HiGHS model re-solved from its last basis
    (:class:`~mechopt.solvers.exact.master.WarmMaster`), otherwise it is solved
    afresh each round. Gains are computed once per column. ``pool`` overrides
    ``POOL_HIGH`` (columns per input kept by the warm master). ``progress``, when
    given, is called after every round's pricing with ``round``, ``columns`` (in
    the master), ``gain`` (the master's Σ μ) and ``bound`` (the best proven bound,
    ``inf`` until a pricing pass proves one).

    ``smoothing`` = α ∈ [0, 1) is Wentges dual smoothing: once a pricing pass
    has returned a bound, the pricer is called at π = α·ν̂ + (1 − α)·ν, where
    ν are the master's duals and ν̂ the priced duals with the lowest Lagrangian
    bound so far. For *any* π, every master solution (Σθ_j r_j = P, 1ᵀr_j = 1,
    so Σθ_j = 1) has value Σθ_j μ_j = πᵀP + Σθ_j (μ_j − πᵀr_j) ≤ πᵀP + max_r (μ(r) − πᵀr),
    so a bound the pricer proves at π is a certificate just as at ν. Only
    priced columns with positive reduced cost at ν are added; when there are
    none (a *misprice*) the next round prices at ν itself, so column
    generation ends exactly as without smoothing.

    ``start``, when given, is a dual π⁰ priced once before the first master (e.g. the dual of
    a relaxation, :meth:`~mechopt.solvers.exact.pricing.pml.PMLSeparablePricer.chord_duals`):
    by the same argument its proven bound π⁰ᵀP + max_r (μ(r) − π⁰ᵀr) is a certificate, the
    first of the run, and π⁰ the first smoothing centre. A master whose value already meets the best proven
    bound (within ``tol``) ends the run as ``optimal`` before it is priced (e.g. seeded columns that reach
    the chord bound, :func:`~mechopt.solvers.exact.box.cover_start`).

    A pricer with a ``dual_bound(deadline)`` method (the ε-PML strata,
    :meth:`~mechopt.solvers.exact.pricing.pml.PMLSeparablePricer.dual_bound`) is asked each round, until the gap
    is met, for a proven (bound, duals) of its own: any duals give a certificate, so the lower bound is kept.

    Unit-free: the rounds run with :data:`GAIN_TOLERANCES` multiplied by the power-of-two
    unit of the seed columns' gains (:func:`gain_units`): a reduced cost of 1e-11 means
    nothing when every gain is 1e-13 (an information at ε = 1e-6).
    """
    if not 0.0 <= smoothing < 1.0:
        raise ValueError(f"smoothing must be in [0, 1), got {smoothing}")
    mu = gain(R0)
    with gain_units(cost_unit(mu)):
        return _rounds(P, gain, pricer, R0, mu, max_iter, deadline, tol, warm, smoothing, pool, progress, start)


#: Tolerances that are absolute in gain units (a reduced cost, a MIP's absolute gap, a tangent cut's
#: excess): column generation runs with them multiplied by the gains' power-of-two unit (:func:`gain_units`).
GAIN_TOLERANCES = ("reduced_cost", "mip_abs_gap", "tangent_cut")
#: Seconds the first master LP may take when the deadline passed before it (the seeding or the first pricing
#: ran to the deadline): its channel is returned, status ``time_limit``, rather than none. The deadline module's
#: grace, which the command line's backstop alarm waits out too.
FIRST_MASTER_GRACE = LATE_GRACE_S


def gain_units(unit: float):
    """``settings.override`` of :data:`GAIN_TOLERANCES` times ``unit`` (a power of two: exact)."""
    return settings.override(**{k: settings.tolerance(k) * unit for k in GAIN_TOLERANCES})


def _rounds(P, gain, pricer, R0, mu, max_iter, deadline, tol, warm, smoothing, pool, progress, start) -> ColGenResult:
    """The rounds of :func:`column_generation` (its arguments; ``mu`` the seed columns' gains)."""
    tol = settings.resolve(tol, "colgen_gap")
    high = POOL_HIGH if pool is None else int(pool)
    R = R0
    wm = WarmMaster(P, R, mu) if warm else None
    bound, proven, notes = math.inf, False, []
    master = None
    keys = {_key(R[:, j]) for j in range(R.shape[1])}
    centre, misprice = None, False  # ν̂ (smoothing centre) and "price at ν next round"
    best_nu = None  # the duals of the lowest bound so far (the certificate's ν)
    if start is not None:
        pr = pricer.price(np.asarray(start, float), deadline)
        if pr.bound is not None and math.isfinite(pr.bound):
            centre = best_nu = np.array(start, float)
            bound = float(best_nu @ P) + pr.bound
    dual_bound = getattr(pricer, "dual_bound", None)
    for it in range(1, max_iter + 1):
        left = None if deadline is None else deadline - time.perf_counter()
        if left is not None and left <= 0 and master is not None:
            return ColGenResult("time_limit", master, R, bound, False, it - 1, notes, nu=best_nu)
        if left is not None and master is None:  # the seed columns' master, so a time limit still returns a mechanism
            if left < FIRST_MASTER_GRACE:  # (with 0.01 s left it stopped at its first basis: the trivial Q)
                late(FIRST_MASTER_GRACE)  # the command line's backstop alarm waits for it, and the audit after it
            left = max(left, FIRST_MASTER_GRACE)
        master = wm.solve(time_limit=left) if wm is not None else solve_master(R, mu, P, time_limit=left, centred=False)
        if master.status != "optimal":
            return ColGenResult(master.status, master, R, bound, False, it, notes + [master.message], nu=best_nu)
        if dual_bound is not None and not (bound - master.value <= tol * max(abs(bound), abs(master.value))):
            own = dual_bound(deadline)  # a pricer's own proven (bound, duals), e.g. the PML strata's cutting planes
            if own is not None and own[0] < bound:
                bound, best_nu = float(own[0]), np.array(own[1], float)
        if math.isfinite(bound) and bound - master.value <= tol * max(abs(bound), abs(master.value)):
            return ColGenResult("optimal", master, R, bound, True, it, notes, nu=best_nu)  # a proven bound met
        if passed(deadline):  # e.g. the first master, solved in FIRST_MASTER_GRACE
            return ColGenResult("time_limit", master, R, bound, False, it, notes, nu=best_nu)
        if wm is not None and R.shape[1] > high * P.size:
            R, mu = _prune(wm, master, keys)
        smoothed = smoothing > 0 and centre is not None and not misprice
        pi = smoothing * centre + (1.0 - smoothing) * master.nu if smoothed else master.nu
        misprice = False
        pr = pricer.price(pi, deadline)
        proven = pr.bound is not None and math.isfinite(pr.bound)
        if proven:
            lagrange = float(pi @ P) + pr.bound
            if lagrange < bound or centre is None:
                centre = np.array(pi, float)
            if lagrange < bound:
                best_nu = np.array(pi, float)
            bound = min(bound, lagrange)
        elif pr.note.startswith("pricing MILP"):
            notes.append(pr.note)
        if progress is not None:
            progress(round=it, columns=int(R.shape[1]), gain=float(master.value), bound=float(bound))
        if proven and bound - master.value <= tol * max(abs(bound), abs(master.value)):  # relative: unit-free
            return ColGenResult("optimal", master, R, bound, proven, it, notes, nu=best_nu)
        if smoothed and pr.rays.shape[1] == 0 and proven:
            misprice = True  # nothing to add at π: price at ν next round
            continue
        if pr.rays.shape[1] == 0:
            if not proven or (not pr.exhaustive and passed(deadline)):  # a search the deadline cut: not a proof
                timed_out = passed(deadline)
                return ColGenResult(
                    "time_limit" if timed_out else "failed", master, R, bound, False, it, notes, nu=best_nu
                )
            if not pr.exhaustive:
                notes.append(
                    "the pricing's search (not exhaustive) found no improving column: the bound is the best proven"
                )
            return ColGenResult("optimal", master, R, bound, proven, it, notes, nu=best_nu)
        fresh = [j for j in range(pr.rays.shape[1]) if _key(pr.rays[:, j]) not in keys]
        if smoothed:
            new_mu = gain(pr.rays[:, fresh]) if fresh else np.zeros(0)
            good = new_mu - master.nu @ pr.rays[:, fresh] > settings.tolerance("reduced_cost") if fresh else []
            fresh = [j for j, g in zip(fresh, good) if g]
            if not fresh:  # misprice: nothing improves the master at its own duals
                misprice = True
                continue
            new_mu = new_mu[np.asarray(good, bool)]
        if not fresh:
            # every column priced is already in the master: its duals leave reduced costs above
            # ``reduced_cost`` on its own columns (HiGHS's dual tolerance). Prove the bound at these
            # duals with an exact pricing pass, then scale the master's costs; stop if that cannot help.
            if not proven or getattr(pricer, "early", False):
                pr = _exact_pass(pricer, master.nu, deadline)
                if pr.bound is not None and math.isfinite(pr.bound):
                    proven = True
                    if float(master.nu @ P) + pr.bound < bound:
                        best_nu = np.array(master.nu, float)
                    bound = min(bound, float(master.nu @ P) + pr.bound)
            if proven and bound - master.value <= tol * max(abs(bound), abs(master.value)):
                return ColGenResult("optimal", master, R, bound, True, it, notes, nu=best_nu)
            if wm is not None and wm.tighten():
                continue
            notes.append(
                f"column generation stalled: the master LP's duals leave reduced costs up to "
                f"{pr.bound if pr.bound is not None else float('nan'):.2g} on its own columns"
            )
            return ColGenResult("stalled", master, R, bound, proven, it, notes, nu=best_nu)
        rays = pr.rays[:, fresh]
        keys.update(_key(rays[:, j]) for j in range(rays.shape[1]))
        if not smoothed:
            new_mu = gain(rays)
        R = np.hstack([R, rays])
        mu = np.concatenate([mu, new_mu])
        if wm is not None:
            wm.add(rays, new_mu)
    return ColGenResult("iteration_limit", master, R, bound, False, max_iter, notes, nu=best_nu)
