"""``exact``: the certified solver, an LP over the extreme rays of the column cone.

For a problem with a column program (math.md §1),

    maximise Σ_y μ(c_y)   s.t.   Σ_y c_y = P,   c_y ∈ K = {c ≥ 0 : A c ≥ 0},

with μ convex and positively homogeneous, an optimum uses extreme rays of K
only, so the problem is the LP  max Σ_j θ_j μ(r_j) s.t. Σ_j θ_j r_j = P, θ ≥ 0
(rays normalised, 1ᵀr_j = 1). The dual ν of that LP gives the certificate

    optimum ≤ νᵀP + max_r (μ(r) − νᵀr)      over ALL normalised rays r,

computed exactly (by enumeration, over orbits, or by exact pricing) and mapped
into the problem's units (a lower bound for an MSE, an upper bound for a
mutual information). Methods (option ``method``):

- ``enumerate``: every ray (LDP patterns, LIP vertices, CIP point masses and
  two-point mixtures, double description for other cones), one HiGHS LP;
- ``symmetry``: one column per orbit of rays under permutations of inputs with
  equal prior (LDP, LIP; math.md §2); a uniform prior needs d + 1 columns, and
  few classes are solved by column generation over per-class counts;
- ``colgen``: restricted master LP plus exact pricing (subset sums for d up to
  ``enum_max_d``, then a MILP with tangent cuts for LDP mutual information;
  branch and bound over a tree DP for policy-graph LDP mutual information when
  the essential graph is a forest, :mod:`mechopt.solvers.exact.pricing.tree`);
- ``auto`` picks symmetry when it is the cheapest exact method (few classes of
  equal prior), else enumeration for small d, else column generation.

Every ``optimal`` answer carries its mechanism: a basic optimal solution with at
most d outputs (``symmetry`` builds it from the orbit weights exactly, see
``mechopt.solvers.exact.orbits.mechanism``), audited by ``mechopt.solve``. Only when d × d
doubles exceed ``max_memory`` is Q left as a plan (``extras['plan']``: rows,
sampling, and an exact privacy audit of its columns, reported as ``violation``).

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="mi", eps=1.0)
>>> r = mechopt.solve(prob, solver="exact")
>>> r.status.value, r.proof, r.certificate.gap <= 1e-9, r.Q.shape[1] <= 4
('optimal', 'certificate', True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError
from mechopt.model._matrix import sum_column_blocks
from mechopt.model.forms import ColumnProgram
from mechopt.model.problem import objective_scale
from mechopt.model.solver import Solver
from mechopt.notions import LDP, LIP, GraphLDP, PosteriorBox, PosteriorStatNotion
from mechopt.results.certificate import relative_gap
from mechopt.results.certificate_file import DualEvidence
from mechopt.results.result import Certificate, Result, Status
from mechopt.solvers.exact import columns as C
from mechopt.solvers.exact import methods as M
from mechopt.solvers.exact import symmetry as S
from mechopt.solvers.exact.orbits import pricing as _price
from mechopt.solvers.exact.orbits import reduction as _sym
from mechopt.solvers.exact.orbits.classes import _classes, class_count, orbit_count

__all__ = ["ExactSolver", "SOLVERS"]

METHODS = ("auto", "enumerate", "symmetry", "colgen")


def notion_kind(notion: Any) -> str:
    """``ldp`` (complete graph), ``lip``, ``box`` (ε-PML, ALIP), ``stat`` (posterior statistics: CIP) or ``cone``."""
    if type(notion) is LDP:
        return "ldp"
    if isinstance(notion, PosteriorBox):
        return "box"
    if isinstance(notion, GraphLDP):
        return "cone"
    if isinstance(notion, LIP):
        return "lip"
    if isinstance(notion, PosteriorStatNotion):
        return "stat"
    return "cone"


class ExactSolver(Solver):
    """LP over extreme rays with a dual certificate (see the module docstring).

    Examples
    --------
    >>> import mechopt
    >>> from mechopt.problems.design import ChannelDesign
    >>> prob = ChannelDesign.from_params(prior="uniform:1000", notion="ldp", utility="mi", eps=1.0)
    >>> r = mechopt.solve(prob, solver="exact")          # d + 1 orbit columns
    >>> r.extras["method"], r.Q.shape[1] <= 1000, r.extras["orbits"][0]["counts_per_class"]["high"]
    ('symmetry', True, [339])

    Other Parameters
    ----------------
    method : {"auto", "enumerate", "symmetry", "colgen"}
    outputs : {"basic", "orbits"}
        Under symmetry: ``basic`` (default) returns an optimal Q with at most d
        outputs; ``orbits`` the symmetric mechanism (one output per ray of each
        used orbit, e.g. the k-subset mechanism) when it has at most
        ``max_outputs`` outputs, else the basic one with a note.
    max_outputs : int
        Largest symmetric mechanism ``outputs="orbits"`` materialises.
    compact : bool
        Kept for compatibility: ``True`` is ``outputs="basic"``, the default.
    max_memory : float
        Bytes an enumeration may allocate; above it TooLargeError names the method that scales.
    enum_max_d : int
        Largest d priced by subset-sum enumeration in LDP column generation.
    max_iter : int
        Column-generation rounds.
    max_orbits : int
        Most orbit columns the symmetry LP may hold (``auto`` falls back to
        enumeration or column generation above it).
    dd_max_d : int
        Largest d for double-description vertex enumeration of a general cone.

    Tolerances (``mechopt.settings``): ``lp_feasibility``, ``reduced_cost``,
    ``colgen_gap``, ``mip_rel_gap``, ``mip_abs_gap``, ``mip_feasibility``,
    ``tangent_cut``, ``cut_point``, ``quadratic_check``, ``vertex``, ``rank``,
    ``ray_dedupe``, ``dd_side``, ``prior_equal`` and ``gap`` (status).
    """

    name = "exact"
    forms = ("column_program",)
    options = {
        "method": "auto",
        "outputs": "basic",
        "max_outputs": 5000,
        "compact": False,
        "max_memory": 2e9,
        "enum_max_d": 22,
        "max_iter": 1000,
        "dd_max_d": 14,
        "max_orbits": M.MAX_ORBITS,
        "pricing": "auto",
        "columns_per_round": 0,
        "warm_start": None,
    }

    def can_solve(self, problem: Any) -> bool:
        if _plain_channel(problem):  # decided from the types: the program (seconds at d = 10⁷) is not built twice
            return bool(problem.utility.sublinear and problem.notion.linear)
        try:
            cp = problem.column_program()
        except Exception:
            return False
        return cp is not None and (notion_kind(cp.notion) != "cone" or cp.notion.cone(cp.prior) is not None)

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        from mechopt.runtime.deadline import check

        t0 = time.perf_counter()  # the limit counts the column program too (seconds at d = 10⁷)
        cp: ColumnProgram = problem.column_program()
        check("building the column program")
        method = opts["method"]
        if method not in METHODS:
            raise ParamError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
        for key in ("max_outputs", "max_iter", "enum_max_d", "dd_max_d", "max_orbits"):
            if not (isinstance(opts[key], (int, np.integer)) and opts[key] >= 1):
                raise ParamError(f"{key} must be a positive integer, got {opts[key]!r}")
        if opts["outputs"] not in ("basic", "orbits"):
            raise ParamError(f"outputs must be 'basic' or 'orbits', got {opts['outputs']!r}")
        if opts["compact"]:
            opts = {**opts, "outputs": "basic"}
        mem = opts["max_memory"]
        if not (isinstance(mem, (int, float)) and math.isfinite(mem) and mem > 0):
            raise ParamError(f"max_memory must be a positive number of bytes, got {mem!r}")
        deadline = None if opts["time_limit"] is None else t0 + float(opts["time_limit"])
        kind = notion_kind(cp.notion)
        if method == "auto":
            method = choose_method(cp, kind, opts)
            check("choosing the exact method")
        if method == "symmetry":
            out = S.solve_symmetry(cp, kind, opts, deadline)
        elif method == "colgen":
            out = M.solve_colgen(cp, kind, opts, deadline)
        else:
            out = M.solve_enumerate(cp, kind, opts, deadline)
        return finish(cp, out, method, time.perf_counter() - t0, problem)


def _plain_channel(problem: Any) -> bool:
    """A channel problem with the base class's column program and an LDP, LIP or MIP notion: its column
    program exists exactly when the utility is sublinear and the notion linear (a bad prior is then
    reported by the solve itself, naming what is wrong, not as "cannot solve")."""
    from mechopt.model.problem import ChannelProblem
    from mechopt.notions import MIP

    return (
        isinstance(problem, ChannelProblem)
        and type(problem).column_program is ChannelProblem.column_program
        and type(getattr(problem, "notion", None)) in (LDP, LIP, MIP)
        and getattr(problem, "utility", None) is not None
    )


def choose_method(cp: ColumnProgram, kind: str, opts: dict[str, Any]) -> str:
    """The cheapest exact method: symmetry for few classes, enumeration for small d, else column generation.

    Symmetry wins when its orbits can be priced from counts (a g-variable
    search, :mod:`mechopt.solvers.exact.orbits.pricing`) with at most ``SYMMETRY_MAX_CLASSES`` classes,
    or when its orbit LP is both smaller than the full ray LP and within
    ``max_orbits`` and ``max_memory``. Policy-graph LDP with mutual information
    whose essential graph is a forest uses column generation with exact tree
    pricing (:mod:`mechopt.solvers.exact.pricing.tree`) above ``TREE_ENUM_MAX_D`` inputs.
    """
    d = cp.d
    if kind in ("ldp", "lip"):
        # each class at least doubles the orbit count: past log2(max_orbits) classes (and the few that
        # count pricing takes) symmetry cannot win, and the classes themselves are not built
        g = class_count(cp)
        few = g is not None and g <= max(SYMMETRY_MAX_CLASSES, math.log2(opts["max_orbits"]) + 1)
        count = orbit_count(cp, kind) if few else None
        if count is not None:
            cl = _classes(cp)
            if cl.g <= SYMMETRY_MAX_CLASSES and cp.notion.eps > 0 and _price.supports(kind, cp.utility):
                return "symmetry"
            log2_full = d if kind == "ldp" else math.log2(d) + d - 1
            if (
                count.bit_length() < log2_full - 1
                and count <= opts["max_orbits"]
                and _sym.enum_bytes(cl, kind) <= float(opts["max_memory"])
            ):
                return "symmetry"
        return "enumerate" if d <= 10 else "colgen"
    if kind == "box":  # no orbit machinery for asymmetric boxes: the vertices, or exact box pricing
        return "enumerate" if d <= 10 or not C._prices_exactly(cp, kind) else "colgen"
    if kind == "cone" and d > C.TREE_ENUM_MAX_D and C.tree_pricing_applies(cp):
        return "colgen"  # policy graph with a forest of essential edges: exact tree pricing
    return "enumerate"


VALUE_FROM_Q_MAX = 10**7  # entries of Q up to which finish() recomputes the value from Q itself
SYMMETRY_MAX_CLASSES = 6  # count pricing searches g integers; beyond a few classes column generation over d wins


def finish(cp: ColumnProgram, out: "M.Outcome", method: str, elapsed: float, problem: Any = None) -> Result:
    """Turn a method's outcome into a Result: value, certificate, status, extras; gaps by
    :func:`~mechopt.model.problem.value_gap` at ``problem``'s objective scale."""
    extras = {"method": method, **out.extras}
    base = dict(
        sense=cp.sense,
        objective=cp.objective or cp.utility.name,
        solver="exact",
        notion=cp.notion.name,
        eps=cp.notion.eps,
        time_s=elapsed,
        iterations=out.iterations,
    )
    if out.gain_value is None:
        if math.isfinite(out.bound):
            extras["bound"] = cp.value_of(out.bound)
        return Result(status=out.status, value=None, message=out.message, extras=extras, **base)
    value = cp.value_of(out.gain_value)
    mech = None
    audit: dict[str, Any] = {}
    rounding = 0.0
    if out.Q is not None:
        Qs = out.Q
        if Qs.size <= VALUE_FROM_Q_MAX:  # the value of what is returned; above this mechopt.solve's audit checks it
            value = cp.value_of(total_gain(cp, Qs))
            rounding = abs(cp.scale) * total_gain(cp, Qs, error=True)
            extras["rounding"] = rounding
        mech = cp.restore(Qs)
        extras["outputs"] = int(Qs.shape[1])
    elif "structural_audit" in extras:
        eps_a = float(extras.pop("structural_audit"))
        audit = {"eps_audited": eps_a, "violation": max(0.0, eps_a - cp.notion.eps)}
        extras["outputs"] = extras["plan"].n_outputs
    cert, status, msg = None, out.status, out.message
    if math.isfinite(out.bound):
        computed = cp.value_of(out.bound)
        # widened by the arithmetic's own error (of the bound and of the value it is held against)
        bound = computed - 2 * rounding if cp.sense == "min" else computed + 2 * rounding
        scale = objective_scale(problem, mech)
        gap = relative_gap(value, bound, scale)
        evidence = None if out.nu is None or out.Q is None else DualEvidence(cp, out.Q, out.nu, out.bound, method)
        cert = Certificate(bound, gap, evidence=evidence)
        tol = settings.tolerance("gap")
        if status is Status.OPTIMAL and gap > tol:
            status = Status.OPTIMAL_INACCURATE
            msg = _join(msg, f"certificate gap {gap:.3g} above tolerance {tol:g}")
            if relative_gap(value, computed, scale) <= tol:
                msg = _join(msg, unresolved(value, rounding, tol))
    elif status is Status.OPTIMAL:
        status = Status.OPTIMAL_INACCURATE
        msg = _join(msg, "no proven bound: pricing was not exact")
    proof = "certificate" if status is Status.OPTIMAL else None
    return Result(
        status=status,
        value=value,
        mechanism=mech,
        certificate=cert,
        message=msg,
        extras=extras,
        proof=proof,
        **audit,
        **base,
    )


def total_gain(cp: ColumnProgram, Q: np.ndarray, chunk: int | None = None, *, error: bool = False) -> float:
    """Σ_y gain(P ∘ Q[:, y]) (or, with ``error``, the bound on its rounding error), a few columns at a time.

    Blocks of :func:`mechopt.model._matrix.column_block`: no d × n temporaries.
    """
    P = cp.prior[:, None]
    each = cp.gain_error if error else cp.gain
    return sum_column_blocks(Q, lambda B: np.sum(each(P * B)), chunk)


def unresolved(value: float, rounding: float, tol: float) -> str:
    """Why the gap is above ``tol``: the arithmetic resolves the value (and the bound) only to ±rounding.

    >>> print(unresolved(1e-19, 4e-26, 1e-7))
    the gap is the arithmetic's: value 1e-19 resolved only to ±4e-26 (4e-07 relative) in double precision
    """
    rel = rounding / abs(value) if value else math.inf
    return (
        f"the gap is the arithmetic's: value {value:.3g} resolved only to ±{rounding:.2g} ({rel:.2g} relative) "
        "in double precision"
    )


def _join(a: str, b: str) -> str:
    return f"{a}; {b}" if a else b


SOLVERS = {"exact": ExactSolver}
