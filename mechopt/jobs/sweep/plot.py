"""Drawing a sweep: its tradeoff plot (value against a grid parameter, one curve per solver and setting) and
the legend that says what each curve's points are.

Examples
--------
>>> lines = [{"solver": "sqp", "point": {"eps": 0.5, "n": 2}, "status": "locally_optimal", "proof": None}]
>>> series_legend(lines, x="eps")
{'sqp (n=2)': 'sqp (n=2) — locally optimal'}
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mechopt.errors import ParamError, ProblemError

__all__ = ["series_legend", "sweep_figure", "plot_sweep"]


def _series(lines: list[dict[str, Any]], x: str) -> dict[str, list[dict[str, Any]]]:
    keys = list(lines[0]["point"])
    series: dict[str, list[dict[str, Any]]] = {}
    for ln in lines:
        rest = ", ".join(f"{k}={ln['point'][k]}" for k in keys if k != x)
        series.setdefault(f"{ln['solver']}" + (f" ({rest})" if rest else ""), []).append(ln)
    return series


def _x_axis(lines: list[dict[str, Any]], x: str | None) -> str:
    keys = list(lines[0]["point"])
    if x is None:
        x = next((k for k in keys if all(isinstance(ln["point"][k], (int, float)) for ln in lines)), None)
    if x is None:
        raise ParamError("no numeric grid parameter to put on the x axis (set [plot] x = ...)")
    return x


def series_legend(lines: list[dict[str, Any]], x: str | None = None) -> dict[str, str]:
    """Legend text per curve: its name, then what its points are (:func:`~mechopt.results.words.series_label`).

    A curve is ``certified optimum`` only when every point is ``optimal`` with
    a proof; ``locally optimal`` (sqp, gd-penalty), ``heuristic`` (greedy,
    anneal) or ``feasible, no proof`` otherwise, with the points that are not
    private or hit a limit counted.

    Examples
    --------
    >>> lines = [{"solver": "exact", "point": {"eps": 1.0}, "status": "optimal", "proof": "certificate"},
    ...          {"solver": "greedy", "point": {"eps": 1.0}, "status": "feasible", "proof": None}]
    >>> series_legend(lines)
    {'exact': 'exact — certified optimum', 'greedy': 'greedy — heuristic'}
    """
    from mechopt.figures.legend import solver_guarantee
    from mechopt.results.words import series_label

    lines = [ln for ln in lines if "point" in ln]
    if not lines:
        return {}
    x = _x_axis(lines, x)
    return {
        name: f"{name} — {series_label(pts, solver_guarantee(pts[0]['solver']))}"
        for name, pts in _series(lines, x).items()
    }


def sweep_figure(
    lines: list[dict[str, Any]],
    x: str | None = None,
    title: str | None = None,
    *,
    ax: Any = None,
    logx: bool | None = None,
) -> Any:
    """The tradeoff plot as a :class:`matplotlib.figure.Figure`: value against the grid parameter ``x``,
    one curve per solver and setting of the other grid parameters.

    Drawn into ``ax`` when given (its figure is returned), else into a new
    Figure made without pyplot; the backend is never touched. The x axis is
    logarithmic when the grid is log-spaced (``logx=None``,
    :func:`mechopt.plot.log_spaced`); the y label says the objective's unit.

    Each legend entry says what the curve is (:func:`series_legend`). Points
    that are not answers are marked, not joined: a mechanism that fails its
    privacy audit (``infeasible_point``) as a red ×, a point that hit an
    iteration or time limit as an open diamond.

    Examples
    --------
    >>> lines = [{"solver": "sqp", "point": {"eps": e}, "status": s, "proof": None, "value": v,
    ...           "problem": "design", "objective": "mse", "sense": "min"}
    ...          for e, s, v in ((0.5, "locally_optimal", 0.4), (1.0, "infeasible_point", 0.1))]
    >>> ax = sweep_figure(lines).axes[0]
    >>> ax.get_legend_handles_labels()[1]
    ['sqp — locally optimal; 1 of 2 not private', 'not private (audit failed)']
    """
    from mechopt.figures.legend import mark_points
    from mechopt.plot import log_spaced, new_axes, value_label

    pts = [ln for ln in lines if ln.get("value") is not None]
    if not pts:
        raise ProblemError("no finished point has a value to plot")
    x = _x_axis(pts, x)
    labels = series_legend(pts, x)
    fresh = ax is None
    ax = new_axes(ax, figsize=(6, 4), layout=None)
    fig = ax.figure
    for j, (name, sel) in enumerate(sorted(_series(pts, x).items())):  # styles vary so overlapping curves show
        sel = sorted(sel, key=lambda ln: ln["point"][x])
        ok = [ln for ln in sel if ln.get("status") != "infeasible_point"]
        ax.plot(
            [ln["point"][x] for ln in ok],
            [ln["value"] for ln in ok],
            marker="os^Dv<>"[j % 7],
            ls=["-", "--", ":", "-."][j % 4],
            ms=7 - (j % 3) * 1.5,
            label=labels[name],
        )
    mark_points(ax, [(ln["point"][x], ln["value"], ln.get("status")) for ln in pts])
    if logx if logx is not None else log_spaced([ln["point"][x] for ln in pts]):
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(value_label(pts[0].get("objective"), pts[0].get("unit"), pts[0].get("sense")))
    ax.set_title(title or f"{pts[0]['problem']}: tradeoff", fontsize=9)
    ax.legend(fontsize=7)
    if fresh:
        fig.tight_layout()
    return fig


def plot_sweep(
    lines: list[dict[str, Any]],
    png: str | Path | None = None,
    x: str | None = None,
    title: str | None = None,
    *,
    ax: Any = None,
    logx: bool | None = None,
) -> Any:
    """:func:`sweep_figure` (into ``ax`` when given), also written to ``png`` when given
    (:func:`mechopt.io.writer.savefig`).

    Returns the Figure.
    """
    from mechopt.io.writer import savefig

    fig = sweep_figure(lines, x, title, ax=ax, logx=logx)
    if png is not None:
        try:
            savefig(fig, png, dpi=110)
        except OSError as exc:
            raise ParamError(f"cannot write the plot {str(png)!r}: {exc.strerror or exc}") from None
    return fig
