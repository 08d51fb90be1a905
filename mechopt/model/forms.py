"""The canonical forms through which solvers read problems (design.md).

Problems build forms; solvers consume them. A problem exposes a form by
returning it from ``column_program()``, ``conic_form()``, ``nlp_form()`` or
``greedy_form()``; returning ``None`` means the form does not apply.

Examples
--------
>>> import numpy as np
>>> from mechopt.model.forms import ColumnProgram
>>> from mechopt.notions import LDP
>>> from mechopt.utilities import MutualInfo
>>> P = np.array([0.5, 0.5])
>>> cp_ = ColumnProgram(prior=P, notion=LDP(1.0), utility=MutualInfo(P))
>>> cp_.value_of(0.1), cp_.sense
(0.1, 'max')
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.notions import PrivacyNotion
from mechopt.utilities import Utility

__all__ = ["ColumnProgram", "ConicForm", "NLPForm", "SpectralAxis", "SpectralForm"]


@dataclass(frozen=True, eq=False)
class ColumnProgram:
    """maximise Σ_y μ(c_y)  s.t.  Σ_y c_y = P,  c_y ∈ K = {c ≥ 0 : A c ≥ 0}.

    ``prior`` is on the support (every entry > 0) and ``utility`` is normalised
    (:meth:`~mechopt.model.utility.Utility.normalised`: values of order one), with
    ``scale`` the factor back to the problem's units. The gain the solvers
    maximise is ``sign · κ(c)``, κ the utility's cancellation-free column value
    (:meth:`~mechopt.model.utility.Utility.column_value`: for an MSE the column's own
    MSE, ≥ 0), so that the problem's value is ``scale · sign · Σ_y gain(c_y)`` with
    nothing subtracted: an MSE of 1e-21 keeps its digits. This gain differs from
    the utility's μ by a linear term (``μ(c) = gain(c) + shiftᵀc``,
    :attr:`shift`), so a pricer written for μ prices it at duals ν + shift. The
    exact solver reads the cone from ``notion`` (its rays by notion type, or
    ``notion.cone``). ``full_prior``/``index`` restore the zero-mass symbols in
    the recovered mechanism.
    """

    prior: np.ndarray
    notion: PrivacyNotion
    utility: Utility
    objective: str = ""
    full_prior: np.ndarray | None = None
    index: np.ndarray | None = None
    scale: float = 1.0
    unscaled: Utility | None = None  # the utility in the problem's units (None: ``utility`` itself)

    @property
    def sense(self) -> str:
        return self.utility.sense

    @property
    def d(self) -> int:
        return int(self.prior.size)

    @property
    def shift(self) -> np.ndarray:
        """−sign·w, w the utility's offset weights: μ(c) = gain(c) + shiftᵀc.

        So gain(r) − νᵀr = μ(r) − (ν + shift)ᵀr: a pricer of μ prices the gain at ν + shift.
        """
        return -self.utility.sign * self.utility.offset_weights(self.d)

    def value_of(self, total_gain: float) -> float:
        """Map Σ gain(c_y) to the problem's objective (in its own units)."""
        return float(self.scale * self.utility.sign * total_gain)

    def gain(self, C: np.ndarray) -> np.ndarray:
        return self.utility.sign * self.utility.column_value(C)

    def problem_duals(self, nu: np.ndarray, gain_bound: float) -> tuple[Utility, np.ndarray, float]:
        """Duals of the program's gain in the problem's units, for the utility's own μ: (utility, ν, bound).

        If gain(r) ≤ νᵀr + (bound − νᵀP) for every ray r, then the utility's μ in the problem's units
        satisfies μ(r) ≤ ν'ᵀr + (bound' − ν'ᵀP) with ν' = scale (ν + shift), bound' = scale (bound + shiftᵀP)
        (what a certificate file states, :mod:`mechopt.results.certificate_file`).
        """
        shift = self.shift
        utility = self.utility if self.unscaled is None else self.unscaled
        return (
            utility,
            self.scale * (np.asarray(nu, float) + shift),
            self.scale * (gain_bound + float(shift @ self.prior)),
        )

    def gain_error(self, C: np.ndarray) -> np.ndarray:
        """A bound on the rounding error of :meth:`gain` per column (:meth:`Utility.column_error`)."""
        return self.utility.column_error(C)

    def restore(self, Q: np.ndarray) -> np.ndarray:
        """Rows for zero-mass symbols: the output marginal λ (see priors.Support)."""
        if self.index is None or self.full_prior is None or self.index.size == self.full_prior.size:
            return Q
        lam = self.prior @ Q
        out = np.tile(lam, (self.full_prior.size, 1))
        out[self.index] = Q
        return out


@dataclass(frozen=True, eq=False)
class ConicForm:
    """A cvxpy problem plus how to read the answer back.

    ``recover()`` is called after a successful solve and returns the
    mechanism; ``value_of(opt)`` maps cvxpy's optimal value to the problem's
    objective (identity by default). ``bound_of(b)`` maps a proven bound b on
    cvxpy's optimal value to a bound on the problem's value; leave it None when
    ``value_of`` evaluates the recovered mechanism rather than ``opt`` (the
    solver then reports the program's bound in extras and no certificate).
    ``scope`` names what the convex program's optimum is proven for when that
    is not the problem itself, e.g. ``"the 2000-point discretisation"`` of a
    density on a grid; the solver's ``optimal`` (proof ``convex``) says so.
    ``clarabel`` holds Clarabel settings the form asks for (e.g. tighter
    tolerances for an LP whose optimum is certified to 1e-9); a caller's
    ``backend_options`` override them.
    """

    problem: Any  # cvxpy.Problem
    recover: Callable[[], Any]
    sense: str
    objective: str
    value_of: Callable[[float], float] = lambda v: float(v)
    extras: dict[str, Any] = field(default_factory=dict)
    bound_of: Callable[[float], float] | None = None
    scope: str | None = None
    clarabel: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class NLPForm:
    """A smooth NLP for scipy.optimize.minimize (always a minimisation of ``fun``).

    ``constraints`` use scipy's dict or ``NonlinearConstraint``/``LinearConstraint``
    objects; ``starts(rng, n)`` draws n feasible or near-feasible starting
    points; ``recover(x)`` returns the mechanism; ``value_of(x)`` the problem's
    objective (for a maximisation ``fun`` is its negation). ``baselines()``
    gives named points that satisfy the constraints exactly (audited), which a
    local solver starts from and returns when no start beats them; ``repairs``
    says that ``recover`` makes any point of the box exactly feasible (so a
    start's end point that misses a constraint by a little is still a candidate,
    valued by ``value_of``).
    """

    fun: Callable[[np.ndarray], float]
    jac: Callable[[np.ndarray], np.ndarray] | None
    bounds: Any
    constraints: list
    starts: Callable[[np.random.Generator, int], np.ndarray]
    recover: Callable[[np.ndarray], Any]
    value_of: Callable[[np.ndarray], float]
    sense: str
    objective: str
    baselines: Callable[[], list[tuple[str, np.ndarray]]] | None = None
    repairs: bool = False


@dataclass(frozen=True)
class SpectralAxis:
    """One axis of a separable Schrödinger-type eigenproblem.

    On (lower, upper) with q(lower) = q(upper) = 0: −4 q'' + V(w) q = λ q, where
    ``potential`` is V (None for V = 0). With p = q² and ∫ q² = 1 the smallest λ is
    min over densities p of ∫ p'²/p + ∫ V p (the Fisher information plus a
    linear penalty), and the ground state q gives the optimal density p = q².

    >>> SpectralAxis(-1.0, 1.0).potential is None
    True
    """

    lower: float
    upper: float
    potential: Callable[[np.ndarray], np.ndarray] | None = None


@dataclass(frozen=True, eq=False)
class SpectralForm:
    """A separable eigenproblem: minimise Σ_i λ_min(axis i) (+ a variance bound by duality).

    ``recover(densities)`` maps the list of per-axis densities (each on the
    solver's grid, sampled at the interior nodes of the axis) to the
    mechanism; ``value_of(total)`` maps Σ_i λ_i to the problem's objective.
    When ``variance_bound`` is set the solver maximises over ξ ≥ 0 the dual
    Σ_i λ_i(ξ) − ξ·variance_bound of "minimise Σ_i ∫p_i'²/p_i s.t. Σ_i E w_i² ≤
    variance_bound", the potential of every axis being ξ w².

    >>> form = SpectralForm(axes=(SpectralAxis(0.0, 1.0),), recover=lambda ds: ds[0])
    >>> form.sense, form.value_of(2.5), form.variance_bound
    ('min', 2.5, None)
    """

    axes: tuple[SpectralAxis, ...]
    recover: Callable[[list], Any]
    sense: str = "min"
    objective: str = "fisher_trace"
    value_of: Callable[[float], float] = lambda v: float(v)
    variance_bound: float | None = None
    extras: dict[str, Any] = field(default_factory=dict)
