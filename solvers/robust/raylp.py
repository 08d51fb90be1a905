"""The ray LP of robust-rays: column generation with a proven bound, its master LP by HiGHS, dual smoothing.

For gains F_i (one row per prior vertex) of the columns R, constants c and a pricer over the privacy cone,
:func:`ray_lp` maximises t s.t. t ≤ F_i w + c_i, R w = 1, w ≥ 0, adding the pricer's columns each round; the
bound λᵀc + 1ᵀμ + W·max_r ρ(r) holds for any λ in the simplex and any μ (proof: :mod:`mechopt.solvers.robust.rays`).
For the mse of a sum (:class:`~mechopt.problems.robust.gains.ErrorGains`, c = 0: the score is −MSE itself) the
first pass solves the master in the score frame E[a²] − Σ gains and prices in the errors; when the MSE reached is
far below the columns' errors the master is solved again in the errors, in the MSE's unit (:func:`_rescaled`),
so that HiGHS's absolute tolerances and the bound's rounding allowance are relative to the MSE, not to E[a²].

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.robust import RobustDesign
>>> from mechopt.problems.robust.gains import VertexGains
>>> from mechopt.solvers.robust.pricing import LDPSubsetPricer
>>> prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0)
>>> G = VertexGains(prob.prior_set.vertices, prob.utility)
>>> out = ray_lp(G, LDPSubsetPricer(G, 3, 1.0), np.ones((3, 1)))
>>> out["status"], out["proven"], bool(abs(out["bound"] - G.values(out["R"] @ np.diag(out["w"])).min()) < 1e-9)
('optimal', True, True)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy.optimize import linprog

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.problems.robust.gains import ErrorGains, VertexGains
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Status
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.colgen import gain_units
from mechopt.solvers.exact.lp import cost_unit
from mechopt.solvers.robust.answer import _rc_tol

__all__ = ["ray_lp", "constant_outcome", "unit_columns", "MASTER_TOL"]

#: HiGHS's feasibility tolerances on the master, in the gains' unit (about E[a²] for an MSE: its duals, hence the
#: bound, are no closer than that to a score E[a²] − Σ gains; an MSE near it is not certifiable in this frame).
MASTER_TOL = 1e-10

#: Times the master is solved again in the unit of the MSE it reached (:func:`_rescaled`).
RESCALES = 3

#: Pricings in a row that may return only columns the master holds before the loop ends ``stalled`` (PML d = 32,
#: 3 priors: a column of reduced cost 1.1e-11 already in the master ended the loop as "optimal" at gap 1.7e-2).
STALL_RETRIES = 3


def ray_lp(G, pricer, seed: np.ndarray, *, max_iter: int = 500, deadline: float | None = None,
           smoothing: float = 0.0) -> dict[str, Any]:  # fmt: skip
    """Column generation for max t s.t. t ≤ F_i w + c_i, R w = 1, w ≥ 0; the bound in score units.

    ``smoothing`` = α ∈ [0, 1) is Wentges dual smoothing: once a pricing pass has proven a bound, the
    pricer is called at π = α·π̂ + (1 − α)·(λ, μ), π̂ the duals of the lowest bound so far. The bound
    (module docstring) holds for any λ in the simplex and any μ, and a convex combination keeps λ in
    the simplex, so a bound proven at π is a certificate as at (λ, μ). Only priced columns with a
    positive reduced cost at the master's own duals are added; after m such misprices in a row the
    next round prices at α_m = max(0, 1 − (m + 1)(1 − α)) in place of α (in-out separation: Pessoa, Sadykov,
    Uchoa, Vanderbeck, "Automation and combination of linear-programming based stabilization techniques in
    column generation", 2018), so within ⌈1/(1 − α)⌉ rounds it prices at (λ, μ) itself and the loop ends
    exactly as without smoothing.

    Returns ``w`` and ``R`` (the master's columns; when the deadline comes before the first master, the
    constant channel: R = 1, w = 1, ``note`` saying so), ``bound`` (None without an exact pricing pass),
    ``proven``, ``duals`` ((λ, μ) where ``bound`` was proven, μ in score units: with start duals or
    smoothing not the last master's), ``rounds``, ``status`` (``optimal`` only when the proven bound meets the
    master; ``stalled`` when the pricer returns only columns the master holds ``STALL_RETRIES`` + 1 times in a row
    with the gap open, relative to the bound and to the gains' unit) and ``message``.
    """
    if not 0.0 <= smoothing < 1.0:
        raise ParamError(f"smoothing must be in [0, 1), got {smoothing}: 0 turns it off")
    if not isinstance(G, ErrorGains):
        return _pass(G, pricer, unit_columns(seed), None, max_iter, deadline, smoothing)
    # the mse: a first pass with the master in the score frame E[a²] − Σ gains (HiGHS's simplex path there takes
    # 2–4× fewer rounds: LDP, 3 priors, ε = 1, d = 64: 119 against 485), priced in errors; then, when the MSE
    # reached is far below the columns' errors, the master again in the errors, in the MSE's unit
    out = _in_errors(_pass(VertexGains(G.vertices, G.utility), _ScorePriced(pricer, G), unit_columns(seed), None,
                           max_iter, deadline, smoothing), G)  # fmt: skip
    for _ in range(RESCALES):
        again = _rescaled(G, out)
        if again is None or out["rounds"] >= max_iter or passed(deadline):
            break
        out = _merged(out, _pass(G, pricer, *again, max_iter - out["rounds"], deadline, smoothing))
    return out


def _pass(G, pricer, R, scale, max_iter, deadline, smoothing) -> dict[str, Any]:
    """:func:`_rounds` from the columns R, in the unit ``scale`` (None: a power of two near the seed's gains)."""
    c = G.constants()
    F = G.gains(R)
    if scale is None:
        probe = G.gains(np.eye(R.shape[0]))  # the size of a unit column's gains (the seed's may all be 0: mi of 1)
        scale = cost_unit(np.r_[np.abs(F).ravel(), np.abs(probe).ravel(), np.abs(c)])  # a power of two: exact
    with gain_units(scale):  # reduced-cost and MILP tolerances in the gains' unit: unit-free
        return _rounds(G, pricer, R, F, c, scale, max_iter, deadline, smoothing)


class _ScorePriced:
    """``pricer`` (of :class:`ErrorGains` ``G``) called at duals of the score frame: μ − λᵀshift (the same ρ)."""

    def __init__(self, pricer, G) -> None:
        self.inner, self.G = pricer, G

    def __getattr__(self, name: str):
        return getattr(self.inner, name)

    def start_duals(self):
        start = getattr(self.inner, "start_duals", lambda: None)()
        return None if start is None else (start[0], start[1] + start[0] @ self.G.shift)

    def price(self, lam: np.ndarray, mu: np.ndarray, deadline: float | None = None):
        return self.inner.price(lam, mu - lam @ self.G.shift, deadline)


def _in_errors(out: dict[str, Any], G) -> dict[str, Any]:
    """A score-frame outcome with its duals in the errors' frame (μ − λᵀshift: the same bound, constants 0)."""
    if out.get("duals") is not None:
        lam, mu = out["duals"]
        out = {**out, "duals": (lam, mu - lam @ G.shift)}
    return out


def _rescaled(G, out: dict[str, Any]):
    """(columns, a new unit) to solve the master again in the unit of the MSE reached, or None.

    The master's unit is the seed's largest error (the all-ones column: Var(a)); HiGHS's tolerances are absolute in
    it, so an MSE 2^-12 of it and below (LDP at ε ≥ 25: 1e-10 of it) is resolved only to that tolerance. Columns
    with an error above 2^30 MSE are left out (they are far from entering; the bound needs no column); the used
    ones stay (the master stays feasible)."""
    if out.get("w") is None or out.get("note"):
        return None
    R, w = out["R"], out["w"]
    F = G.gains(R)
    t = float(np.max(-(F @ w)))
    unit = cost_unit(np.array([t]))
    if not t > 0 or unit >= 2.0**-12 * cost_unit(np.abs(F).ravel()):
        return None
    keep = (w > 0) | (np.max(np.abs(F), axis=0) <= 2.0**30 * t)
    return R[:, keep], unit


def _merged(first: dict[str, Any], second: dict[str, Any]) -> dict[str, Any]:
    """The second solve's outcome, its rounds counted after the first's; the first's bound when it is lower."""
    out = {**second, "rounds": first["rounds"] + second["rounds"]}
    if first["proven"] and (not second["proven"] or first["bound"] < second["bound"]):
        out.update(bound=first["bound"], proven=True, duals=first["duals"])
    return out


def _rounds(G, pricer, R, F, c, scale, max_iter, deadline, alpha) -> dict[str, Any]:
    """The rounds of :func:`ray_lp` (its arguments; F the seed's gains, ``scale`` their unit, α the smoothing)."""
    bound, proven, status, w = math.inf, False, "iteration_limit", None
    keys = {_key(R[:, j]) for j in range(R.shape[1])}
    tol = 0.9 * settings.tolerance("gap")  # the certificate needs ``gap`` (value and t differ by round-off only)
    centre, misprice, stalls, why = None, 0, 0, ""  # duals of the lowest bound; mispricings, stalls in a row
    one = G.gains(np.ones((R.shape[0], 1)))[:, 0] / scale  # the all-ones column's gains (_lagrange)
    size = float(np.abs(one).max())  # the objective's scale in the master's unit (an MSE's: Var(a); mi's: 0)
    start = getattr(pricer, "start_duals", lambda: None)()
    if start is not None:  # a first bound and smoothing centre before any master (the pricer's docstring)
        pr = pricer.price(start[0], start[1], deadline)
        if pr.bound is not None and math.isfinite(pr.bound):
            centre = (start[0], start[1] / scale)
            bound, proven = _lagrange(pricer, centre[0], centre[1], c / scale, pr.bound / scale, one), True
    for it in range(1, max_iter + 1):
        if passed(deadline):
            status = "time_limit"
            break
        m = _master(F / scale, c / scale, R)
        if m is None:
            return {"w": None, "status": Status.SOLVER_ERROR, "message": "HiGHS failed on the ray master LP"}
        w, t, lam, mu = m
        if w.size > 8 * R.shape[0] + 64:  # drop the columns that are far from entering (the bound needs none)
            R, F, w, keys = _prune(R, F / scale, w, lam, mu, keys, F)
        a = max(0.0, 1.0 - (misprice + 1) * (1.0 - alpha)) if alpha > 0 and centre is not None else 0.0
        smoothed = a > 0
        plam, pmu = (a * centre[0] + (1 - a) * lam, a * centre[1] + (1 - a) * mu) if smoothed else (lam, mu)
        if proven and relative_gap(t, bound, size, sign=1) <= tol:  # a bound proven earlier already closes it
            status = "optimal"
            break
        pr = pricer.price(plam, pmu * scale, deadline)
        why = why if pr.bound is not None else pr.note  # the last pricing without a bound says why
        if pr.bound is not None and math.isfinite(pr.bound):
            b = _lagrange(pricer, plam, pmu, c / scale, pr.bound / scale, one)
            if b < bound or centre is None:
                centre = (plam, pmu)
            if b < bound:
                bound, proven = b, True
        if proven and relative_gap(t, bound, size, sign=1) <= tol:
            status = "optimal"
            break
        rays = unit_columns(pr.rays)  # the master's columns: each scaled so that its largest entry is in [1, 2)
        new = [j for j in range(rays.shape[1]) if _key(rays[:, j]) not in keys]
        Fn = G.gains(rays[:, new])
        if smoothed:  # keep the columns that improve the master at its own duals
            good = lam @ Fn - (mu * scale) @ rays[:, new] > _rc_tol()
            new, Fn = [j for j, g in zip(new, good) if g], Fn[:, good]
            if not new:
                misprice += 1
                continue
        misprice = 0
        if not new:  # every column the pricer found is in the master already
            if proven and bound - t <= tol:  # closed in the gains' unit (t ≈ 0: the relative test above cannot say)
                status = "optimal"
                break
            stalls += 1
            if stalls <= STALL_RETRIES:  # a pricer that remembers what it returned searches on
                continue
            late = passed(deadline)
            status = "time_limit" if late else "stalled"  # not "optimal": bound − t is above the tolerance
            break
        stalls = 0
        for j in new:
            keys.add(_key(rays[:, j]))
        R = np.hstack([R, rays[:, new]])
        F = np.hstack([F, Fn])
    duals = None if centre is None else (centre[0], centre[1] * scale)  # (λ, μ) of the lowest bound, score units
    if w is None:
        out = constant_outcome(R.shape[0], status)
    else:  # R: the columns of the last master solved (later ones are unpriced)
        out = {"w": w, "R": R[:, : w.size], "rounds": it, "status": status, "message": status}
    return {**out, "bound": None if not proven else bound * scale, "proven": proven, "duals": duals, "unpriced": why}


def constant_outcome(n: int, status: str) -> dict[str, Any]:
    """The ray LP's outcome when no master was solved (the deadline came first): the constant channel (R = 1,
    w = 1; every input the same output law, private under every notion), no bound."""
    note = "no master LP solved: the constant channel"
    return {"w": np.ones(1), "R": np.ones((n, 1)), "rounds": 0, "status": status, "message": status,
            "bound": None, "proven": False, "duals": None, "note": note}  # fmt: skip


def unit_columns(R: np.ndarray) -> np.ndarray:
    """R with each column divided by a power of two near its largest entry (exact; the entries end in (0, 2)).

    The master's duals and the pricer's bound do not depend on the columns' lengths (the gains are positively
    homogeneous), but HiGHS does: ε-LDP patterns 1 + (e^ε − 1)z have entries up to e^ε (1.1e13 at ε = 30), and
    their gains up to ε·e^ε, so at one scale the scores (≈ 1) fell below the LP's tolerances.

    >>> unit_columns(np.array([[1.0, 3.0], [1e13, 0.5]])).tolist()
    [[1.1368683772161603e-13, 1.5], [1.1368683772161603, 0.25]]
    """
    R = np.asarray(R, float)
    if R.size == 0:
        return R
    top = np.max(np.abs(R), axis=0)
    exp = np.frexp(np.where(top > 0, top, 1.0))[1] - 1
    return np.ldexp(R, -exp[None, :])


def _prune(R, Fs, w, lam, mu, keys, F):
    """Keep the used columns and the 4n of highest reduced cost at (λ, μ): (R, F, w, keys) pruned."""
    rc = lam @ Fs - mu @ R
    keep = w > 0
    keep[np.argsort(-rc)[: 4 * R.shape[0]]] = True
    gone = {_key(R[:, j]) for j in np.flatnonzero(~keep)}
    return R[:, keep], F[:, keep], w[keep], keys - gone


def _lagrange(pricer, lam, mu, c, rho, one=None) -> float:
    """The proven bound λᵀc + 1ᵀμ + W·ρ (W the pricer's range of Σ w; every argument in the master's unit).

    A pricer of ε-LDP patterns (``top`` = e^ε, the largest entry of every pattern but the all-ones one, whose
    gains are ``one``) gives a second bound, the lower one is returned: over the patterns scaled to a largest
    entry 1, max ρ ≤ max(ρ(1), ρ/e^ε) and W ∈ [1, min(n, e^ε)] (each entry ≤ 1, and a pattern sums to at least
    n·e^{−ε} times its largest entry). With W = [e^{−ε}, 1] on the patterns themselves a rounding-size ρ > 0
    of patterns of size e^ε was a gap floor (ε = 15, d = 21, mse: 6e-2).
    """
    lo, hi = pricer.weights
    b = float(lam @ c + mu.sum() + (hi * rho if rho >= 0 else lo * rho)) + _margin(lam, c, mu, rho, hi)
    top = getattr(pricer, "top", None)
    if top is None or one is None:
        return b
    r1 = max(float(lam @ one - mu.sum()), rho / top)
    w = min(float(mu.size), top)
    return min(b, float(lam @ c + mu.sum() + (w * r1 if r1 >= 0 else r1)) + _margin(lam, c, mu, r1, w))


def _key(col: np.ndarray) -> bytes:
    return np.round(col, 12).tobytes()


def _margin(lam, c, mu, rho, hi) -> float:
    """Rounding allowance of the bound: a few ulp of the magnitudes summed."""
    mag = float(np.abs(lam * c).sum() + np.abs(mu).sum() + hi * abs(rho))
    return 64 * float(np.finfo(float).eps) * mag * max(1, mu.size)


def _master(F: np.ndarray, c: np.ndarray, R: np.ndarray):
    """(w, t, λ, μ) of the master LP by HiGHS, or None; λ ≥ 0 normalised to Σ λ = 1, μ the row duals."""
    k, N = F.shape
    n = R.shape[0]
    A_ub = np.hstack([-F, np.ones((k, 1))])  # t − F_i w ≤ c_i
    A_eq = np.hstack([R, np.zeros((n, 1))])
    cost = np.zeros(N + 1)
    cost[-1] = -1.0
    # tight tolerances first; HiGHS's defaults when those end "unknown" (the bound is recomputed from the duals
    # whatever the LP's accuracy: a looser solve only loosens it)
    for tols in ({"primal_feasibility_tolerance": MASTER_TOL, "dual_feasibility_tolerance": MASTER_TOL}, {}):
        res = linprog(cost, A_ub=A_ub, b_ub=c, A_eq=A_eq, b_eq=np.ones(n), bounds=[(0, None)] * N + [(None, None)],
                      method="highs", options=tols)  # fmt: skip
        if res.status == 0 and res.x is not None:
            break
    else:
        return None
    lam = np.maximum(-np.asarray(res.ineqlin.marginals, float), 0.0)
    lam = lam / lam.sum() if lam.sum() > 0 else np.full(k, 1.0 / k)
    mu = -np.asarray(res.eqlin.marginals, float)
    return res.x[:N], float(res.x[-1]), lam, mu
