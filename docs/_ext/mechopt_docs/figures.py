"""``.. mechopt-figures:: :paper: P``: a paper's figure reproductions, run in quick mode.

Each reproduction's images and notes are stored in the results cache, keyed on the figure id and
the code; an unchanged rebuild copies the images back instead of re-running the reproduction.
``MECHOPT_DOCS_FIGURES=off`` or ``MECHOPT_DOCS_FAST=1`` only lists them (and says so).
"""

from __future__ import annotations

import importlib
import os
import time
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import cache
from .common import esc, note_code_page, parse_rst

logger = logging.getLogger(__name__)
IMAGE_SUFFIXES = (".png", ".svg", ".jpg")


def reproduce(fig: Any, out: Path) -> dict[str, Any]:
    """Run one reproduction in quick mode into ``out``: its images, notes and time (the expensive part)."""
    t0 = time.perf_counter()
    res = fig.run(out, quick=True)
    images = [Path(f) for f in res.files if Path(f).suffix.lower() in IMAGE_SUFFIXES and Path(f).exists()]
    return {
        "images": [str(f) for f in images],
        "notes": [str(n) for n in (getattr(res, "notes", None) or [])],
        "time_s": time.perf_counter() - t0,
    }


def cached_reproduction(store: cache.ResultsCache, fid: str, fig: Any, out: Path) -> tuple[dict[str, Any], bool]:
    """(value with image names inside ``out``, whether it came from the cache)."""
    args = {"figure": fid, "quick": True}
    out.mkdir(parents=True, exist_ok=True)
    hit = store.get("figure", args, files_to=out)
    if hit is not None and all((out / name).exists() for name in hit["images"]):
        return hit, True
    value = reproduce(fig, out)
    files = [Path(f) for f in value["images"]]
    value["images"] = [f.name for f in files]
    store.put("figure", args, value, files=files)
    for f in files:  # written elsewhere: copy it next to the page's other images
        if f.resolve().parent != out.resolve():
            import shutil

            shutil.copy2(f, out / f.name)
    return value, False


def figures_rst(directive: SphinxDirective, paper: str) -> str:
    try:
        module = importlib.import_module(f"mechopt.figures.{paper}")
    except Exception as exc:  # a warning, so that ``-W`` fails the build
        logger.warning(
            f"mechopt-figures: cannot import mechopt.figures.{paper}: {type(exc).__name__}: {exc}",
            location=directive.get_location(),
        )
        return f"*The figure module failed to import* ({esc(exc)}).\n"
    figs = dict(getattr(module, "FIGURES", {}) or {})
    if not figs:
        return (
            f"*No figure reproductions registered yet for this paper* "
            f"(``mechopt.figures.{paper}``). Once they are: ``mechopt reproduce ID --out figures/``.\n"
        )
    mode = "off" if cache.fast() else os.environ.get("MECHOPT_DOCS_FIGURES", "quick")
    lines = [
        "Reproduce any of them with ``mechopt reproduce ID --out figures/`` (add ``--json`` for the data):",
        "",
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 20 50 30",
        "",
        "   * - id",
        "     - what",
        "     - command",
    ]
    for fid, fig in figs.items():
        lines += [
            f"   * - ``{fid}``",
            f"     - {esc(getattr(fig, 'title', ''))}",
            f"     - ``mechopt reproduce {fid} --out figures/``",
        ]
    lines.append("")
    if mode != "quick":
        why = "MECHOPT_DOCS_FAST=1" if cache.fast() else f"MECHOPT_DOCS_FIGURES={mode}"
        return "\n".join(lines + [f"*The figures were not reproduced in this build* (``{why}``).", ""])
    store = cache.cache_for(directive.env.app)
    src_root = Path(directive.env.srcdir).resolve()
    for fid, fig in figs.items():
        out = src_root / "_generated" / "figures" / fid
        try:
            value, cached = cached_reproduction(store, fid, fig, out)
        except Exception as exc:
            logger.warning(
                f"mechopt-figures: reproduction {fid} failed: {type(exc).__name__}: {exc}",
                location=directive.get_location(),
            )
            lines += [f".. rubric:: {fid}", "", f"*Reproduction failed during the build*: {esc(exc)}", ""]
            continue
        lines += [f".. rubric:: {fid}: {esc(getattr(fig, 'title', ''))}", ""]
        for name in value["images"]:
            rel = "/" + (out / name).relative_to(src_root).as_posix()
            lines += [f".. image:: {rel}", "   :width: 75%", f"   :alt: {esc(getattr(fig, 'title', fid))}", ""]
        when = "on this code (cached from an earlier build)" if cached else "during this build"
        lines.append(
            f"Reproduced {when} in quick mode (smaller sizes), {value['time_s']:.1f} s; "
            f"``mechopt reproduce {fid}`` gives the full-size version."
        )
        lines += [f"- {esc(note)}" for note in value["notes"]] + [""]
    return "\n".join(lines)


class FiguresDirective(SphinxDirective):
    option_spec = {"paper": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        note_code_page(self)
        return parse_rst(self, figures_rst(self, self.options.get("paper", "")))
