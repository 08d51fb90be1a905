"""The ``enumerate`` and ``colgen`` methods of the ``exact`` solver, and the :class:`Outcome` every method returns.

Each returns an :class:`Outcome`: the total gain Σ μ of the solution found,
a proven upper bound on the optimal Σ μ (``inf`` if none), the channel on the
support (or None when it is not materialised), a status and extras. Their columns (the enumerated
rays, the pricer of column generation) come from :mod:`~mechopt.solvers.exact.columns`; the
``symmetry`` method is :mod:`~mechopt.solvers.exact.symmetry`, its classes
:mod:`~mechopt.solvers.exact.orbits.classes`.

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> cp = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="ldp", utility="mi", eps=1.0).column_program()
>>> out = solve_enumerate(cp, "ldp", {"max_memory": 2e9}, None)
>>> out.status.value, out.bound - out.gain_value <= 1e-9, out.extras
('optimal', True, {'rays': 7})
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.errors import ParamError
from mechopt.model.forms import ColumnProgram
from mechopt.notions import LDP, LIP
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Status
from mechopt.runtime.deadline import late
from mechopt.solvers.exact import warm as _warm
from mechopt.solvers.exact.box import PML_SMOOTHING, chord_start, cover_start
from mechopt.solvers.exact.colgen import FIRST_MASTER_GRACE, column_generation
from mechopt.solvers.exact.columns import TREE_ENUM_MAX_D, _pricer, enumerate_rays, tree_pricing_applies
from mechopt.solvers.exact.lp import dual_bound, recover_channel, solve_master
from mechopt.solvers.exact.orbits.classes import class_count, orbit_count
from mechopt.solvers.exact.pricing.base import StoredPricer

__all__ = [
    "Outcome",
    "orbit_count",
    "enumerate_rays",
    "solve_enumerate",
    "solve_colgen",
    "MAX_ORBITS",
    "tree_pricing_applies",
    "TREE_ENUM_MAX_D",
    "class_count",
]

MAX_ORBITS = 5_000_000  # default of the exact solver's ``max_orbits`` option (orbit columns the symmetry LP may hold)


@dataclass
class Outcome:
    status: Status
    gain_value: float | None
    bound: float
    Q: np.ndarray | None
    iterations: int | None = None
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    #: Duals of Σ_y c_y = P (one per input) proving ``bound`` = νᵀP + max_r (μ(r) − νᵀr); None without one.
    nu: np.ndarray | None = None


def reporter(cp: ColumnProgram, opts: dict[str, Any], method: str):
    """The round callback of column generation for the ``progress`` option, or None when it is not given.

    It calls ``opts["progress"]`` with a dict: ``method``, ``round``, ``columns``, and
    ``value``, ``bound`` (None until one is proven) and ``gap`` in the problem's own
    units (an MSE, not the LP's gain).

    >>> from mechopt.problems.design import ChannelDesign
    >>> cp = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mse", eps=1.0).column_program()
    >>> seen = []
    >>> reporter(cp, {"progress": seen.append}, "column generation")(round=1, columns=3, gain=0.2, bound=0.2)
    >>> sorted(seen[0]), seen[0]["gap"]
    (['bound', 'columns', 'gap', 'method', 'round', 'value'], 0.0)
    """
    user = opts.get("progress")
    if user is None:
        return None

    def report(*, round: int, columns: int, gain: float, bound: float) -> None:
        value = cp.value_of(gain)
        proven = cp.value_of(bound) if math.isfinite(bound) else None
        gap = None if proven is None else relative_gap(value, proven)  # progress: no scale (a 0 reads gap 1)
        user({"method": method, "round": round, "columns": columns, "value": value, "bound": proven, "gap": gap})

    return report


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else max(deadline - time.perf_counter(), 1e-3)


def solve_enumerate(cp: ColumnProgram, kind: str, opts: dict[str, Any], deadline: float | None) -> Outcome:
    """All rays, one HiGHS LP, the certificate over all rays."""
    R = enumerate_rays(cp, kind, opts)
    mu = cp.gain(R)
    m = solve_master(R, mu, cp.prior, time_limit=_left(deadline))
    extras = {"rays": int(R.shape[1])}
    if m.status != "optimal":
        st = Status.TIME_LIMIT if m.status == "time_limit" else Status.NUMERICAL_ERROR
        return Outcome(st, None, math.inf, None, None, f"HiGHS: {m.message}", extras)
    bound = dual_bound(m.nu, cp.prior, R, mu)
    Q = recover_channel(cp.prior, R, m.theta)
    return Outcome(Status.OPTIMAL, m.value, bound, Q, 1, "", extras, nu=m.nu)


def solve_colgen(cp: ColumnProgram, kind: str, opts: dict[str, Any], deadline: float | None) -> Outcome:
    """Restricted master + exact pricing; honest about heuristic or interrupted pricing."""
    if deadline is not None:  # the seeds and their first master are solved even past the deadline (a mechanism,
        late(FIRST_MASTER_GRACE)  # status time_limit): the backstop waits for them (moved only if it came sooner)
    pricer, R0, how = _pricer(cp, kind, opts)
    extras: dict[str, Any] = {"pricing": how}
    if opts.get("warm_start") is not None:
        if kind not in ("ldp", "lip"):
            raise ParamError(f"warm_start applies to ε-LDP and ε-LIP column generation, not {cp.notion.name}")
        W = _warm.rebuild(_warm.warm_info(opts["warm_start"]), cp.prior, cp.notion.eps, kind)
        R0 = np.hstack([R0, W])
        extras["warm_columns"] = int(W.shape[1])
    start = chord_start(cp, kind)
    cover = cover_start(cp, kind, deadline)
    if cover is not None:
        R0 = np.hstack([R0, cover])
        extras["cover_columns"] = int(cover.shape[1])
    elif getattr(pricer, "strata", None) is not None:  # no window cover: the strata bound's pool and slices
        seeds = pricer.seed_columns(deadline)
        R0 = np.hstack([R0, seeds])
        extras["seed_columns"] = int(seeds.shape[1])
    out = column_generation(
        cp.prior,
        cp.gain,
        pricer,
        R0,
        max_iter=int(opts["max_iter"]),
        deadline=deadline,
        progress=reporter(cp, opts, "column generation"),
        start=start,
        smoothing=0.0 if start is None else PML_SMOOTHING,
    )
    extras["columns"] = int(out.R.shape[1])
    if kind in ("ldp", "lip") and type(cp.notion) in (LDP, LIP) and cp.notion.eps > 0:
        extras["warm_start"] = _warm.describe(out.R, cp.prior, cp.notion.eps, kind)
    if hasattr(pricer, "nodes"):
        extras["pricing_nodes"] = int(pricer.nodes)
    if hasattr(pricer, "milp_calls"):
        extras["milp_calls"] = pricer.milp_calls
    if isinstance(pricer, StoredPricer):
        extras["rays"] = int(pricer.R.shape[1])
    if out.master is None or out.master.status != "optimal":
        st = Status.TIME_LIMIT if out.status == "time_limit" else Status.NUMERICAL_ERROR
        why = (
            "no master solution before the limit"
            if st is Status.TIME_LIMIT
            else "the restricted master LP failed: " + (out.master.message if out.master is not None else "?")
        )
        return Outcome(st, None, out.bound, None, out.iterations, why, extras)
    Q = recover_channel(cp.prior, out.R, out.master.theta)
    status = {
        "optimal": Status.OPTIMAL,
        "time_limit": Status.TIME_LIMIT,
        "iteration_limit": Status.ITERATION_LIMIT,
    }.get(out.status, Status.OPTIMAL_INACCURATE)
    msg = "; ".join(out.notes)
    if status is Status.OPTIMAL and not out.proven:
        status = Status.OPTIMAL_INACCURATE
        msg = (msg + "; " if msg else "") + "the last pricing was not proven exact"
    so_far = (
        "best master solution and best proven bound so far"
        if math.isfinite(out.bound)
        else "best master solution so far; no bound was proven (no pricing round finished exactly)"
    )
    if status is Status.TIME_LIMIT:
        msg = (msg + "; " if msg else "") + f"time limit: {so_far}"
    if status is Status.ITERATION_LIMIT:
        msg = (msg + "; " if msg else "") + f"iteration limit: {opts['max_iter']} column-generation rounds; {so_far}"
    return Outcome(status, out.master.value, out.bound, Q, out.iterations, msg, extras, nu=out.nu)
