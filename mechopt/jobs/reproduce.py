"""``mechopt reproduce``: run the figure/table reproductions registered by the papers.

Each paper's :mod:`mechopt.figures` module exposes ``FIGURES = {id: Figure}``;
:func:`reproduce` runs the requested ones into an output folder (PNG plus the
data as CSV/JSON) and reports what each wrote and found. A reproduction that
crashes is reported with ``status = "error"`` and its message; the others run.
A figure's legend says what each curve is (certified optimum, closed form,
closed form not private at this ε, locally optimal, heuristic, Monte-Carlo of
a non-private mechanism; :mod:`mechopt.figures.legend`); its ``data["legend"]``
holds those legend entries read back from the drawn figure and its ``notes``
one line per curve with the same status words.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> from mechopt.figures import Figure, FigureOutput
>>> from mechopt.jobs.reproduce import reproduce
>>> def run(out_dir, quick=False):
...     p = Path(out_dir) / "demo.csv"; p.write_text("x,y\\n0,1\\n")
...     return FigureOutput(id="demo.fig1", files=[p], data={"y": [1]})
>>> figs = {"demo.fig1": Figure(id="demo.fig1", title="demo", run=run, paper="demo")}
>>> rep = reproduce(["demo.fig1"], tempfile.mkdtemp(), figures=figs)
>>> rep[0]["status"], [Path(f).name for f in rep[0]["files"]]
('ok', ['demo.csv'])
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError
from mechopt.runtime.progress import Progress

__all__ = ["reproduce", "list_figures", "STAGING_PREFIX"]

STAGING_PREFIX = ".staging-"  # hidden folders a figure writes into before its files are published


def _table(figures: Mapping[str, Any] | None) -> Mapping[str, Any]:
    if figures is not None:
        return figures
    from mechopt.registry import figures as registered

    return registered()


def list_figures(figures: Mapping[str, Any] | None = None) -> list[dict[str, str]]:
    """Id, paper and title of every registered figure/table.

    Examples
    --------
    >>> from mechopt.figures import Figure
    >>> list_figures({"x.fig1": Figure(id="x.fig1", title="T", run=print, paper="x")})
    [{'id': 'x.fig1', 'paper': 'x', 'title': 'T'}]
    """
    return [
        {"id": fid, "paper": getattr(f, "paper", ""), "title": getattr(f, "title", "")}
        for fid, f in sorted(_table(figures).items())
    ]


def reproduce(
    ids: Sequence[str],
    out_dir: str | Path,
    *,
    quick: bool = False,
    figures: Mapping[str, Any] | None = None,
    progress: bool | None = False,
) -> list[dict[str, Any]]:
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
    if figures is None:  # every registered figure draws a PNG
        from mechopt.runtime.optional import require_matplotlib

        require_matplotlib()
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ParamError(f"cannot create output folder {str(out)!r}: {exc.strerror or exc}") from None
    _clean_stale(out)
    reports = []
    with Progress(len(wanted), "reproduce", enabled=progress) as bar:
        for fid in wanted:
            reports.append(_run_one(fid, table[fid], out, quick))
            bar.advance(fid)
    return reports


def _run_one(fid: str, fig: Any, out: Path, quick: bool) -> dict[str, Any]:
    """Run one figure in a private staging folder, then move its files into ``out`` one by one
    with ``os.replace``: a run killed at any point leaves every output either complete or as
    it was (never a half-written PNG, CSV or JSON), and a crashed figure leaves nothing."""
    rep: dict[str, Any] = {
        "id": fid,
        "title": getattr(fig, "title", ""),
        "paper": getattr(fig, "paper", ""),
        "status": "ok",
        "files": [],
        "data": None,
        "notes": [],
        "error": None,
    }
    t0 = time.perf_counter()
    stage = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}.{fid[:80]}.", dir=out))
    try:
        res = fig.run(stage, quick=quick)
        moved = _publish(stage, out)
        rep.update(
            files=[str(moved.get(Path(f).resolve(), f)) for f in res.files],
            data=_relocate(res.data, stage, out),
            notes=_relocate(list(res.notes), stage, out),
        )
    except Exception as exc:  # one figure's crash is reported; the others still run
        rep.update(status="error", error=f"{type(exc).__name__}: {exc}")
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    rep["time_s"] = time.perf_counter() - t0
    return rep


def _publish(stage: Path, out: Path) -> dict[Path, Path]:
    """Move every file under ``stage`` to the same relative place under ``out`` (atomic per file).

    Every destination is checked first (:func:`mechopt.io.writer.target`: a folder, a socket or a
    dangling link in the way refuses the figure before any file is published); each file is then
    renamed over a regular or missing destination, or copied into a device or FIFO, never
    replacing one (:func:`mechopt.io.writer.place`)."""
    from mechopt.io.writer import place, target

    srcs = sorted(p for p in stage.rglob("*") if p.is_file())
    for src in srcs:
        dst = out / src.relative_to(stage)
        if dst.parent != out and (dst.parent.is_symlink() or (dst.parent.exists() and not dst.parent.is_dir())):
            raise ParamError(f"cannot write {str(dst)!r}: {str(dst.parent)!r} is not a folder")
        target(dst)
    moved: dict[Path, Path] = {}
    for src in srcs:
        dst = out / src.relative_to(stage)
        dst.parent.mkdir(parents=True, exist_ok=True)
        place(src, dst)
        moved[src.resolve()] = dst
    return moved


def _relocate(obj: Any, stage: Path, out: Path) -> Any:
    """``obj`` with every path (or string) under ``stage`` pointing to the same place under ``out``."""
    if isinstance(obj, dict):
        return {k: _relocate(v, stage, out) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_relocate(v, stage, out) for v in obj)
    if isinstance(obj, (str, Path)):
        text = str(obj)
        for root in {str(stage), str(stage.resolve())}:
            if text.startswith(root):
                new = str(out) + text[len(root) :]
                return Path(new) if isinstance(obj, Path) else new
    return obj


def _clean_stale(out: Path) -> None:
    """Remove staging folders left behind by killed runs: real folders of this user named
    ``.staging-PID.*`` whose process is gone (a running reproduce keeps its own; links are never followed)."""
    from mechopt.io.writer import pid_alive

    for p in out.glob(f"{STAGING_PREFIX}*"):
        pid = p.name[len(STAGING_PREFIX) :].split(".", 1)[0]
        try:
            st = p.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(p, ignore_errors=True)
