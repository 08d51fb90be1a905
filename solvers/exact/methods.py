"""The three methods of the ``exact`` solver: enumerate, symmetry, colgen.

Each returns an :class:`Outcome`: the total gain Σ μ of the solution found,
a proven upper bound on the optimal Σ μ (``inf`` if none), the channel on the
support (or None when it is not materialised), a status and extras.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.design import ChannelDesign
>>> cp = ChannelDesign.from_params(prior="uniform:6", notion="ldp", utility="mi", eps=1.0).column_program()
>>> orbit_count(cp, "ldp")                 # one class of 6: k = 0..6 entries high
7
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError, TooLargeError
from mechopt.model.forms import ColumnProgram
from mechopt.notions import LDP, LIP, GraphLDP, PosteriorStatNotion
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Status
from mechopt.runtime.deadline import late
from mechopt.solvers._advice import or_local
from mechopt.solvers.exact import rays as _rays
from mechopt.solvers.exact import sizes as _sizes
from mechopt.solvers.exact import warm as _warm
from mechopt.solvers.exact.box import LIP_SEARCH, PML_SMOOTHING, box_pricer, chord_start, cover_start
from mechopt.solvers.exact.colgen import FIRST_MASTER_GRACE, column_generation
from mechopt.solvers.exact.lp import dual_bound, recover_channel, solve_master
from mechopt.solvers.exact.orbits import reduction as _symmetry
from mechopt.solvers.exact.pricing.base import (
    LDPEnumPricer,
    LDPMIPricer,
    LDPQuadPricer,
    StoredPricer,
    ldp_seed,
    shifted,
)
from mechopt.solvers.exact.pricing.knapsack import LDPMIKnapsackPricer
from mechopt.solvers.exact.pricing.lip import SWEEP_MAX_D, LIPHistogramPricer, LIPMIPricer, LIPSumPricer
from mechopt.solvers.exact.pricing.mitm import MITM_MAX_D
from mechopt.solvers.exact.pricing.tree import TreeLDPMIPricer, essential_forest, essential_weights

__all__ = [
    "Outcome",
    "orbit_count",
    "enumerate_rays",
    "solve_enumerate",
    "solve_colgen",
    "MAX_ORBITS",
    "tree_pricing_applies",
    "TREE_ENUM_MAX_D",
]

# policy-graph (and metric) LDP + MI on a forest: enumerate the 2^(d−1) rays up to here, then tree pricing
# (measured crossover, w16j: path d = 10 equal, d = 12 tree pricing 1.5x faster; metric-LDP enumerates only
# its essential pairs, so the same: d = 10 metric line 0.023 s enumeration vs 0.027 s tree pricing)
TREE_ENUM_MAX_D = 10
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


def _sorted(cp: ColumnProgram) -> Any:
    """The inputs of the program sorted by class, once per program object (and tolerance)."""
    tol = settings.tolerance("prior_equal")
    cached = _CLASS_CACHE.get(id(cp))
    if cached is None or cached[0] is not cp or cached[1] != tol:
        _CLASS_CACHE.clear()
        cached = [cp, tol, _symmetry.sorted_classes(cp.prior, cp.utility, tol), None]
        _CLASS_CACHE[id(cp)] = cached
    return cached


def class_count(cp: ColumnProgram) -> int | None:
    """How many symmetry classes the program has, without building them (None if unsupported)."""
    return _sorted(cp)[2].g


def _classes(cp: ColumnProgram):
    """Symmetry classes of the program, computed once per program object."""
    cached = _sorted(cp)
    if cached[3] is None:
        cached[3] = _symmetry.classes_from(cp.prior, cached[2].found)
    return cached[3]


_CLASS_CACHE: dict[int, list] = {}


def orbit_count(cp: ColumnProgram, kind: str) -> int | None:
    """Number of orbit columns under prior symmetry, or None when the gain is unsupported."""
    cl = _classes(cp)
    if cl is None or kind not in ("ldp", "lip"):
        return None
    return _symmetry.orbit_count_ldp(cl) if kind == "ldp" else _symmetry.orbit_count_lip(cl)


def _too_large(what: str, need: float, limit: float, alternative: str) -> TooLargeError:
    return TooLargeError(f"{what} needs ~{need / 1e9:.2g} GB (max_memory={limit / 1e9:.2g} GB); {alternative}")


def enumerate_rays(cp: ColumnProgram, kind: str, opts: dict[str, Any]) -> np.ndarray:
    """Every extreme ray of the cone (normalised columns), after a memory estimate."""
    P, eps, d, limit = cp.prior, cp.notion.eps, cp.d, float(opts["max_memory"])
    if kind == "ldp":
        _sizes.check_enumeration(
            f"enumerating the 2^{d} ε-LDP patterns",
            _sizes.ldp_log2_bytes(d),
            limit,
            "use method='colgen' (exact pricing) or 'symmetry' (equal prior values)",
        )
        return _rays.ldp_rays(P, eps)
    if kind == "lip":
        colgen = "use method='colgen' (exact pricing) or " if _prices_exactly(cp, kind) else "use "
        _sizes.check_enumeration(
            f"enumerating the LIP vertices for d = {d}",
            _sizes.lip_log2_bytes(P, eps),
            limit,
            f"{colgen}method='symmetry' if prior values repeat{or_local(d)}",
        )
        return _rays.lip_vertices(P, eps)
    if kind == "box":
        _sizes.check_enumeration(
            f"enumerating the {cp.notion.name} vertices for d = {d}",
            math.log2(8.0 * (d + 2)) + d,
            limit,
            "use method='colgen' (exact pricing for mi, mse, histogram)",
        )
        return _rays.box_vertices(P, *cp.notion.deviations(P), bounds=cp.notion.box(P))
    if d > opts["dd_max_d"] and kind == "cone":
        raise TooLargeError(
            f"vertex enumeration of the {cp.notion.name} cone is limited to d ≤ {opts['dd_max_d']} "
            f"(got {d}){_graph_why(cp)}; raise dd_max_d{or_local(d)}"
        )
    if isinstance(cp.notion, LDP):
        # policy-graph LDP: the cone on q = c / P is prior-free; its rays come from log space (no
        # e^{ε·dist} ratios in the side tests, no 1/P(x) coefficients for tiny prior masses)
        # pairs implied by shorter paths (all but the graph's own edges under metric-LDP) are left out:
        # the same cone, fewer constraints for the enumeration
        R = P[:, None] * _rays.graph_ldp_rays(essential_weights(cp.notion.pair_weights(d)), eps)
        return R / R.sum(axis=0)
    A = cp.notion.cone(P)
    if kind == "stat" and _rays.single_statistic(A):
        if type(cp.notion).cone is PosteriorStatNotion.cone:  # Definition 4's two-sided rows: relative form
            return _rays.two_point_vertices(cp.notion.relative_cone(P), scale=1.0)
        return _rays.two_point_vertices(A)
    if d > opts["dd_max_d"]:
        raise TooLargeError(
            f"vertex enumeration of the {cp.notion.name} cone is limited to d ≤ {opts['dd_max_d']} "
            f"(got {d}); raise dd_max_d{or_local(d)}"
        )
    return _rays.dd_rays(A)


def _graph_why(cp: ColumnProgram) -> str:
    """Why a policy-graph design has no exact method that scales (empty for other notions)."""
    if not isinstance(cp.notion, GraphLDP):
        return ""
    if tree_pricing_applies(cp):
        return ": use method='colgen' or 'auto' (exact tree pricing, which scales)"
    if essential_forest(cp.notion.pair_weights(cp.d)) is None:
        return (
            ": the policy graph has cycles (after dropping edges implied by shorter paths), so the "
            "exact tree pricing, which scales, does not apply"
        )
    return f": exact tree pricing covers mutual information, not {cp.utility.name}"


def tree_pricing_applies(cp: ColumnProgram) -> bool:
    """Policy-graph (or metric) LDP with mutual information whose essential graph is a forest."""
    from mechopt.utilities import MutualInfo

    u = cp.utility
    return (
        isinstance(cp.notion, GraphLDP)
        and cp.notion.eps > 0
        and isinstance(u, MutualInfo)
        and u.prior is not None
        and essential_forest(cp.notion.pair_weights(cp.d)) is not None
    )


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


PRICINGS = ("auto", "structured", "enumerate", "milp")


def _structured(cp: ColumnProgram, kind: str, batch: int | None):
    """The structured exact pricer of the program (``_knapsack``, ``_lip_pricing``, ``_tree_pricing``), or None."""
    from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

    P, eps, u = cp.prior, cp.notion.eps, cp.utility
    if eps <= 0:
        return None
    if kind == "ldp" and isinstance(u, MutualInfo) and u.prior is not None:
        return LDPMIKnapsackPricer(P, eps, u.prior, batch), ldp_seed(P, eps), "knapsack branch and bound"
    if kind == "cone" and tree_pricing_applies(cp):
        W = cp.notion.pair_weights(P.size)
        return TreeLDPMIPricer(P, eps, W, u.prior, batch), cp.prior[:, None].copy(), "tree branch and bound"
    if kind == "box":
        return box_pricer(cp, batch)
    if kind == "lip" and type(cp.notion) is LIP and isinstance(u, SumMSE):
        if P.size > SWEEP_MAX_D:
            n = P.size * (P.size - 1) // 2
            raise TooLargeError(
                f"exact LIP pricing for the MSE of a sum sweeps d(d−1)/2 = {n} "
                f"crossings per round (O(d³) work), limited to d ≤ {SWEEP_MAX_D}; got d = {P.size}: "
                "use solver='sqp' (local, uncertified) or fewer symbols"
            )
        return LIPSumPricer(P, eps, u.centred, batch), cp.prior[:, None].copy(), "LIP parametric sweep"
    if kind == "lip" and type(cp.notion) is LIP and P.size > MITM_MAX_D:
        return box_pricer(cp, batch)  # histogram, MI: the (ε, ε)-ALIP box's Lagrangian bound and core-face search
    if kind == "lip" and type(cp.notion) is LIP and isinstance(u, HistogramMSE):
        return LIPHistogramPricer(P, eps, batch), cp.prior[:, None].copy(), LIP_SEARCH
    if kind == "lip" and type(cp.notion) is LIP and isinstance(u, MutualInfo) and u.prior is not None:
        return LIPMIPricer(P, eps, u.prior, batch), cp.prior[:, None].copy(), LIP_SEARCH
    return None


def _prices_exactly(cp: ColumnProgram, kind: str) -> bool:
    """Whether column generation has a structured exact pricer for this program at its size."""
    try:
        return _structured(cp, kind, None) is not None
    except TooLargeError:
        return False


def _pricer(cp: ColumnProgram, kind: str, opts: dict[str, Any]):
    P, eps, d = cp.prior, cp.notion.eps, cp.d
    pricing = opts.get("pricing", "auto")
    if pricing not in PRICINGS:
        raise ParamError(f"pricing must be one of {', '.join(PRICINGS)}, got {pricing!r}")
    if pricing in ("auto", "structured"):
        found = _structured(cp, kind, opts.get("columns_per_round"))
        if found is not None:  # these price the utility's μ: shifted to the program's gain (ColumnProgram.shift)
            return shifted(found[0], cp.shift), found[1], found[2]
        if pricing == "structured":
            raise ParamError(f"no structured pricing for {cp.notion.name} with {cp.utility.name}; use pricing='auto'")
    if kind == "ldp":
        need = 3.0 * 8 * d * (d + 1)  # the seed columns and their workspace
        if need > float(opts["max_memory"]):
            raise _too_large(
                f"column generation over d = {d} inputs",
                need,
                float(opts["max_memory"]),
                f"raise max_memory above {need / 1e9:.2g} GB{or_local(d)}",
            )
        if pricing != "milp" and d <= opts["enum_max_d"] and LDPEnumPricer.supports(cp.utility):
            need = 6.0 * 8 * 2.0**d
            if need <= float(opts["max_memory"]):
                return shifted(LDPEnumPricer(P, eps, cp.utility), cp.shift), ldp_seed(P, eps), "subset-sum enumeration"
        from mechopt.utilities import MutualInfo

        if isinstance(cp.utility, MutualInfo) and cp.utility.prior is not None:
            return LDPMIPricer(P, eps, cp.utility.prior), ldp_seed(P, eps), "MILP with tangent cuts"
        quad = LDPQuadPricer(P, eps, cp.gain)
        if quad.is_quadratic(np.random.default_rng(opts["seed"])):
            return quad, ldp_seed(P, eps), "quadratic MILP"
        if d <= opts["enum_max_d"]:
            R = enumerate_rays(cp, kind, opts)
            return StoredPricer(R, cp.gain(R)), ldp_seed(P, eps), "stored enumeration"
        raise TooLargeError(
            f"no exact pricing for ε-LDP with utility {cp.utility.name} at d = {d}; "
            f"use d ≤ enum_max_d={opts['enum_max_d']} or method='symmetry' if prior values repeat"
            f"{or_local(d)}"
        )
    R = enumerate_rays(cp, kind, opts)
    return StoredPricer(R, cp.gain(R)), cp.prior[:, None].copy(), "stored enumeration"


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
