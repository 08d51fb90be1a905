"""Running one row of ``mechopt compare``: an (instance, solver) pair solved and audited in-process, in a
forked process killed at :func:`hard_deadline`, or skipped once the budget is used up; a crash is a row.

Examples
--------
>>> hard_deadline(10.0), hard_deadline(None)
(22.0, None)
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence
from typing import Any

from mechopt.io.catalog import Instance
from mechopt.jobs.flags import CLOSED_FORM
from mechopt.runtime.progress import Progress

__all__ = [
    "pairs",
    "run_pairs",
    "run_row",
    "run_row_isolated",
    "skipped_row",
    "indexed_row",
    "hard_deadline",
    "can_isolate",
]


def pairs(instances: Sequence[Instance], solvers: Sequence[str] | None) -> list[tuple[Instance, str, Any]]:
    """Every (instance, solver name, built problem) to run: the solvers that can solve it, kept by the filters."""
    from mechopt.registry import solvers_for

    out = []
    for inst in instances:
        problem = inst.build()
        names = solvers_for(problem)
        if inst.solvers is not None:
            names = [n for n in inst.solvers if n in names]
        names = [n for n in names if n not in inst.skip and (solvers is None or n in solvers)]
        out += [(inst, n, problem) for n in names]
    return out


def run_row(inst: Instance, solver: str, problem: Any, time_limit: float | None) -> dict[str, Any]:
    """Solve and audit one (instance, solver) pair; a crash is the row's ``solver_error``, never raised."""
    from mechopt.api import solve

    opts = dict(inst.options.get(solver, {}))
    tl = inst.time_limit if inst.time_limit is not None else time_limit
    if tl is not None:
        opts.setdefault("time_limit", tl)
    base = base_row(inst, solver, problem)
    t0 = time.perf_counter()
    try:
        res = solve(problem, solver=solver, **opts)
    except Exception as exc:  # any crash of one row is that row's finding, never the table's end
        return {
            **base,
            "status": "solver_error",
            "time_s": time.perf_counter() - t0,
            "flag": "error",
            "message": f"{type(exc).__name__}: {exc}",
        }
    cert = res.certificate
    claim = res.extras.get("claim")
    return {
        **base,
        "value": res.value,
        "violation": res.violation,
        "gap": None if cert is None else cert.gap,
        "status": res.status.value,
        "time_s": res.time_s or (time.perf_counter() - t0),
        "sense": res.sense,
        "unit": res.unit or base["unit"],
        "message": res.message,
        "certificate_bound": None if cert is None else cert.bound,
        "error_estimate": _error_estimate(res.extras),
        "proof": res.proof,
        "claim": base["claim"] or (str(claim) if claim else None),
        "in_region": res.extras["in_region"] if isinstance(res.extras.get("in_region"), bool) else None,
    }


def base_row(inst: Instance, solver: str, problem: Any) -> dict[str, Any]:
    """The keys every row has, with their values for a row without a result."""
    return {
        "problem": inst.problem,
        "instance": inst.name,
        "solver": solver,
        "value": None,
        "violation": None,
        "gap": None,
        "status": "",
        "time_s": 0.0,
        "flag": "",
        "sense": getattr(problem, "sense", None),
        "unit": getattr(problem, "unit", None),
        "message": "",
        "certified": False,
        "certificate_bound": None,
        "error_estimate": None,
        "proof": None,
        "claim": inst.claim if solver == CLOSED_FORM else None,
        "in_region": None,
    }


def _error_estimate(extras: dict[str, Any]) -> float | None:
    """The discretisation error a method reports (``extras["error_estimate"]``, finite and ≥ 0).

    A discretisation that could not estimate it (``extras["error_note"]``) gets
    ``inf``: its value is then compared with nothing (printed as null in JSON).

    >>> _error_estimate({"error_estimate": 2e-4}), _error_estimate({}), _error_estimate({"error_note": "too coarse"})
    (0.0002, None, inf)
    """
    if "error_estimate" not in extras:
        return float("inf") if extras.get("error_note") else None
    try:
        v = float(extras["error_estimate"])
    except (TypeError, ValueError):
        return None
    return v if 0 <= v < float("inf") else None


def hard_deadline(time_limit: float | None) -> float | None:
    """Seconds after which an isolated row is killed: 2 × its time limit + 2 s.

    Examples
    --------
    >>> hard_deadline(10.0), hard_deadline(None)
    (22.0, None)
    """
    return None if time_limit is None else 2.0 * time_limit + 2.0


def _child(conn: Any, inst: Instance, solver: str, problem: Any, tl: float | None, life: tuple[int, int, int]) -> None:
    from mechopt.runtime.lifeline import bind_to_parent

    parent, life_r, life_w = life
    try:
        os.close(life_w)
        bind_to_parent(parent, life_r)  # killed with the parent, never an orphan
        conn.send(run_row(inst, solver, problem, tl))
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def run_row_isolated(inst: Instance, solver: str, problem: Any, time_limit: float | None) -> dict[str, Any]:
    """:func:`run_row` in a forked process, killed at :func:`hard_deadline`; a crash is a row."""
    tl = inst.time_limit if inst.time_limit is not None else time_limit
    ctx = multiprocessing.get_context("fork")
    from mechopt.runtime.lifeline import lifeline

    recv, send = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    life_r, life_w = lifeline()
    args = (send, inst, solver, problem, time_limit, (os.getpid(), life_r, life_w))
    proc = ctx.Process(target=_child, args=args, daemon=True)
    try:
        proc.start()
    finally:
        os.close(life_r)
    send.close()
    row, why = None, ""
    try:
        if recv.poll(hard_deadline(tl)):
            row = recv.recv()
        else:
            why = f"killed after {time.perf_counter() - t0:.1f} s (time limit {tl:g} s not respected)"
    except EOFError:
        proc.join(5)
        why = f"the solver process died (exit code {proc.exitcode})"
    finally:
        if proc.is_alive():
            proc.kill()
        proc.join()
        recv.close()
        os.close(life_w)
    if row is not None:
        return row
    status = "time_limit" if why.startswith("killed") else "solver_error"
    return {
        **base_row(inst, solver, problem),
        "status": status,
        "time_s": time.perf_counter() - t0,
        "flag": "error",
        "message": why,
    }


def can_isolate() -> bool:
    """Whether rows can run in forked processes (POSIX ``fork``)."""
    return "fork" in multiprocessing.get_all_start_methods()


def skipped_row(inst: Instance, solver: str, problem: Any, budget: float) -> dict[str, Any]:
    """The row of a pair not run because the compare budget was used up (status ``time_limit``)."""
    return {
        **base_row(inst, solver, problem),
        "status": "time_limit",
        "flag": "skipped",
        "skipped": True,
        "message": f"not run: the compare budget of {budget:g} s was used up",
    }


def indexed_row(k: int, inst: Instance, name: str, tl: float | None) -> tuple[int, dict[str, Any]]:
    """``(k, run_row(...))`` for a worker process, with the problem rebuilt there."""
    return k, run_row(inst, name, inst.build(), tl)  # rebuilt in the worker: problems need not pickle


def run_pairs(
    todo: Sequence[tuple[Instance, str, Any]],
    *,
    jobs: int = 1,
    time_limit: float | None = None,
    budget: float | None = None,
    isolate: bool = False,
    progress: bool | None = False,
) -> list[dict[str, Any]]:
    """One row per pair of :func:`pairs`, in their order: in-process (isolated or within a ``budget``) with
    ``jobs=1``, else on ``jobs`` local processes (joblib/loky); see :func:`mechopt.jobs.compare.compare`."""
    raw: dict[int, dict[str, Any]] = {}
    with Progress(len(todo), "compare", enabled=progress) as bar:
        if jobs == 1:
            t0 = time.perf_counter()
            for k, (inst, name, prob) in enumerate(todo):
                if budget is not None and k > 0 and time.perf_counter() - t0 > budget:
                    raw[k] = skipped_row(inst, name, prob, budget)
                elif isolate:
                    raw[k] = run_row_isolated(inst, name, prob, time_limit)
                else:
                    raw[k] = run_row(inst, name, prob, time_limit)
                bar.advance(f"{inst.problem} {name}")
        else:
            from joblib import Parallel, delayed

            from mechopt.jobs.workers import OrphanSafe, cap_jobs

            task = OrphanSafe(indexed_row)  # workers end when this process does (kill -9 included)
            gen = Parallel(n_jobs=cap_jobs(jobs, len(todo))[0], return_as="generator_unordered")(
                delayed(task)(k, inst, name, time_limit) for k, (inst, name, _) in enumerate(todo)
            )
            for k, row in gen:
                raw[k] = row
                bar.advance(f"{row['problem']} {row['solver']}")
    return [raw[k] for k in range(len(todo))]
