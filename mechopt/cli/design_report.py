"""What ``mechopt design`` prints and writes: the text report, the design document, the plot.

The design document (:func:`design_document`) is the one JSON layout of a
design: ``--json`` prints it and ``--out FILE`` writes it, so the mechanism
object (``{"Q", "inputs", "outputs", "prior"}``) is the same in both.

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
from typing import Any

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.results.result import Result

__all__ = ["describe", "design_document", "write_out", "write_plot", "show_warnings"]


def _channel(res: Result) -> np.ndarray | None:
    from mechopt.results.result import _channel_matrix

    return _channel_matrix(res.mechanism)


#: Largest channel Q (entries) written into a JSON design document; a larger one is named, not listed
#: (10⁷ entries are ~200 MB of JSON text; ``--out FILE.npy`` writes any Q in binary).
JSON_MAX_ENTRIES = 10_000_000


def design_document(problem: Any, res: Result, notes: list[str] | None = None) -> dict[str, Any]:
    """The one design document: printed by ``--json`` and written by ``--out``.

    :meth:`Result.to_dict` with the problem's prior in ``mechanism`` (a
    channel: ``{"Q", "inputs", "outputs", "prior"}``) and the ``notes``. A
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
    from mechopt.results.result import mechanism_dict

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
        doc["mechanism"] = mechanism_dict(res.mechanism, prior=getattr(problem, "prior", None))
    return {**doc, "notes": list(notes or [])}


def write_out(path: str, res: Result, doc: dict[str, Any] | None) -> None:
    """Write the design document ``doc`` to ``path`` (JSON), or only the channel Q for a ``.npy`` path."""
    from mechopt.io.writer import write_bytes, write_text
    from mechopt.results._json import dumps

    if not res.status.has_solution:
        raise ProblemError(f"no mechanism to write to {path!r}: status {res.status.value} ({res.message})")
    if path.lower().endswith(".npy"):
        Q = _channel(res)
        if Q is None:
            raise ProblemError(
                f"--out {path!r}: a .npy file holds a channel matrix Q, and this result's mechanism is "
                f"a {type(res.mechanism).__name__}; write it to a .json file"
            )
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(Q, dtype=float), allow_pickle=False)
        write_bytes(path, buf.getvalue())
        print(
            f"mechopt: note: {path} holds Q only ({Q.shape[0]} x {Q.shape[1]}); the prior is not in it, so give "
            "mechopt audit --prior for lip and mip",
            file=sys.stderr,
        )
        return
    Q = _channel(res)
    if Q is not None and Q.size > JSON_MAX_ENTRIES:
        raise ProblemError(
            f"--out {path!r}: Q has {Q.size} entries, more than the {JSON_MAX_ENTRIES} a JSON design "
            "document carries; write it to a .npy file"
        )
    write_text(path, dumps(doc) + "\n")
    if Q is None:
        print(
            f"mechopt: note: {path} holds a {type(res.mechanism).__name__} mechanism, not a channel Q; "
            "mechopt audit reads channels only",
            file=sys.stderr,
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


def matrix_lines(Q: np.ndarray) -> list[str]:
    """The rows of Q for the report, one line per input; a large Q shows its first and last rows and columns.

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

    out = ["  ..." if x is None else "  x=" + str(x).ljust(3) + " " + " ".join(cell(x, y) for y in cols) for x in rows]
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
    lines = [
        f"problem      {getattr(problem, 'id', type(problem).__name__)}",
        f"solver       {res.solver}",
        f"status       {status_line(res, _guarantee(res.solver))}",
        f"value        {fmt(res.value, 10)}{' ' + res.unit if res.unit else ''}  "
        f"({res.objective}, {'minimised' if res.sense == 'min' else 'maximised'})",
        f"privacy      {res.notion or '-'}  eps={fmt(res.eps)}  audited eps={fmt(res.eps_audited)}"
        f"  violation={fmt(res.violation, 3)}",
        "certificate  "
        + (
            "none (this method gives no bound)"
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
        lines += matrix_lines(Q)
    elif res.mechanism is not None:
        import textwrap

        from mechopt.results.result import jsonable

        data = textwrap.wrap(json.dumps(jsonable(res.mechanism)), 96)
        lines.append(f"mechanism    {type(res.mechanism).__name__}")
        lines += ["  " + ln for ln in data[:12]] + (["  ... (--json for all of it)"] if len(data) > 12 else [])
    return "\n".join(lines)


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
