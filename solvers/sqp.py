"""``sqp``: scipy's SLSQP or trust-constr from many starts, on any problem's NLP form.

A local method with no certificate of global optimality (``certificate`` is
None). It starts first from its form's baselines — for a channel design GRR
(k-RR under LDP), the identity shrunk toward the product channel, the constant
channel and the problem's closed form where one applies
(:mod:`mechopt.programs.baselines`) — then from ``n_starts`` random starts drawn
from ``seed``, and returns the best candidate by the value of the mechanism it
reports (the baselines themselves included), so it is never worse than a
baseline. End points that miss the constraints by more than ``nlp_feasibility``
still count when the form repairs them into private channels.

Its status says where the point came from (``extras["best_from"]``):
``locally_optimal`` when a start converged there (or the start from the returned
baseline converged back to it), ``feasible`` for a baseline no start beat or a
repaired end point, ``iteration_limit`` when the winning start stopped at
``max_iter``; never ``optimal`` (see ``docs/status``). Which local optimum
SLSQP reaches depends on the CPU's OpenBLAS kernels: the numbers repeat on one
machine and package set, not across CPUs. A ``time_limit`` bounds the whole
call, one scipy iteration included (the starts run in a forked child killed at
the deadline, ``solvers/_sqp_run.py``); the status is then ``time_limit`` with
the best feasible point seen, audited like any other answer.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5)
>>> r = mechopt.solve(prob, solver="sqp", n_starts=4)
>>> r.status.value, r.certificate is None, r.violation <= 1e-7
('locally_optimal', True, True)
>>> r.extras["starts"], sorted(r.extras["baselines"]), r.extras["best_from"].startswith(("random", "start"))
(7, ['GRR', 'constant', 'shrunk identity'], True)
>>> r.value <= min(r.extras["baselines"].values())       # a minimised histogram MSE: never worse
True
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mechopt.errors import ParamError, TooLargeError
from mechopt.model.solver import Solver
from mechopt.programs.nlp import MAX_DENSE_BYTES, dense_jacobian_bytes
from mechopt.results.result import Result, Status
from mechopt.solvers._sqp_run import BASELINE, REPAIRED, STAY, Best, run_multistart

__all__ = ["SQPSolver", "SOLVERS", "MAX_VARIABLES"]

#: Most NLP variables sqp takes on: SLSQP works with dense n × n matrices (n = 40 000 is 12.8 GB).
MAX_VARIABLES = 10_000


MAX_STARTS = 10_000
"""Most random starts one sqp solve takes."""


class SQPSolver(Solver):
    """Multi-start SLSQP / trust-constr.

    Options: ``n_starts``, ``method``, ``max_iter`` (per start; the old spelling ``maxiter`` is
    accepted for one release, with a deprecation note in the result message), ``ftol`` (SLSQP), ``gtol``
    and ``xtol`` (trust-constr); a local solution is kept when it satisfies the
    constraints within the ``nlp_feasibility`` tolerance.
    """

    name = "sqp"
    forms = ("nlp_form",)
    guarantee = "local"
    options = {"n_starts": 20, "method": "SLSQP", "max_iter": 500, "ftol": 1e-12, "gtol": 1e-10, "xtol": 1e-12}

    def can_solve(self, problem: Any) -> bool:
        """Whether the problem has an NLP form of at most ``MAX_VARIABLES`` variables; decided from
        ``problem.nlp_size()`` without building the form when the problem offers it."""
        size = getattr(problem, "nlp_size", None)
        if size is not None:
            try:
                n = size()
            except Exception:
                return False
            return n is not None and n <= MAX_VARIABLES
        try:
            return problem.nlp_form() is not None
        except Exception:
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        method = opts["method"]
        if method not in ("SLSQP", "trust-constr"):
            raise ParamError(f"method must be 'SLSQP' or 'trust-constr', got {method!r}")
        n = int(opts["n_starts"])
        if n < 1:
            raise ParamError(f"n_starts must be ≥ 1, got {n}")
        if n > MAX_STARTS:  # the starts are drawn as one array: 1e9 of them is ~30 GiB
            raise ParamError(
                f"n_starts = {n} is more than {MAX_STARTS} starts; give n_starts <= {MAX_STARTS} "
                "(or solver='exact' for a certified optimum)"
            )
        deadline = None if opts["time_limit"] is None else time.perf_counter() + opts["time_limit"]
        form = problem.nlp_form()
        n_vars = len(form.bounds)
        if method == "SLSQP" and dense_jacobian_bytes(form.constraints, n_vars) > MAX_DENSE_BYTES:
            need = dense_jacobian_bytes(form.constraints, n_vars)
            raise TooLargeError(
                f"SLSQP copies the constraints of this {n_vars}-variable NLP into a dense matrix of "
                f"{need / 2**30:.2f} GiB (limit {MAX_DENSE_BYTES / 2**30:.2f} GiB); use "
                "method='trust-constr' (keeps them sparse) or solver='exact' (certified)"
            )
        named = list(form.baselines()) if form.baselines is not None else []
        base = np.array([x for _, x in named]) if named else None
        starts = form.starts(np.random.default_rng(opts["seed"]), n)  # after the baselines (run_multistart)
        kw = {"ftol": opts["ftol"]} if method == "SLSQP" else {"gtol": opts["gtol"], "xtol": opts["xtol"]}
        b = run_multistart(form, starts, method, kw, int(opts["max_iter"]), deadline, base)
        if b.x is None:
            status = Status.TIME_LIMIT if b.stopped else Status.NUMERICAL_ERROR
            why = f"time limit reached before start {b.tried + 1} finished; " if b.stopped else ""
            return Result(
                status=status,
                value=None,
                sense=form.sense,
                objective=form.objective,
                message=f"{why}no feasible local solution from {b.tried} finished starts",
            )
        values = {name: form.value_of(x) for name, x in named}
        return Result(
            status=_status(b),
            value=form.value_of(b.x),
            sense=form.sense,
            objective=form.objective,
            mechanism=form.recover(b.x),
            iterations=b.iters,
            message=f"{_what(b, named, len(named) + n, method, int(opts['max_iter']))}; "
            "no certificate of global optimality",
            extras={
                "starts": b.tried,
                "method": method,
                "baselines": {k: float(v) for k, v in values.items() if np.isfinite(v)},
                "best_from": _source(b, named),
            },
        )


def _status(b: Best) -> Status:
    """A hit limit is a status; a converged start's point is locally optimal, and so is a baseline the start
    from which converged back to it; another baseline, or a repaired end point, is feasible (audited, not a
    verified local optimum)."""
    if b.stopped:
        return Status.TIME_LIMIT
    if b.origin == REPAIRED or (b.origin == BASELINE and not b.confirmed):
        return Status.FEASIBLE
    return Status.ITERATION_LIMIT if b.capped else Status.LOCALLY_OPTIMAL


def _source(b: Best, named: list) -> str:
    """Where the returned point came from: ``baseline NAME``, ``start from NAME`` or ``random start K``."""
    if b.origin == BASELINE:
        return f"baseline {named[b.baseline][0]}"
    if b.start < len(named):
        return f"start from {named[b.start][0]}"
    return f"random start {b.start - len(named) + 1}"


def _what(b: Best, named: list, n: int, method: str, max_iter: int) -> str:
    """The message's first part: where the returned point came from."""
    of = f"{b.tried} starts ({len(named)} from the baselines, {method})" if named else f"{b.tried} starts ({method})"
    if b.partial:
        return (
            f"time limit reached during start {b.tried + 1}: best feasible iterate so far "
            f"({b.tried} starts finished, {method}); not a local optimum"
        )
    if b.origin == BASELINE and b.stopped:
        return (
            f"time limit reached after {b.tried} of {n} starts: the best point so far is the baseline "
            f"{named[b.baseline][0]}; not a local optimum"
        )
    if b.origin == BASELINE:
        head = f"the baseline {named[b.baseline][0]}: no start improved it ({of})"
        back = f"; the start from it converged back to it (within {STAY:g}), a local optimum"
        return head + (back if b.confirmed else "")
    if b.stopped:
        return f"time limit reached after {b.tried} of {n} starts: best local optimum so far ({method})"
    if b.origin == REPAIRED:
        return (
            f"best of {of}: a start's end point that missed the constraints by more than nlp_feasibility, "
            "made private; not a verified local optimum"
        )
    if b.capped:
        return f"best point of {of}; it stopped at max_iter={max_iter} before converging"
    return f"best local optimum of {of}"


SOLVERS = {"sqp": SQPSolver}
