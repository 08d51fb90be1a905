"""Figure and table reproductions, one module per paper, each exposing ``FIGURES``.

A figure is a :class:`Figure`: ``run(out_dir, quick=False)`` writes a PNG and
its data (CSV or JSON) into ``out_dir`` and returns a :class:`FigureOutput`.

Examples
--------
>>> from mechopt.figures import Figure
>>> Figure.__dataclass_fields__.keys() >= {"id", "title", "run"}
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["Figure", "FigureOutput", "write_data"]


@dataclass(frozen=True)
class FigureOutput:
    """What a reproduction wrote and found: files, the data, and flags."""

    id: str
    files: list[Path]
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)  # e.g. "row d=4 eps=1 does not reproduce"


@dataclass(frozen=True)
class Figure:
    id: str
    title: str
    run: Callable[..., FigureOutput]  # run(out_dir: Path, quick: bool = False) -> FigureOutput
    paper: str = ""


def write_data(out_dir: Path, fid: str, data: dict[str, Any], rows: list[dict[str, Any]]) -> list[Path]:
    """Write a figure's data as ``<fid>.json`` (everything) and ``<fid>.csv`` (the rows); return both paths."""
    import csv
    import json

    from mechopt.io.writer import text_file, write_text
    from mechopt.results.result import jsonable

    out_dir.mkdir(parents=True, exist_ok=True)
    jpath = out_dir / f"{fid}.json"
    write_text(jpath, json.dumps(jsonable(data), indent=1))
    cpath = out_dir / f"{fid}.csv"
    if rows:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with text_file(cpath) as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(jsonable(rows))
    return [jpath, cpath]
