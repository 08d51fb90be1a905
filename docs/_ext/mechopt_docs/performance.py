"""``.. mechopt-performance::``: ``benchmarks/RESULTS.md`` when present, else how to produce it."""
from __future__ import annotations

import re
import textwrap
import time
from pathlib import Path

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from .common import note_code_page, parse_rst, repo_root


def _promote_headings(lines: list[str]) -> list[str]:
    """Shift markdown headings up one level (## -> #), outside code fences, so the
    included document's sections start at the level MyST expects."""
    out, fence = [], False
    for line in lines:
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
        if not fence and re.match(r"^#{2,6} ", line):
            line = line[1:]
        out.append(line)
    return out


class PerformanceDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        note_code_page(self)   # re-read when the code (or the build key) changes
        results = repo_root() / "benchmarks" / "RESULTS.md"
        if results.exists():
            self.env.note_dependency(str(results))
            md = results.read_text(encoding="utf-8").splitlines()
            if md and md[0].startswith("# "):      # the page has its own title
                md = md[1:]
            md = _promote_headings(md)
            out = Path(self.env.srcdir) / "_generated" / "performance_results.md"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text("\n".join(md) + "\n", encoding="utf-8")
            head = f"From ``benchmarks/RESULTS.md`` ({time.strftime('%Y-%m-%d', time.gmtime(results.stat().st_mtime))}).\n\n"
            if "myst_parser" in self.config.extensions:
                text = head + ".. include:: /_generated/performance_results.md\n   :parser: myst_parser.sphinx_\n"
            else:
                text = head + ".. literalinclude:: /_generated/performance_results.md\n   :language: markdown\n"
            return parse_rst(self, text)
        return parse_rst(self, textwrap.dedent("""\
            .. note::

               No benchmark results in this checkout yet (``benchmarks/RESULTS.md`` is missing).
               Produce them on your machine with::

                   pip install -e ".[bench]"
                   mechopt bench                                   # the full suite; writes benchmarks/RESULTS.md
                   mechopt bench --quick --out benchmarks/RESULTS.md  # a smoke run at small sizes

               then rebuild the documentation; this page includes the file, with the machine
               description and the command that produced it.
            """))

