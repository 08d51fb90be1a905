"""Drawing the rows of ``mechopt compare``: each solver's value per instance and its relative distance to the
instance's reference (:func:`plot_compare`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError
from mechopt.jobs.flags import CLOSED_FORM, reference_row

__all__ = ["plot_compare"]


def _reference_value(rows: Sequence[dict[str, Any]]) -> float | None:
    """The plot's reference of one instance: the most precise certified row's value
    (:func:`~mechopt.jobs.flags.reference_row`); without one, among the rows that passed
    their audit and are not closed forms (the claims under test), the best value of those with
    the smallest error estimate (so a raw grid value is not the yardstick of a continuous one).

    >>> _reference_value([{"solver": "conic", "value": 9.86955, "error_estimate": 2e-4, "flag": "",
    ...                    "status": "feasible"},
    ...                   {"solver": "spectral", "value": 9.8696044, "error_estimate": 1e-12, "flag": "",
    ...                    "status": "feasible"}])
    9.8696044
    """
    ref = reference_row(rows)
    if ref is not None:
        return ref["value"]
    ok = [r for r in rows if r["value"] is not None and "infeasible" not in r["flag"]]
    ok = [r for r in ok if r["solver"] != CLOSED_FORM] or ok
    if not ok:
        return None
    least = min(r.get("error_estimate") or 0.0 for r in ok)
    sense = next((r.get("sense") for r in rows if r.get("sense")), "min")
    return (max if sense == "max" else min)(r["value"] for r in ok if (r.get("error_estimate") or 0.0) == least)


def plot_compare(
    rows: Sequence[dict[str, Any]], out_dir: str | Path | None = None, *, ax: Any = None
) -> dict[str, Any]:
    """One figure per problem id: each solver's value on each instance (top; certified rows —
    ``optimal`` with a machine-checked proof, never a closed form — circled, answers that fail
    their audit edged in red) and its relative distance to the instance's reference (bottom:
    the most precise certified value, else the best value that passed its audit; > 0 is worse,
    symlog scale). The value axis says the objective's unit.

    Parameters
    ----------
    rows : list of dict
        The rows of :func:`compare`.
    out_dir : path, optional
        Also write ``compare_<problem>.png`` there (atomically).
    ax : Axes or (Axes, Axes), optional
        Draw into the caller's axes (the rows must then be of one problem id):
        a pair gets the values and the distances, a single Axes the values only.
        Default: new :class:`matplotlib.figure.Figure` objects (no pyplot, the
        backend is never touched).

    Returns
    -------
    dict
        ``{problem id: Figure}``.
    """
    from mechopt.runtime.optional import require

    Figure = require("matplotlib.figure", "plot", "plots").Figure
    pids = list(dict.fromkeys(r["problem"] for r in rows))
    if ax is not None and len(pids) != 1:
        raise ParamError(f"plot_compare(ax=...) draws one problem, the rows hold {len(pids)}: {pids}")
    out = None if out_dir is None else Path(out_dir)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    figs: dict[str, Any] = {}
    for pid in pids:
        sub = [r for r in rows if r["problem"] == pid]
        names = list(dict.fromkeys(r["instance"] for r in sub))
        senses = {n: next((r.get("sense") for r in sub if r["instance"] == n and r.get("sense")), "min") for n in names}
        refs = {n: _reference_value([r for r in sub if r["instance"] == n]) for n in names}
        if ax is None:
            fig = Figure(figsize=(max(5.5, 1.3 * len(names) + 2.5), 5.6))
            vx, bx = fig.subplots(2, 1, sharex=True)
        elif isinstance(ax, (tuple, list)):
            vx, bx = ax
            fig = vx.figure
        else:
            vx, bx, fig = ax, None, ax.figure
        solvers = list(dict.fromkeys(r["solver"] for r in sub))
        for j, solver in enumerate(solvers):
            pts = [r for r in sub if r["solver"] == solver and r["value"] is not None]
            if not pts:
                continue
            xs = [names.index(r["instance"]) + 0.1 * (j - (len(solvers) - 1) / 2) for r in pts]
            bad = ["infeasible" in r["flag"] for r in pts]
            mk = "os^Dv<>*P"[j % 9]
            vx.scatter(
                xs,
                [r["value"] for r in pts],
                label=solver,
                marker=mk,
                zorder=3,
                edgecolors=["red" if b else "none" for b in bad],
                linewidths=1.5,
            )
            cx = [x for x, r in zip(xs, pts) if r["certified"]]
            vx.scatter(
                cx, [r["value"] for r in pts if r["certified"]], s=170, facecolors="none", edgecolors="k", zorder=2
            )
            dev = []
            for r in pts:
                ref = refs[r["instance"]]
                if ref is None:
                    dev.append(float("nan"))
                    continue
                d = (r["value"] - ref) if senses[r["instance"]] == "min" else (ref - r["value"])
                dev.append(d / max(1.0, abs(ref)))
            if bx is None:
                continue
            bx.scatter(xs, dev, marker=mk, zorder=3, edgecolors=["red" if b else "none" for b in bad], linewidths=1.5)
            err = [(r.get("error_estimate") or 0.0) / max(1.0, abs(refs[r["instance"]] or 0.0)) for r in pts]
            if any(0 < e < float("inf") for e in err):  # a discretisation: its error estimate as a bar
                bx.errorbar(
                    xs,
                    dev,
                    yerr=[e if e < float("inf") else 0.0 for e in err],
                    fmt="none",
                    ecolor="0.4",
                    elinewidth=0.8,
                    capsize=2,
                    zorder=2,
                )
        lx = vx if bx is None else bx
        if bx is not None:
            bx.axhline(0.0, color="k", lw=0.8)
            bx.set_yscale("symlog", linthresh=1e-6)
            bx.set_ylabel("relative distance to the\nreference (> 0: worse;\nbar: error estimate)", fontsize=8)
        lx.set_xticks(range(len(names)), names, rotation=20, ha="right", fontsize=7)
        kinds = set(senses.values())
        better = "lower" if kinds == {"min"} else "higher" if kinds == {"max"} else "problem's sense"
        units = {r.get("unit") for r in sub if r.get("value") is not None} - {None}
        unit = f", {units.pop()}" if len(units) == 1 else ""
        vx.set_ylabel(
            f"value ({better} is better{unit})" if len(kinds) == 1 else f"value (each in its problem's sense{unit})",
            fontsize=8,
        )
        vx.scatter(
            [],
            [],
            s=170,
            facecolors="none",
            edgecolors="k",
            label="certified (*): optimal with a machine-\nchecked proof (never a closed form)",
        )
        vx.set_title(f"{pid}: circled = certified; red edge = fails its audit", fontsize=9)
        vx.legend(fontsize=7)
        if ax is None:
            fig.tight_layout()
        if out is not None:
            from mechopt.io.writer import savefig

            savefig(fig, out / f"compare_{pid}.png", dpi=110)
        figs[pid] = fig
    return figs
