"""Build-time pages for the mechopt documentation (a local Sphinx extension).

Directives (each re-read on every build, because they depend on the code):

``.. mechopt-api:: THEME``
    The API reference of one theme (model, notions, utilities, problems,
    solvers, verification, simulation, cli): every module of ``mechopt`` that
    imports, with an autosummary table of its public objects and their
    autodoc entries. Modules that do not exist or fail to import are listed,
    not fatal.
``.. mechopt-verdicts::`` (option ``:paper:``)
    The theorem-verdict table, from running every registered claim
    (``mechopt.verify``); "no claims registered yet" when there are none.
``.. mechopt-figures::`` (option ``:paper:``)
    The figure/table reproductions of a paper with their ``mechopt
    reproduce`` commands and the images, reproduced during the build in
    quick mode (``MECHOPT_DOCS_FIGURES=off`` lists them only).
``.. mechopt-source:: dotted.name``
    The source code of a function or class (what builds a formulation).
``.. mechopt-run::``
    Shell commands (one per line, ``mechopt ...``) shown for copying, run
    during the build in a scratch directory, with their output.
``.. mechopt-performance::``
    ``benchmarks/RESULTS.md`` when present, else how to produce it.
``.. mechopt-cli-help::``
    The ``--help`` of ``mechopt`` and every subcommand, from the parser.
"""
from __future__ import annotations

import importlib
import inspect
import json
import math
import os
import pkgutil
import re
import shlex
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

PAPERS = {"lip": "Localized information privacy (Jiang, Li, Tandon)",
          "kss": "k-subset mechanism (Wang et al.)",
          "fisher": "Fisher information noise (Farokhi, Sandberg)",
          "gauss": "Gaussian privacy-utility tradeoff (Sharma, Amariucai)"}

THEMES = {
    "model": "Core model: channels, priors, results, errors, settings, forms, interfaces",
    "notions": "Privacy notions",
    "utilities": "Utilities and information measures",
    "problems": "Problems",
    "solvers": "Solvers",
    "verification": "Theorem claims, verification and figures",
    "simulation": "Simulation, oracles and data",
    "cli": "Command line and front end",
}

# Modules the project plans (the ownership table of the brief); every one must
# fall into a theme (tested).
PLANNED = ["mechopt.simulate", "mechopt.oracles.frequency", "mechopt.datasets", "mechopt.cli",
           "mechopt.compare", "mechopt.catalog", "mechopt.sweep", "mechopt.jobs.reproduce",
           "mechopt.jobs.bench", "mechopt.progress", "mechopt.solvers.exact", "mechopt.solvers.spectral",
           "mechopt.solvers.greedy", "mechopt.solvers.search", "mechopt.solvers.baselines",
           "mechopt.problems.lip", "mechopt.problems.cip", "mechopt.problems.kss",
           "mechopt.problems.fisher", "mechopt.problems.gauss", "mechopt.claims.lip",
           "mechopt.claims.kss", "mechopt.claims.fisher", "mechopt.claims.gauss",
           "mechopt.figures.lip", "mechopt.figures.kss", "mechopt.figures.fisher",
           "mechopt.figures.gauss"]


def repo_root() -> Path:
    env = os.environ.get("MECHOPT_REPO_ROOT")
    if env:
        return Path(env).resolve()
    here = Path(__file__).resolve().parents[2]
    if (here / "pyproject.toml").exists():
        return here
    import mechopt

    return Path(mechopt.__file__).resolve().parents[1]


# -- helpers ------------------------------------------------------------------
def esc(text: Any) -> str:
    """Escape text for an rst table cell (one line)."""
    s = " ".join(str(text).split())
    for ch in "\\*`_|":
        s = s.replace(ch, "\\" + ch)
    if s[:1] in "-+#:>." or s[:2].strip().isdigit():
        s = "\\" + s
    return s or "\\ "


def lit(text: Any) -> str:
    s = " ".join(str(text).split()).replace("`", "'")
    return f"``{s}``" if s else "\\ "


def fmt_num(x: Any) -> str:
    if x is None:
        return "—"
    try:
        v = float(x)
    except (TypeError, ValueError):
        return esc(x)
    if math.isinf(v):
        return "∞"
    if math.isnan(v):
        return "—"
    return f"{v:.3g}"


def _secs(x: Any) -> str:
    try:
        return f"{float(x):.1f}"
    except (TypeError, ValueError):
        return "—"


def parse_rst(directive: SphinxDirective, text: str) -> list[nodes.Node]:
    node = nodes.section()
    node.document = directive.state.document
    lines = StringList(text.splitlines(), source=directive.get_source_info()[0])
    nested_parse_with_titles(directive.state, lines, node)
    return node.children


# -- API ----------------------------------------------------------------------
def _all_modules() -> list[str]:
    import mechopt

    names = {"mechopt"}
    for info in pkgutil.walk_packages(mechopt.__path__, "mechopt.", onerror=lambda name: None):
        names.add(info.name)
    for sub in ("mechopt.solvers", "mechopt.problems"):
        try:
            pkg = importlib.import_module(sub)
        except Exception:  # pragma: no cover - part of the spine
            continue
        names.add(sub)
        names.update(i.name for i in pkgutil.walk_packages(pkg.__path__, sub + ".", onerror=lambda n: None))
    return sorted(n for n in names if not any(part.startswith("_") for part in n.split(".")))


def theme_of(mod: str) -> str:
    if mod.startswith("mechopt.notions"):
        return "notions"
    if mod in ("mechopt.utilities", "mechopt.info"):
        return "utilities"
    if mod.startswith("mechopt.problems"):
        return "problems"
    if mod.startswith("mechopt.solvers"):
        return "solvers"
    if mod == "mechopt.verify" or mod.startswith(("mechopt.claims", "mechopt.figures")):
        return "verification"
    if mod.split(".")[1:2] and mod.split(".")[1].startswith(("simulate", "oracles", "datasets", "sweep", "peers")):
        return "simulation"
    if mod.startswith(("mechopt.cli", "mechopt.compare")) or mod in ("mechopt.catalog", "mechopt.jobs.reproduce",
                                                                     "mechopt.jobs.bench", "mechopt.progress",
                                                                     "mechopt.plots"):
        return "cli"
    return "model"


_IMPORT_CACHE: dict[str, tuple[Any, str | None]] = {}


def try_import(mod: str) -> tuple[Any, str | None]:
    if mod not in _IMPORT_CACHE:
        try:
            _IMPORT_CACHE[mod] = (importlib.import_module(mod), None)
        except Exception as exc:  # a module under construction must not break the docs
            _IMPORT_CACHE[mod] = (None, f"{type(exc).__name__}: {exc}".splitlines()[0][:200])
    return _IMPORT_CACHE[mod]


def public_members(module: Any) -> list[tuple[str, str]]:
    """(name, kind) of the public classes and functions defined in ``module``."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n in vars(module) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name, None)
        if obj is None or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isclass(obj):
            out.append((name, "class"))
        elif inspect.isfunction(obj):
            out.append((name, "function"))
    return out


def module_rst(modname: str, module: Any) -> str:
    members = public_members(module)
    title = f"``{modname}``"
    lines = [title, "~" * len(title), "", f".. automodule:: {modname}", "   :no-members:", ""]
    if modname == "mechopt":
        members_ext = []
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name, None)
            owner = getattr(obj, "__module__", None)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and owner:
                members_ext.append(f"{owner}.{name}".removeprefix("mechopt."))
        if members_ext:
            lines += ["The names exported at the top level (documented in their modules):", "",
                      ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   ~{m}" for m in members_ext] + [""]
        return "\n".join(lines)
    if not members:
        return "\n".join(lines)
    lines += [".. autosummary::", "   :nosignatures:", ""]
    lines += [f"   {name}" for name, _ in members] + [""]
    for name, kind in members:
        if kind == "class":
            lines += [f".. autoclass:: {modname}.{name}", "   :members:", "   :show-inheritance:", ""]
        else:
            lines += [f".. autofunction:: {modname}.{name}", ""]
    return "\n".join(lines)


def api_rst(theme: str) -> str:
    mods = [m for m in _all_modules() if theme_of(m) == theme]
    parts, missing = [], []
    for mod in mods:
        module, err = try_import(mod)
        if module is None:
            missing.append((mod, err))
            continue
        parts.append(module_rst(mod, module))
    if not parts:
        parts.append("*No module of this theme is part of this build yet.*\n")
    if missing:
        parts.append(".. rubric:: Modules that failed to import in this build\n")
        for mod, err in missing:
            parts.append(f"- ``{mod}``: {esc(err)}")
        parts.append("")
    return "\n\n".join(parts)


class ApiDirective(SphinxDirective):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        theme = self.arguments[0]
        if theme not in THEMES:
            raise self.error(f"unknown API theme {theme!r}; known: {', '.join(THEMES)}")
        return parse_rst(self, api_rst(theme))


# -- verdicts -----------------------------------------------------------------
_VERDICTS: dict[str, Any] = {}


def run_claims() -> dict[str, Any]:
    """Run every registered claim once per build; a crashing check is an ``error`` row."""
    if _VERDICTS:
        return _VERDICTS
    if os.environ.get("MECHOPT_DOCS_VERIFY", "1") == "0":
        _VERDICTS.update(skipped=True, rows=[], time_s=0.0, load_error=None, source=None)
        return _VERDICTS
    report = os.environ.get("MECHOPT_DOCS_VERDICTS")
    if report:   # a saved ``mechopt verify --json`` report: reuse it instead of re-running
        data = json.loads(Path(report).read_text(encoding="utf-8"))
        rows = data["claims"] if isinstance(data, dict) else data
        _VERDICTS.update(skipped=False, rows=rows, load_error=None, source=report,
                         time_s=sum(float(r.get("time_s") or 0.0) for r in rows))
        return _VERDICTS
    from mechopt import registry

    t0 = time.perf_counter()
    rows, load_error = [], None
    try:
        claims = registry.claims()
    except Exception as exc:
        claims, load_error = [], f"{type(exc).__name__}: {exc}"
    for claim in claims:
        try:
            rows.append(claim.run().to_dict())
        except Exception as exc:
            rows.append({"id": claim.id, "paper": claim.paper, "statement": claim.statement,
                         "domain": claim.domain, "verdict": "error", "checked": 0,
                         "worst_deviation": None, "counterexample": None, "region": None,
                         "note": f"the check raised {type(exc).__name__}: {exc}", "time_s": 0.0})
    _VERDICTS.update(skipped=False, rows=rows, time_s=time.perf_counter() - t0, load_error=load_error, source=None)
    logger.info(f"[mechopt_docs] ran {len(rows)} theorem claims in {_VERDICTS['time_s']:.1f} s")
    return _VERDICTS


def verdict_rst(paper: str | None) -> str:
    data = run_claims()
    if data["skipped"]:
        return ("*The claims were not run in this build* (``MECHOPT_DOCS_VERIFY=0``). "
                "Run ``mechopt verify`` to see the verdicts.\n")
    rows = [r for r in data["rows"] if paper is None or r["paper"] == paper]
    lines = []
    if data["load_error"]:
        lines += [f".. warning:: The claim modules failed to load: {esc(data['load_error'])}", ""]
    if not rows:
        who = f" for the {paper} paper" if paper else ""
        return "\n".join(lines + [f"*No claims registered yet{who}* (``mechopt.claims``).", ""])
    from mechopt.jobs.verify import render_rst

    lines.append(render_rst(rows, paper))
    lines.append("")
    if paper is None:
        if data.get("source"):
            lines.append(f"Read from the saved report ``{Path(data['source']).name}`` (``MECHOPT_DOCS_VERDICTS``).")
        else:
            lines.append(f"All claims ran in {data['time_s']:.1f} s during this build.")
    return "\n".join(lines) + "\n"


def findings_rst(paper: str | None) -> str:
    """A readable list of the claims that do not simply hold (before the full table)."""
    data = run_claims()
    rows = [r for r in data["rows"] if (paper is None or r["paper"] == paper) and r["verdict"] != "holds"]
    if data["skipped"] or not rows:
        return ""
    lines = [".. rubric:: What the checks found", "",
             "Claims that do not hold as stated (each is detailed below):", ""]
    for r in rows:
        text = f"- ``{r['id']}`` — **{esc(r['verdict'])}**: {esc(r['statement'])}."
        if r.get("region"):
            text += f" Holds for {esc(r['region'])}."
        ce = r.get("counterexample") or {}
        if ce:
            short = {k: v for k, v in ce.items() if not isinstance(v, (list, dict))}
            text += " Smallest counterexample: " + lit(json.dumps(short, sort_keys=True, default=str)) + "."
        lines.append(text)
    return "\n".join(lines + [""])


def summary_rst() -> str:
    """One line per paper: how many claims hold, fail, hold in a region."""
    data = run_claims()
    if data["skipped"]:
        return "*The claims were not run in this build.*\n"
    if not data["rows"]:
        return "*No claims registered yet.*\n"
    lines = [".. list-table::", "   :header-rows: 1", "", "   * - paper", "     - claims", "     - holds",
             "     - holds in region", "     - fails", "     - other"]
    for paper in sorted({r["paper"] for r in data["rows"]}):
        rows = [r for r in data["rows"] if r["paper"] == paper]
        n = {v: sum(r["verdict"] == v for r in rows) for v in ("holds", "holds-in-region", "fails")}
        other = len(rows) - sum(n.values())
        link = f":doc:`{paper} </papers/{paper}>`" if paper in PAPERS else esc(paper)
        lines += [f"   * - {link}", f"     - {len(rows)}", f"     - {n['holds']}", f"     - {n['holds-in-region']}",
                  f"     - {n['fails']}", f"     - {other}"]
    return "\n".join(lines + [""])


class VerdictsDirective(SphinxDirective):
    option_spec = {"paper": directives.unchanged, "findings": directives.flag, "summary": directives.flag}

    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        if "summary" in self.options:
            return parse_rst(self, summary_rst())
        paper = self.options.get("paper")
        text = verdict_rst(paper)
        if "findings" in self.options:
            text = findings_rst(paper) + "\n" + text
        return parse_rst(self, text)


# -- figures ------------------------------------------------------------------
def figures_rst(directive: SphinxDirective, paper: str) -> str:
    module, err = try_import(f"mechopt.figures.{paper}")
    if module is None and err and "No module named" not in err:
        return f"*The figure module failed to import* ({esc(err)}).\n"
    figs = dict(getattr(module, "FIGURES", {}) or {}) if module is not None else {}
    if not figs:
        return (f"*No figure reproductions registered yet for this paper* "
                f"(``mechopt.figures.{paper}``). Once they are: ``mechopt reproduce ID --out figures/``.\n")
    mode = os.environ.get("MECHOPT_DOCS_FIGURES", "quick")
    lines = ["Reproduce any of them with ``mechopt reproduce ID --out figures/`` (add ``--json`` for the data):", "",
             ".. list-table::", "   :header-rows: 1", "   :widths: 20 50 30", "",
             "   * - id", "     - what", "     - command"]
    for fid, fig in figs.items():
        lines += [f"   * - ``{fid}``", f"     - {esc(getattr(fig, 'title', ''))}",
                  f"     - ``mechopt reproduce {fid} --out figures/``"]
    lines.append("")
    if mode == "quick":
        out_root = Path(directive.env.srcdir) / "_generated" / "figures"
        for fid, fig in figs.items():
            out = out_root / fid
            out.mkdir(parents=True, exist_ok=True)
            try:
                t0 = time.perf_counter()
                res = fig.run(out, quick=True)
                dt = time.perf_counter() - t0
            except Exception as exc:
                lines += [f".. rubric:: {fid}", "", f"*Reproduction failed during the build*: {esc(exc)}", ""]
                continue
            lines += [f".. rubric:: {fid}: {esc(getattr(fig, 'title', ''))}", ""]
            for f in res.files:
                f = Path(f)
                if f.suffix.lower() in (".png", ".svg", ".jpg") and f.exists():
                    src_root = Path(directive.env.srcdir).resolve()
                    if not f.resolve().is_relative_to(src_root):   # written elsewhere: copy it in
                        import shutil

                        f = Path(shutil.copy(f, out / f.name))
                    rel = "/" + f.resolve().relative_to(src_root).as_posix()
                    lines += [f".. image:: {rel}", "   :width: 75%", f"   :alt: {esc(getattr(fig, 'title', fid))}", ""]
            lines.append(f"Reproduced during this build in quick mode (smaller sizes), {dt:.1f} s; "
                         f"``mechopt reproduce {fid}`` gives the full-size version.")
            for note in getattr(res, "notes", []) or []:
                lines.append(f"- {esc(note)}")
            lines.append("")
    return "\n".join(lines)


class FiguresDirective(SphinxDirective):
    option_spec = {"paper": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        return parse_rst(self, figures_rst(self, self.options.get("paper", "")))


# -- source -------------------------------------------------------------------
class SourceDirective(SphinxDirective):
    """Show the source of ``dotted.name`` (module attribute path)."""

    required_arguments = 1
    option_spec = {"caption": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        target = self.arguments[0]
        obj, err = self._resolve(target)
        if obj is None:
            para = nodes.paragraph()
            para += nodes.emphasis(text=f"{target} is not part of this build yet ({err}).")
            return [para]
        try:
            src = textwrap.dedent(inspect.getsource(obj))
            path = inspect.getsourcefile(obj) or ""
        except (OSError, TypeError) as exc:
            para = nodes.paragraph()
            para += nodes.emphasis(text=f"no source available for {target} ({exc}).")
            return [para]
        block = nodes.literal_block(src, src)
        block["language"] = "python"
        rel = Path(path).resolve()
        try:
            rel = rel.relative_to(repo_root())
        except ValueError:
            pass
        caption = self.options.get("caption", f"{target} ({rel.as_posix()})")
        container = nodes.container("", literal_block=True, classes=["literal-block-wrapper"])
        container += nodes.caption(caption, caption)
        container += block
        return [container]

    @staticmethod
    def _resolve(target: str) -> tuple[Any, str | None]:
        parts = target.split(".")
        for i in range(len(parts), 0, -1):
            module, err = try_import(".".join(parts[:i]))
            if module is None:
                continue
            obj = module
            try:
                for attr in parts[i:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                return None, f"no attribute {'.'.join(parts[i:])} in {'.'.join(parts[:i])}"
            return obj, None
        return None, "module not found"


# -- CLI runs -----------------------------------------------------------------
_SCRATCH: dict[str, Path] = {}


def scratch_dir() -> Path:
    if "dir" not in _SCRATCH:
        _SCRATCH["dir"] = Path(tempfile.mkdtemp(prefix="mechopt-docs-"))
    return _SCRATCH["dir"]


def cli_available() -> bool:
    module, _ = try_import("mechopt.cli")
    return module is not None and hasattr(module, "main")


class RunDirective(SphinxDirective):
    """Commands to copy; with the CLI installed they run during the build and show their output.

    ``:exit: N`` is the exit code every command is expected to return (default 0; e.g. 1 for a
    design whose mechanism fails its audit); any other code is a build warning.
    """

    has_content = True
    option_spec = {"timeout": directives.positive_int, "no-run": directives.flag,
                   "max-lines": directives.positive_int, "requires": directives.unchanged,
                   "exit": directives.nonnegative_int}

    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        commands = [c for c in self.content if c.strip()]
        text = "\n".join(f"$ {c}" for c in commands)
        run = "no-run" not in self.options and cli_available() and os.environ.get("MECHOPT_DOCS_RUN", "1") != "0"
        missing = self._missing_solvers()
        run = run and not missing
        out_nodes: list[nodes.Node] = []
        if run:
            outputs = []
            for cmd in commands:
                outputs.append(f"$ {cmd}")
                outputs.append(self._exec(cmd))
            text = "\n".join(o for o in outputs if o)
        block = nodes.literal_block(text, text)
        block["language"] = "console"
        out_nodes.append(block)
        if not run and "no-run" not in self.options:
            why = (f"{', '.join(missing)} is not part of this build" if missing and cli_available()
                   else "the command-line interface is not part of this build")
            para = nodes.paragraph()
            para += nodes.emphasis(text=f"(Not run during this documentation build: {why}.)")
            out_nodes.append(para)
        return out_nodes

    def _missing_solvers(self) -> list[str]:
        wanted = [w.strip() for w in self.options.get("requires", "").split(",") if w.strip()]
        if not wanted:
            return []
        from mechopt import registry

        names = registry.solver_names()
        return [w for w in wanted if (try_import(w)[0] is None if "." in w else w not in names)]

    def _exec(self, cmd: str) -> str:
        argv = shlex.split(cmd)
        if argv and argv[0] == "mechopt":
            argv = [sys.executable, "-c", "import sys; from mechopt.cli import main; sys.exit(main())"] + argv[1:]
        env = {**os.environ, "PYTHONWARNINGS": "ignore", "MPLBACKEND": "Agg", "COLUMNS": "100"}
        try:
            proc = subprocess.run(argv, cwd=scratch_dir(), capture_output=True, text=True,
                                  timeout=self.options.get("timeout", 120), env=env)
        except subprocess.TimeoutExpired:
            logger.warning(f"mechopt-run: {cmd!r} timed out", location=self.get_location())
            return "(timed out during the docs build)"
        out = proc.stdout.rstrip()
        expected = self.options.get("exit", 0)
        if proc.returncode != expected:
            logger.warning(f"mechopt-run: {cmd!r} exited with {proc.returncode} (expected {expected}): "
                           f"{proc.stderr.strip()[-300:]}", location=self.get_location())
            out = (out + "\n" + proc.stderr.rstrip()).strip()
        limit = self.options.get("max-lines", 60)
        lines = out.splitlines()
        if len(lines) > limit:
            lines = lines[:limit] + [f"... ({len(lines) - limit} more lines)"]
        return "\n".join(lines)


# -- CLI reference ------------------------------------------------------------
def cli_help_rst() -> str:
    """Every subcommand's ``--help``, from the parser itself (so it cannot drift)."""
    import argparse

    module, err = try_import("mechopt.cli")
    if module is None or not hasattr(module, "build_parser"):
        return "*The command-line interface is not part of this build.*\n"
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = "100"
    try:
        parser = module.build_parser()
        parser.prog = "mechopt"
        parts = [("mechopt", parser.format_help())]
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    parts.append((f"mechopt {name}", sub.format_help()))
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    lines = []
    for title, text in parts:
        head = f"``{title}``"
        lines += [head, "~" * len(head), "", ".. code-block:: text", ""]
        lines += ["   " + ln if ln.strip() else "" for ln in text.rstrip().splitlines()] + [""]
    return "\n".join(lines)


class CliHelpDirective(SphinxDirective):
    def run(self) -> list[nodes.Node]:
        self.env.note_reread()
        return parse_rst(self, cli_help_rst())


# -- performance --------------------------------------------------------------
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
        self.env.note_reread()
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


# -- docstring hygiene ----------------------------------------------------------
_LIST_START = re.compile(r"^(\.\.|[-*+•] |>>>|\.\.\.|:|\d+[.)] |#\. |[A-Za-z][A-Za-z ]* : )")
_SEGMENTS = re.compile(r"(``.*?``|`[^`]*`)")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


NUMPYDOC_SECTIONS = {"Parameters", "Returns", "Yields", "Receives", "Raises", "Warns", "Other Parameters",
                     "Attributes", "Methods", "See Also", "Notes", "Warnings", "References", "Examples"}


def _is_header(lines: list[str], i: int) -> bool:
    title = lines[i].strip()
    under = lines[i + 1].strip() if i + 1 < len(lines) else ""
    return bool(title) and bool(under) and set(under) == {"-"} and len(under) >= max(3, len(title) - 1)


def unknown_sections(lines: list[str]) -> None:
    """Keep sections numpydoc does not know (it drops them with a UserWarning), in place.

    An unknown section before any known one (e.g. a solver's ``Options`` right
    after the summary) becomes a rubric in the extended summary; a later one
    that reads like a parameter list becomes ``Other Parameters`` when that is
    free; any other later one becomes a rubric inside ``Notes`` when there is
    no Notes section; anything else is left alone.
    """
    seen_known = False
    titles = {ln.strip() for ln in lines}
    out: list[str] = []
    i = 0
    while i < len(lines):
        title = lines[i].strip()
        under = lines[i + 1].strip() if i + 1 < len(lines) else ""
        is_header = bool(title) and bool(under) and set(under) == {"-"} and len(under) >= max(3, len(title) - 1)
        if not is_header:
            out.append(lines[i])
            i += 1
            continue
        if " ".join(w.capitalize() for w in title.split()) in NUMPYDOC_SECTIONS:
            seen_known = True
            out += lines[i:i + 2]
        elif not seen_known:
            out += [f".. rubric:: {title}", ""]
            j = i + 2
            while j < len(lines) and not _is_header(lines, j):
                m = re.match(r"^(\S[^:]*?) : (.*)$", lines[j]) or re.match(r"^(\w[\w, ]*)$", lines[j])
                if m:   # a numpydoc-style "name : type" entry -> a bullet
                    out.append(f"- ``{m.group(1).strip()}``" + (f" : {m.group(2)}" if m.lastindex == 2 else ""))
                elif lines[j].startswith("    "):   # its description, re-indented under the bullet
                    out.append("  " + lines[j][4:])
                else:
                    out.append(lines[j])
                j += 1
            i = j
            continue
        elif "Other Parameters" not in titles and i + 2 < len(lines) and " : " in lines[i + 2]:
            out += ["Other Parameters", "----------------"]
            titles.add("Other Parameters")
        elif "Notes" not in titles:
            out += ["Notes", "-----", f".. rubric:: {title}", ""]
            titles.add("Notes")
        else:
            out += lines[i:i + 2]
        i += 2
    lines[:] = out


def tidy_docstring(lines: list[str]) -> None:
    """Make plain-text docstrings valid reStructuredText, in place.

    The project's docstrings write programs and norms in plain text:
    ``|Σ P − 1|`` (read by docutils as a substitution) and indented program
    blocks after a paragraph without ``::`` (a block quote whose inner
    indentation is an error). Outside literal blocks, doctest lines and
    inline literals/roles, ``|`` is escaped; an indented block that follows
    a paragraph not ending in ``::`` becomes a literal block (so programs
    render in monospace as written).
    """
    literal_indent: int | None = None      # inside a literal block opened by "::" at this indent
    par_first: str | None = None
    par_last: int | None = None
    prev_blank = True
    for i, line in enumerate(lines):
        if not line.strip():
            prev_blank = True
            continue
        ind = _indent(line)
        if literal_indent is not None:
            if ind > literal_indent:
                prev_blank = False
                continue
            literal_indent = None
        if (prev_blank and par_last is not None and ind > _indent(lines[par_last])
                and not lines[par_last].rstrip().endswith("::")
                and not _LIST_START.match((par_first or "").lstrip())
                and not line.lstrip().startswith((">>>", ".. "))):
            lines[par_last] = lines[par_last].rstrip() + (":" if lines[par_last].rstrip().endswith(":") else " ::")
            literal_indent = _indent(lines[par_last])
            prev_blank = False
            continue
        if prev_blank:
            par_first = line
        par_last = i
        prev_blank = False
        stripped = line.lstrip()
        if stripped.startswith((">>>", "... ")) or stripped == "...":
            continue
        if "|" in line:
            parts = _SEGMENTS.split(line)
            lines[i] = "".join(p if k % 2 else p.replace("\\|", "|").replace("|", "\\|")
                               for k, p in enumerate(parts))
        if line.rstrip().endswith("::"):
            literal_indent = ind


def _process_docstring(app: Any, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    unknown_sections(lines)
    tidy_docstring(lines)


def setup(app: Any) -> dict[str, Any]:
    app.connect("autodoc-process-docstring", _process_docstring, priority=400)
    app.add_directive("mechopt-api", ApiDirective)
    app.add_directive("mechopt-verdicts", VerdictsDirective)
    app.add_directive("mechopt-figures", FiguresDirective)
    app.add_directive("mechopt-source", SourceDirective)
    app.add_directive("mechopt-run", RunDirective)
    app.add_directive("mechopt-performance", PerformanceDirective)
    app.add_directive("mechopt-cli-help", CliHelpDirective)
    return {"version": "1.0", "parallel_read_safe": False, "parallel_write_safe": True}
