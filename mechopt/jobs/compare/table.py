"""``mechopt compare``: every catalog instance through every applicable solver, as one flagged table.

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

from collections.abc import Iterable, Sequence
from typing import Any

from mechopt.errors import ParamError, PlatformError
from mechopt.io.catalog import Instance, builtin_catalog
from mechopt.jobs.compare.rows import can_isolate, pairs, run_pairs
from mechopt.jobs.flags import flag_rows

__all__ = ["compare", "ROW_FIELDS", "DEFAULT_TIME_LIMIT"]

ROW_FIELDS = ("problem", "instance", "solver", "value", "unit", "violation", "gap", "status", "time_s", "flag")
DEFAULT_TIME_LIMIT: float | None = None
"""Per-row wall-clock limit of :func:`compare` by default: none (limits are iteration caps, see above)."""


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
    rows = run_pairs(
        pairs(instances, solver_list),
        jobs=jobs,
        time_limit=time_limit,
        budget=budget,
        isolate=isolate,
        progress=progress,
    )
    out: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["problem"], r["instance"]), []).append(r)
    for grp in groups.values():
        out += flag_rows(grp)
    return out
