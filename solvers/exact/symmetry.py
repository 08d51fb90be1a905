"""The ``symmetry`` method of the exact solver: one LP column per orbit, a mechanism with ≤ d outputs.

Inputs with equal prior (and equal utility data) form g classes; an optimum
exists with weights constant on orbits of rays (math.md §2), so the LP needs one
column per orbit and g rows. Two ways to solve it:

- **enumeration** of every orbit (Π(m_i + 1) for ε-LDP) when there are at most
  ``ORBIT_ENUM_MAX`` of them, or when the gain has no count pricing;
- **column generation over counts** (:mod:`mechopt.solvers.exact.orbits.colgen`): orbits are count
  vectors (k_1, …, k_g), their gains are closed forms of the counts and the
  pricing is an exact g-variable branch and bound (:mod:`mechopt.solvers.exact.orbits.pricing`), so
  nothing of size d or Π(m_i + 1) is built. This is what makes three or five
  classes at d = 10⁴ a matter of seconds.

Either way the certificate is exact over all rays (class duals extended to
inputs give the same reduced cost to every member of an orbit). The returned
mechanism is built from the orbit weights by :mod:`mechopt.solvers.exact.orbits.mechanism`: at most d
outputs, each a ray of a used orbit, with the LP's value. ``outputs="orbits"``
asks for the full symmetric mechanism instead (every ray of every used orbit)
when it has at most ``max_outputs`` outputs.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="uniform:64", notion="ldp", utility="mi", eps=1.0)
>>> r = mechopt.solve(prob, solver="exact")
>>> r.status.value, r.Q.shape[0], r.Q.shape[1] <= 64, r.violation <= 1e-9
('optimal', 64, True, True)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ParamError, TooLargeError
from mechopt.model.channel import merge_outputs
from mechopt.model.forms import ColumnProgram
from mechopt.results.result import Status
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.lp import dual_bound, solve_master
from mechopt.solvers.exact.methods import Outcome, _left, reporter
from mechopt.solvers.exact.orbits import pricing as _orbit_price
from mechopt.solvers.exact.orbits import reduction as _symmetry
from mechopt.solvers.exact.orbits.classes import _classes, orbit_count
from mechopt.solvers.exact.orbits.colgen import orbit_colgen
from mechopt.solvers.exact.orbits.mechanism import PlanTimeLimit, build_plan

__all__ = ["solve_symmetry", "ORBIT_ENUM_MAX", "gb"]

ORBIT_ENUM_MAX = 20_000  # a speed switch: enumerate up to this many orbit columns, else generate them


def gb(nbytes: int | float) -> str:
    """Bytes as GB in a message, exact for Python ints of any size (no float overflow)."""
    n = int(nbytes)
    if n < 10**15:
        return f"{n / 1e9:.3g} GB"
    return f"~10^{len(str(n)) - 10} GB"


def _supported(cp: ColumnProgram, kind: str):
    cl = _classes(cp)
    if cl is None or kind not in ("ldp", "lip"):
        raise ParamError(
            f"method='symmetry' supports LDP and LIP with utilities mi, mse, histogram, not "
            f"{cp.notion.name} with {cp.utility.name}; use method='enumerate' or 'colgen'"
        )
    return cl


def _enumerate(cp, cl, kind, opts, deadline):
    count, need, limit = orbit_count(cp, kind), _symmetry.enum_bytes(cl, kind), float(opts["max_memory"])
    if count > int(opts["max_orbits"]) or need > limit:
        raise TooLargeError(
            f"enumerating the {count:.3g} orbit columns of {cl.g} prior classes needs ~{gb(need)} "
            f"(max_memory={gb(limit)}, max_orbits={opts['max_orbits']}); no count pricing for "
            f"{cp.notion.name} with {cp.utility.name}: use method='colgen'"
        )
    eps = cp.notion.eps
    orb = _symmetry.ldp_orbits(cl, eps) if kind == "ldp" else _symmetry.lip_orbits(cl, eps)
    mu = _symmetry.orbit_gain(orb, cp.utility)
    Rr = orb.reduced()
    m = solve_master(Rr, mu, cl.totals, time_limit=_left(deadline))
    if m.status != "optimal":
        return None, m.status, m.message
    return (orb, m.theta, m.value, dual_bound(m.nu, cl.totals, Rr, mu), int(orb.n), 1, m.nu), "optimal", ""


def _generate(cp, cl, kind, opts, deadline):
    out = orbit_colgen(
        cl,
        kind,
        cp.utility,
        cp.notion.eps,
        max_iter=int(opts["max_iter"]),
        deadline=deadline,
        progress=reporter(cp, opts, "orbit column generation"),
    )
    if out.orbits is None:
        return None, out.status, "orbit column generation failed"
    return (
        # no duals: the bound is the lowest over rounds, not necessarily that of the last master's duals
        (out.orbits, out.theta, out.value, out.bound, out.extras["orbit_columns_generated"], out.iterations, None),
        out.status,
        "",
    )


def solve_symmetry(cp: ColumnProgram, kind: str, opts: dict[str, Any], deadline: float | None) -> Outcome:
    """One LP column per orbit (enumerated or generated); the mechanism from ``orbits.mechanism.build_plan``."""
    cl = _supported(cp, kind)
    count = orbit_count(cp, kind)
    priceable = _orbit_price.supports(kind, cp.utility) and cp.notion.eps > 0
    if count <= ORBIT_ENUM_MAX or not priceable:
        sol, st, why = _enumerate(cp, cl, kind, opts, deadline)
        how = "orbit enumeration"
    else:
        sol, st, why = _generate(cp, cl, kind, opts, deadline)
        how = "orbit column generation (exact count pricing)"
    extras: dict[str, Any] = {
        "classes": [{"prior": float(p), "size": int(s)} for p, s in zip(cl.p, cl.m)],
        "symmetry": how,
    }
    if sol is None:
        status = Status.TIME_LIMIT if st == "time_limit" else Status.NUMERICAL_ERROR
        return Outcome(status, None, math.inf, None, None, why or f"master LP: {st}", extras)
    orb, theta, value, bound, ncols, iters, class_nu = sol
    nu = None if class_nu is None else input_duals(cl, class_nu)
    extras["orbit_columns"] = ncols
    status = {
        "optimal": Status.OPTIMAL,
        "time_limit": Status.TIME_LIMIT,
        "iteration_limit": Status.ITERATION_LIMIT,
    }.get(st, Status.NUMERICAL_ERROR)
    used = np.flatnonzero(theta > 0)
    logs = _symmetry.orb_log_sizes(orb)[used]
    extras["orbits"] = [describe(orb, j, float(theta[j]), float(s), kind) for j, s in zip(used, logs)]
    Q, msg = None, ""
    if opts.get("outputs", "basic") == "orbits":
        log_out = float(np.logaddexp.reduce(logs))
        if log_out <= math.log(opts["max_outputs"] + 0.5):
            Q, _ = merge_outputs(_symmetry.materialise(orb, used, theta[used], cp.prior))
            return Outcome(status, value, bound, Q / Q.sum(axis=1, keepdims=True), iters, "", extras, nu=nu)
        msg = (
            f"outputs='orbits': ~10^{log_out / math.log(10):.1f} outputs > max_outputs={opts['max_outputs']}; "
            "returned a basic optimal mechanism (≤ d outputs) instead"
        )
    try:
        plan = build_plan(orb, used, theta[used], deadline)
        need, limit = 8 * cp.d * plan.n_outputs, float(opts["max_memory"])
        _left_or_stop(deadline)  # building Q (seconds at d = 10⁴) or auditing the plan: not after the deadline
        if need <= limit:
            Q = plan.dense(cp.prior)
    except PlanTimeLimit as exc:  # the LP is solved but no mechanism was built: not an answer
        val = cp.value_of(value)
        extras["lp_value"] = val
        return Outcome(
            Status.TIME_LIMIT,
            None,
            bound,
            None,
            iters,
            _join(
                msg,
                f"{exc}: the symmetric LP reached {val:.10g} ({st}; orbit weights in "
                "extras['orbits'], bound in extras['bound']) but no mechanism was built; raise "
                "time_limit",
            ),
            extras,
        )
    if Q is None:
        extras["plan"] = plan
        extras["structural_audit"] = plan.eps_audited(cp.prior, kind)
        msg = _join(
            msg,
            f"Q not materialised: {cp.d} × {plan.n_outputs} needs {gb(need)} > max_memory={gb(limit)}; "
            "extras['plan'] holds it (rows, sampling, exact privacy audit of its columns)",
        )
    return Outcome(status, value, bound, Q, iters, msg, extras, nu=nu)


def input_duals(cl, class_nu: np.ndarray) -> np.ndarray:
    """Class duals as input duals (ν_x = ν of x's class): an orbit's LP column is its class totals, so
    ν_classᵀ(class totals of r) = ν_inputsᵀr for every ray r and the bound over all rays is the same."""
    nu = np.zeros(int(cl.m.sum()))
    for members, v in zip(cl.members, class_nu):
        nu[members] = v
    return nu


def _left_or_stop(deadline: float | None) -> None:
    if passed(deadline):
        raise PlanTimeLimit("the time limit passed before the dense mechanism was built")


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b


def describe(orb, j: int, weight: float, log_size: float, kind: str) -> dict[str, Any]:
    """One used orbit for ``extras['orbits']``: weight, log10 of its ray count, counts and values per class."""
    g = orb.classes.g
    names = ("high", "low") if kind == "ldp" else ("upper", "lower", "free")
    counts = {nm: np.rint(orb.M[i * g : (i + 1) * g, j]).astype(int).tolist() for i, nm in enumerate(names)}
    values = {nm: orb.V[i * g : (i + 1) * g, j].tolist() for i, nm in enumerate(names)}
    return {
        "weight": weight,
        "log10_rays": log_size / math.log(10),
        "counts_per_class": counts,
        "posterior_values": values,
    }
