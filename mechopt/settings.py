"""Numerical tolerances, in one place, overridable per call.

Every algorithm reads its tolerances from :data:`DEFAULTS` through
:func:`tolerance`; a caller overrides one for a block with :func:`override`
or for one call with the option ``<name>_tol`` of :func:`mechopt.solve`.

Examples
--------
>>> from mechopt import settings
>>> settings.tolerance("prior_sum")
1e-09
>>> with settings.override(prior_sum=1e-6):
...     settings.tolerance("prior_sum")
1e-06
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace

from mechopt.errors import ParamError

__all__ = ["Tolerances", "DEFAULTS", "tolerance", "override", "current", "resolve"]


@dataclass(frozen=True)
class Tolerances:
    """The tolerances every algorithm uses.

    Attributes
    ----------
    prior_sum : float
        |Σ P − 1| allowed for a prior.
    row_sum : float
        |Σ_y Q[x, y] − 1| allowed for a channel row.
    negative : float
        Most negative entry tolerated (clipped to 0) in a channel or prior.
    privacy : float
        Audited ε may exceed the target by this much (absolute, in nats)
        and a mechanism still counts as private.
    gap : float
        Relative certificate gap below which a result is ``optimal``.
    value_match : float
        Relative difference (to the larger of the two) allowed between a
        reported value and the value the audit recomputes from the mechanism.
    merge : float
        Posteriors closer than this (max-norm) are merged into one output.
    prior_equal : float
        Prior values closer than this are one symmetry class.
    zero_mass : float
        Prior entries at or below this are dropped from a design.
    density : float
        |∫p − 1| allowed for a noise density on a grid (and its most negative
        value, relative to its maximum); the conic solver's feasibility is ~1e-8.
    lp_feasibility : float
        Primal and dual feasibility tolerance HiGHS uses for the exact solver's
        master LPs.
    conic_lp : float
        Clarabel's gap and feasibility tolerances on the LP of a linear utility
        (MAE; its defaults, 1e-8, leave the optimum 3e-9 off and its dual
        objective above it).
    lp_scale_below : float
        When some prior entry is below this, the master LP is solved row- and
        column-scaled (mechanism scale) so tiny-mass rows of Q stay accurate.
    reduced_cost : float
        A column enters the master LP only when its reduced cost exceeds this.
    colgen_gap : float
        Column generation stops when the proven bound is within this
        (relative to the larger of |bound| and |value|) of the master value.
    mip_rel_gap, mip_abs_gap : float
        Relative and absolute MIP gaps of the pricing MILPs (HiGHS's default
        absolute gap, 1e-6, would hide columns near optimality).
    mip_feasibility : float
        Integrality and feasibility tolerance of the pricing MILPs.
    tangent_cut : float
        The MI pricer adds a tangent cut when its piecewise-linear model
        overestimates the true pricing value by more than this.
    cut_point : float
        A tangent point closer than this to an existing one is not added again.
    quadratic_check : float
        Relative agreement required of the quadratic pricing model on random
        patterns before it is trusted.
    vertex : float
        A coordinate or constraint within this of its bound counts as at the
        bound when enumerating polytope vertices (LIP box, two-point mixtures).
    rank : float
        Singular values below this times the largest count as zero.
    ray_dedupe : float
        Rays equal within this (max-norm) are one ray.
    dd_side : float
        Side-of-hyperplane tolerance (relative to the row's max-norm) in the
        double description method.
    nlp_feasibility : float
        Constraint violation a local NLP solution may have and still be kept.
    dust : float
        Columns of a local NLP solution whose largest entry is below this are
        dropped (their ratios are not resolved by the local solver).
    condition : float
        A Gram matrix with a larger condition number is treated as singular.
    root_coarse, root_fine : float
        Absolute tolerance on log ξ of the spectral solver's root finding for the
        variance multiplier, on the coarse and on the finest grid.
    cov_rank : float
        Eigenvalues of a noise covariance below this times its largest are zero.
    cov_range : float
        Relative residual above which an observation leaves a covariance's range.
    psd : float
        Most negative eigenvalue (relative to max(1, max |Σ|)) of a covariance
        that still counts as positive semidefinite.
    grid_noise : float
        Relative accuracy trusted of one value of a conic grid program: the
        solver allowance of the grid error estimates
        (:mod:`mechopt.problems.fisher.extrapolate`). Measured against the exact
        grid optima: within 2e-8 on the plain interval (up to 2000 points), 1.6e-6
        with the potential ξw² (400 points), where Clarabel's feasibility
        tolerance, not its 1e-8 gap, limits the recovered density.
    confound : float
        Two inputs of a mechanism are confounded together when the projector
        onto the null space of Qᵀ has an entry above this at their pair
        (:func:`mechopt.mechanism.identify.confounded_groups`).
    em : float
        The EM (iterative Bayesian update) estimate of an input distribution
        stops when no frequency moves by more than this in one iteration
        (max-norm of θ⁽ᵗ⁺¹⁾ − θ⁽ᵗ⁾; :func:`mechopt.mechanism.estimators.em`).
    em_iterations : float
        Most EM iterations; an estimate stopped by it says so in its note.
    garbling : float
        Largest exact residual max |Q1·R − Q2| of a rational garbling R for which
        :func:`mechopt.dominates` still says yes (then "within tolerance", never
        "exactly"); also the smallest LP margin taken as a separating gain.
    """

    prior_sum: float = 1e-9
    row_sum: float = 1e-8
    negative: float = 1e-12
    privacy: float = 1e-7
    gap: float = 1e-7
    value_match: float = 1e-6
    merge: float = 1e-9
    prior_equal: float = 1e-12
    zero_mass: float = 0.0
    density: float = 1e-6
    # the exact solver: master LP, pricing, vertex enumeration
    lp_feasibility: float = 1e-10
    conic_lp: float = 1e-12
    lp_scale_below: float = 1e-6
    reduced_cost: float = 1e-11
    colgen_gap: float = 1e-10
    mip_rel_gap: float = 1e-12
    mip_abs_gap: float = 1e-13
    mip_feasibility: float = 1e-9
    tangent_cut: float = 1e-13
    cut_point: float = 1e-15
    quadratic_check: float = 1e-9
    vertex: float = 1e-12
    rank: float = 1e-10
    ray_dedupe: float = 1e-10
    dd_side: float = 1e-11
    # local NLP solutions (sqp) and the l2 design's Gram matrix
    nlp_feasibility: float = 1e-7
    dust: float = 1e-6
    condition: float = 1e14
    # spectral solver and Gaussian-noise (LTI) problems
    root_coarse: float = 1e-12
    root_fine: float = 1e-14
    cov_rank: float = 1e-9
    cov_range: float = 1e-6
    psd: float = 1e-8
    grid_noise: float = 1e-5
    # using a mechanism: identifiability and estimators (mechopt.mechanism)
    confound: float = 1e-9
    em: float = 1e-10
    em_iterations: float = 100_000
    # comparing channels (mechopt.dominance.blackwell)
    garbling: float = 1e-9


DEFAULTS = Tolerances()
# One value per thread and per asyncio task (contextvars): an override in one
# thread never changes the validation or audit of another (issue 19). A new
# thread starts from DEFAULTS, not from the overrides of the thread that made it.
_CURRENT: contextvars.ContextVar[Tolerances] = contextvars.ContextVar("mechopt_tolerances", default=DEFAULTS)


def current() -> Tolerances:
    """The tolerances in force in this thread (or asyncio task)."""
    return _CURRENT.get()


def tolerance(name: str) -> float:
    """One tolerance by name; unknown names raise :class:`ParamError`."""
    try:
        return getattr(current(), name)
    except AttributeError:
        names = ", ".join(f.name for f in fields(Tolerances))
        raise ParamError(f"unknown tolerance {name!r}; known: {names}") from None


def resolve(value: float | None, name: str) -> float:
    """``value`` when given, else the tolerance ``name`` in force (for ``tol=None`` defaults).

    >>> resolve(None, "gap"), resolve(0.5, "gap")
    (1e-07, 0.5)
    """
    return tolerance(name) if value is None else float(value)


@contextlib.contextmanager
def override(**values: float) -> Iterator[Tolerances]:
    """Override tolerances inside a ``with`` block, in the calling thread only.

    Each value must be a finite number ≥ 0 (not a boolean): an infinite
    ``privacy`` tolerance would switch the audit off, a NaN compare false everywhere.

    >>> with override(privacy=float("inf")):
    ...     pass
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: tolerance privacy must be a finite non-negative number, got inf; an infinite
    tolerance switches its check off
    """
    known = {f.name for f in fields(Tolerances)}
    bad = sorted(set(values) - known)
    if bad:
        raise ParamError(f"unknown tolerance(s) {bad}; known: {sorted(known)}")
    for key, val in values.items():
        if isinstance(val, bool) or not isinstance(val, (int, float)) or not val >= 0:
            raise ParamError(f"tolerance {key} must be a finite non-negative number, got {val!r}")
        if not math.isfinite(val):
            raise ParamError(
                f"tolerance {key} must be a finite non-negative number, got {val!r}; "
                "an infinite tolerance switches its check off"
            )
    token = _CURRENT.set(replace(current(), **{k: float(v) for k, v in values.items()}))
    try:
        yield current()
    finally:
        _CURRENT.reset(token)
