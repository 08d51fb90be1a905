"""Figures 2–7 of Sharma & Amariucai: minimum I(X_p; Y) against δ.

* ``gauss-fig2`` / ``gauss-fig5`` — dataset 1 / 2, γ = 0, ε₀ = 1e-6: every
  solver (greedy, gradient descent with penalties, simulated annealing,
  multi-start SQP) on the same axes, with the certified global minimum
  (``search``) where n ≤ 3 (dataset 1).
* ``gauss-fig3`` / ``gauss-fig6`` — the greedy for several γ (with the global
  minimum per γ on dataset 1, SQP on dataset 2).
* ``gauss-fig4`` / ``gauss-fig7`` — the greedy for several saturation
  thresholds ε₀ at γ = 0, with the global (or SQP) reference.

Dataset 2 is used with ``psd="project"`` (as printed it is not PSD).
Each run writes ``<id>.png``, ``<id>.csv`` and ``<id>.json``; ``quick=True``
uses a few δ values.

Every legend entry says what its curve is, from the audited statuses of its
points (:func:`mechopt.results.words.series_label`): ``certified optimum``
(``search``: every point ``optimal`` with a certificate), ``locally optimal``
(``sqp``, ``gd-penalty``), ``heuristic`` (``greedy``, ``anneal``); points whose
mechanism fails its privacy audit are red ``×`` (not joined into the curve),
points that hit a limit open diamonds. The JSON repeats the legend and has one
note per curve.

Examples
--------
>>> import tempfile, pathlib
>>> out = FIGURES["gauss-fig4"].run(pathlib.Path(tempfile.mkdtemp()), quick=True)
>>> sorted(p.suffix for p in out.files)
['.csv', '.json', '.png']
>>> out.data["legend"][out.data["title"]]
['greedy ε₀=0.01 — heuristic', 'greedy ε₀=1e-06 — heuristic', 'search (reference) — certified optimum']
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.claims.gauss.theorems import curve
from mechopt.figures import Figure, FigureOutput
from mechopt.figures.legend import legend_texts, mark_points, solver_guarantee
from mechopt.io.writer import savefig, text_file, write_text
from mechopt.problems.gauss.problem import GaussProblem
from mechopt.results.result import jsonable
from mechopt.results.words import series_label

__all__ = ["FIGURES", "draw", "curve_labels"]

_D1_FULL = tuple(np.round(np.linspace(0.05, 1.0, 20), 4))
_D1_QUICK = (0.1, 0.3, 0.75)
_D2_FULL = tuple(np.round(np.linspace(0.1, 2.0, 12), 4))
_D2_QUICK = (0.3,)
_GAMMAS = (0.0, 2.5, 3.0, 4.0, 5.0)
_EPS0 = (1e-2, 1e-3, 1e-4, 1e-6)


def _problem(dataset: str, **kw: Any) -> GaussProblem:
    return GaussProblem.from_params(dataset=dataset, psd="project" if dataset == "2" else "error", **kw)


def _series(dataset: str, kind: str, quick: bool) -> list[dict[str, Any]]:
    """(label, solver, problem params, solver options) for one figure."""
    ref = "search" if dataset == "1" else "sqp"
    if kind == "solvers":
        names = ["greedy", "gd-penalty", "anneal", "sqp"] + (["search"] if dataset == "1" else [])
        if quick and dataset == "2":
            names = ["greedy", "sqp"]
        return [
            {"label": s + (" (global)" if s == "search" else ""), "solver": s, "params": {"gamma": 0.0}, "opts": {}}
            for s in names
        ]
    if kind == "gamma":
        gammas = _GAMMAS[::2] if quick else _GAMMAS
        out = [{"label": f"greedy γ={g:g}", "solver": "greedy", "params": {"gamma": g}, "opts": {}} for g in gammas]
        if not (quick and dataset == "2"):
            out += [{"label": f"{ref} γ={g:g}", "solver": ref, "params": {"gamma": g}, "opts": {}} for g in gammas]
        return out
    eps0 = _EPS0[::3] if quick else _EPS0
    out = [
        {"label": f"greedy ε₀={e:g}", "solver": "greedy", "params": {"gamma": 0.0}, "opts": {"eps0": e}} for e in eps0
    ]
    return out + [{"label": f"{ref} (reference)", "solver": ref, "params": {"gamma": 0.0}, "opts": {}}]


def curve_labels(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Legend text per series: ``<series> — <what its points are>`` (status words, solver guarantee).

    Examples
    --------
    >>> rows = [{"series": "sqp γ=0", "solver": "sqp", "status": "locally_optimal", "proof": None},
    ...         {"series": "search (global)", "solver": "search", "status": "optimal", "proof": "certificate"}]
    >>> curve_labels(rows)
    {'sqp γ=0': 'sqp γ=0 — locally optimal', 'search (global)': 'search (global) — certified optimum'}
    """
    out = {}
    for label in dict.fromkeys(r["series"] for r in rows):
        pts = [r for r in rows if r["series"] == label]
        out[label] = f"{label} — {series_label(pts, solver_guarantee(pts[0]['solver']))}"
    return out


def draw(data: dict[str, Any]) -> Any:
    """The figure of a Gauss reproduction's ``data`` (``rows``, ``title``) as a matplotlib Figure."""
    from mechopt.runtime.optional import require

    MplFigure = require("matplotlib.figure", "plot", "plots").Figure

    rows = data["rows"]
    labels = curve_labels(rows)
    fig = MplFigure(figsize=(6.4, 4.4))
    ax = fig.subplots()
    for label in labels:
        pts = [
            (r["delta"], r["value"])
            for r in rows
            if r["series"] == label and r["value"] is not None and r["status"] != "infeasible_point"
        ]
        ref = "global" in label or "reference" in label or label.startswith(("search", "sqp γ"))
        ax.plot(
            *(zip(*pts) if pts else ([], [])),
            "--" if ref else "-o",
            label=labels[label],
            markersize=3,
            color="k" if "(" in label and ref else None,
        )
    mark_points(ax, [(r["delta"], r["value"], r["status"]) for r in rows])
    ax.set_xlabel("δ (nats)")
    ax.set_ylabel("min I(Xp; Y) (nats)")
    ax.set_title(data.get("title", ""), fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def _write(
    fid: str, title: str, out_dir: Path, rows: list[dict[str, Any]], notes: list[str]
) -> tuple[list[Path], dict]:
    out_dir.mkdir(parents=True, exist_ok=True)
    labels = curve_labels(rows)
    notes += [f"curve {label!r}: {text.rsplit(' — ', 1)[1]}" for label, text in labels.items()]
    data = {"id": fid, "title": title, "rows": rows, "notes": notes}
    fig = draw(data)
    data["legend"] = legend_texts(fig)
    png, csv_path, js = out_dir / f"{fid}.png", out_dir / f"{fid}.csv", out_dir / f"{fid}.json"
    savefig(fig, png, dpi=120)
    keys = ["series", "solver", "gamma", "eps0", "delta", "value", "violation", "status", "proof", "time_s", "bound"]
    with text_file(csv_path) as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows({k: r.get(k) for k in keys} for r in rows)
    write_text(js, json.dumps(jsonable(data), indent=1))
    return [png, csv_path, js], data


def _notes(rows: list[dict[str, Any]]) -> list[str]:
    """Largest greedy − reference gap per γ / ε₀ (the heuristics' gaps)."""
    ref = {
        (r["gamma"], r["delta"]): r["value"]
        for r in rows
        if r["solver"] in ("search", "sqp") and r["value"] is not None
    }
    refs = [r for r in rows if r["solver"] in ("search", "sqp") and r["value"] is not None]
    word = series_label(refs, solver_guarantee(refs[0]["solver"])) if refs else ""
    notes = []
    for label in dict.fromkeys(r["series"] for r in rows if r["solver"] not in ("search", "sqp")):
        gaps = [
            (r["value"] - ref[(r["gamma"], r["delta"])], r["delta"])
            for r in rows
            if r["series"] == label and (r["gamma"], r["delta"]) in ref and r["value"] is not None
        ]
        if gaps:
            g, d = max(gaps)
            notes.append(
                f"{label}: largest gap to the reference ({refs[0]['solver']}: {word}) {g:.3g} nats (at δ={d:g})"
            )
    return notes


def _make(fid: str, title: str, dataset: str, kind: str) -> Figure:
    def run(out_dir: Path, quick: bool = False) -> FigureOutput:
        deltas = (_D1_QUICK if quick else _D1_FULL) if dataset == "1" else (_D2_QUICK if quick else _D2_FULL)
        rows: list[dict[str, Any]] = []
        for ser in _series(dataset, kind, quick):
            prob = _problem(dataset, **{k: str(v) for k, v in ser["params"].items()})
            for r in curve(prob, deltas, ser["solver"], **ser["opts"]):
                rows.append(
                    {
                        "series": ser["label"],
                        "solver": ser["solver"],
                        "gamma": ser["params"]["gamma"],
                        "eps0": ser["opts"].get("eps0", 1e-6 if ser["solver"] == "greedy" else None),
                        **r,
                    }
                )
        notes = _notes(rows)
        files, data = _write(fid, title, Path(out_dir), rows, notes)
        return FigureOutput(fid, files, data, notes)

    return Figure(fid, title, run, paper="gauss")


FIGURES = {
    "gauss-fig2": _make("gauss-fig2", "Fig. 2: dataset 1, γ = 0, every solver (ε₀ = 1e-6)", "1", "solvers"),
    "gauss-fig3": _make("gauss-fig3", "Fig. 3: dataset 1, greedy for several γ (ε₀ = 1e-6)", "1", "gamma"),
    "gauss-fig4": _make("gauss-fig4", "Fig. 4: dataset 1, greedy for several ε₀ (γ = 0)", "1", "eps0"),
    "gauss-fig5": _make("gauss-fig5", "Fig. 5: dataset 2 (projected), γ = 0, every solver", "2", "solvers"),
    "gauss-fig6": _make("gauss-fig6", "Fig. 6: dataset 2 (projected), greedy for several γ", "2", "gamma"),
    "gauss-fig7": _make("gauss-fig7", "Fig. 7: dataset 2 (projected), greedy for several ε₀ (γ = 0)", "2", "eps0"),
}
