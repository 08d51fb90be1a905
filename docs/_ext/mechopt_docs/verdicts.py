"""``.. mechopt-verdicts::``: the theorem-verdict tables, rendered from the verify reports.

The reports (one dict per claim, ``mechopt verify --json``'s ``claims``) come from, in order:
a saved report (``MECHOPT_DOCS_VERDICTS=FILE.json``), the results cache, or running every
registered claim once per build (then stored in the cache). The pages are pure functions of the
reports (:func:`verdict_rst`, :func:`findings_rst`, :func:`summary_rst`).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import cache
from .common import PAPERS, esc, lit, note_code_page, parse_rst

logger = logging.getLogger(__name__)

_VERDICTS: dict[str, Any] = {}


def run_all_claims() -> tuple[list[dict[str, Any]], str | None]:
    """Run every registered claim (the expensive part); a crashing check is an ``error`` row."""
    from mechopt import registry

    rows: list[dict[str, Any]] = []
    try:
        claims = registry.claims()
    except Exception as exc:
        return rows, f"{type(exc).__name__}: {exc}"
    for claim in claims:
        try:
            rows.append(claim.run().to_dict())
        except Exception as exc:
            rows.append(
                {
                    "id": claim.id,
                    "paper": claim.paper,
                    "statement": claim.statement,
                    "domain": claim.domain,
                    "verdict": "error",
                    "checked": 0,
                    "worst_deviation": None,
                    "counterexample": None,
                    "region": None,
                    "note": f"the check raised {type(exc).__name__}: {exc}",
                    "time_s": 0.0,
                }
            )
    return rows, None


def claim_reports(store: cache.ResultsCache | None = None) -> dict[str, Any]:
    """The verify reports of this build (memoised per process; cached across builds)."""
    if _VERDICTS:
        return _VERDICTS
    base = {"skipped": False, "rows": [], "time_s": 0.0, "load_error": None, "source": None, "cached": False}
    if cache.fast() or os.environ.get("MECHOPT_DOCS_VERIFY", "1") == "0":
        _VERDICTS.update(base, skipped=True)
        return _VERDICTS
    report = os.environ.get("MECHOPT_DOCS_VERDICTS")
    if report:  # a saved ``mechopt verify --json`` report: reuse it instead of re-running
        data = json.loads(Path(report).read_text(encoding="utf-8"))
        rows = data["claims"] if isinstance(data, dict) else data
        _VERDICTS.update(base, rows=rows, source=report, time_s=sum(float(r.get("time_s") or 0.0) for r in rows))
        return _VERDICTS
    hit = store.get("verdicts", {}) if store is not None else None
    if hit is not None:
        _VERDICTS.update(base, **hit, cached=True)
        return _VERDICTS
    t0 = time.perf_counter()
    rows, load_error = run_all_claims()
    value = {"rows": rows, "load_error": load_error, "time_s": time.perf_counter() - t0}
    if store is not None and load_error is None:
        store.put("verdicts", {}, value)
    _VERDICTS.update(base, **value)
    logger.info(f"[mechopt_docs] ran {len(rows)} theorem claims in {value['time_s']:.1f} s")
    return _VERDICTS


def _skipped_text() -> str:
    why = "``MECHOPT_DOCS_FAST=1``" if cache.fast() else "``MECHOPT_DOCS_VERIFY=0``"
    return f"*The claims were not run in this build* ({why}). Run ``mechopt verify`` to see the verdicts.\n"


def verdict_rst(data: dict[str, Any], paper: str | None) -> str:
    """The verdict table (all claims, or one paper's) from the reports in ``data``."""
    if data["skipped"]:
        return _skipped_text()
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
        elif data.get("cached"):
            lines.append(
                f"All claims ran in {data['time_s']:.1f} s on this code (cached result of an "
                "earlier build of the same code; ``MECHOPT_DOCS_REFRESH=1`` re-runs them)."
            )
        else:
            lines.append(f"All claims ran in {data['time_s']:.1f} s during this build.")
    return "\n".join(lines) + "\n"


def findings_rst(data: dict[str, Any], paper: str | None) -> str:
    """A readable list of the claims that do not simply hold (before the full table)."""
    rows = [r for r in data["rows"] if (paper is None or r["paper"] == paper) and r["verdict"] != "holds"]
    if data["skipped"] or not rows:
        return ""
    lines = [".. rubric:: What the checks found", "", "Claims that do not hold as stated (each is detailed below):", ""]
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


def summary_rst(data: dict[str, Any]) -> str:
    """One line per paper: how many claims have each verdict (:data:`mechopt.jobs.verify.VERDICTS`)."""
    if data["skipped"]:
        return _skipped_text()
    if not data["rows"]:
        return "*No claims registered yet.*\n"
    from mechopt.jobs.verify import VERDICTS

    lines = [
        ".. list-table::",
        "   :header-rows: 1",
        "",
        "   * - paper",
        "     - claims",
        *(f"     - {v.replace('-', ' ')}" for v in VERDICTS),
        "     - other",
    ]
    for paper in sorted({r["paper"] for r in data["rows"]}):
        rows = [r for r in data["rows"] if r["paper"] == paper]
        link = f":doc:`{paper} </papers/{paper}>`" if paper in PAPERS else esc(paper)
        lines += [
            f"   * - {link}",
            f"     - {len(rows)}",
            *(f"     - {sum(r['verdict'] == v for r in rows)}" for v in VERDICTS),
            f"     - {sum(r['verdict'] not in VERDICTS for r in rows)}",
        ]  # e.g. a claim that errored
    return "\n".join(lines + [""])


class VerdictsDirective(SphinxDirective):
    option_spec = {"paper": directives.unchanged, "findings": directives.flag, "summary": directives.flag}

    def run(self) -> list[nodes.Node]:
        note_code_page(self)
        data = claim_reports(cache.cache_for(self.env.app))
        if "summary" in self.options:
            return parse_rst(self, summary_rst(data))
        paper = self.options.get("paper")
        text = verdict_rst(data, paper)
        if "findings" in self.options:
            text = findings_rst(data, paper) + "\n" + text
        return parse_rst(self, text)
