"""Reproductions for the Fisher-information paper (seed 003): PNG + CSV/JSON per figure.

Every legend entry (and, for the image panels of Fig. 1, every panel title)
says what its curve is, from the audited status of the Result behind it
(:mod:`mechopt.results.words`): ``certified optimum`` only for ``optimal`` with
a proof (the spectral solver's eigenproblem, a convex program solved to its
dual tolerance), ``feasible, no proof`` otherwise, ``closed form (Corollary
n)`` for the paper's formulas, with ``, proven optimal`` when the closed form's
Result is ``optimal`` with a proof. Each figure's JSON carries ``legend``, the
legend texts read back from the drawn figure.

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

import numpy as np

from mechopt.api import audit_result, solve
from mechopt.figures import Figure, FigureOutput
from mechopt.figures.legend import legend_texts, solver_guarantee
from mechopt.io.writer import savefig, text_file, write_text
from mechopt.problems.fisher.dp import dp_region, gaussian_entropy_1d, laplace_entropy, laplace_fisher, laplace_variance
from mechopt.problems.fisher.problems import CORR2_CONSTANT, FisherInterval
from mechopt.problems.fisher.weighted import FisherWeighted
from mechopt.results.result import jsonable
from mechopt.results.words import CLOSED_FORM, NOT_PRIVATE, is_certified, point_word, series_word

__all__ = ["FIGURES", "result_word", "closed_word"]


def _line2d(*args: Any, **kw: Any) -> Any:
    from matplotlib.lines import Line2D

    return Line2D(*args, **kw)


def MplFigure(**kw: Any) -> Any:
    """A :class:`matplotlib.figure.Figure` (no pyplot, no backend switch); needs ``mechopt[plot]``."""
    from mechopt.runtime.optional import require

    return require("matplotlib.figure", "plot", "plots").Figure(**kw)


def result_word(res: Any) -> str:
    """The legend word of a solver's audited Result (guarantee of its solver taken into account).

    >>> from mechopt.results.result import Result
    >>> result_word(Result(status="feasible", value=1.0, sense="min", objective="J", solver="conic"))
    'feasible, no proof'
    """
    return point_word(res.status, res.proof, solver_guarantee(res.solver))


def closed_word(res: Any, ref: str) -> str:
    """``closed form (ref)``, ``, proven optimal`` when audited ``optimal`` with a proof, or not private.

    >>> from mechopt.results.result import Result
    >>> closed_word(Result(status="optimal", value=1.0, sense="min", objective="J", proof="theorem"), "Cor. 1")
    'closed form (Cor. 1), proven optimal'
    """
    if res.status.value == "infeasible_point":
        return f"{NOT_PRIVATE} ({ref})"
    return f"{CLOSED_FORM} ({ref})" + (", proven optimal" if is_certified(res.status, res.proof) else "")


def _write(out: Path, stem: str, fig: Any, rows: list[dict[str, Any]], data: dict[str, Any]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    png, csv_path, js = out / f"{stem}.png", out / f"{stem}.csv", out / f"{stem}.json"
    data["legend"] = legend_texts(fig)  # read back from the figure before it is closed
    data["titles"] = [ax.get_title() for ax in fig.axes if ax.get_title()]
    savefig(fig, png, dpi=110, bbox_inches="tight")
    if rows:
        with text_file(csv_path) as fh:
            names = list(dict.fromkeys(k for r in rows for k in r))
            w = csv.DictWriter(fh, fieldnames=names)
            w.writeheader()
            w.writerows(rows)
    write_text(js, json.dumps(jsonable(data), indent=1))
    return [png, csv_path, js] if rows else [png, js]


def _densities(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Corollary 1: optimal densities (2/L)cos²(π(w − c)/L) for several supports, spectral vs closed form."""
    supports = [(-1.0, 1.0), (0.0, 3.0), (-0.5, 0.5), (-2.0, 4.0)]
    fig = MplFigure(figsize=(6.4, 3.9))
    ax = fig.subplots()
    rows, data, notes = [], {"supports": []}, []
    closed = []
    for a, b in supports:
        prob = FisherInterval(a, b, n=255 if quick else 2000)
        r = solve(prob, solver="spectral", n=1023 if quick else 8191)
        g = r.mechanism
        L = b - a
        exact = 2 / L * np.cos(np.pi * (g.nodes - (a + b) / 2) / L) ** 2
        dev = float(np.abs(g.density - exact).max())
        cf = audit_result(prob, prob.closed_form())
        closed.append(cf)
        word = result_word(r)
        ax.plot(g.nodes, g.density, label=f"[{a:g}, {b:g}]: J={r.value:.4g} — spectral, {word}")
        ax.plot(g.nodes, exact, "k:", lw=0.9)
        notes.append(
            f"curve [{a:g}, {b:g}]: spectral solver, {word} (status {r.status.value}, proof {r.proof}); "
            f"Corollary 1: {closed_word(cf, 'Corollary 1')} (status {cf.status.value})"
        )
        stride = max(1, g.n // 200)
        rows += [
            {"a": a, "b": b, "w": float(w), "density": float(p), "closed_form": float(e)}
            for w, p, e in zip(g.nodes[::stride], g.density[::stride], exact[::stride])
        ]
        data["supports"].append(
            {
                "a": a,
                "b": b,
                "J": r.value,
                "J_closed": 4 * math.pi**2 / L**2,
                "variance": g.variance(),
                "max_density_dev": dev,
                "status": r.status.value,
                "proof": r.proof,
                "closed_status": cf.status.value,
                "closed_proof": cf.proof,
            }
        )
        if dev > 1e-6 * exact.max():
            notes.append(f"[{a}, {b}]: density deviates from cos² by {dev:.3g}")
    words = {closed_word(c, "Corollary 1") for c in closed}
    ax.plot(
        [],
        [],
        "k:",
        lw=0.9,
        label="(2/L) cos² — " + (words.pop() if len(words) == 1 else f"{CLOSED_FORM} (Corollary 1), mixed statuses"),
    )
    ax.set(xlabel="w", ylabel="optimal noise density", title="Corollary 1: minimum-Fisher noise")
    ax.legend(fontsize=6.5)
    return FigureOutput("fisher-fig-densities", _write(out_dir, "fisher-fig-densities", fig, rows, data), data, notes)


def _fig1(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Fig. 1: policies γ(w | x) with a weight on the database: Corollary 4's closed form for
    ρ ∝ e^{0.5x} (independent of x) and the grid optima for that weight and a Gaussian weight."""
    nw = 11 if quick else 21
    weights = ["exp:0.5", "gauss:3:0.7"]
    fig = MplFigure(figsize=(6, 8.5))
    axes = fig.subplots(3, 1, sharex=True)
    rows, data = [], {"weights": []}
    panels = []
    for wt in weights:
        prob = FisherWeighted(-1.0, 1.0, 0.0, 6.0, wt, nw)
        r = solve(prob, solver="conic")
        cf = prob.closed_form()
        if cf is not None:
            cf = audit_result(prob, cf)
            panels.append(
                (
                    prob,
                    cf.mechanism,
                    f"Corollary 4, weight {wt}: cost {cf.value:.4g} — "
                    f"{closed_word(cf, 'stationary, not optimal here')}",
                    "closed-form",
                )
            )
        panels.append(
            (prob, r.mechanism, f"grid optimum (conic), weight {wt}: cost {r.value:.4g} — {result_word(r)}", "conic")
        )
        G = r.mechanism
        data["weights"].append(
            {
                "weight": wt,
                "grid_optimum": r.value,
                "status": r.status.value,
                "proof": r.proof,
                "closed_form_status": None if cf is None else cf.status.value,
                "closed_form_cost": None if cf is None else cf.value,
                "x_variation": float(np.abs(G - G[:, [G.shape[1] // 2]]).max() / G.max()),
            }
        )
    for ax, (prob, G, title, source) in zip(axes, panels):
        im = ax.imshow(G, aspect="auto", origin="lower", extent=[prob.x[0], prob.x[-1], prob.w[0], prob.w[-1]])
        fig.colorbar(im, ax=ax).set_label("policy density γ(w | x)", fontsize=8)
        ax.set(ylabel="noise w")
        ax.set_title(title, fontsize=8)
        for j in range(0, G.shape[1], max(1, G.shape[1] // 12)):
            rows += [
                {"weight": prob.weight, "source": source, "x": float(prob.x[j]), "w": float(w), "gamma": float(v)}
                for w, v in zip(prob.w, G[:, j])
            ]
    axes[-1].set_xlabel("database x")
    notes = [
        "Corollary 4 reconstructed: the closed form is stationary but not optimal on a bounded "
        "database range (claim fisher.cor4)"
    ]
    notes += [f"panel {title.split(': cost')[0]!r}: {title.rsplit(' — ', 1)[1]}" for _, _, title, _ in panels]
    return FigureOutput("fisher-fig1", _write(out_dir, "fisher-fig1", fig, rows, data), data, notes)


def _fig2(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Fig. 2: (ε, δ) where the Corollary 6 noise N(0, ξ^{-1/2}) is (ε, δ)-DP, Δ = 1; Prop. 3 numbers."""
    xi, sens = 0.01, 1.0
    sigma = xi**-0.25
    eps = np.linspace(0.02, 2.0, 40 if quick else 160)
    delta = np.logspace(-10, -0.5, 30 if quick else 120)
    reg = dp_region(sigma, sens, eps, delta)
    fig = MplFigure(figsize=(11, 4))
    ax, ax2 = fig.subplots(1, 2)
    ax.contourf(
        reg["eps"], reg["delta"], (~reg["classical"]).astype(float), levels=[-0.5, 0.5, 1.5], colors=["white", "0.75"]
    )
    ax.contour(reg["eps"], reg["delta"], reg["exact"].astype(float), levels=[0.5], colors="k", linestyles="--")
    ax.axvline(1.0, color="0.4", lw=0.8)
    from matplotlib.patches import Patch

    ax.legend(
        handles=[
            Patch(
                facecolor="white", edgecolor="0.5", label=f"classical condition σ ≥ Δ√(2 ln(1.25/δ))/ε — {CLOSED_FORM}"
            ),
            _line2d([], [], color="k", ls="--", label=f"exact Gaussian-mechanism boundary — {CLOSED_FORM}"),
        ],
        fontsize=6.5,
        loc="lower left",
    )
    ax.set(
        xscale="linear",
        yscale="log",
        xlabel="ε",
        ylabel="δ",
        title=f"N(0, σ²), σ = {sigma:.3g}: classical DP region (white), exact boundary (dashed)",
    )
    # Prop. 3 / Cor. 6 / Cor. 2: Cramér–Rao bound 1/J against the variance, per noise family
    var = np.linspace(0.05, 4.0, 50)
    for label, slope in (
        (f"Gaussian (Cor. 6): 1/J = Var — {CLOSED_FORM}", 1.0),
        (f"cos² on an interval (Cor. 2): 1/J = Var/{CORR2_CONSTANT:.3f} — {CLOSED_FORM}", 1 / CORR2_CONSTANT),
        (f"Laplace, ε-DP (Prop. 3): 1/J = Var/2 — {CLOSED_FORM}", 0.5),
    ):
        ax2.plot(var, slope * var, label=label)
    ax2.set(xlabel="quality: noise variance", ylabel="privacy: Cramér–Rao bound 1/J", title="Privacy vs quality")
    ax2.legend(fontsize=7)
    rows = [
        {"eps": float(e), "delta": float(d), "classical": bool(c), "exact": bool(x)}
        for e, d, c, x in zip(reg["eps"].ravel(), reg["delta"].ravel(), reg["classical"].ravel(), reg["exact"].ravel())
    ]
    b = sens / 1.0
    prop3 = {
        "eps": 1.0,
        "laplace_scale": b,
        "laplace_J": laplace_fisher(b),
        "laplace_var": laplace_variance(b),
        "gauss_same_var_J": 1 / laplace_variance(b),
        "crb_gain": 2.0,
        "entropy_laplace": laplace_entropy(b),
        "entropy_gauss": gaussian_entropy_1d(laplace_variance(b)),
        "crb_per_variance": {"gaussian": 1.0, "cos2_interval": 1 / CORR2_CONSTANT, "laplace": 0.5},
    }
    data = {
        "xi": xi,
        "sigma": sigma,
        "sensitivity": sens,
        "classical_fraction": float(reg["classical"].mean()),
        "exact_fraction": float(reg["exact"].mean()),
        "prop3": prop3,
    }
    notes = [] if not np.any(reg["classical"] & ~reg["exact"]) else ["classical region not inside the exact one"]
    notes.append(
        "curves: all closed forms (classical Gaussian-mechanism condition, exact (eps, delta) boundary, "
        "Cramér–Rao lines of Cor. 6, Cor. 2 and Prop. 3); no optimisation result is drawn"
    )
    return FigureOutput("fisher-fig2", _write(out_dir, "fisher-fig2", fig, rows, data), data, notes)


def _convergence(out_dir: Path, quick: bool = False) -> FigureOutput:
    """Grid error of J on [−1, 1] against n: spectral raw (O(h²)), spectral extrapolated, conic."""
    from mechopt.solvers.spectral import ground_state

    ns_conic = [31, 63, 127, 255] if quick else [63, 127, 255, 511, 1023, 2047]
    ns_spec = [31, 63, 127, 255, 511] if quick else [31, 63, 127, 255, 511, 1023, 2047, 4095, 8191]
    rows = []
    for n in ns_spec:
        raw = ground_state(-1.0, 1.0, n)[0]
        ext = solve(FisherInterval(-1.0, 1.0, n=n), solver="spectral", n=n)
        rows.append({"solver": "spectral-raw", "n": n, "error": abs(raw - math.pi**2), "status": None, "proof": None})
        rows.append(
            {
                "solver": "spectral-extrapolated",
                "n": n,
                "error": abs(ext.value - math.pi**2),
                "status": ext.status.value,
                "proof": ext.proof,
            }
        )
    for n in ns_conic:
        r = solve(FisherInterval(-1.0, 1.0, n=n), solver="conic")
        rows.append(
            {
                "solver": "conic",
                "n": n,
                "error": abs(r.value - math.pi**2),
                "error_estimate": r.extras["error_estimate"],
                "time_s": r.time_s,
                "status": r.status.value,
                "proof": r.proof,
            }
        )
    fig = MplFigure(figsize=(6, 4))
    ax = fig.subplots()
    slopes = {}
    for name in ("spectral-raw", "spectral-extrapolated", "conic"):
        sel = [r for r in rows if r["solver"] == name]
        n = np.array([r["n"] for r in sel], float)
        e = np.array([max(r["error"], 1e-17) for r in sel])
        word = (
            "grid eigenvalue, not extrapolated (no Result)"
            if name == "spectral-raw"
            else series_word(sel, solver_guarantee(name.split("-")[0]))
        )
        ax.loglog(n + 1, e, "o-", label=f"{name} — {word}")
        if name != "spectral-extrapolated":
            slopes[name] = float(-np.polyfit(np.log(n + 1), np.log(e), 1)[0])
    ax.set(
        xlabel="grid intervals n + 1", ylabel="|J − π²| (π²: Corollary 1, closed form)", title="Convergence on [−1, 1]"
    )
    ax.legend()
    notes = [f"{k}: order {v:.2f} (expected 2)" for k, v in slopes.items() if abs(v - 2) > 0.1]
    notes += [f"curve {lab.split(' — ')[0]!r}: {lab.split(' — ', 1)[1]}" for lab in ax.get_legend_handles_labels()[1]]
    data = {"orders": slopes}
    files = _write(out_dir, "fisher-convergence", fig, rows, data)
    return FigureOutput("fisher-convergence", files, {**data, "rows": rows}, notes)


FIGURES = {
    "fisher-fig-densities": Figure(
        "fisher-fig-densities", "Corollary 1 densities for several supports", _densities, "fisher"
    ),
    "fisher-fig1": Figure("fisher-fig1", "Fig. 1: optimal policy with a weight on the database", _fig1, "fisher"),
    "fisher-fig2": Figure(
        "fisher-fig2", "Fig. 2: (eps, delta)-DP region of the optimal Gaussian noise", _fig2, "fisher"
    ),
    "fisher-convergence": Figure(
        "fisher-convergence", "Grid convergence of the spectral and conic solvers", _convergence, "fisher"
    ),
}
