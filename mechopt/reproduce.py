"""``mechopt reproduce``: run the figure/table reproductions registered by the papers.

Each paper's :mod:`mechopt.figures` module exposes ``FIGURES = {id: Figure}``;
:func:`reproduce` runs the requested ones into an output folder (PNG plus the
data as CSV/JSON) and reports what each wrote and found. A reproduction that
crashes is reported with ``status = "error"`` and its message; the others run.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from mechopt.figures import Figure, FigureOutput
>>> from mechopt.reproduce import reproduce
>>> def run(out_dir, quick=False):
...     p = Path(out_dir) / "demo.csv"; p.write_text("x,y\\n0,1\\n")
...     return FigureOutput(id="demo.fig1", files=[p], data={"y": [1]})
>>> figs = {"demo.fig1": Figure(id="demo.fig1", title="demo", run=run, paper="demo")}
>>> rep = reproduce(["demo.fig1"], tempfile.mkdtemp(), figures=figs)
>>> rep[0]["status"], [Path(f).name for f in rep[0]["files"]]
('ok', ['demo.csv'])
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .errors import ParamError
from .progress import Progress

__all__ = ["reproduce", "list_figures"]


def _table(figures: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if figures is not None:
        return figures
    from .registry import figures as registered

    return registered()


def list_figures(figures: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """Id, paper and title of every registered figure/table.

    Examples
    --------
    >>> from mechopt.figures import Figure
    >>> list_figures({"x.fig1": Figure(id="x.fig1", title="T", run=print, paper="x")})
    [{'id': 'x.fig1', 'paper': 'x', 'title': 'T'}]
    """
    return [{"id": fid, "paper": getattr(f, "paper", ""), "title": getattr(f, "title", "")}
            for fid, f in sorted(_table(figures).items())]


def reproduce(ids: Sequence[str], out_dir: str | Path, *, quick: bool = False,
              figures: Mapping[str, Any] | None = None, progress: bool | None = False) -> list[dict[str, Any]]:
    """Run the figures ``ids`` (``"all"`` for every one) writing into ``out_dir``.

    Returns one report per figure: ``id``, ``title``, ``paper``, ``status``
    (``ok`` or ``error``), ``files``, ``data``, ``notes``, ``error``, ``time_s``.
    Unknown ids raise :class:`~mechopt.errors.ParamError` before anything runs.
    """
    table = _table(figures)
    wanted = list(table) if list(ids) == ["all"] else list(dict.fromkeys(ids))
    if not wanted:
        raise ParamError("name at least one FIGURE_ID (or 'all'; --list shows them)")
    unknown = [i for i in wanted if i not in table]
    if unknown:
        raise ParamError(f"unknown figure id(s) {unknown}; known: {', '.join(sorted(table)) or 'none registered'}")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParamError(f"cannot create output folder {str(out)!r}: {exc.strerror or exc}") from None
    reports = []
    with Progress(len(wanted), "reproduce", enabled=progress) as bar:
        for fid in wanted:
            reports.append(_run_one(fid, table[fid], out, quick))
            bar.advance(fid)
    return reports


def _run_one(fid: str, fig: Any, out: Path, quick: bool) -> dict[str, Any]:
    rep: dict[str, Any] = {"id": fid, "title": getattr(fig, "title", ""), "paper": getattr(fig, "paper", ""),
                           "status": "ok", "files": [], "data": None, "notes": [], "error": None}
    t0 = time.perf_counter()
    try:
        res = fig.run(out, quick=quick)
        rep.update(files=[str(f) for f in res.files], data=res.data, notes=list(res.notes))
    except Exception as exc:   # one figure's crash is reported; the others still run
        rep.update(status="error", error=f"{type(exc).__name__}: {exc}")
    rep["time_s"] = time.perf_counter() - t0
    return rep
