"""What the LIP figures share: the seed, the ε grids, and writing a figure's PNG, CSV and JSON.

The figure is drawn by :func:`mechopt.figures.lip.plot.draw`; every curve gets its
status words (certified / closed form / not private) in the legend and one note.

Examples
--------
>>> [float(e) for e in eps_grid(0.5, 5.0, 0.5, quick=True)]
[0.5, 3.0, 5.0]
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.figures import FigureOutput
from mechopt.figures.legend import legend_texts
from mechopt.figures.lip.plot import curve_words, draw
from mechopt.io.writer import savefig, text_file, write_text
from mechopt.results.result import jsonable

__all__ = ["SEED", "MIN_ERRORS", "eps_grid", "flag_rows", "write_figure"]

SEED = 20180503
MIN_ERRORS = 30  # a Monte-Carlo CI is reported as reliable when at least this many runs erred


def eps_grid(lo: float, hi: float, step: float, quick: bool, n_quick: int = 3) -> list[float]:
    full = list(np.round(np.arange(lo, hi + 1e-9, step), 6))
    return [full[0], full[len(full) // 2], full[-1]][:n_quick] if quick else full


def flag_rows(rows: list[dict[str, Any]], notes: list[str]) -> None:
    bad = sorted({(r["curve"]) for r in rows if r.get("private") is False})
    for curve in bad:
        xs = [r["x"] for r in rows if r["curve"] == curve and r.get("private") is False]
        notes.append(f"{curve}: the closed-form mechanism is NOT private under its own definition at x in {xs}")
    for r in rows:
        mc, se, an = r.get("mc"), r.get("mc_se"), r.get("analytic_exact")
        if mc is not None and r.get("mc_nonzero", MIN_ERRORS) < MIN_ERRORS:
            notes.append(
                f"{r['curve']} x={r['x']}: only {r['mc_nonzero']} of {r['runs']} runs erred; "
                "the Monte-Carlo CI is unreliable there (rare-error regime)"
            )
        elif mc is not None and an is not None and se and abs(mc - an) > 4 * se:
            notes.append(f"{r['curve']} x={r['x']}: Monte Carlo {mc:.4g} ± {se:.2g} vs analytic {an:.4g}")


def write_figure(
    out_dir: Path,
    fid: str,
    rows: list[dict[str, Any]],
    notes: list[str],
    ylabel: str,
    transform: str = "identity",
    xlabel: str = "eps",
    panel: str | None = None,
    logy: bool = True,
) -> FigureOutput:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    flag_rows(rows, notes)
    curves = []
    for pv in sorted({r.get(panel) for r in rows}, key=str) if panel else [None]:
        sub = [r for r in rows if panel is None or r.get(panel) == pv]
        for curve in dict.fromkeys(r["curve"] for r in sub):
            words = curve_words([r for r in sub if r["curve"] == curve])
            curves.append({"curve": curve, "panel": pv, "words": words})
            notes.append(f"curve {curve!r}" + (f" ({panel} = {pv})" if panel else "") + f": {words}")
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with text_file(out_dir / f"{fid}.csv") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows([{k: jsonable(r.get(k)) for k in keys} for r in rows])
    data = {
        "id": fid,
        "rows": rows,
        "notes": notes,
        "curves": curves,
        "plot": {"ylabel": ylabel, "transform": transform, "xlabel": xlabel, "panel": panel, "logy": logy},
    }
    fig = draw(data)
    data["legend"] = legend_texts(fig)
    savefig(fig, out_dir / f"{fid}.png", dpi=110)
    write_text(out_dir / f"{fid}.json", json.dumps(jsonable(data), indent=1))
    return FigureOutput(fid, [out_dir / f"{fid}.{s}" for s in ("png", "csv", "json")], data, notes)
