"""What ``mechopt design`` prints and writes: the text report, the design document, the plot.

The design document (:func:`design_document`) is the one JSON layout of a
design: ``--json`` prints it and ``--out FILE`` writes it, so the mechanism
object (``{"Q", "inputs", "outputs", "prior"}``, plus ``"values"`` for an
``mse``/``mae`` design) is the same in both.

Examples
--------
>>> from mechopt.results.result import Result
>>> r = Result(status="feasible", value=0.25, sense="min", objective="mse", unit="squared units of the values")
>>> print(describe(None, r).splitlines()[3])
value        0.25 squared units of the values  (mse, minimised)
"""

from __future__ import annotations

import io
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from mechopt.cli._common import printable
from mechopt.errors import ParamError, ProblemError
from mechopt.results.result import Result

__all__ = ["describe", "design_document", "write_out", "write_plot", "show_warnings", "input_labels", "unsafe_npy"]


def _channel(res: Result) -> np.ndarray | None:
    from mechopt.results.result import _channel_matrix

    return _channel_matrix(res.mechanism)


#: Largest channel Q (entries) written into a JSON design document; a larger one is named, not listed
#: (10⁷ entries are ~200 MB of JSON text; ``--out FILE.npy`` writes any Q in binary).
JSON_MAX_ENTRIES = 10_000_000


def design_document(problem: Any, res: Result, notes: list[str] | None = None) -> dict[str, Any]:
    """The one design document: printed by ``--json`` and written by ``--out``.

    :meth:`Result.to_dict` with the problem's prior in ``mechanism`` (a
    channel: ``{"Q", "inputs", "outputs", "prior"}``, and ``"values"``, the
    numbers a_x of an ``mse``/``mae`` design) and the ``notes``. A
    channel of more than :data:`JSON_MAX_ENTRIES` entries is replaced by
    ``{"Q": null, "shape": [n, m], "omitted": why}``.

    Examples
    --------
    >>> import mechopt
    >>> prob = mechopt.registry.get_problem("design").from_params(prior="0.5,0.5", notion="ldp", utility="mi", eps=1)
    >>> doc = design_document(prob, mechopt.solve(prob, solver="exact"))
    >>> sorted(doc["mechanism"]), doc["unit"]
    (['Q', 'inputs', 'outputs', 'prior'], 'nats')
    """
    from mechopt.results.result import jsonable, mechanism_dict

    doc = res.replace(mechanism=None).to_dict()  # the mechanism is converted once, below
    Q = _channel(res)
    if Q is not None and Q.size > JSON_MAX_ENTRIES:
        doc["mechanism"] = {
            "Q": None,
            "shape": list(Q.shape),
            "omitted": f"Q has {Q.size} entries, more than the {JSON_MAX_ENTRIES} a JSON document "
            "carries: write it with --out FILE.npy",
        }
    elif res.mechanism is not None:
        doc["mechanism"] = mechanism_dict(res.mechanism, prior=getattr(problem, "prior", None), values=res.values)
        S = getattr(problem, "prior_set", None)
        if S is not None and hasattr(S, "vertices"):  # a robust design: its claim holds at every vertex
            doc["mechanism"]["prior_set"] = S.vertices.tolist()
        elif S is not None:  # a ball by its inequalities (no vertex list)
            doc["mechanism"]["prior_ball"] = problem.params()["prior_ball"]
        labels = input_labels(problem, Q)
        if labels is not None and isinstance(doc["mechanism"], dict):
            doc["mechanism"]["inputs"] = jsonable(list(labels))
    return {**doc, "notes": list(notes or [])}


def input_labels(problem: Any, Q: np.ndarray | None) -> tuple[Any, ...] | None:
    """The problem's input labels (a prior file's ``label,probability`` table) when they fit Q's rows."""
    labels = getattr(problem, "inputs", None)
    if labels is None or Q is None or len(labels) != Q.shape[0]:
        return None
    return tuple(labels)


def write_out(path: str, res: Result, doc: dict[str, Any] | None) -> None:
    """Write the design document ``doc`` to ``path`` (JSON, with ``"provenance"``: the mechopt version, the
    date and the solver that wrote it), or only the channel Q for a ``.npy`` path."""
    from mechopt.io.writer import write_bytes, write_text
    from mechopt.results._json import dumps
    from mechopt.results.result import Status

    if not res.status.has_solution:
        raise ProblemError(f"no mechanism to write to {path!r}: status {res.status.value} ({res.message})")
    if path.lower().endswith(".npy"):
        if res.status is Status.INFEASIBLE_POINT:
            raise ProblemError(unsafe_npy(path))
        Q = _channel(res)
        if Q is None:
            raise ProblemError(f"--out {path!r}: {_no_matrix(res)}")
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(Q, dtype=float), allow_pickle=False)
        write_bytes(path, buf.getvalue())
        print(
            f"mechopt: note: {printable(path)} holds Q only ({Q.shape[0]} x {Q.shape[1]}); the prior is not in "
            "it, so give mechopt audit --prior for lip and mip",
            file=sys.stderr,
        )
        return
    Q = _channel(res)
    if Q is not None and Q.size > JSON_MAX_ENTRIES:
        raise ProblemError(
            f"--out {path!r}: Q has {Q.size} entries, more than the {JSON_MAX_ENTRIES} a JSON design "
            "document carries; write it to a .npy file"
        )
    from mechopt.mechanism.files import provenance_now

    prov = provenance_now(f"mechopt design: solver {res.solver}, objective {res.objective}")
    write_text(path, dumps(doc if doc is None else {**doc, "provenance": prov}) + "\n")
    if Q is None:
        print(
            f"mechopt: note: {printable(path)} holds {_no_matrix(res, short=True)}; mechopt audit reads channels only",
            file=sys.stderr,
        )


def unsafe_npy(path: str) -> str:
    """Why ``--out FILE.npy`` is not written for a mechanism that fails its audit: a bare Q cannot say so.

    >>> unsafe_npy("q.npy").split(":")[0]
    "--out 'q.npy' not written"
    """
    return (
        f"--out {path!r} not written: the mechanism fails its privacy audit (infeasible_point), and a .npy "
        "file holds Q alone, with nothing to say so; write it to a .json file (it keeps the status) to keep it"
    )


def _no_matrix(res: Result, short: bool = False) -> str:
    """What the result has instead of a channel matrix Q, and what to do (for --out messages).

    >>> _no_matrix(Result(status="optimal", value=1.0, sense="max", objective="mi",
    ...                   extras={"plan": None}), short=True)
    'no channel matrix Q'
    """
    plan = res.extras.get("plan")
    if res.mechanism is None and plan is not None:
        rows = sum(int(np.size(m)) for m in getattr(plan, "members", ()))
        size = f", {rows * plan.n_outputs * 8 / 1e9:.3g} GB as doubles" if rows else ""
        what = f"Q ({rows or 'd'} inputs x {plan.n_outputs} outputs{size}) was not built: it does not fit in memory"
        return (
            what
            if short
            else f"a .npy file holds a channel matrix, and this design's {what}; write the design to a .json file "
            "(it describes the mechanism by its structure) or design for fewer inputs"
        )
    if res.mechanism is None:
        return "no channel matrix Q" if short else "this result has no mechanism to write"
    kind = type(res.mechanism).__name__
    return (
        f"a {kind} mechanism, not a channel Q"
        if short
        else (
            f"a .npy file holds a channel matrix Q, and this result's mechanism is a {kind}; write it to a .json file"
        )
    )


def write_plot(path: str, problem: Any, res: Result) -> None:
    from mechopt.errors import NoChannelError
    from mechopt.io.writer import savefig
    from mechopt.plot import plot_channel

    try:
        res.Q
    except NoChannelError as exc:
        raise ProblemError(f"--plot {path!r}: nothing to draw: {exc}") from None
    prior = getattr(problem, "prior", None)
    if prior is not None and (np.ndim(prior) != 1 or np.size(prior) != res.Q.shape[0]):
        prior = None
    ax = plot_channel(res, prior=prior)
    try:
        savefig(ax.figure, path, dpi=110)
    except (OSError, ValueError) as exc:  # ValueError: matplotlib does not know the file type
        raise ParamError(f"cannot write the plot {path!r}: {exc}") from None


def _guarantee(solver: str) -> str | None:
    from mechopt.registry import get_solver

    try:
        return get_solver(solver).guarantee
    except Exception:  # "closed-form" results built outside the registry, unknown names
        return None


#: Largest Q printed whole by the human report; above, its corners (rows and columns) and how to get the rest.
SHOW_ROWS, SHOW_COLS = 20, 16


def matrix_lines(Q: np.ndarray, labels: Sequence[Any] | None = None) -> list[str]:
    """The rows of Q for the report, one line per input (``x=`` its label when given); a large Q shows
    its first and last rows and columns.

    Examples
    --------
    >>> print("\\n".join(matrix_lines(np.full((2, 2), 0.5))))
      x=0    0.50000  0.50000
      x=1    0.50000  0.50000
    >>> lines = matrix_lines(np.full((1000, 300), 1 / 300))
    >>> len(lines), lines[-1]
    (9, '  (1000 inputs x 300 outputs: --json or --out FILE for every entry)')
    """
    n, m = Q.shape
    rows = list(range(n)) if n <= SHOW_ROWS else [*range(5), None, *range(n - 2, n)]
    cols = list(range(m)) if m <= SHOW_COLS else [*range(8), None, *range(m - 2, m)]

    def cell(x: int, y: int | None) -> str:
        return "     ..." if y is None else f"{Q[x, y]:8.5f}"

    names = [printable(labels[x]) if labels is not None else str(x) for x in range(n)] if n <= SHOW_ROWS else None
    width = max(3, *(len(s) for s in names)) if names else 3

    def name(x: int) -> str:
        return (names[x] if names else printable(labels[x]) if labels is not None else str(x)).ljust(width)

    out = ["  ..." if x is None else "  x=" + name(x) + " " + " ".join(cell(x, y) for y in cols) for x in rows]
    if len(rows) < n or len(cols) < m:
        out.append(f"  ({n} inputs x {m} outputs: --json or --out FILE for every entry)")
    return out


def describe(problem: Any, res: Result) -> str:
    """The human-readable design report; its status line says what backs the status
    (:func:`mechopt.results.words.status_line`): ``optimal (proof: certificate, gap 2e-16)``,
    ``locally_optimal: best local optimum of 20 sqp starts, no certificate``, ...

    Examples
    --------
    >>> import mechopt
    >>> prob = mechopt.registry.get_problem("lip-binary").from_params(p1="0.4", eps="1")
    >>> r = mechopt.solve(prob, solver="sqp", n_starts=2)     # a local method: its word depends on the CPU
    >>> line = describe(prob, r).splitlines()[2]
    >>> line.startswith("status       " + r.status.value), "no certificate" in line or "not proven" in line
    (True, True)
    """
    from mechopt.cli._common import fmt
    from mechopt.results.words import status_line

    cert = res.certificate
    level = "delta" if res.notion == "delta-gamma" else "eps"  # the Gauss paper's level is δ (information lost)
    lines = [
        f"problem      {getattr(problem, 'id', type(problem).__name__)}",
        f"solver       {res.solver}",
        f"status       {status_line(res, _guarantee(res.solver))}",
        f"value        {fmt(res.value, 10)}{' ' + res.unit if res.unit else ''}  "
        f"({res.objective}, {'minimised' if res.sense == 'min' else 'maximised'})",
        f"privacy      {res.notion or '-'}  {level}={fmt(res.eps)}"
        + ("" if res.eps_lower is None else f"  eps_lower={fmt(res.eps_lower)}")
        + f"  audited {level}={fmt(res.eps_audited)}"
        f"  violation={fmt(res.violation, 3)}",
        "certificate  "
        + (
            _no_certificate(res)
            if cert is None
            else f"bound={fmt(cert.bound, 10)}{' ' + res.unit if res.unit else ''}  gap={fmt(cert.gap, 3)}"
        ),
        f"time         {res.time_s:.3f} s",
    ]
    message, note = _split_note(res.message)
    if message:
        lines.append(f"message      {message}")
    if note:
        lines.append(f"note         {note}")
    Q = _channel(res)
    if Q is not None:
        lines.append(f"mechanism    Q[x, y] = P(Y=y | X=x), {Q.shape[0]} inputs x {Q.shape[1]} outputs")
        lines += matrix_lines(Q, input_labels(problem, Q))
    elif res.mechanism is not None:
        import textwrap

        from mechopt.results.result import jsonable

        data = textwrap.wrap(json.dumps(jsonable(res.mechanism)), 96)
        lines.append(f"mechanism    {type(res.mechanism).__name__}")
        lines += ["  " + ln for ln in data[:12]] + (["  ... (--json for all of it)"] if len(data) > 12 else [])
    return "\n".join(lines)


def _no_certificate(res: Result) -> str:
    """Why a result has no certificate: the method gives none, or it stopped before proving one.

    >>> _no_certificate(Result(status="time_limit", value=None, solver="exact", sense="min", objective="mse"))
    'none (no bound proven before the limit)'
    """
    if _guarantee(res.solver) == "global" and res.status.value in ("time_limit", "iteration_limit"):
        return "none (no bound proven before the limit)"
    if _guarantee(res.solver) == "global":
        return "none (no bound for this result)"
    return "none (this method gives no bound)"


def _split_note(message: str) -> tuple[str, str]:
    """The message without the identifiability note, and the note (printed on a ``note`` line of its own).

    >>> _split_note("gap 1e-9; not identifiable: Q has rank 2 < 3 inputs")
    ('gap 1e-9', 'not identifiable: Q has rank 2 < 3 inputs')
    """
    from mechopt.mechanism.identify import NOTE_PREFIX

    parts = (message or "").split("; ")
    for i, part in enumerate(parts):
        if part.startswith(NOTE_PREFIX):
            return "; ".join(parts[:i]), "; ".join(parts[i:])
    return message, ""


def show_warnings(caught: list[warnings.WarningMessage]) -> None:
    """Our warnings (e.g. a policy-graph input without an edge) as one ``mechopt: warning: ...`` line each, once;
    any other warning as Python shows it."""
    seen: set[str] = set()
    for w in caught:
        text = str(w.message)
        if issubclass(w.category, UserWarning) and not issubclass(w.category, DeprecationWarning):
            if text not in seen:
                seen.add(text)
                print(f"mechopt: warning: {text}", file=sys.stderr)
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)


def baselines_document(args: Any, problem: Any, res: Any) -> dict[str, Any] | None:
    """The --compare-baselines document (None without the flag); refused for problems with no prior and ε."""
    if not getattr(args, "compare_baselines", False):
        return None
    if not (hasattr(problem, "prior") and hasattr(problem, "evaluate") and hasattr(problem.notion, "eps")):
        from mechopt.errors import ParamError

        raise ParamError(
            "--compare-baselines needs a channel design with a prior and an eps (--notion ... --prior ...)"
        )
    if not res.status.has_solution:
        return None
    from mechopt.programs.oracle_compare import compare_baselines

    return compare_baselines(problem, res.Q)


def baselines_table(cmp: dict[str, Any]) -> str:
    """The --compare-baselines table: one row per mechanism, its estimator, frequency variance and objective."""
    from mechopt.cli._common import fmt, table

    rows = []
    for r in cmp["rows"]:
        var = fmt(r["freq_variance"]) if r["freq_variance"] is not None else f"EM bias² {fmt(r['em_limit_sq_error'])}"
        obj = "n/a" if r["objective"] is None else fmt(r["objective"])
        rows.append([r["mechanism"], str(r["outputs"]), var, obj, r["estimator"]])
    head = ["mechanism", "outputs", "freq variance (n=1)", f"{cmp['objective']} ({cmp['sense']})", "estimator"]
    biased = any(r["freq_variance"] is None for r in cmp["rows"])
    lines = [
        table(head, rows),
        f"best frequency variance: {cmp['best_freq_variance']}; best {cmp['objective']}: "
        f"{cmp['best_objective']}  (variance at n reports per user: divide by n"
        + ("; an EM bias² does not shrink with n: the distribution is not identifiable)" if biased else ")"),
    ]
    if cmp["note"]:
        lines.append(f"note: {cmp['note']}")
    lines += [f"note: {b}" for b in [_beaten_by(cmp)] if b]  # a baseline better on the design's own objective
    return "\n".join(lines)


def _beaten_by(cmp: dict[str, Any]) -> str:
    """A baseline better than the design on the design's own objective: why it can be, and how to deploy it.

    >>> rows = [{"mechanism": "designed", "outputs": 6, "objective": 16.7}, {"mechanism": "GRR", "outputs": 6,
    ...         "objective": 15.6}]
    >>> _beaten_by({"rows": rows, "objective": "freq-var", "best_objective": "GRR"})[:51]
    'GRR beats the design on its own objective (freq-var'
    """
    from mechopt.cli._common import fmt

    rows, best = {r["mechanism"]: r for r in cmp["rows"]}, cmp.get("best_objective")
    if best in (None, "designed") or "designed" not in rows or best not in rows:
        return ""
    k, kb = rows["designed"]["outputs"], rows[best]["outputs"]
    why = f"; it has {kb} outputs, the design {k}: the design searched {k}-output mechanisms only" if kb != k else ""
    return (
        f"{best} beats the design on its own objective ({cmp['objective']} {fmt(rows[best]['objective'])} against "
        f"{fmt(rows['designed']['objective'])}){why}; to deploy it, save it from mechopt.oracles (e.g. "
        "KSubset(d, eps, k).mechanism(inputs=...).save(FILE))"
    )
