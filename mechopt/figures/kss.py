"""Reproductions for the k-subset paper: Table 1, the MI-vs-ε curves, and the non-uniform-prior gap.

- ``kss-table1``: every row of Table 1 (BRR, MRR, k*-SS, k#-SS; ℓ2 and ℓ1 after
  projection onto the simplex) beside the paper's numbers, with Monte-Carlo
  standard errors and a reproduce flag (see :mod:`mechopt.figures.kss_table1`).
- ``kss-mi-curve``: I(X; Z) against ε for d ∈ {2, 4, 16, 64, 256}: the optimum
  (Theorem 2.1), MRR (eq. (6)), BRR (eq. (8)), and the Section 4 bounds.
- ``kss-prior-gap``: beyond the paper, the certified MI optimum for Zipf priors
  against the best k-subset mechanism (:mod:`mechopt.figures.kss_prior`).

Examples
--------
>>> sorted(FIGURES)
['kss-mi-curve', 'kss-prior-gap', 'kss-table1']
"""
from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..problems import kss_formulas as F
from ..result import jsonable
from . import Figure, FigureOutput
from .kss_prior import run_prior_gap
from .kss_table1 import GENERATOR, PAPER_TABLE1, reproduce_flags, simulate_row

__all__ = ["FIGURES", "run_table1", "run_mi_curve", "mi_curves"]

SEED = 2018
QUICK_ROWS = {(4, 0.1), (8, 1.0), (16, 2.0)}


def _write(out_dir: Path, fid: str, data: dict[str, Any], rows: list[dict[str, Any]]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    jpath = out_dir / f"{fid}.json"
    jpath.write_text(json.dumps(jsonable(data), indent=1))
    cpath = out_dir / f"{fid}.csv"
    if rows:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with cpath.open("w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=keys)
            w.writeheader()
            w.writerows(jsonable(rows))
    return [jpath, cpath]


def run_table1(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Table 1: n = 10 000, 100 repetitions (quick: 3 rows, 20 repetitions, n = 2000)."""
    out_dir = Path(out_dir)
    reps, n = (20, 2000) if quick else (100, 10_000)
    rows = []
    for prow in PAPER_TABLE1:
        d, eps = prow[0], float(prow[1])
        if quick and (d, eps) not in QUICK_ROWS:
            continue
        for r in simulate_row(d, eps, reps=reps, n=n, seed=SEED):
            r.update(reproduce_flags(r) if not quick else {"l2_reproduces": None, "l1_reproduces": None})
            rows.append(r)
    notes = [f"generator of the true distributions: {GENERATOR}",
             "reproduces: |ours - paper| <= 3*sqrt(2)*se (paper's MC noise taken equal to ours) or <= 10% of the paper's value"]
    if quick:
        notes.append("quick run: n = 2000 and 20 repetitions, so the paper's numbers are not comparable")
    bad = [r for r in rows if r.get("l2_reproduces") is False or r.get("l1_reproduces") is False]
    for r in bad:
        notes.append(f"row d={r['d']} eps={r['eps']} {r['mechanism']} does not reproduce: "
                     f"l2 {r['l2']:.4g}±{r['l2_se']:.2g} vs paper {r['l2_paper']}, "
                     f"l1 {r['l1']:.4g}±{r['l1_se']:.2g} vs paper {r['l1_paper']}")
    d2 = [r for r in rows if r["d"] == 2 and r.get("l2_paper")]
    if d2 and not quick:
        ratio = np.mean([r["l2_paper"] / r["l2_theory_unprojected"] for r in d2])
        notes.append(f"d=2 rows: the paper's l2 is {ratio:.2f} x the exact variance of the unbiased estimator "
                     "(which projection cannot reduce when the estimate already sums to 1): they look like the "
                     "error of one coordinate, i.e. half the squared l2 norm")
    kdiff = [r for r in rows if r.get("k_paper") is not None and r["k"] != r["k_paper"]]
    for r in kdiff:
        notes.append(f"row d={r['d']} eps={r['eps']} {r['mechanism']}: our k = {r['k']} but the paper lists {r['k_paper']}")
    data = {"rows": rows, "n": n, "reps": reps, "generator": GENERATOR,
            "not_reproduced": len(bad), "checked": len(rows)}
    files = _write(out_dir, "kss-table1", data, rows)
    files.append(_plot_table1(out_dir, rows))
    return FigureOutput("kss-table1", files, data, notes)


def _plot_table1(out_dir: Path, rows: list[dict[str, Any]]) -> Path:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
    marks = {"BRR": "s", "MRR": "^", "k*-SS": "o", "k#-SS": "x"}
    for ax, m in zip(axes, ("l2", "l1")):
        for mech, mk in marks.items():
            rs = [r for r in rows if r["mechanism"] == mech and r.get(f"{m}_paper")]
            if rs:
                ax.errorbar([r[f"{m}_paper"] for r in rs], [r[m] for r in rs], yerr=[1.96 * r[f"{m}_se"] for r in rs],
                            fmt=mk, ms=4, label=mech, alpha=0.8)
        lo = min((r[m] for r in rows if r[m] > 0), default=1e-5)
        hi = max((r[m] for r in rows), default=1)
        ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(f"paper (Table 1), {m}")
        ax.set_ylabel(f"ours (mean ± 1.96 se), {m}")
        ax.legend(fontsize=8)
    fig.suptitle("k-subset paper, Table 1: reproduction vs published")
    fig.tight_layout()
    path = out_dir / "kss-table1.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def mi_curves(ds=(2, 4, 16, 64, 256), eps_grid=None) -> list[dict[str, Any]]:
    """Rows {d, eps, optimal, k_star, mrr, brr, limit_bound, eps2_8, mcgregor}: the curves of ``kss-mi-curve``.

    Examples
    --------
    >>> r = mi_curves(ds=(4,), eps_grid=[1.0])[0]
    >>> r["mrr"] <= r["optimal"] and r["brr"] <= r["optimal"]
    True
    """
    grid = np.geomspace(0.01, 10, 60) if eps_grid is None else np.asarray(eps_grid, dtype=float)
    rows = []
    for d in ds:
        for eps in grid:
            e = float(eps)
            rows.append({"d": d, "eps": e, "optimal": F.mi_optimal(d, e), "k_star": F.k_star(d, e),
                         "mrr": F.mi_mrr(d, e), "brr": F.mi_brr(d, e), "limit_bound": F.mi_limit_bound(e),
                         "eps2_8": e ** 2 / 8, "mcgregor": F.mcgregor_binary(e) if d == 2 else None})
    return rows


def run_mi_curve(out_dir: Path, quick: bool = False) -> FigureOutput:
    """MI against ε for d ∈ {2, 4, 16, 64, 256} (nats)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir = Path(out_dir)
    ds = (2, 4, 16, 64, 256)
    rows = mi_curves(ds, np.geomspace(0.01, 10, 15 if quick else 80))
    fig, axes = plt.subplots(1, len(ds), figsize=(3.2 * len(ds), 3.4), sharey=False)
    for ax, d in zip(axes, ds):
        rs = [r for r in rows if r["d"] == d]
        x = [r["eps"] for r in rs]
        ax.plot(x, [r["optimal"] for r in rs], "k-", label="optimum (Thm 2.1)")
        ax.plot(x, [r["mrr"] for r in rs], "b--", label="MRR (eq. 6)")
        ax.plot(x, [r["brr"] for r in rs], "r:", label="BRR (eq. 8)")
        ax.plot(x, [min(r["limit_bound"], np.log(d)) for r in rs], color="0.6", lw=0.8, label="Sec. 4 bound")
        ax.set_xscale("log")
        ax.set_title(f"d = {d}")
        ax.set_xlabel("ε")
    axes[0].set_ylabel("I(X; Z) [nats]")
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    png = out_dir / "kss-mi-curve.png"
    out_dir.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)
    gaps = [r for r in rows if r["optimal"] - max(r["mrr"], r["brr"]) > 0.05 * r["optimal"]]
    notes = [f"MRR and BRR lose more than 5% of the optimal MI at {len(gaps)} of {len(rows)} (d, eps) points"]
    data = {"rows": rows}
    files = _write(out_dir, "kss-mi-curve", data, rows) + [png]
    return FigureOutput("kss-mi-curve", files, data, notes)


FIGURES = {
    "kss-table1": Figure("kss-table1", "Table 1: l2 and l1 errors of BRR, MRR, k*-SS, k#-SS (n = 10 000, 100 runs)",
                         run_table1, paper="kss"),
    "kss-mi-curve": Figure("kss-mi-curve", "Mutual information against eps for d in {2, 4, 16, 64, 256}",
                           run_mi_curve, paper="kss"),
    "kss-prior-gap": Figure("kss-prior-gap", "Beyond the paper: MI-optimal LDP for Zipf priors vs the best k-subset",
                            run_prior_gap, paper="kss"),
}
