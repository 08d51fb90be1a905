"""The top layer: ``solve`` and ``design``, the only place that joins problems and solvers.

Examples
--------
>>> import mechopt
>>> r = mechopt.design(prior="0.1,0.2,0.7", notion="lip", utility="mse", eps=1.0,
...                    values=[0, 1, 2], solver="exact")
>>> r.solver, r.notion, r.status.value, r.violation <= 1e-7, r.certificate.gap <= 1e-9
('exact', 'lip', 'optimal', True, True)
"""

from __future__ import annotations

import math
import time
from dataclasses import fields, replace
from typing import Any

from mechopt import registry, settings
from mechopt.errors import MechoptError, ProblemError, SolverNotFound
from mechopt.model.problem import Problem, value_gap
from mechopt.results.result import PROOFS, Result, Status
from mechopt.runtime import deadline
from mechopt.runtime.threads import single_threaded

__all__ = ["solve", "design", "audit_result"]


def audit_result(problem: Problem, result: Result) -> Result:
    """Re-audit ``result`` from the problem data and give it the status its evidence supports.

    * A mechanism that is not private within ``privacy_tol``, or not a channel
      (the problem's audit lists a reason or rejects it), makes the result
      ``infeasible_point`` whatever the solver said.
    * ``optimal`` needs a proof (:data:`mechopt.results.result.PROOFS`): a certificate
      within ``gap_tol`` (else ``optimal_inaccurate``), or ``Result.proof``
      naming a convex program, an eigenproblem or a theorem in its proven
      region; without one it is ``feasible``.
    * A structured mechanism (``extras["plan"]``, returned when Q does not fit in
      memory) is audited from its structure (:mod:`mechopt.model.structured`).
    * A reported value that the mechanism does not give demotes ``optimal`` to
      ``optimal_inaccurate`` (any other status keeps its word; the message
      says so).
    """
    res = result
    structured = result.mechanism is None and result.extras.get("plan") is not None  # Q not materialised
    if result.status.has_solution and (result.mechanism is not None or structured):
        try:
            aud = problem.audit(result)
        except ProblemError as exc:  # the returned mechanism is not one (e.g. rows not probabilities)
            return _proof_status(result.demote(Status.INFEASIBLE_POINT, f"audit: {exc}"))
        res = result.replace(
            violation=aud.violation,
            eps_audited=aud.eps_audited,
            notion=aud.notion or result.notion,
            eps=aud.eps if aud.eps is not None else result.eps,
            eps_lower=_eps_lower(problem),
        )
        if aud.violation is not None and aud.violation > settings.tolerance("privacy"):
            res = res.demote(Status.INFEASIBLE_POINT, f"audit: privacy violated by {aud.violation:.3g}")
        for reason in aud.reasons:
            res = res.demote(Status.INFEASIBLE_POINT, f"audit: {reason}")
        res = _resolved(problem, res)
        if aud.value is not None and res.value is not None:
            dev = value_gap(problem, res.mechanism, res.value, aud.value)  # by the certificate's rule
            if dev > settings.tolerance("value_match"):
                why = f"audit: reported value {res.value:.10g} but the mechanism gives {aud.value:.10g}"
                res = (
                    res.downgrade(why)
                    if res.status is Status.OPTIMAL
                    else res.replace(message=f"{res.message}; {why}" if res.message else why)
                )
    lone = getattr(getattr(problem, "notion", None), "unprotected", ())
    if lone and res.status.has_solution:
        why = f"inputs {list(lone)} have no edge in the policy graph: graph-LDP does not protect them"
        res = res.replace(message=f"{res.message}; {why}" if res.message else why)
    return _proof_status(res, problem)


def _eps_lower(problem: Problem) -> float | None:
    """ALIP's lower level ε_l of the problem's notion, None for every other notion (PML's is ∞: none)."""
    low = getattr(getattr(problem, "notion", None), "eps_lower", None)
    return None if low is None or math.isinf(low) else float(low)


def _resolved(problem: Problem, res: Result) -> Result:
    """Demote ``optimal`` when the returned channel's doubles resolve its own value less well than the gap tolerance.

    At ε = 1e-9 the log-ratios of a channel are known to ~1e-16, a few 1e-7 of ε, and so is its information:
    no proof certifies it closer (:meth:`mechopt.model.problem.ChannelProblem.resolution`).
    """
    how = getattr(problem, "resolution", None)
    if res.status is not Status.OPTIMAL or res.value is None or how is None or res.mechanism is None:
        return res
    try:
        Q = res.Q
    except MechoptError:  # not a channel matrix (a density, a plan too large to write out)
        return res
    err = how(Q)
    if err is None or 2 * err <= settings.tolerance("gap") * abs(res.value):
        return res
    rel = err / abs(res.value) if res.value else float("inf")
    return res.downgrade(
        f"audit: the mechanism's doubles resolve its value only to ±{err:.2g} ({rel:.2g} relative), "
        "more than the gap tolerance allows"
    )


def _proof_status(res: Result, problem: Problem | None = None) -> Result:
    """``optimal`` only with a proof: a certificate within tolerance (:func:`~mechopt.model.problem.value_gap`: a
    value of 0 against the floor of the objective's size) or a named proof."""
    cert = res.certificate
    bound, value = (cert.bound if cert is not None else None), res.value
    if cert is not None and bound is not None and value is not None:
        gap = value_gap(problem, res.mechanism if res.mechanism is not None else None, value, bound)
        if abs(gap - cert.gap) > 1e-12:
            res = res.replace(certificate=replace(cert, gap=gap))
        if gap >= 1 and value != 0:  # the bound is 0 or of the other sign: it proves nothing about this value
            res = res.demote(
                Status.FEASIBLE,
                f"certificate gap {gap:.3g}: a bound of {bound:.3g} proves nothing about a value of {value:.3g} "
                "(unproven, not optimal to any tolerance)",
                only=(Status.OPTIMAL, Status.OPTIMAL_INACCURATE),
            )
        elif gap > settings.tolerance("gap"):
            res = res.downgrade(
                f"certificate gap {gap:.3g} above tolerance {settings.tolerance('gap'):.3g} "
                f"(|bound - value| = {abs(bound - value):.3g}, relative to max(|bound|, |value|))"
            )
        elif res.status is Status.OPTIMAL and res.proof is None:
            res = res.replace(proof="certificate")
    if res.status is Status.OPTIMAL and res.proof not in PROOFS:
        res = res.demote(Status.FEASIBLE, "no proof of optimality (no certificate, no proven closed form)")
    if res.status is not Status.OPTIMAL and res.proof is not None:
        res = res.replace(proof=None)
    return res


def solve(problem: Problem, solver: str | None = None, **options: Any) -> Result:
    """Solve ``problem`` with the named solver (or the first that applies) and audit the result.

    Parameters
    ----------
    problem : Problem
    solver : str, optional
        A registry name (``mechopt.registry.solver_names()``); by default the
        first installed solver that can solve the problem.
    **options
        Solver options; unknown keys raise :class:`~mechopt.errors.ParamError`.
        ``<name>_tol`` (e.g. ``gap_tol``, ``privacy_tol``, ``reduced_cost_tol``)
        overrides the tolerance ``<name>`` of :mod:`mechopt.settings` for this
        call: for the solver and for the audit.
    """
    if not isinstance(problem, Problem):
        raise ProblemError(
            f"solve() takes a Problem, got {type(problem).__name__}: build one with "
            "mechopt.registry.get_problem(id).from_params(...) or use mechopt.design(...)"
        )
    t0 = time.perf_counter()
    chosen = [solver]  # _solve names the solver it selected here, so a stop after selection can say which
    with deadline.bounded(deadline.seconds(options.get("time_limit")), start=t0):
        try:
            return _solve(problem, solver, options, chosen)
        except deadline.TimeLimitReached as exc:  # a stage past the deadline: the whole call is bounded
            return time_limit_result(problem, chosen[0], exc, t0)


def time_limit_result(problem: Problem, solver: str | None, exc: BaseException, t0: float) -> Result:
    """The ``time_limit`` result of a call stopped by its deadline (no mechanism), ``t0`` its
    :func:`time.perf_counter` start; it names the solver that ran (blank: stopped while choosing one) and the
    privacy asked for."""
    notion = getattr(problem, "notion", None)
    return Result(
        status=Status.TIME_LIMIT,
        value=None,
        sense=problem.sense,
        objective=problem.objective,
        solver=solver or "",
        notion=getattr(notion, "name", None),
        eps=getattr(notion, "eps", None),
        eps_lower=_eps_lower(problem),
        time_s=time.perf_counter() - t0,
        message=f"{exc}, {time.perf_counter() - t0:.3g} s into the solve; no mechanism is returned",
        unit=getattr(problem, "unit", None),
    )


def _solve(problem: Problem, solver: str | None, options: dict[str, Any], chosen: list) -> Result:
    """:func:`solve` inside its deadline: selection (its name put in ``chosen[0]``), the backend, the audit."""
    if solver is None:
        solver = chosen[0] = registry.default_solver(problem)
        if solver is None:
            raise SolverNotFound(
                f"no solver applies to {_what(problem)}; registered: "
                f"{', '.join(registry.solver_names())} (a solver applies when the problem offers "
                "its form; see the docs' Concepts page)"
            )
        backend = registry.get_solver(solver)
    else:
        backend = registry.get_solver(solver)
        if not backend.can_solve(problem):
            _raise_form_error(problem)  # the problem's own reason (a bad prior), when it has one
            raise SolverNotFound(f"solver {solver!r} cannot solve {_what(problem)}; solvers that can: {_able(problem)}")
    left = deadline.remaining()
    if left is not None:  # the limit bounds the whole call: selection included
        deadline.check("selecting the solver")
        options["time_limit"] = left
    known = {f.name for f in fields(settings.Tolerances)}
    tols = {
        k.removesuffix("_tol"): options.pop(k)
        for k in list(options)
        if k.endswith("_tol") and k.removesuffix("_tol") in known
    }
    with settings.override(**tols), single_threaded():  # BLAS thread count must not change the numbers
        res = backend.solve(problem, **options)
        if _audit_too_late(res):
            deadline.check(f"auditing the mechanism {solver!r} returned")
        elif res.status.has_solution and (deadline.remaining() or 0.0) < 0:  # returned late: small, so audited
            deadline.late(deadline.LATE_GRACE_S)  # (the command line's backstop alarm waits for the audit)
        res = audit_result(problem, res)
        left = deadline.remaining()
        if left is None or left > 0:  # a note only: not past the time limit (a rank of Q at d = 10⁴ takes seconds)
            res = _identifiability(problem, res)
    unit = getattr(problem, "unit", None)
    res = res if res.unit is not None or unit is None else res.replace(unit=unit)
    return _with_values(problem, res)


def _with_values(problem: Problem, res: Result) -> Result:
    """The result with what its rows mean: the problem's input values a_x (an ``mse``/``mae`` utility's ``a``)
    in ``values`` and its single prior in ``prior``, each when the problem has it and it fits Q's rows (a
    robust design has a set of priors, not one: no ``prior``). The numbers a design was made for travel with it."""
    import numpy as np

    from mechopt.model._mechanism import _channel_matrix

    Q = _channel_matrix(res.mechanism)
    carried = {}
    for name, given in (("values", getattr(getattr(problem, "utility", None), "a", None)),
                        ("prior", getattr(problem, "prior", None))):  # fmt: skip
        if getattr(res, name) is not None or given is None or np.ndim(given) != 1:
            continue
        if Q is not None and Q.shape[0] != np.size(given):
            continue
        vector = np.array(given, dtype=float)
        vector.flags.writeable = False
        carried[name] = vector
    return res.replace(**carried) if carried else res


def _raise_form_error(problem: Problem) -> None:
    """Raise the problem's own typed reason (a bad prior) when a solver said it cannot solve it.

    ``can_solve`` answers False on any error; the prior is validated again here (cheap), and no
    form is built: a solver that does not apply to a 10⁴-input design must say so without building
    its gigabyte NLP form or closed form.
    """
    import numpy as np

    from mechopt.model.priors import validate_prior

    prior = getattr(problem, "prior", None)
    if isinstance(prior, np.ndarray) and prior.ndim == 1:
        validate_prior(prior)


def _identifiability(problem: Problem, res: Result) -> Result:
    """Add a note to the message when the returned channel cannot identify the input distribution.

    Only for a channel Q (row-stochastic, one row per prior symbol) of a problem
    with a prior: rank Q[S] < |S| over the inputs S of positive prior
    (:func:`mechopt.mechanism.identify.identifiability_note`). The status is kept.
    """
    import numpy as np

    from mechopt.mechanism.identify import identifiability_note
    from mechopt.model._mechanism import _channel_matrix

    prior = getattr(problem, "prior", None)
    if not res.status.has_solution or prior is None or np.ndim(prior) != 1:
        return res
    Q = _channel_matrix(res.mechanism)
    if Q is None or Q.shape[0] != np.size(prior):
        return res
    if Q.size > IDENTIFY_MAX_ENTRIES:  # a rank check costs seconds and ~3x the memory of Q: say what is cheap
        k, n = int(np.count_nonzero(np.asarray(prior) > 0)), Q.shape[1]
        big = (
            f"not identifiable: Q has {n} outputs < {k} inputs of positive prior (Mechanism(Q).confounded() names them)"
            if n < k
            else f"identifiability not checked for a Q of {Q.size:.3g} entries (Mechanism(Q).identifiable checks it)"
        )
        return res.replace(message=f"{res.message}; {big}" if res.message else big)
    if Q.min() < 0 or not np.allclose(Q.sum(axis=1), 1.0):
        return res
    note = identifiability_note(Q, prior)
    return res if note is None else res.replace(message=f"{res.message}; {note}" if res.message else note)


#: Entries of a square-or-wider channel Q above which solve() does not check identifiability (rank by pivoted QR).
IDENTIFY_MAX_ENTRIES = 2 * 10**5

#: Entries of a channel Q audited even past the deadline (milliseconds); a larger mechanism, or one
#: given by structure, is audited only within the time limit: an unaudited mechanism is never returned.
AUDIT_ALWAYS_ENTRIES = 10**6


def _audit_too_late(res: Result) -> bool:
    left = deadline.remaining()
    if left is None or left > 0 or not res.status.has_solution:
        return False
    if res.mechanism is None:
        return res.extras.get("plan") is not None
    return int(getattr(res.mechanism, "size", 0) or 0) > AUDIT_ALWAYS_ENTRIES


def _able(problem: Problem) -> str:
    """The solvers that can solve ``problem``, for a refusal; cut short at the deadline."""
    names: list[str] = []
    try:
        for name in registry.applicable(problem):
            names.append(name)
            deadline.check("listing the solvers that can")
    except deadline.TimeLimitReached:
        return (", ".join(names) + ", ..." if names else "not listed") + " (the time limit passed)"
    return ", ".join(names) or "none"


def _what(problem: Problem) -> str:
    """The problem's class, with its utility and notion when it has them (for error messages)."""
    parts = [
        f"{k} {getattr(getattr(problem, k), 'name', '?')}"
        for k in ("utility", "notion")
        if getattr(problem, k, None) is not None
    ]
    return type(problem).__name__ + (f" ({', '.join(parts)})" if parts else "")


def design(
    *,
    prior: Any,
    notion: str,
    utility: str,
    eps: float,
    values: Any = None,
    graph: Any = None,
    outputs: Any = None,
    solver: str | None = None,
    eps_lower: float | None = None,
    **options: Any,
) -> Result:
    """Design a mechanism for a custom problem: ``notion`` and ``utility`` by name.

    See :class:`mechopt.problems.design.ChannelDesign` for the program; ``outputs``
    are the output estimates of utility ``mae`` (default: the values); ``eps_lower`` is the
    lower level ε_l of notion ``alip`` (``eps`` is then its upper level ε_u).
    """
    from mechopt.problems.design import ChannelDesign

    with deadline.bounded(deadline.seconds(options.get("time_limit"))):  # building the problem counts too
        prob = ChannelDesign.from_params(
            prior=prior, notion=notion, utility=utility, eps=eps, values=values, graph=graph, outputs=outputs,
            eps_lower=eps_lower,
        )  # fmt: skip
        return solve(prob, solver=solver, **options)
