"""``mechopt compare``: every catalog instance through every applicable solver.

For each instance of the built-in catalog (:mod:`mechopt.io.catalog`) and each
installed solver that ``can_solve`` it (the closed form included, as the
``closed-form`` pseudo-solver), :func:`compare` solves and audits
(:func:`mechopt.solve`) and returns one row; a solver that raises gives a row
with status ``solver_error`` — never a crash. Then the rows of each instance are
judged against the right reference by :func:`mechopt.jobs.flags.flag_rows`:
a certified row (``optimal`` with a machine-checked proof) of the same program,
or of a discretisation of it within its error estimate; a closed form against
its claim. :data:`mechopt.jobs.flags.FLAGS` is the legend of the flags.

Rows are deterministic: there is no wall-clock limit by default
(:data:`DEFAULT_TIME_LIMIT` is None); every solver stops on its own
iteration, evaluation or start cap (a cap that is hit is the status
``iteration_limit``), and solves run with single-threaded BLAS
(:mod:`mechopt.runtime.threads`), so ``jobs=1``, ``jobs=N`` and a loaded machine give
the same values and statuses. A ``time_limit`` (seconds) is for users who
want one; a row that hits it has the status ``time_limit`` and its value
depends on the machine's speed.

Examples
--------
>>> from mechopt.io.catalog import parse_catalog
>>> from mechopt.jobs.compare import compare
>>> inst = parse_catalog('''[[instance]]
... problem = "design"
... name = "binary"
... params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
... options.sqp = { n_starts = 2 }
... ''')
>>> rows = compare(instances=inst, solvers=["sqp", "exact"])
>>> [(r["solver"], r["status"], r["proof"], r["flag"]) for r in rows]
[('exact', 'optimal', 'certificate', 'certified'), ('sqp', 'locally_optimal', None, '')]
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError, PlatformError
from mechopt.io.catalog import Instance, builtin_catalog
from mechopt.jobs.flags import CLOSED_FORM, flag_rows, reference_row
from mechopt.runtime.progress import Progress

__all__ = ["compare", "flag_rows", "plot_compare", "hard_deadline", "can_isolate", "ROW_FIELDS", "DEFAULT_TIME_LIMIT"]

ROW_FIELDS = ("problem", "instance", "solver", "value", "unit", "violation", "gap", "status", "time_s", "flag")
DEFAULT_TIME_LIMIT: float | None = None
"""Per-row wall-clock limit of :func:`compare` by default: none (limits are iteration caps, see above)."""


def _pairs(instances: Sequence[Instance], solvers: Sequence[str] | None) -> list[tuple[Instance, str, Any]]:
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


def _row(inst: Instance, solver: str, problem: Any, time_limit: float | None) -> dict[str, Any]:
    from mechopt.api import solve

    opts = dict(inst.options.get(solver, {}))
    tl = inst.time_limit if inst.time_limit is not None else time_limit
    if tl is not None:
        opts.setdefault("time_limit", tl)
    base = _base(inst, solver, problem)
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


def _base(inst: Instance, solver: str, problem: Any) -> dict[str, Any]:
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


def compare(
    problems: Iterable[str] | None = None,
    solvers: Iterable[str] | None = None,
    *,
    instances: Sequence[Instance] | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    jobs: int = 1,
    progress: bool | None = False,
    budget: float | None = None,
    isolate: bool = False,
) -> list[dict[str, Any]]:
    """Run catalog instances through solvers; one row per (instance, solver).

    Parameters
    ----------
    problems : iterable of str, optional
        Catalog ids to keep (default all).
    solvers : iterable of str, optional
        Solver names to keep (default every applicable one); unknown names
        raise :class:`~mechopt.errors.SolverNotFound`.
    instances : sequence of Instance, optional
        Instead of the built-in catalog.
    time_limit : float or None
        Per-row wall-clock limit in seconds (an instance's ``time_limit``
        wins); default none, so the rows do not depend on the machine's load.
    jobs : int
        Rows run in parallel on this many local processes (joblib/loky).
    progress : bool or None
        Progress bar on stderr (None: only on a terminal).
    budget : float or None
        Total seconds (with ``jobs=1``): rows not started when it is used up
        are reported with status ``time_limit`` and the flag ``skipped``.
    isolate : bool
        Run each row (with ``jobs=1``) in a forked process that is killed at
        :func:`hard_deadline` of its time limit, so a solver that ignores its
        limit, hangs or crashes the interpreter costs one row, not the table
        (without a time limit only a crash is caught).

    Returns
    -------
    list of dict
        Rows with the fields of :data:`ROW_FIELDS` plus ``message``,
        ``certified``, ``sense``, ``certificate_bound``, ``proof`` (the
        result's ``Result.proof``), ``claim`` (the verify claim id of a closed
        form: the catalog instance's ``claim``, else the result's
        ``extras["claim"]``), ``in_region`` (a closed form's
        ``extras["in_region"]``), ``error_estimate`` (a discretisation's error,
        ``inf`` when it could not be estimated), and from
        :func:`~mechopt.jobs.flags.flag_rows` ``reference`` (the solver of
        the row it is judged against), ``deviation`` (relative distance to it in
        the problem's sense, > 0 worse) and ``allowance``; None where absent.
        Every row has the same keys.
    """
    from mechopt.registry import get_solver, solver_names

    solver_list = None if solvers is None else list(solvers)
    for name in solver_list or []:
        if name not in solver_names():
            get_solver(name)  # raises SolverNotFound with the list
    if jobs < 1:
        raise ParamError(f"jobs must be ≥ 1, got {jobs}")
    if isolate and not can_isolate():
        raise PlatformError("isolate=True needs the POSIX 'fork' start method, not available here; use isolate=False")
    if instances is None:
        instances = builtin_catalog(problems)
    elif problems is not None:
        keep = set(problems)
        instances = [i for i in instances if i.problem in keep]
    pairs = _pairs(instances, solver_list)
    raw: dict[int, dict[str, Any]] = {}
    with Progress(len(pairs), "compare", enabled=progress) as bar:
        if jobs == 1:
            t0 = time.perf_counter()
            for k, (inst, name, prob) in enumerate(pairs):
                if budget is not None and k > 0 and time.perf_counter() - t0 > budget:
                    raw[k] = _skipped(inst, name, prob, budget)
                elif isolate:
                    raw[k] = _row_isolated(inst, name, prob, time_limit)
                else:
                    raw[k] = _row(inst, name, prob, time_limit)
                bar.advance(f"{inst.problem} {name}")
        else:
            from joblib import Parallel, delayed

            from mechopt.jobs.workers import OrphanSafe, cap_jobs

            task = OrphanSafe(_indexed_row)  # workers end when this process does (kill -9 included)
            gen = Parallel(n_jobs=cap_jobs(jobs, len(pairs))[0], return_as="generator_unordered")(
                delayed(task)(k, inst, name, time_limit) for k, (inst, name, _) in enumerate(pairs)
            )
            for k, row in gen:
                raw[k] = row
                bar.advance(f"{row['problem']} {row['solver']}")
    rows = [raw[k] for k in range(len(pairs))]
    out: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["problem"], r["instance"]), []).append(r)
    for grp in groups.values():
        out += flag_rows(grp)
    return out


def hard_deadline(time_limit: float | None) -> float | None:
    """Seconds after which an isolated row is killed: 2 × its time limit + 2 s.

    Examples
    --------
    >>> hard_deadline(10.0), hard_deadline(None)
    (22.0, None)
    """
    return None if time_limit is None else 2.0 * time_limit + 2.0


def _child(conn: Any, inst: Instance, solver: str, problem: Any, tl: float | None) -> None:
    try:
        conn.send(_row(inst, solver, problem, tl))
    finally:
        conn.close()
        os._exit(0)  # no atexit handlers, no flushing of the parent's buffers


def _row_isolated(inst: Instance, solver: str, problem: Any, time_limit: float | None) -> dict[str, Any]:
    """:func:`_row` in a forked process, killed at :func:`hard_deadline`; a crash is a row."""
    tl = inst.time_limit if inst.time_limit is not None else time_limit
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    t0 = time.perf_counter()
    proc = ctx.Process(target=_child, args=(send, inst, solver, problem, time_limit), daemon=True)
    proc.start()
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
    if row is not None:
        return row
    status = "time_limit" if why.startswith("killed") else "solver_error"
    return {
        **_base(inst, solver, problem),
        "status": status,
        "time_s": time.perf_counter() - t0,
        "flag": "error",
        "message": why,
    }


def can_isolate() -> bool:
    """Whether rows can run in forked processes (POSIX ``fork``)."""
    return "fork" in multiprocessing.get_all_start_methods()


def _skipped(inst: Instance, solver: str, problem: Any, budget: float) -> dict[str, Any]:
    return {
        **_base(inst, solver, problem),
        "status": "time_limit",
        "flag": "skipped",
        "skipped": True,
        "message": f"not run: the compare budget of {budget:g} s was used up",
    }


def _indexed_row(k: int, inst: Instance, name: str, tl: float | None) -> tuple[int, dict[str, Any]]:
    return k, _row(inst, name, inst.build(), tl)  # rebuilt in the worker: problems need not pickle


def _reference_value(rows: Sequence[dict[str, Any]]) -> float | None:
    """The plot's reference of one instance: the most precise certified row's value
    (:func:`~mechopt.jobs.flags.reference_row`); without one, among the rows that passed
    their audit and are not closed forms (the claims under test), the best value of those with
    the smallest error estimate (so a raw grid value is not the yardstick of a continuous one).

    >>> _reference_value([{"solver": "conic", "value": 9.86955, "error_estimate": 2e-4, "flag": "", "status": "feasible"},
    ...                   {"solver": "spectral", "value": 9.8696044, "error_estimate": 1e-12, "flag": "",
    ...                    "status": "feasible"}])
    9.8696044
    """
    ref = reference_row(rows)
    if ref is not None:
        return ref["value"]
    ok = [r for r in rows if r["value"] is not None and "infeasible" not in r["flag"]]
    ok = [r for r in ok if r["solver"] != CLOSED_FORM] or ok
    if not ok:
        return None
    least = min(r.get("error_estimate") or 0.0 for r in ok)
    sense = next((r.get("sense") for r in rows if r.get("sense")), "min")
    return (max if sense == "max" else min)(r["value"] for r in ok if (r.get("error_estimate") or 0.0) == least)


def plot_compare(
    rows: Sequence[dict[str, Any]], out_dir: str | Path | None = None, *, ax: Any = None
) -> dict[str, Any]:
    """One figure per problem id: each solver's value on each instance (top; certified rows —
    ``optimal`` with a machine-checked proof, never a closed form — circled, answers that fail
    their audit edged in red) and its relative distance to the instance's reference (bottom:
    the most precise certified value, else the best value that passed its audit; > 0 is worse,
    symlog scale). The value axis says the objective's unit.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`compare`.
    out_dir : path, optional
        Also write ``compare_<problem>.png`` there (atomically).
    ax : Axes or (Axes, Axes), optional
        Draw into the caller's axes (the rows must then be of one problem id):
        a pair gets the values and the distances, a single Axes the values only.
        Default: new :class:`matplotlib.figure.Figure` objects (no pyplot, the
        backend is never touched).

    Returns
    -------
    dict
        ``{problem id: Figure}``.
    """
    from mechopt.runtime.optional import require

    Figure = require("matplotlib.figure", "plot", "plots").Figure
    pids = list(dict.fromkeys(r["problem"] for r in rows))
    if ax is not None and len(pids) != 1:
        raise ParamError(f"plot_compare(ax=...) draws one problem, the rows hold {len(pids)}: {pids}")
    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    figs: dict[str, Any] = {}
    for pid in pids:
        sub = [r for r in rows if r["problem"] == pid]
        names = list(dict.fromkeys(r["instance"] for r in sub))
        senses = {n: next((r.get("sense") for r in sub if r["instance"] == n and r.get("sense")), "min") for n in names}
        refs = {n: _reference_value([r for r in sub if r["instance"] == n]) for n in names}
        if ax is None:
            fig = Figure(figsize=(max(5.5, 1.3 * len(names) + 2.5), 5.6))
            vx, bx = fig.subplots(2, 1, sharex=True)
        elif isinstance(ax, (tuple, list)):
            vx, bx = ax
            fig = vx.figure
        else:
            vx, bx, fig = ax, None, ax.figure
        solvers = list(dict.fromkeys(r["solver"] for r in sub))
        for j, solver in enumerate(solvers):
            pts = [r for r in sub if r["solver"] == solver and r["value"] is not None]
            if not pts:
                continue
            xs = [names.index(r["instance"]) + 0.1 * (j - (len(solvers) - 1) / 2) for r in pts]
            bad = ["infeasible" in r["flag"] for r in pts]
            mk = "os^Dv<>*P"[j % 9]
            vx.scatter(
                xs,
                [r["value"] for r in pts],
                label=solver,
                marker=mk,
                zorder=3,
                edgecolors=["red" if b else "none" for b in bad],
                linewidths=1.5,
            )
            cx = [x for x, r in zip(xs, pts) if r["certified"]]
            vx.scatter(
                cx, [r["value"] for r in pts if r["certified"]], s=170, facecolors="none", edgecolors="k", zorder=2
            )
            dev = []
            for r in pts:
                ref = refs[r["instance"]]
                if ref is None:
                    dev.append(float("nan"))
                    continue
                d = (r["value"] - ref) if senses[r["instance"]] == "min" else (ref - r["value"])
                dev.append(d / max(1.0, abs(ref)))
            if bx is None:
                continue
            bx.scatter(xs, dev, marker=mk, zorder=3, edgecolors=["red" if b else "none" for b in bad], linewidths=1.5)
            err = [(r.get("error_estimate") or 0.0) / max(1.0, abs(refs[r["instance"]] or 0.0)) for r in pts]
            if any(0 < e < float("inf") for e in err):  # a discretisation: its error estimate as a bar
                bx.errorbar(
                    xs,
                    dev,
                    yerr=[e if e < float("inf") else 0.0 for e in err],
                    fmt="none",
                    ecolor="0.4",
                    elinewidth=0.8,
                    capsize=2,
                    zorder=2,
                )
        lx = vx if bx is None else bx
        if bx is not None:
            bx.axhline(0.0, color="k", lw=0.8)
            bx.set_yscale("symlog", linthresh=1e-6)
            bx.set_ylabel("relative distance to the\nreference (> 0: worse;\nbar: error estimate)", fontsize=8)
        lx.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=7)
        kinds = set(senses.values())
        better = "lower" if kinds == {"min"} else "higher" if kinds == {"max"} else "problem's sense"
        units = {r.get("unit") for r in sub if r.get("value") is not None} - {None}
        unit = f", {units.pop()}" if len(units) == 1 else ""
        vx.set_ylabel(
            f"value ({better} is better{unit})" if len(kinds) == 1 else f"value (each in its problem's sense{unit})",
            fontsize=8,
        )
        vx.scatter(
            [],
            [],
            s=170,
            facecolors="none",
            edgecolors="k",
            label="certified (*): optimal with a machine-\nchecked proof (never a closed form)",
        )
        vx.set_title(f"{pid}: circled = certified; red edge = fails its audit", fontsize=9)
        vx.legend(fontsize=7)
        if ax is None:
            fig.tight_layout()
        if out is not None:
            from mechopt.io.mechfile import atomic_savefig

            atomic_savefig(fig, out / f"compare_{pid}.png", dpi=110)
        figs[pid] = fig
    return figs
