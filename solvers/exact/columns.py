"""Where the exact methods' columns come from: every extreme ray of the cone, or a pricer that finds the best one.

:func:`enumerate_rays` lists the rays of the column cone (after a memory estimate) for the ``enumerate``
method and for pricing by a stored enumeration; :func:`_pricer` picks the pricing of column generation
(``pricing`` option): a structured exact pricer where the notion and utility have one (knapsack, tree,
LIP sweep or search, the posterior box's), else subset-sum enumeration, a MILP or the stored rays.

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> cp = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="ldp", utility="mi", eps=1.0).column_program()
>>> enumerate_rays(cp, "ldp", {"max_memory": 2e9}).shape   # the 2^3 − 1 patterns, normalised
(3, 7)
>>> _pricer(cp, "ldp", {"max_memory": 2e9})[2]
'knapsack branch and bound'
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ParamError, TooLargeError
from mechopt.model.forms import ColumnProgram
from mechopt.notions import LDP, LIP, GraphLDP, PosteriorStatNotion
from mechopt.solvers._advice import or_local
from mechopt.solvers.exact import rays as _rays
from mechopt.solvers.exact import sizes as _sizes
from mechopt.solvers.exact.box import LIP_SEARCH, box_pricer
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

__all__ = ["enumerate_rays", "tree_pricing_applies", "TREE_ENUM_MAX_D", "PRICINGS"]

# policy-graph (and metric) LDP + MI on a forest: enumerate the 2^(d−1) rays up to here, then tree pricing
# (measured crossover, w16j: path d = 10 equal, d = 12 tree pricing 1.5x faster; metric-LDP enumerates only
# its essential pairs, so the same: d = 10 metric line 0.023 s enumeration vs 0.027 s tree pricing)
TREE_ENUM_MAX_D = 10


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
