"""Which pricer prices a robust design's ray LP, and its first columns: by notion, utility and size.

:func:`choose_pricer` answers for :class:`~mechopt.solvers.robust.rays.RobustRaysSolver`: under ε-LDP (or a box notion
over a set that holds every point mass, :func:`_ldp_level`) the patterns 1 + (e^ε − 1) z, enumerated or searched;
else the posterior box's branch and bound (:func:`_box_route`) or the cone's rays, enumerated once and stored. A
cone too large for any of them is refused with a :class:`~mechopt.errors.TooLargeError` naming the limit.

Examples
--------
>>> from mechopt.problems.robust import RobustDesign
>>> from mechopt.problems.robust.gains import error_gains
>>> prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0)
>>> V = prob.prior_set.vertices
>>> pricer, seed, how = choose_pricer(prob, error_gains(V, prob.utility), V, {"enumerate_max": 20}, {})
>>> how, seed.shape
('enumeration of 7 patterns', (3, 4))
>>> _ldp_level(None, V, prob)
1.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ParamError, TooLargeError
from mechopt.solvers.robust.cone.domains import ConeSlice, PatternBox
from mechopt.solvers.robust.cone.hist import HistBoxPricer
from mechopt.solvers.robust.pricing import (
    LDPAscentPricer,
    LDPQuotientMilpPricer,
    LDPSubsetPricer,
    StoredRays,
    box_cone_rays,
)
from mechopt.solvers.robust.ratios import LDPMSERatioPricer
from mechopt.solvers.robust.search import mi_pricer

__all__ = ["choose_pricer"]


def choose_pricer(problem: Any, G, cone: np.ndarray, opts: dict[str, Any], cache: dict[str, np.ndarray],
                  deadline: float | None = None):  # fmt: skip
    """(pricer, seed columns, a word for the pricing) for the problem's notion and size; ``cone`` the
    vertices whose privacy cones meet (the set's, on its support rows; G may hold more priors)."""
    from mechopt.problems.robust import box_factors
    from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

    n = G.vertices.shape[1]
    factors = box_factors(problem.notion)
    eps = _ldp_level(factors, cone, problem)
    if eps is not None:  # ε-LDP (or a box notion over a set holding every point mass): patterns 1 + (e^ε − 1) z
        seed = np.hstack([np.ones((n, 1)), 1.0 + math.expm1(eps) * np.eye(n)])
        if n <= int(opts["enumerate_max"]):
            return LDPSubsetPricer(G, n, eps), seed, f"enumeration of {2**n - 1} patterns"
        if isinstance(G.utility, MutualInfo):
            return mi_pricer(G.vertices, n, eps, opts, seed, deadline)
        if isinstance(G.utility, SumMSE) and opts["mse_pricer"] == "auto":
            return LDPMSERatioPricer(G, n, eps), seed, "exact branch and bound over the k ratios N_i/t_i"
        if isinstance(G.utility, HistogramMSE) and opts["mse_pricer"] == "auto" and n <= int(opts["milp_max"]):
            pricer = HistBoxPricer(G, PatternBox(G.vertices, eps))
            return pricer, seed, "exact branch and bound over boxes of the pattern and its masses (LPs)"
        if n <= int(opts["milp_max"]):
            return LDPQuotientMilpPricer(G, n, eps), seed, "ascent, then an exact MILP"
        how = f"pattern ascent (exact pricing needs d ≤ milp_max={opts['milp_max']})"
        return LDPAscentPricer(G, n, eps), seed, how
    box = _box_route(problem, G, cone, factors, opts)
    if box is not None:
        return box
    why = None
    if "rays" in cache:
        R = cache["rays"]
    elif n > int(opts["cone_max"]):
        why = f"is above cone_max={opts['cone_max']} symbols (its rays are enumerated: d = 10, 3 priors: ~25 s)"
        if isinstance(G.utility, MutualInfo) and n > int(opts["box_max"]):
            why = f"is above box_max={opts['box_max']} symbols (mi's branch and bound over the cone)"
        if isinstance(G.utility, SumMSE) and n > int(opts["mse_box_max"]):
            why = f"is above mse_box_max={opts['mse_box_max']} symbols (mse's branch and bound over the cone)"
        if isinstance(G.utility, HistogramMSE) and n > int(opts["hist_box_max"]):
            why = f"is above hist_box_max={opts['hist_box_max']} symbols (histogram's branch and bound over the cone)"
    else:
        try:
            R = cache["rays"] = box_cone_rays(cone, *factors, max_rays=int(opts["max_rays"]), deadline=deadline)
        except TooLargeError:
            why = f"has more than max_rays={opts['max_rays']} extreme rays"
    if why is not None:
        one = " (one prior: ChannelDesign with the exact solver reaches d = 64)" if len(cone) == 1 else ""
        raise TooLargeError(
            f"the {problem.notion.name} cone at {len(cone)} priors on {n} symbols {why}: robust {G.utility.name} "
            f"under {problem.notion.name} is certified only where the rays can be enumerated (by branch and bound: mi "
            f"to box_max={opts['box_max']}, mse to mse_box_max={opts['mse_box_max']}, histogram to "
            f"hist_box_max={opts['hist_box_max']} symbols){one}; a linear "
            "utility (mae) scales further with robust-lp"
        )
    return StoredRays(R, None, G, (float(n), float(n))), np.full((n, 1), 1.0 / n), f"{R.shape[1]} enumerated rays"


def _box_route(problem: Any, G, cone: np.ndarray, factors, opts: dict[str, Any]):
    """(pricer, seed, word) of the posterior-box cone's branch and bound (mi, mse and histogram above ``cone_max``
    symbols, to ``box_max`` / ``mse_box_max`` / ``hist_box_max``; ``cone_pricer="box"`` at any size), or None for the
    enumerated rays."""
    from mechopt.solvers.robust.cone.box import BoxMIPricer
    from mechopt.solvers.robust.cone.ratio import ConeMSEPricer
    from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

    kind, n = opts["cone_pricer"], cone.shape[1]  # one of rays.WORDS["cone_pricer"] (checked by the solver)
    same = np.array_equal(G.vertices, cone)
    mi = isinstance(G.utility, MutualInfo) and same
    mse = isinstance(G.utility, SumMSE)
    hist = isinstance(G.utility, HistogramMSE) and same
    if kind == "box" and not (mi or mse or hist):
        raise ParamError(f"cone_pricer='box' prices mse, and mi and histogram at the set's own vertices: not "
                         f"{G.utility.name} over the priors of a hull round; use 'auto'")  # fmt: skip
    top = int(opts["mse_box_max"] if mse else opts["hist_box_max"] if hist else opts["box_max"])
    if not (mi or mse or hist) or kind == "rays" or (kind == "auto" and not int(opts["cone_max"]) < n <= top):
        return None
    if hist:
        pricer = HistBoxPricer(G, ConeSlice(cone, *factors))
        return pricer, np.ones((n, 1)), "histogram branch and bound over boxes of the column and its masses (LPs)"
    if mse:
        return ConeMSEPricer(G, cone, *factors), np.ones((n, 1)), "ratio branch and bound over the cone (LPs)"
    if opts.get("_ball") is not None:  # vertex generation over a TV ball: the ball itself in the pricer
        from mechopt.solvers.robust.cone.ballbox import BALL_WORD, BallMIPricer

        pricer = BallMIPricer(cone, opts["_ball"], *factors, multi_level=opts["multi_level"])
        return pricer, pricer.seed_rays(), BALL_WORD
    pricer = BoxMIPricer(cone, *factors, multi_level=opts["multi_level"])
    return pricer, pricer.seed_rays(), "branch and bound over the cone (chord and tangent LPs)"


def _ldp_level(factors, cone: np.ndarray, problem: Any) -> float | None:
    """The LDP level of the cone, or None when it is not an LDP cone.

    A box notion (lo·P·q ≤ q_x ≤ hi·P·q) at every point mass e_x gives q_x' ≤ hi·q_x and q_x ≥ lo·q_x' for all
    x, x': ε-LDP with e^ε = min(hi, 1/lo); and ε-LDP implies the box at every prior (P·q lies between min q and
    max q). So when the set holds every point mass (prior-free design) the cone is exactly that LDP cone.
    """
    if factors is None:
        return float(problem.notion.eps)
    lo, hi = factors
    n = cone.shape[1]
    if not all(np.any(np.all(cone == row, axis=1)) for row in np.eye(n)):
        return None
    return math.log(hi if lo == 0 else min(hi, 1.0 / lo))
