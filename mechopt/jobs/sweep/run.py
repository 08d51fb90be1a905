"""Parameter sweeps: a grid × solvers for one problem, one JSON line per finished point.

A sweep spec (TOML) names one catalog problem id and a grid::

    problem = "design"             # required: a registered catalog id
    solvers = ["sqp"]              # required: every point runs with each
    time_limit = 30                # optional: wall-clock seconds per point (default none)
    save_mechanism = false         # optional: store Q in each line
    [fixed]                        # optional: from_params arguments common to all points
    notion = "lip"
    utility = "histogram"
    [grid]                         # required: the cartesian product of these lists
    eps = [0.25, 0.5, 1.0]         # a list, or { linspace = [a, b, n] } / { logspace = [a, b, n] }
    prior = ["0.2,0.8", "0.4,0.6"]
    [options.sqp]                  # optional: solver options, per solver
    n_starts = 4
    [plot]                         # optional
    x = "eps"                      # the x axis of the tradeoff plot (default: first numeric grid key)

Each point is written as soon as it finishes (flushed and fsync-ed) as one
JSON line with a deterministic ``key`` (a hash of problem, params, solver and
options), so a killed run loses nothing that finished and ``resume=True``
skips the keys already in the file (a truncated last line is dropped). The
file starts with a header naming the spec, is locked while a sweep writes it,
and a fresh run replaces an old file only once its first point is written
(:mod:`mechopt.jobs.sweep.file`). Points
run in-process (``jobs=1``), on local processes (``jobs=N``, joblib/loky) or on
a Dask distributed cluster (``scheduler=ADDRESS`` or a ``distributed.Client``).

Every field except ``time_s`` is a deterministic function of the spec and the
package versions, the same serially, with ``jobs=N`` and on Dask: random
starts derive from the ``seed`` option only (default 0, never from a process
or worker), solves run with single-threaded BLAS (:mod:`mechopt.runtime.threads`,
whatever ``OMP_NUM_THREADS`` or the worker type), and no wall-clock limit
applies unless the spec or ``--time-limit`` sets one (every solver stops on
its own iteration cap). With a ``time_limit``, a point that hits it has the
status ``time_limit`` and depends on the machine.

A line's ``status`` is the audited status of :func:`mechopt.solve` and ``proof``
says why an ``optimal`` point is proven (None otherwise); :func:`plot_sweep`
(:mod:`mechopt.jobs.sweep.plot`) labels each curve by :func:`mechopt.results.words.series_label`.

Examples
--------
>>> from mechopt.jobs.sweep.run import parse_spec, series_legend, sweep
>>> spec = parse_spec('''
... problem = "design"
... solvers = ["sqp"]
... [fixed]
... notion = "lip"
... utility = "histogram"
... prior = "0.3,0.7"
... [grid]
... eps = [0.5, 1.0]
... [options.sqp]
... n_starts = 2
... ''')
>>> lines = sweep(spec)
>>> [(ln["point"]["eps"], ln["status"], ln["proof"]) for ln in lines]   # sqp: local, never "optimal"
[(0.5, 'locally_optimal', None), (1.0, 'locally_optimal', None)]
>>> lines[0]["value"] > lines[1]["value"]     # more privacy, larger histogram MSE
True
>>> series_legend(lines)                      # what plot_sweep's legend says
{'sqp': 'sqp — locally optimal'}
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError
from mechopt.jobs.sweep.file import SweepWriter, read_lines, spec_id
from mechopt.jobs.sweep.plot import plot_sweep, series_legend, sweep_figure
from mechopt.jobs.sweep.spec import SweepSpec, load_spec, parse_spec
from mechopt.results.result import jsonable
from mechopt.runtime.progress import Progress

__all__ = [
    "SweepSpec",
    "parse_spec",
    "load_spec",
    "sweep",
    "tasks",
    "run_point",
    "read_lines",
    "plot_sweep",
    "sweep_figure",
    "series_legend",
]


def point_key(task: dict[str, Any]) -> str:
    """Deterministic 16-hex key of (problem, params, solver, options except time_limit, and
    ``save_mechanism`` when on: lines without a mechanism are not the results of a spec that stores them)."""
    ident = {k: task[k] for k in ("problem", "params", "solver")}
    ident["options"] = {k: v for k, v in task["options"].items() if k != "time_limit"}
    if task.get("save_mechanism"):  # only when on: the keys of every existing file without it are unchanged
        ident["save_mechanism"] = True
    blob = json.dumps(jsonable(ident), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def tasks(spec: SweepSpec) -> list[dict[str, Any]]:
    """Every (grid point, solver) task in a fixed order, each with its ``key``.

    Examples
    --------
    >>> spec = SweepSpec(problem="design", solvers=("sqp",), grid={"eps": [0.5, 1.0]})
    >>> [(t["point"], len(t["key"])) for t in tasks(spec)]
    [({'eps': 0.5}, 16), ({'eps': 1.0}, 16)]
    """
    out = []
    names = list(spec.grid)
    for combo in itertools.product(*(spec.grid[n] for n in names)):
        point = dict(zip(names, combo))
        for solver in spec.solvers:
            opts = dict(spec.options.get(solver, {}))
            if spec.time_limit is not None:
                opts.setdefault("time_limit", spec.time_limit)
            t = {
                "problem": spec.problem,
                "params": {**spec.fixed, **point},
                "point": point,
                "solver": solver,
                "options": opts,
                "save_mechanism": spec.save_mechanism,
            }
            t["key"] = point_key(t)
            out.append(t)
    return out


def run_point(task: dict[str, Any]) -> dict[str, Any]:
    """Solve one task; always returns its JSON line (a failure is status ``solver_error``)."""
    from mechopt.api import solve
    from mechopt.registry import get_problem
    from mechopt.runtime.deadline import bounded, seconds

    line: dict[str, Any] = {
        "key": task["key"],
        "problem": task["problem"],
        "solver": task["solver"],
        "point": task["point"],
        "params": task["params"],
        "options": task["options"],
    }
    t0 = time.perf_counter()
    try:
        with bounded(seconds(task["options"].get("time_limit"))):  # building the point counts too
            prob = get_problem(task["problem"]).from_params(**task["params"])
            res = solve(prob, solver=task["solver"], **task["options"])
    except Exception as exc:  # one point's crash is that point's line, never the sweep's end
        line.update(
            status="solver_error",
            proof=None,
            value=None,
            sense=None,
            objective=None,
            unit=None,
            violation=None,
            eps_audited=None,
            certificate=None,
            message=f"{type(exc).__name__}: {exc}",
        )
    else:
        cert = res.certificate
        line.update(
            status=res.status.value,
            proof=res.proof,
            value=res.value,
            sense=res.sense,
            objective=res.objective,
            unit=res.unit,
            violation=res.violation,
            eps_audited=res.eps_audited,
            certificate=None if cert is None else cert.to_dict(),
            message=res.message,
        )
        if task.get("save_mechanism"):
            line["mechanism"] = res.mechanism
    line["time_s"] = time.perf_counter() - t0
    return jsonable(line)


def _run_iter(todo: list[dict[str, Any]], jobs: int, scheduler: Any) -> Iterator[dict[str, Any]]:
    if scheduler is not None:
        yield from _run_dask(todo, scheduler)
    elif jobs == 1:
        for t in todo:
            yield run_point(t)
    else:
        from joblib import Parallel, delayed

        from mechopt.jobs.workers import OrphanSafe, cap_jobs

        task = OrphanSafe(run_point)  # workers end when this process does (kill -9 included)
        yield from Parallel(n_jobs=cap_jobs(jobs, len(todo))[0], return_as="generator_unordered")(
            delayed(task)(t) for t in todo
        )


def _run_dask(todo: list[dict[str, Any]], scheduler: Any) -> Iterator[dict[str, Any]]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise ParamError("--scheduler needs dask.distributed: pip install 'mechopt[distributed]'") from None
    own = not isinstance(scheduler, Client)
    if own:
        try:
            client = Client(scheduler, timeout=20)
        except (OSError, TimeoutError, ValueError) as exc:
            raise ParamError(f"cannot connect to the Dask scheduler {scheduler!r}: {exc}") from None
    else:
        client = scheduler
    try:
        futures = [client.submit(run_point, t, key=f"mechopt-sweep-{t['key']}", pure=False) for t in todo]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        if own:
            client.close()


def sweep(
    spec: SweepSpec | str | Path,
    out: str | Path | None = None,
    *,
    jobs: int = 1,
    scheduler: Any = None,
    resume: bool = False,
    overwrite: bool = False,
    progress: bool | None = False,
) -> list[dict[str, Any]]:
    """Run a sweep; returns every line (resumed ones included) in task order.

    Parameters
    ----------
    spec : SweepSpec or path to a TOML spec
    out : path, optional
        JSON-lines file written point by point (append + flush + fsync).
    jobs : int
        Local worker processes (joblib/loky) when no scheduler is given.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``tcp://host:8786``) or a client.
    resume : bool
        Skip the points already in ``out``.
    overwrite : bool
        Start ``out`` afresh if it exists (otherwise an existing non-empty
        ``out`` without ``resume`` raises :class:`ParamError`).
    """
    if not isinstance(spec, SweepSpec):
        spec = load_spec(spec)
    if not isinstance(jobs, int) or jobs < 1:
        raise ParamError(f"jobs must be a positive integer, got {jobs!r}")
    all_tasks = tasks(spec)
    done: dict[str, dict[str, Any]] = {}
    writer: SweepWriter | None = None
    if out is not None:
        p = Path(out)
        if p.exists() and p.stat().st_size and not resume and not overwrite:
            raise ParamError(f"{p.name!r} exists: pass --resume to continue it, or remove it to start over")
        writer = SweepWriter(
            p,
            spec_id=spec_id([t["key"] for t in all_tasks]),
            problem=spec.problem,
            points=len(all_tasks),
            resume=resume,
        )
    with writer if writer is not None else contextlib.nullcontext():
        if writer is not None:
            done = {ln["key"]: ln for ln in writer.done}
        todo = [t for t in all_tasks if t["key"] not in done]
        with Progress(len(todo), "sweep", enabled=progress) as bar:
            for line in _run_iter(todo, jobs, scheduler):
                done[line["key"]] = line
                if writer is not None:
                    writer.write(line)
                bar.advance(line["solver"])
    return [done[t["key"]] for t in all_tasks if t["key"] in done]
