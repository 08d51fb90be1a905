"""``greedy``: the incremental noise-addition heuristic of Sharma & Amariucai, Section IV.

Reads ``problem.greedy_form()`` (:class:`mechopt.problems.gauss.forms.GreedyForm`).
Starting from Y = X (all noise variances 0) with step Δθ = ``dtheta0``:

2. *Evaluation.* For every feature i, with Y_i + Δθ the release with Δθ more
   noise variance on feature i:
   privacy_gain(i) = I(X_p;Y) − I(X_p;Y_i+Δθ), utility_loss(i) = U(Y) − U(Y_i+Δθ)
   (U = I(X_u;·) or the Fisher information), gain_factor(i) = privacy_gain /
   utility_loss; if privacy_gain(i) < ε₀ (``eps0``, saturation) the gain factor is −1.
3. *Selection.* j = argmax gain_factor.
4. *Stopping.* If gain_factor(j) ≤ 0 stop (total saturation).
5. *Update.* If the test passes set Y = Y_j + Δθ, else Δθ ← Δθ/2.
6. *Repeat.* If Δθ < ε (``eps``) stop, else go to 2.

Reading of step 5 (``step5`` option). The printed test is
"If I(X_u; Y_j+ΔΘ) ≤ γ", which compares a mutual information with the ratio
threshold γ and tests only one constraint; with γ = 0 it never passes, so
the algorithm would add no noise at all. The prose of Section IV says
"test for the δ and the γ constraints. If both constraints are slack, we
commit". The default ``step5="both"`` implements that evident intent
(constraints (1) and (2) of the problem at the candidate Y_j+Δθ);
``step5="delta"`` tests only the δ-constraint (the one-constraint reading
with the typo in the symbol fixed); ``step5="verbatim"`` is the printed
formula. A utility loss ≤ 0 with privacy gain ≥ ε₀ gives gain factor +∞
(free privacy). Δθ is a *variance* increment; the default
``dtheta0 = 0.01 · mean σ_i²`` and ``eps = 1e-6 · dtheta0`` (the paper does
not give values; its figures use ε₀ = 1e-6).

It is a heuristic: no certificate, status ``feasible`` when it stops on its
own rule (saturation or Δθ < ε), ``iteration_limit`` / ``time_limit`` when a
limit stops it; the result can be far from the optimum (see
``gauss.greedy_vs_global``) and never reaches infinite noise.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.gauss.problem import GaussProblem
>>> r = mechopt.solve(GaussProblem.from_params(dataset="1", delta="0.3"), solver="greedy")
>>> r.status.value, r.violation == 0.0, r.certificate is None
('feasible', True, True)
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from mechopt.errors import ParamError
from mechopt.model.solver import Solver
from mechopt.results.result import Result, Status
from mechopt.runtime.deadline import passed

__all__ = ["GreedySolver", "greedy_path", "SOLVERS"]


def _gain_factors(form: Any, v: np.ndarray, dtheta: float, eps0: float) -> np.ndarray:
    V = np.vstack([v, v + dtheta * np.eye(form.n)])  # Y, then Y_i + Δθ for every i
    P, U = np.asarray(form.privacy(V)), np.asarray(form.utility(V))
    pg, ul = P[0] - P[1:], U[0] - U[1:]
    gf = np.full(form.n, -1.0)  # saturated (pg < ε₀): gain factor −1
    live = pg >= eps0
    gf[live & (ul <= 0)] = math.inf
    ok = live & (ul > 0)
    gf[ok] = pg[ok] / ul[ok]
    return gf


def _passes(form: Any, cand: np.ndarray, step5: str) -> bool:
    if step5 == "both":
        return form.feasible(cand)
    if step5 == "delta":
        return bool(form.delta_ok(cand))
    return form.utility_mi(cand) <= form.gamma  # verbatim: I(X_u; Y_j + Δθ) ≤ γ


def greedy_path(
    form: Any,
    dtheta0: float,
    eps: float,
    eps0: float,
    step5: str = "both",
    max_iter: int = 200_000,
    deadline: float | None = None,
) -> dict[str, Any]:
    """Run the Section IV loop on a greedy form; return the final variances and the trace.

    Returns a dict with ``v``, ``iterations``, ``commits``, ``halvings``,
    ``stop`` (``"saturation"``, ``"dtheta<eps"``, ``"max_iter"``, ``"time_limit"``)
    and ``dtheta`` (final step).

    Examples
    --------
    >>> from mechopt.problems.gauss.problem import GaussProblem
    >>> f = GaussProblem.from_params(dataset="1", delta="0.3").greedy_form()
    >>> out = greedy_path(f, dtheta0=1.0, eps=1e-6, eps0=1e-6)
    >>> out["stop"] in ("saturation", "dtheta<eps"), bool(f.feasible(out["v"]))
    (True, True)
    """
    v = np.zeros(form.n)
    dtheta, it, commits, halvings, stop = float(dtheta0), 0, 0, 0, "max_iter"
    while it < max_iter:
        if passed(deadline):
            stop = "time_limit"
            break
        it += 1
        gf = _gain_factors(form, v, dtheta, eps0)
        j = int(np.argmax(gf))
        if gf[j] <= 0:
            stop = "saturation"
            break
        cand = v.copy()
        cand[j] += dtheta
        if _passes(form, cand, step5):
            v, commits = cand, commits + 1
        else:
            dtheta, halvings = dtheta / 2.0, halvings + 1
        if dtheta < eps:
            stop = "dtheta<eps"
            break
    return {"v": v, "iterations": it, "commits": commits, "halvings": halvings, "stop": stop, "dtheta": dtheta}


class GreedySolver(Solver):
    """The Section IV greedy heuristic (module docstring); options ``dtheta0``, ``eps``, ``eps0``, ``step5``."""

    name = "greedy"
    forms = ("greedy_form",)
    guarantee = "heuristic"
    options = {"dtheta0": None, "eps": None, "eps0": 1e-6, "step5": "both", "max_iter": 200_000}

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.greedy_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        form = problem.greedy_form()
        if opts["step5"] not in ("both", "delta", "verbatim"):
            raise ParamError(f"step5 must be 'both', 'delta' or 'verbatim', got {opts['step5']!r}")
        d0 = opts["dtheta0"] if opts["dtheta0"] is not None else 0.01 * float(np.mean(form.var_x))
        eps = opts["eps"] if opts["eps"] is not None else 1e-6 * d0
        for key, val in (("dtheta0", d0), ("eps", eps), ("eps0", opts["eps0"])):
            if not (isinstance(val, (int, float)) and val > 0 and math.isfinite(val)):
                raise ParamError(f"{key} must be a positive number, got {val!r}")
        if int(opts["max_iter"]) < 1:
            raise ParamError(f"max_iter must be ≥ 1, got {opts['max_iter']!r}")
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        out = greedy_path(
            form, float(d0), float(eps), float(opts["eps0"]), opts["step5"], int(opts["max_iter"]), deadline
        )
        status = {"max_iter": Status.ITERATION_LIMIT, "time_limit": Status.TIME_LIMIT}.get(out["stop"], Status.FEASIBLE)
        v = out["v"]
        return Result(
            status=status,
            value=form.value_of(v),
            sense=form.sense,
            objective=form.objective,
            mechanism=form.recover(v),
            iterations=out["iterations"],
            message=f"greedy heuristic (Section IV) stopped on {out['stop']}; a heuristic: no certificate",
            extras={
                "stop": out["stop"],
                "commits": out["commits"],
                "halvings": out["halvings"],
                "dtheta0": d0,
                "dtheta_final": out["dtheta"],
                "eps": eps,
                "eps0": opts["eps0"],
                "step5": opts["step5"],
            },
        )


SOLVERS = {"greedy": GreedySolver}
