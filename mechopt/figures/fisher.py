"""Reproductions for the Fisher-information paper (seed 003): PNG + CSV/JSON per figure.

Examples
--------
>>> sorted(FIGURES)
['fisher-convergence', 'fisher-fig-densities', 'fisher-fig1', 'fisher-fig2']
"""
from __future__ import annotations

import csv
import json
import math
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from mechopt.api import solve  # noqa: E402
from mechopt.figures import Figure, FigureOutput  # noqa: E402
from mechopt.problems.fisher import CORR2_CONSTANT, FisherInterval  # noqa: E402
from mechopt.problems.fisher_dp import (dp_region, laplace_entropy, laplace_fisher,  # noqa: E402
                                        gaussian_entropy_1d, laplace_variance)
from mechopt.problems.fisher_weighted import FisherWeighted  # noqa: E402
from mechopt.result import jsonable  # noqa: E402

__all__ = ["FIGURES"]


def _write(out: Path, stem: str, fig: Any, rows: list[dict[str, Any]], data: dict[str, Any]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    png, csv_path, js = out / f"{stem}.png", out / f"{stem}.csv", out / f"{stem}.json"
    fig.savefig(png, dpi=110, bbox_inches="tight")
    plt.close(fig)
    if rows:
        with csv_path.open("w", newline="") as fh:
            names = list(dict.fromkeys(k for r in rows for k in r))
            w = csv.DictWriter(fh, fieldnames=names)
            w.writeheader()
            w.writerows(rows)
    js.write_text(json.dumps(jsonable(data), indent=1))
    return [png, csv_path, js] if rows else [png, js]


def _densities(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Corollary 1: optimal densities (2/L)cos²(π(w − c)/L) for several supports, spectral vs closed form."""
    supports = [(-1.0, 1.0), (0.0, 3.0), (-0.5, 0.5), (-2.0, 4.0)]
    fig, ax = plt.subplots(figsize=(6, 3.6))
    rows, data, notes = [], {"supports": []}, []
    for a, b in supports:
        r = solve(FisherInterval(a, b, n=255 if quick else 2000), solver="spectral", n=1023 if quick else 8191)
        g = r.mechanism
        L = b - a
        exact = 2 / L * np.cos(np.pi * (g.nodes - (a + b) / 2) / L) ** 2
        dev = float(np.abs(g.density - exact).max())
        ax.plot(g.nodes, g.density, label=f"[{a:g}, {b:g}]: J={r.value:.4g}")
        stride = max(1, g.n // 200)
        rows += [{"a": a, "b": b, "w": float(w), "density": float(p), "closed_form": float(e)}
                 for w, p, e in zip(g.nodes[::stride], g.density[::stride], exact[::stride])]
        data["supports"].append({"a": a, "b": b, "J": r.value, "J_closed": 4 * math.pi ** 2 / L ** 2,
                                 "variance": g.variance(), "max_density_dev": dev})
        if dev > 1e-6 * exact.max():
            notes.append(f"[{a}, {b}]: density deviates from cos² by {dev:.3g}")
    ax.set(xlabel="w", ylabel="optimal noise density", title="Corollary 1: minimum-Fisher noise")
    ax.legend(fontsize=7)
    return FigureOutput("fisher-fig-densities", _write(out_dir, "fisher-fig-densities", fig, rows, data), data, notes)


def _fig1(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Fig. 1: policies γ(w | x) with a weight on the database: Corollary 4's closed form for
    ρ ∝ e^{0.5x} (independent of x) and the grid optima for that weight and a Gaussian weight."""
    nw = 11 if quick else 21
    weights = ["exp:0.5", "gauss:3:0.7"]
    fig, axes = plt.subplots(3, 1, figsize=(6, 8.5), sharex=True)
    rows, data = [], {"weights": []}
    panels = []
    for wt in weights:
        prob = FisherWeighted(-1.0, 1.0, 0.0, 6.0, wt, nw)
        r = solve(prob, solver="conic")
        cf = prob.closed_form()
        if cf is not None:
            panels.append((prob, cf.mechanism, f"Corollary 4, weight {wt}: cost {cf.value:.4g}", "closed-form"))
        panels.append((prob, r.mechanism, f"grid optimum, weight {wt}: cost {r.value:.4g}", "conic"))
        G = r.mechanism
        data["weights"].append({"weight": wt, "grid_optimum": r.value, "status": r.status.value,
                                "closed_form_cost": None if cf is None else cf.value,
                                "x_variation": float(np.abs(G - G[:, [G.shape[1] // 2]]).max() / G.max())})
    for ax, (prob, G, title, source) in zip(axes, panels):
        im = ax.imshow(G, aspect="auto", origin="lower", extent=[prob.x[0], prob.x[-1], prob.w[0], prob.w[-1]])
        fig.colorbar(im, ax=ax)
        ax.set(ylabel="noise w", title=title)
        for j in range(0, G.shape[1], max(1, G.shape[1] // 12)):
            rows += [{"weight": prob.weight, "source": source, "x": float(prob.x[j]), "w": float(w),
                      "gamma": float(v)} for w, v in zip(prob.w, G[:, j])]
    axes[-1].set_xlabel("database x")
    notes = ["Corollary 4 reconstructed: the closed form is stationary but not optimal on a bounded "
             "database range (claim fisher.cor4)"]
    return FigureOutput("fisher-fig1", _write(out_dir, "fisher-fig1", fig, rows, data), data, notes)


def _fig2(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Fig. 2: (ε, δ) where the Corollary 6 noise N(0, ξ^{-1/2}) is (ε, δ)-DP, Δ = 1; Prop. 3 numbers."""
    xi, sens = 0.01, 1.0
    sigma = xi ** -0.25
    eps = np.linspace(0.02, 2.0, 40 if quick else 160)
    delta = np.logspace(-10, -0.5, 30 if quick else 120)
    reg = dp_region(sigma, sens, eps, delta)
    fig, (ax, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    ax.contourf(reg["eps"], reg["delta"], (~reg["classical"]).astype(float), levels=[-0.5, 0.5, 1.5],
                colors=["white", "0.75"])
    ax.contour(reg["eps"], reg["delta"], reg["exact"].astype(float), levels=[0.5], colors="k", linestyles="--")
    ax.axvline(1.0, color="0.4", lw=0.8)
    ax.set(xscale="linear", yscale="log", xlabel="ε", ylabel="δ",
           title=f"N(0, σ²), σ = {sigma:.3g}: classical DP region (white), exact boundary (dashed)")
    # Prop. 3 / Cor. 6 / Cor. 2: Cramér–Rao bound 1/J against the variance, per noise family
    var = np.linspace(0.05, 4.0, 50)
    for label, slope in (("Gaussian (Cor. 6): 1/J = Var", 1.0), (f"cos² on an interval (Cor. 2): 1/J = Var/{CORR2_CONSTANT:.3f}",
                                                                1 / CORR2_CONSTANT),
                         ("Laplace, ε-DP (Prop. 3): 1/J = Var/2", 0.5)):
        ax2.plot(var, slope * var, label=label)
    ax2.set(xlabel="quality: noise variance", ylabel="privacy: Cramér–Rao bound 1/J", title="Privacy vs quality")
    ax2.legend(fontsize=7)
    rows = [{"eps": float(e), "delta": float(d), "classical": bool(c), "exact": bool(x)}
            for e, d, c, x in zip(reg["eps"].ravel(), reg["delta"].ravel(), reg["classical"].ravel(),
                                  reg["exact"].ravel())]
    b = sens / 1.0
    prop3 = {"eps": 1.0, "laplace_scale": b, "laplace_J": laplace_fisher(b), "laplace_var": laplace_variance(b),
             "gauss_same_var_J": 1 / laplace_variance(b), "crb_gain": 2.0,
             "entropy_laplace": laplace_entropy(b), "entropy_gauss": gaussian_entropy_1d(laplace_variance(b)),
             "crb_per_variance": {"gaussian": 1.0, "cos2_interval": 1 / CORR2_CONSTANT, "laplace": 0.5}}
    data = {"xi": xi, "sigma": sigma, "sensitivity": sens, "classical_fraction": float(reg["classical"].mean()),
            "exact_fraction": float(reg["exact"].mean()), "prop3": prop3}
    notes = [] if not np.any(reg["classical"] & ~reg["exact"]) else ["classical region not inside the exact one"]
    return FigureOutput("fisher-fig2", _write(out_dir, "fisher-fig2", fig, rows, data), data, notes)


def _convergence(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Grid error of J on [−1, 1] against n: spectral raw (O(h²)), spectral extrapolated, conic."""
    from mechopt.solvers.spectral import ground_state

    ns_conic = [31, 63, 127, 255] if quick else [63, 127, 255, 511, 1023, 2047]
    ns_spec = [31, 63, 127, 255, 511] if quick else [31, 63, 127, 255, 511, 1023, 2047, 4095, 8191]
    rows = []
    for n in ns_spec:
        raw = ground_state(-1.0, 1.0, n)[0]
        ext = solve(FisherInterval(-1.0, 1.0, n=n), solver="spectral", n=n).value
        rows.append({"solver": "spectral-raw", "n": n, "error": abs(raw - math.pi ** 2)})
        rows.append({"solver": "spectral-extrapolated", "n": n, "error": abs(ext - math.pi ** 2)})
    for n in ns_conic:
        r = solve(FisherInterval(-1.0, 1.0, n=n), solver="conic")
        rows.append({"solver": "conic", "n": n, "error": abs(r.value - math.pi ** 2),
                     "error_estimate": r.extras["error_estimate"], "time_s": r.time_s})
    fig, ax = plt.subplots(figsize=(6, 4))
    slopes = {}
    for name in ("spectral-raw", "spectral-extrapolated", "conic"):
        sel = [r for r in rows if r["solver"] == name]
        n = np.array([r["n"] for r in sel], float)
        e = np.array([max(r["error"], 1e-17) for r in sel])
        ax.loglog(n + 1, e, "o-", label=name)
        if name != "spectral-extrapolated":
            slopes[name] = float(-np.polyfit(np.log(n + 1), np.log(e), 1)[0])
    ax.set(xlabel="grid intervals n + 1", ylabel="|J − π²|", title="Convergence on [−1, 1]")
    ax.legend()
    notes = [f"{k}: order {v:.2f} (expected 2)" for k, v in slopes.items() if abs(v - 2) > 0.1]
    return FigureOutput("fisher-convergence", _write(out_dir, "fisher-convergence", fig, rows, {"orders": slopes}),
                        {"orders": slopes, "rows": rows}, notes)


FIGURES = {
    "fisher-fig-densities": Figure("fisher-fig-densities", "Corollary 1 densities for several supports", _densities,
                                   "fisher"),
    "fisher-fig1": Figure("fisher-fig1", "Fig. 1: optimal policy with a weight on the database", _fig1, "fisher"),
    "fisher-fig2": Figure("fisher-fig2", "Fig. 2: (eps, delta)-DP region of the optimal Gaussian noise", _fig2,
                          "fisher"),
    "fisher-convergence": Figure("fisher-convergence", "Grid convergence of the spectral and conic solvers",
                                 _convergence, "fisher"),
}
