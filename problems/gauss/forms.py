"""Canonical forms of :class:`~mechopt.problems.gauss.problem.GaussProblem` for the solvers.

* :func:`nlp_form` — the NLP in the scaled parameter s ∈ [0, 1]ⁿ,
  s_i = σ_i/√(σ_i² + v_i): s = 0 is infinite noise (feature suppressed),
  s = 1 no noise; the objective and constraints are smooth on the closed box
  (see :mod:`mechopt.problems.gauss.info`) with analytic gradients (mutual
  informations and the trace of the Fisher matrix):

      minimise_s  I(X_p; Y(s))  s.t.  U(s) ≥ U_thr,  (P_X − P(s)) − γ (U_X − U(s)) ≥ 0,  0 ≤ s ≤ 1.

* :func:`greedy_form` — the noise variances the greedy heuristic of
  Section IV increments (v_i += Δθ), with the privacy and utility measures.
* :func:`search_form` — batched privacy/utility evaluations in s for the
  exhaustive search; both are nondecreasing in every s_i (adding independent
  noise to a coordinate garbles Y, so by data processing neither mutual
  information nor Fisher information can grow), which the search uses for
  its bounds.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.gauss.problem import GaussProblem
>>> p = GaussProblem.from_params(dataset="1", delta="0.3")
>>> f = nlp_form(p)
>>> round(f.fun(np.ones(2)), 6) == round(p.privacy_full, 6)
True
>>> g = greedy_form(p)
>>> g.feasible(np.zeros(2))
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.model.forms import NLPForm
from mechopt.problems.gauss.info import fisher_trace_grad, mi_s_grad

__all__ = ["GreedyForm", "SearchForm", "nlp_form", "greedy_form", "search_form"]


def nlp_form(prob: Any) -> NLPForm:
    """The smooth NLP in s (module docstring), with analytic Jacobians.

    Every function clips s to [0, 1] first: interior-point methods
    (trust-constr) may probe slightly outside the bounds.
    """
    n = prob.n

    def box(s: np.ndarray) -> np.ndarray:
        return np.clip(np.asarray(s, dtype=float), 0.0, 1.0)

    def g_priv(s: np.ndarray) -> np.ndarray:
        return mi_s_grad(prob.cov_p, n, box(s))

    def g_util(s: np.ndarray) -> np.ndarray:
        return mi_s_grad(prob.cov_u, n, box(s)) if prob.utility == "mi" else fisher_trace_grad(prob.cov_u, n, box(s))

    cons: list[dict[str, Any]] = [
        {"type": "ineq", "fun": lambda s: np.atleast_1d(prob.slacks_s(box(s))[0]), "jac": lambda s: g_util(s)[None, :]}
    ]
    if prob.gamma_utility > 0:
        cons.append(
            {
                "type": "ineq",
                "fun": lambda s: np.atleast_1d(prob.slacks_s(box(s))[1]),
                "jac": lambda s: (prob.gamma_utility * g_util(s) - g_priv(s))[None, :],
            }
        )

    def starts(rng: np.random.Generator, k: int) -> np.ndarray:
        pts = [np.ones(n)] + [rng.uniform(0.0, 1.0, n) for _ in range(max(0, k - 1))]
        return np.array(pts[: max(k, 1)])

    return NLPForm(
        fun=lambda s: float(prob.privacy_s(box(s))),
        jac=g_priv,
        bounds=[(0.0, 1.0)] * n,
        constraints=cons,
        starts=starts,
        recover=lambda s: prob.noise_of(box(s)),
        value_of=lambda s: float(prob.privacy_s(prob.s_of(prob.noise_of(box(s)).variances))),
        sense="min",
        objective=prob.objective,
    )


@dataclass(frozen=True, eq=False)
class GreedyForm:
    """What the Section IV greedy heuristic needs, in noise variances v ∈ [0, ∞)ⁿ.

    ``privacy(v)`` = I(X_p; Y); ``utility(v)`` = the utility measure (I(X_u; Y)
    or tr 𝓘(X_u)), both batched over rows of v; ``utility_mi(v)`` = I(X_u; Y) (for the verbatim step-5 test);
    ``slacks(v)`` = the slacks of constraints (1) and (2), ≥ 0 when satisfied;
    ``gamma`` is γ as given; ``var_x`` the feature variances (for scaling Δθ).
    """

    n: int
    var_x: np.ndarray
    privacy: Callable[[np.ndarray], float]
    utility: Callable[[np.ndarray], float]
    utility_mi: Callable[[np.ndarray], float]
    slacks: Callable[[np.ndarray], tuple[float, float]]
    gamma: float
    recover: Callable[[np.ndarray], Any]
    value_of: Callable[[np.ndarray], float]
    sense: str
    objective: str

    def delta_ok(self, v: np.ndarray) -> bool:
        return self.slacks(v)[0] >= 0.0

    def feasible(self, v: np.ndarray) -> bool:
        d, g = self.slacks(v)
        return bool(d >= 0.0 and g >= 0.0)


def greedy_form(prob: Any) -> GreedyForm:
    """The greedy form of a GaussProblem (constraints tested exactly, no tolerance)."""

    def slack(v: np.ndarray) -> tuple[float, float]:
        d, g = prob.slacks_s(prob.s_of(v))
        return float(d), float(g)

    from mechopt.problems.gauss.info import mi_s

    return GreedyForm(
        n=prob.n,
        var_x=prob.var_x.copy(),
        privacy=lambda v: prob.privacy_s(prob.s_of(v)),
        utility=lambda v: prob.utility_s(prob.s_of(v)),
        utility_mi=lambda v: float(mi_s(prob.cov_u, prob.n, prob.s_of(v))),
        slacks=slack,
        gamma=prob.gamma,
        recover=lambda v: prob.noise_of(prob.s_of(v)),
        value_of=lambda v: float(prob.privacy_s(prob.s_of(v))),
        sense="min",
        objective=prob.objective,
    )


@dataclass(frozen=True, eq=False)
class SearchForm:
    """Batched evaluations in s for the exhaustive search (monotone in every s_i).

    ``evaluate(S)`` maps points (k, n) to (P, U): privacy and utility, both
    nondecreasing in every coordinate. A point is feasible when
    ``U ≥ u_thr`` and ``(p_full − P) − gamma (u_full − U) ≥ 0``.
    """

    n: int
    evaluate: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]
    u_thr: float
    gamma: float
    p_full: float
    u_full: float
    recover: Callable[[np.ndarray], Any]
    value_of: Callable[[np.ndarray], float]
    sense: str
    objective: str


def search_form(prob: Any) -> SearchForm:
    """The search form of a GaussProblem."""

    def evaluate(S: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        S = np.atleast_2d(np.asarray(S, dtype=float))
        return np.atleast_1d(prob.privacy_s(S)), np.atleast_1d(prob.utility_s(S))

    return SearchForm(
        n=prob.n,
        evaluate=evaluate,
        u_thr=prob.utility_threshold,
        gamma=prob.gamma_utility,
        p_full=prob.privacy_full,
        u_full=prob.utility_full,
        recover=lambda s: prob.noise_of(np.clip(s, 0.0, 1.0)),
        value_of=lambda s: float(prob.privacy_s(prob.s_of(prob.noise_of(np.clip(s, 0.0, 1.0)).variances))),
        sense="min",
        objective=prob.objective,
    )
