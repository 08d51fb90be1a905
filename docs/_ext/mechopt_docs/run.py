"""``.. mechopt-run::``: commands run during the build, shown with their output.

A run directive's output, and the files its commands wrote in the shared scratch directory (a
later directive may read them, e.g. ``audit mech.json``), are stored in the results cache keyed
on the commands, their options and the code; an unchanged rebuild restores both without running.
"""

from __future__ import annotations

import importlib
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import cache
from .common import note_code_page

logger = logging.getLogger(__name__)
_SCRATCH: dict[str, Path] = {}
MAX_KEPT_FILE = 1 << 20  # files a command wrote are kept in the cache up to this size


def scratch_dir() -> Path:
    if "dir" not in _SCRATCH:
        _SCRATCH["dir"] = Path(tempfile.mkdtemp(prefix="mechopt-docs-"))
    return _SCRATCH["dir"]


def _snapshot(d: Path) -> dict[str, float]:
    return {p.name: p.stat().st_mtime_ns for p in d.iterdir() if p.is_file()}


class RunDirective(SphinxDirective):
    """Commands to copy; they run during the build (or come from the cache) and show their output.

    ``:exit: N`` is the exit code every command is expected to return (default 0; e.g. 1 for a
    design whose mechanism fails its audit); any other code is a build warning.
    """

    has_content = True
    option_spec = {
        "timeout": directives.positive_int,
        "no-run": directives.flag,
        "max-lines": directives.positive_int,
        "requires": directives.unchanged,
        "exit": directives.nonnegative_int,
    }

    def run(self) -> list[nodes.Node]:
        note_code_page(self)
        commands = [c for c in self.content if c.strip()]
        text = "\n".join(f"$ {c}" for c in commands)
        why = None
        if "no-run" not in self.options:
            missing = self._missing_solvers()
            if cache.fast() or os.environ.get("MECHOPT_DOCS_RUN", "1") == "0":
                why = "MECHOPT_DOCS_FAST=1" if cache.fast() else "MECHOPT_DOCS_RUN=0"
            elif missing:
                why = f"{', '.join(missing)} is not part of this build"
            else:
                text = self._cached_output(commands)
        block = nodes.literal_block(text, text)
        block["language"] = "console"
        out: list[nodes.Node] = [block]
        if why:
            para = nodes.paragraph()
            para += nodes.emphasis(text=f"(Not run during this documentation build: {why}.)")
            out.append(para)
        return out

    def _cached_output(self, commands: list[str]) -> str:
        store = cache.cache_for(self.env.app)
        args = {
            "commands": commands,
            "exit": self.options.get("exit", 0),
            "max-lines": self.options.get("max-lines", 60),
        }
        scratch = scratch_dir()
        hit = store.get("run", args, files_to=scratch)
        if hit is not None:
            return hit["text"]
        before = _snapshot(scratch)
        outputs = []
        for cmd in commands:
            outputs += [f"$ {cmd}", self._exec(cmd)]
        text = "\n".join(o for o in outputs if o)
        after = _snapshot(scratch)
        written = [
            scratch / n
            for n, t in after.items()
            if before.get(n) != t and (scratch / n).stat().st_size <= MAX_KEPT_FILE
        ]
        if not getattr(self, "_failed", False):
            store.put("run", args, {"text": text}, files=written)
        return text

    def _missing_solvers(self) -> list[str]:
        wanted = [w.strip() for w in self.options.get("requires", "").split(",") if w.strip()]
        if not wanted:
            return []
        from mechopt import registry

        names = registry.solver_names()
        missing = []
        for w in wanted:
            if "." in w:
                try:
                    importlib.import_module(w)
                except ImportError:
                    missing.append(w)
            elif w not in names:
                missing.append(w)
        return missing

    def _exec(self, cmd: str) -> str:
        argv = shlex.split(cmd)
        if argv and argv[0] == "mechopt":
            argv = [sys.executable, "-c", "import sys; from mechopt.cli import main; sys.exit(main())"] + argv[1:]
        env = {**os.environ, "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg", "COLUMNS": "100"}
        try:
            proc = subprocess.run(
                argv,
                cwd=scratch_dir(),
                capture_output=True,
                text=True,
                timeout=self.options.get("timeout", 120),
                env=env,
            )
        except subprocess.TimeoutExpired:
            self._failed = True
            logger.warning(f"mechopt-run: {cmd!r} timed out", location=self.get_location())
            return "(timed out during the docs build)"
        out = proc.stdout.rstrip()
        expected = self.options.get("exit", 0)
        if proc.returncode != expected:
            self._failed = True
            logger.warning(
                f"mechopt-run: {cmd!r} exited with {proc.returncode} (expected {expected}): "
                f"{proc.stderr.strip()[-300:]}",
                location=self.get_location(),
            )
            out = (out + "\n" + proc.stderr.rstrip()).strip()
        limit = self.options.get("max-lines", 60)
        lines = out.splitlines()
        if len(lines) > limit:
            lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
        return "\n".join(lines)
