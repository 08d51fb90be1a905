"""Drawing the LIP figures from their data, with legends that say what each curve is.

:func:`draw` rebuilds a figure from the data a ``lip-*`` reproduction returns
(or from its JSON file): per curve the analytic line, the Monte-Carlo dots
and, where the reference result is ``optimal`` with a proof, the certified
optimum. Legend entries (:mod:`mechopt.figures.legend`): ``<curve> — closed
form`` (solid; ``, proven optimal`` when every point is ``optimal`` with a
proof), ``<curve> — closed form, not private at this ε`` (dotted, ``X``
at the failing points), ``<curve> — certified optimum`` (dashed),
``<curve> — printed formula (no mechanism)`` (dash-dot), a computed curve by
its status words (:func:`solver_words`: ``private, certified within x% of the
optimum`` when it carries a proven gap), ``Monte-Carlo (± 1.96 se)`` and ``Monte-Carlo (not private)``.
:func:`curve_words` gives the same facts per curve for the JSON notes.

Examples
--------
>>> rows = [{"x": e, "curve": "Opt-LIP (Thm 2)", "kind": "closed form", "analytic": a, "n_users": 1,
...          "private": p, "status": "feasible" if p else "infeasible_point", "mc": None,
...          "certified": c, "certified_status": "optimal", "certified_proof": "certificate"}
...         for e, a, p, c in ((1.0, 0.2, False, 0.21), (3.0, 0.05, True, 0.05))]
>>> fig = draw({"rows": rows, "plot": {"ylabel": "E", "transform": "identity"}})
>>> fig.axes[0].get_legend_handles_labels()[1]  # doctest: +NORMALIZE_WHITESPACE
['Opt-LIP (Thm 2) — closed form', 'Opt-LIP (Thm 2) — closed form, not private at this ε',
 'Opt-LIP (Thm 2) — certified optimum']
>>> curve_words(rows)
'closed form; not private at x in [1.0]; statuses feasible 1, infeasible_point 1; certified optimum drawn at 2 of 2 x'
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from mechopt.figures.legend import certified_curve, closed_curve, mc_legend, mc_points, printed_curve
from mechopt.results.words import CERTIFIED, is_certified, series_label

__all__ = ["draw", "curve_words", "TRANSFORMS", "TITLES"]


def _identity(r: dict[str, Any], v: float) -> float:
    return v


def _rmse(r: dict[str, Any], v: float) -> float:
    return math.sqrt(max(v, 0.0) / r["n_users"])


#: y transforms by name (the JSON stores the name): E itself, or sqrt(E / N).
TRANSFORMS = {"identity": _identity, "rmse": _rmse}


def _certified_rows(pts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        r
        for r in pts
        if r.get("certified") is not None and is_certified(r.get("certified_status"), r.get("certified_proof"))
    ]


def solver_words(pts: list[dict[str, Any]]) -> str:
    """A computed curve's words: its status words, or, when every point is private and carries a proven
    relative gap ``rel_gap`` (value within that fraction above a proven bound), ``private, certified
    within x% of the optimum``.

    >>> solver_words([{"status": "feasible", "proof": None, "private": True, "rel_gap": 0.012}])
    'private, certified within 1.2% of the optimum'
    """
    word = series_label(pts)
    gaps = [r.get("rel_gap") for r in pts]
    if word != CERTIFIED and gaps and all(g is not None for g in gaps) and all(r.get("private") for r in pts):
        what = " (expected MSE)" if any("expected_mse" in r for r in pts) else ""
        return f"private, certified within {max(gaps):.1%} of the optimum{what}"
    return word


def curve_words(pts: list[dict[str, Any]]) -> str:
    """What one curve is, in the status words: kind, where it is not private, statuses, certified overlay."""
    kind = pts[0].get("kind", "closed form")
    if kind == "printed formula":
        return "printed formula (no mechanism behind it: nothing to audit)"
    if kind == "solver":
        words = [solver_words(pts)]
    else:
        ref = pts[0].get("ref")
        words = [
            "closed form"
            + (f" ({ref})" if ref else "")
            + (", proven optimal" if all(is_certified(r.get("status"), r.get("proof")) for r in pts) else "")
        ]
        bad = [r["x"] for r in pts if r.get("private") is False]
        words.append(f"not private at x in {bad}" if bad else "private at every x")
    st = Counter(r.get("status") for r in pts if r.get("status"))
    if st:
        words.append("statuses " + ", ".join(f"{k} {n}" for k, n in sorted(st.items())))
    cert = _certified_rows(pts)
    if any("certified_status" in r for r in pts):
        words.append(f"certified optimum drawn at {len(cert)} of {len(pts)} x")
    mc_bad = [r["x"] for r in pts if r.get("mc") is not None and r.get("private") is False]
    if mc_bad:
        words.append(f"Monte-Carlo of a non-private mechanism at x in {mc_bad}")
    return "; ".join(words)


#: The LIP figures' titles, by id (the registry :data:`mechopt.figures.lip.figures.FIGURES` and the drawn figure title).
TITLES = {
    "lip-fig2": "Example 1: expected error of LDP, Opt-LDP and Opt-LIP (N=100, P1=0.1)",
    "lip-fig5": "Prior-aware vs prior-free binary models",
    "lip-fig6a": "MIMO: N=500, |D|=5, random prior",
    "lip-fig6b": "MIMO: N=500, eps=1, |D| from 2 to 20",
    "lip-fig7": "Histogram: LIP vs context-aware LDP vs OUE",
    "lip-fig8": "Local priors, N = 5, 500, 50 000, Monte Carlo",
    "lip-fig9": "Kosarak / Gowalla on SYNTHETIC stand-ins (real data not available)",
}


def draw(data: dict[str, Any]) -> Any:
    """The figure of a LIP reproduction's ``data`` (``rows`` and ``plot``) as a matplotlib Figure."""
    from mechopt.runtime.optional import require

    Figure = require("matplotlib.figure", "plot", "plots").Figure

    rows, opts = data["rows"], data.get("plot", {})
    tf = TRANSFORMS[opts.get("transform", "identity")]
    panel = opts.get("panel")
    panels = sorted({r.get(panel) for r in rows}, key=str) if panel else [None]
    fig = Figure(figsize=(5.6 * len(panels), 4.6))
    axes = fig.subplots(1, len(panels), squeeze=False)[0]
    for ax, pv in zip(axes, panels):
        sub = [r for r in rows if panel is None or r.get(panel) == pv]
        for i, curve in enumerate(dict.fromkeys(r["curve"] for r in sub)):
            pts = [r for r in sub if r["curve"] == curve]
            _draw_curve(ax, pts, curve, f"C{i % 10}", tf)
        mc_legend(ax, [r.get("private") for r in sub if r.get("mc") is not None])
        ax.set_xlabel(opts.get("xlabel", "eps"))
        ax.set_ylabel(opts.get("ylabel", ""))
        if opts.get("logy", True):
            ax.set_yscale("log")
        if pv is not None:
            ax.set_title(f"{panel} = {pv}")
        ax.legend(fontsize=6)
    title = data.get("title") or _title(data.get("id"))
    if title:  # a figure title, not an axes title: the legend record stays keyed by the axes
        fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    return fig


def _title(fid: str | None) -> str:
    """``"<id>: <description>"`` from the LIP figure titles (empty for no id, the id for an unknown one)."""
    if not fid:
        return ""
    return f"{fid}: {TITLES[fid]}" if fid in TITLES else fid


def _draw_curve(ax: Any, pts: list[dict[str, Any]], curve: str, color: str, tf: Any) -> None:
    x = [r["x"] for r in pts]
    y = [tf(r, r["analytic"]) for r in pts]
    kind = pts[0].get("kind", "closed form")
    if kind == "printed formula":
        printed_curve(ax, x, y, color, curve)
    elif kind == "solver":
        ax.plot(x, y, "-", color=color, lw=1.8, label=f"{curve} — {solver_words(pts)}")
    else:
        proven = all(is_certified(r.get("status"), r.get("proof")) for r in pts)
        closed_curve(ax, x, y, [r.get("private") for r in pts], color, curve, pts[0].get("ref"), proven)
    mc = [r for r in pts if r.get("mc") is not None]
    if mc:
        err = [abs(tf(r, r["mc"] + 1.96 * r["mc_se"]) - tf(r, r["mc"])) for r in mc]
        mc_points(ax, [r["x"] for r in mc], [tf(r, r["mc"]) for r in mc], err, [r.get("private") for r in mc], color)
    cert = _certified_rows(pts)
    if cert:
        certified_curve(ax, [r["x"] for r in cert], [tf(r, r["certified"]) for r in cert], color, curve)
