"""The multi-start loop of ``sqp``, run so that a time limit bounds the whole call.

scipy's SLSQP and trust-constr check nothing inside an iteration, and one SLSQP
iteration is a dense least-squares QP in C that holds the GIL: at n = 1600
variables (a d = 40 design) one iteration took 7 to 9 s on a shared 2-core
machine, so a callback alone cannot honour ``--time-limit 5``. With a time limit,
:func:`run_multistart` therefore runs the loop in a forked child process (where
``os.fork`` exists) that publishes its best feasible point after every iteration
into shared memory; the parent waits until the deadline, then kills the child and
returns the last published point. The child dies with the parent
(:func:`mechopt.runtime.lifeline.bind_to_parent`: a SIGTERM or SIGKILL of the parent leaves
no orphan). Without ``fork`` (or without a limit) the loop runs in-process and stops at the
first iteration boundary past the deadline.

The candidates are the form's baselines (exactly feasible points, which are
also the first starts) and the starts' end points, compared by the problem's
value of the mechanism each one recovers to (``form.value_of``), not by the
solver's objective at the raw point: a repair (SLSQP meets constraints only to
its tolerance) can cost value, and the value reported is the one compared.
Inside the loop a start's iterates are candidates too: when the limit stops a start,
its best feasible iterate (the feasible start point at least) competes with the
finished starts, so a hit limit still returns a point whenever one was seen.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.design import ChannelDesign
>>> form = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=0.5).nlp_form()
>>> best = run_multistart(form, form.starts(np.random.default_rng(0), 2), "SLSQP", {"ftol": 1e-12}, 100, None)
>>> best.tried, best.stopped, best.x is not None
(2, False, True)
"""

from __future__ import annotations

import contextlib
import mmap
import os
import signal
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import minimize

from mechopt import settings
from mechopt.errors import MechoptError
from mechopt.runtime.deadline import passed

__all__ = ["Best", "run_multistart", "feasible", "scorer", "LOCAL", "REPAIRED", "BASELINE"]

_POLL_S = 0.01
"""How often the parent looks at a forked child (seconds)."""


#: Where the best point came from (:attr:`Best.origin`).
LOCAL, REPAIRED, BASELINE = 0, 1, 2

STAY = 1e-6
"""Largest entry-wise move of a converged start from a baseline for the baseline to count as the local
optimum it converged to (its value is then at least that end point's, which a repair may lower by ~1e-15)."""


@dataclass
class Best:
    """The best candidate so far and how it was reached.

    ``fun`` is its score: the problem's value of the recovered mechanism (``form.value_of``),
    negated for a maximisation, so lower is better. ``origin``: ``LOCAL`` (a start's end point
    within the constraints), ``REPAIRED`` (a start's end point that missed a constraint by more
    than ``nlp_feasibility``, made private by the form's ``recover``) or ``BASELINE`` (baseline
    number ``baseline``; ``confirmed`` when the start from it converged back to it, within
    :data:`STAY` in every entry: a local optimum). ``start``: the index of the start that gave ``x``
    (the baselines' starts come first), -1 for a baseline. ``stopped``: the time limit ended the
    loop; ``partial``: ``x`` is an iterate of a start the limit stopped (not a converged point);
    ``capped``: the start that gave ``x`` ended at ``max_iter``.
    """

    x: np.ndarray | None = None
    fun: float = np.inf
    tried: int = 0
    iters: int = 0
    capped: bool = False
    partial: bool = False
    stopped: bool = False
    origin: int = LOCAL
    baseline: int = -1
    confirmed: bool = False
    start: int = -1


class _Deadline(Exception):
    """Raised inside an evaluation or a callback once the time limit has passed."""


def _bounded(fn: Any, deadline: float | None) -> Any:
    """``fn`` that raises :class:`_Deadline` once ``deadline`` has passed (checked per evaluation)."""
    if deadline is None or fn is None:
        return fn

    def wrapped(*args: Any) -> Any:
        if passed(deadline):
            raise _Deadline
        return fn(*args)

    return wrapped


def _bounded_constraints(constraints: list, deadline: float | None) -> list:
    """The constraints with their Python callbacks bounded too (a nonlinear constraint's finite
    differences are many evaluations per iteration)."""
    from scipy.optimize import NonlinearConstraint

    out = []
    for c in constraints:
        if isinstance(c, NonlinearConstraint):
            jac = _bounded(c.jac, deadline) if callable(c.jac) else c.jac  # else a finite-difference scheme name
            c = NonlinearConstraint(_bounded(c.fun, deadline), c.lb, c.ub, jac=jac, keep_feasible=c.keep_feasible)
        elif isinstance(c, dict):
            c = {**c, "fun": _bounded(c["fun"], deadline)}
            if callable(c.get("jac")):
                c["jac"] = _bounded(c["jac"], deadline)
        out.append(c)
    return out


def feasible(form: Any, x: np.ndarray, tol: float | None = None) -> bool:
    """Whether x satisfies the form's constraints within ``tol`` (default ``nlp_feasibility``)."""
    from scipy.optimize import LinearConstraint, NonlinearConstraint

    tol = settings.resolve(tol, "nlp_feasibility")
    for c in form.constraints:
        if isinstance(c, LinearConstraint):
            v = c.A @ x
        elif isinstance(c, NonlinearConstraint):
            v = np.atleast_1d(c.fun(x))
        else:
            v = np.atleast_1d(c["fun"](x))
            if c["type"] == "eq":
                if np.any(np.abs(v) > tol):
                    return False
                continue
            if np.any(v < -tol):
                return False
            continue
        if np.any(v < np.asarray(c.lb) - tol) or np.any(v > np.asarray(c.ub) + tol):
            return False
    return True


def scorer(form: Any) -> Callable[[np.ndarray], float]:
    """``score(x)``: the value of the mechanism recovered from x, negated for a maximisation (+inf if none)."""
    sign = 1.0 if form.sense == "min" else -1.0

    def score(x: np.ndarray) -> float:
        try:
            v = sign * float(form.value_of(x))
        except (ArithmeticError, ValueError, MechoptError):  # e.g. a row clipped to zero, a singular channel
            return np.inf
        return v if np.isfinite(v) else np.inf

    return score


def _rank(origin: int, capped: bool = False) -> int:
    """Who wins a tie: a converged start's point, then a baseline, a repaired end point, a capped start's point."""
    return {LOCAL: 0, BASELINE: 1, REPAIRED: 2}[origin] if not capped else 3


def _better(score: float, rank: int, best: Best) -> bool:
    """Lower score wins; on a tie the lower :func:`_rank`."""
    return score < best.fun or (score == best.fun and best.x is not None and rank < _rank(best.origin, best.capped))


def _loop(
    form: Any,
    starts: np.ndarray,
    method: str,
    kw: dict[str, Any],
    max_iter: int,
    deadline: float | None,
    publish: Callable[[Best], None],
    baselines: np.ndarray | None = None,
) -> Best:
    """The baselines as candidates, then every start (the baselines first) in turn until the deadline;
    ``publish(best)`` on the way."""
    best = Best()
    score = scorer(form)
    base = np.empty((0, np.shape(starts)[1])) if baselines is None else np.asarray(baselines)
    starts = np.vstack([base, starts])
    for i, xb in enumerate(base):
        sb = score(xb)
        if np.isfinite(sb) and _better(sb, _rank(BASELINE), best):
            best = Best(np.array(xb, copy=True), sb, origin=BASELINE, baseline=i, start=-1)
    if best.x is not None:
        publish(best)
    fun, jac = _bounded(form.fun, deadline), _bounded(form.jac, deadline)
    cons = _bounded_constraints(form.constraints, deadline)
    for k, x0 in enumerate(starts):
        if passed(deadline):
            best.stopped = True
            break
        seen: dict[str, Any] = {"x": None, "fun": np.inf, "raw": np.inf, "halted": False}

        def consider(x: np.ndarray, f: float) -> None:
            if np.isfinite(f) and f < seen["raw"] and feasible(form, x):
                seen["raw"] = f
                s = score(x)
                if s < min(seen["fun"], best.fun):
                    seen["x"], seen["fun"] = np.array(x, copy=True), s
                    publish(Best(seen["x"], s, best.tried, best.iters, False, True, True, start=k))

        def callback(intermediate_result: Any) -> None:
            consider(intermediate_result.x, float(intermediate_result.fun))
            if passed(deadline):
                seen["halted"] = True
                raise StopIteration  # scipy stops at this iteration boundary and returns the iterate

        try:
            if deadline is not None:  # without a limit every start runs to its end: no iterate is kept
                consider(x0, float(form.fun(x0)))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sol = minimize(
                    fun,
                    x0,
                    jac=jac,
                    bounds=form.bounds,
                    constraints=cons,
                    method=method,
                    callback=None if deadline is None else callback,
                    options={"maxiter": max_iter, **kw},
                )
        except _Deadline:
            sol = None
        if sol is None or seen["halted"]:  # the limit ended this start: keep its best iterate
            if seen["x"] is not None and seen["fun"] < best.fun:
                best.x, best.fun, best.capped, best.partial = seen["x"], seen["fun"], False, True
                best.origin, best.baseline, best.start = LOCAL, -1, k
            best.stopped = True
            if sol is not None:
                best.iters += int(getattr(sol, "nit", 0) or 0)
            break
        best.tried += 1
        best.iters += int(getattr(sol, "nit", 0) or 0)
        _take(form, sol, method, score, best, k)
        if k == best.baseline and best.origin == BASELINE and _converged_back(form, sol, x0, method):
            best.confirmed = True
        publish(best)
    return best


def _converged_back(form: Any, sol: Any, x0: np.ndarray, method: str) -> bool:
    """Whether a start converged (not at max_iter, within the constraints) to a point within STAY of x0."""
    if _capped(sol, method) or not np.isfinite(sol.fun):
        return False
    return bool(np.max(np.abs(sol.x - x0)) <= STAY) and feasible(form, sol.x)


def _take(form: Any, sol: Any, method: str, score: Callable[[np.ndarray], float], best: Best, k: int) -> None:
    """Make a finished start's end point the best when its recovered mechanism is better."""
    if not np.isfinite(sol.fun):
        return
    origin = LOCAL if feasible(form, sol.x) else REPAIRED if getattr(form, "repairs", False) else None
    if origin is None:
        return
    s = score(sol.x)
    capped = _capped(sol, method)
    if np.isfinite(s) and _better(s, _rank(origin, capped and origin == LOCAL), best):
        best.x, best.fun, best.partial, best.origin, best.baseline, best.confirmed = sol.x, s, False, origin, -1, False
        best.capped, best.start = capped, k


def _capped(sol: Any, method: str) -> bool:
    """Whether a start stopped at max_iter."""
    return int(getattr(sol, "status", -1)) == (9 if method == "SLSQP" else 0)


def run_multistart(
    form: Any,
    starts: np.ndarray,
    method: str,
    kw: dict[str, Any],
    max_iter: int,
    deadline: float | None,
    baselines: np.ndarray | None = None,
) -> Best:
    """The best candidate of the baselines and the starts; the baselines (exactly feasible points, rows)
    are also the first starts (see the module text for how the deadline is kept)."""

    def run(publish: Callable[[Best], None]) -> Best:
        return _loop(form, starts, method, kw, max_iter, deadline, publish, baselines)

    if deadline is None or not hasattr(os, "fork"):
        return run(lambda b: None)
    return _forked(run, int(np.shape(starts)[1]), deadline)


class _Board:
    """Shared memory the child publishes into: two slots and a header (index of the complete slot,
    written last, so a child killed while writing leaves the other, complete slot in place; and
    the child's state: 0 running, 1 finished, 2 failed)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.slot_len = n + 11  # x, then the fields of Best after it, then has_x
        self.mem = mmap.mmap(-1, 8 * (2 + 2 * self.slot_len))  # MAP_SHARED | MAP_ANONYMOUS
        self.arr = np.frombuffer(self.mem, dtype=np.float64)
        self.arr[:2] = (-1.0, 0.0)

    def publish(self, b: Best) -> None:
        k = 0 if self.arr[0] != 0.0 else 1
        s = self.arr[2 + k * self.slot_len : 2 + (k + 1) * self.slot_len]
        if b.x is not None:
            s[: self.n] = b.x
        fields = (b.fun, b.tried, b.iters, b.capped, b.partial, b.stopped, b.origin, b.baseline, b.confirmed, b.start)
        s[self.n :] = (*fields, b.x is not None)
        self.arr[0] = float(k)

    def read(self) -> Best:
        k = int(self.arr[0])
        if k < 0:
            return Best()
        s = np.array(self.arr[2 + k * self.slot_len : 2 + (k + 1) * self.slot_len])
        fun, tried, iters, capped, partial, stopped, origin, baseline, confirmed, start, has_x = s[self.n :]
        return Best(
            s[: self.n] if has_x else None,
            float(fun),
            int(tried),
            int(iters),
            bool(capped),
            bool(partial),
            bool(stopped),
            int(origin),
            int(baseline),
            bool(confirmed),
            int(start),
        )


def _forked(run: Callable[[Callable[[Best], None]], Best], n: int, deadline: float) -> Best:
    """``run(publish)`` (the loop over n-variable points) in a forked child; at the deadline kill it and
    read its last published point."""
    from mechopt.runtime.lifeline import bind_to_parent, lifeline

    board = _Board(n)
    r, w = os.pipe()
    life_r, life_w = lifeline()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns into the caller
        os.close(r)
        os.close(life_w)
        try:
            bind_to_parent(parent, life_r)  # killed with the parent (SIGTERM, SIGKILL, a crash)
            board.publish(run(board.publish))
            board.arr[1] = 1.0
        except BaseException as exc:  # told to the parent, which raises it
            os.write(w, f"{type(exc).__name__}: {exc}".encode()[:4000])
            board.arr[1] = 2.0
        finally:
            os._exit(0)
    os.close(w)
    os.close(life_r)
    killed = False
    try:
        while True:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if passed(deadline):
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                killed = True
                break
            time.sleep(_POLL_S)
        error = os.read(r, 4096).decode(errors="replace") if board.arr[1] == 2.0 else ""
    except BaseException:  # Ctrl-C or the like: no child left behind
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    finally:
        os.close(r)
        os.close(life_w)  # the child is reaped: its lifeline can go
    if error:
        raise RuntimeError(error)
    if not killed and board.arr[1] != 1.0:
        raise RuntimeError(f"the sqp child process died without an answer (wait status {code})")
    best = board.read()
    if killed:  # stopped at the deadline: its last published point
        best.stopped = True
    return best
