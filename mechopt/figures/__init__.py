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

__all__ = ["Figure", "FigureOutput"]


@dataclass(frozen=True)
class FigureOutput:
    """What a reproduction wrote and found: files, the data, and flags."""

    id: str
    files: list[Path]
    data: dict[str, Any]
    notes: list[str] = field(default_factory=list)   # e.g. "row d=4 eps=1 does not reproduce"


@dataclass(frozen=True)
class Figure:
    id: str
    title: str
    run: Callable[..., FigureOutput]   # run(out_dir: Path, quick: bool = False) -> FigureOutput
    paper: str = ""
