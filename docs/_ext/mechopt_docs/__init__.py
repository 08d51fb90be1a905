"""Build-time pages for the mechopt documentation (a local Sphinx extension).

Directives:

``.. mechopt-verdicts::`` (options ``:paper:``, ``:findings:``, ``:summary:``)
    The theorem-verdict tables, rendered from the verify reports (:mod:`.verdicts`).
``.. mechopt-figures:: :paper: P``
    A paper's figure reproductions, run in quick mode, with their images (:mod:`.figures`).
``.. mechopt-run::``
    ``mechopt ...`` commands shown for copying, run during the build, with their output (:mod:`.run`).

The API reference is ``sphinx.ext.autosummary`` (templates in ``docs/_templates``), the
command reference ``sphinx-argparse`` and source listings ``literalinclude :pyobject:``; all make an
import error a build warning, so ``-W`` fails.

Cost: the expensive results (claims, figures, command runs) go through a results cache keyed on
the mechopt version and a hash of the code (:mod:`.cache`); the pages that show them are re-read
only when that key (or a switch) changes, so an unchanged rebuild re-runs nothing. Switches:
``MECHOPT_DOCS_FAST=1`` (skip the expensive parts, each page says so), ``MECHOPT_DOCS_REFRESH=1``
(ignore the cache), ``MECHOPT_DOCS_CACHE=DIR``; older ones: ``MECHOPT_DOCS_VERIFY=0``,
``MECHOPT_DOCS_VERDICTS=FILE.json``, ``MECHOPT_DOCS_FIGURES=quick|off``, ``MECHOPT_DOCS_RUN=0``,
``MECHOPT_DOCS_GALLERY=0``, ``MECHOPT_REPO_ROOT``.
"""

from __future__ import annotations

import os
from typing import Any

from . import cache
from .docstrings import process_docstring
from .figures import FiguresDirective
from .run import RunDirective
from .verdicts import VerdictsDirective

SWITCHES = (
    "MECHOPT_DOCS_FAST",
    "MECHOPT_DOCS_REFRESH",
    "MECHOPT_DOCS_VERIFY",
    "MECHOPT_DOCS_VERDICTS",
    "MECHOPT_DOCS_FIGURES",
    "MECHOPT_DOCS_RUN",
)


def page_key() -> str:
    """What the code pages depend on besides their source: the code and the switches."""
    return cache.build_key() + "|" + "|".join(f"{k}={os.environ.get(k, '')}" for k in SWITCHES)


def _outdated(app: Any, env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """Re-read the pages that show code results only when the code or a switch changed."""
    key = page_key()
    pages = getattr(env, "mechopt_code_pages", set())
    if getattr(env, "mechopt_page_key", None) == key and not cache.refresh():
        return []
    env.mechopt_page_key = key
    return sorted(p for p in pages if p in env.found_docs)


def _purge(app: Any, env: Any, docname: str) -> None:
    getattr(env, "mechopt_code_pages", set()).discard(docname)


def setup(app: Any) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", process_docstring, priority=400)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-purge-doc", _purge)
    app.add_directive("mechopt-verdicts", VerdictsDirective)
    app.add_directive("mechopt-figures", FiguresDirective)
    app.add_directive("mechopt-run", RunDirective)
    return {"version": "2.0", "parallel_read_safe": False, "parallel_write_safe": True}
