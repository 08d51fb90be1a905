"""Plots of mechanisms and privacy–utility curves that belong to the caller's matplotlib.

Every function draws into the Axes given as ``ax=`` (or into a new
:class:`matplotlib.figure.Figure` made without pyplot when ``ax`` is None)
and returns the Axes; none of them touches the backend, the pyplot state
or ``rcParams``. Save with ``ax.figure.savefig(path)``.

* :func:`plot_channel` — the heatmap of Q[x, y] = P(Y=y | X=x), with the
  prior P(x) beside its rows and the posteriors P(X=x | Y=y) beside it,
  each with a labelled colourbar.
* :func:`plot_tradeoff` — a privacy–utility curve: the value (with its unit)
  against ε or another grid parameter, on a log axis when the grid is
  log-spaced.

Examples
--------
>>> import numpy as np
>>> from mechopt.plot import plot_channel, plot_tradeoff
>>> ax = plot_channel([[0.75, 0.25], [0.25, 0.75]], prior=[0.3, 0.7])
>>> ax.get_title()
'Q[x, y] = P(Y=y | X=x)'
>>> [a.get_ylabel() for a in ax.figure.axes if a.get_ylabel().startswith("P(")]
['P(Y=y | X=x)', 'P(X=x | Y=y)']
>>> eps = np.logspace(-1, 1, 5)
>>> ax = plot_tradeoff({"exact": (eps, 1 - np.exp(-eps))}, unit="nats")
>>> ax.get_xscale(), ax.get_ylabel()
('log', 'value (nats)')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.model._matrix import checked_prior, posterior_matrix, validate_channel

__all__ = ["plot_channel", "plot_tradeoff", "log_spaced", "new_axes", "value_label"]


def new_axes(ax: Any = None, figsize: tuple[float, float] = (6.0, 4.0), layout: str | None = "constrained") -> Any:
    """``ax`` itself, or the Axes of a new :class:`matplotlib.figure.Figure` (no pyplot, no backend).

    Examples
    --------
    >>> type(new_axes().figure).__name__
    'Figure'
    """
    if ax is not None:
        return ax
    from mechopt.runtime.optional import require

    return require("matplotlib.figure", "plot", "plots").Figure(figsize=figsize, layout=layout).subplots()


def log_spaced(xs: Sequence[float]) -> bool:
    """Whether a grid is log-spaced: ≥ 3 distinct positive values with constant ratios (and not constant steps).

    Examples
    --------
    >>> log_spaced([0.1, 1, 10]), log_spaced([1, 2, 3]), log_spaced([1, 2])
    (True, False, False)
    """
    try:
        v = np.unique(np.asarray([float(x) for x in xs], dtype=float))
    except (TypeError, ValueError):
        return False
    if v.size < 3 or not np.all(np.isfinite(v)) or v[0] <= 0:
        return False
    steps, ratios = np.diff(v), np.diff(np.log(v))
    even = np.allclose(steps, steps.mean(), rtol=1e-6, atol=0.0)
    return bool(not even and np.allclose(ratios, ratios.mean(), rtol=1e-3, atol=0.0))


def value_label(objective: str | None, unit: str | None, sense: str | None = None) -> str:
    """An axis label: the objective, its unit and its sense.

    Examples
    --------
    >>> value_label("mi", "nats", "max")
    'mi (nats; maximised)'
    >>> value_label(None, None)
    'value'
    """
    parts = [p for p in (unit, {"min": "minimised", "max": "maximised"}.get(sense or "")) if p]
    return f"{objective or 'value'}" + (f" ({'; '.join(parts)})" if parts else "")


def _is_result(obj: Any) -> bool:
    """Whether ``obj`` is a :class:`~mechopt.results.result.Result` (duck-typed: this module sits below ``result``,
    whose ``Result.plot`` calls it)."""
    return all(hasattr(obj, a) for a in ("status", "value", "objective", "sense", "mechanism"))


def _channel_of(mech: Any) -> tuple[np.ndarray, str | None]:
    """(Q, title) of a Result, a Channel or an array-like."""
    if _is_result(mech):
        value = "–" if mech.value is None else f"{mech.value:.6g}"
        title = f"{mech.objective} = {value}" + (f" {mech.unit}" if mech.unit else "") + f" ({mech.status.value})"
        return validate_channel(mech.Q), title
    return validate_channel(getattr(mech, "matrix", mech)), None


def plot_channel(
    mechanism: Any, prior: Any = None, ax: Any = None, *, title: str | None = None, cmap: str = "viridis"
) -> Any:
    """Draw Q[x, y] = P(Y=y | X=x) as a heatmap; with a prior, also P(x) and the posteriors.

    Parameters
    ----------
    mechanism : Result, Channel or array_like, shape (d, m)
        Rows are inputs. A :class:`~mechopt.results.result.Result` without a channel
        matrix raises :class:`~mechopt.errors.NoChannelError`.
    prior : array_like, shape (d,), optional
        Adds a bar chart of P(x) left of the rows and the heatmap of the
        posteriors P(X=x | Y=y) = P(x) Q[x, y] / Σ_x' P(x') Q[x', y] on the right.
    ax : matplotlib Axes, optional
        Where the heatmap goes; the prior, posterior and colourbar panels are
        split off it (``mpl_toolkits.axes_grid1``), so they stay inside the
        caller's figure. Default: a new Figure.
    title : str, optional
        Default ``"Q[x, y] = P(Y=y | X=x)"`` and, for a Result, its value,
        unit and status in the figure title.

    Returns
    -------
    matplotlib Axes
        The heatmap's Axes (``ax.figure`` holds the rest).

    Examples
    --------
    >>> ax = plot_channel([[0.9, 0.1], [0.2, 0.8]])
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('output y', 'input x')
    """
    from mpl_toolkits.axes_grid1 import make_axes_locatable

    Q, about = _channel_of(mechanism)
    d, m = Q.shape
    from matplotlib.ticker import MaxNLocator

    fresh = ax is None
    ax = new_axes(ax, figsize=(10.0 if prior is not None else 5.5, 2.2 + 0.3 * min(d, 30)), layout=None)
    if fresh:  # room for the split-off panels (axes_grid1 does not take part in a layout engine)
        ax.figure.subplots_adjust(left=0.2 if prior is not None else 0.12, right=0.9, bottom=0.18, top=0.84)
    div = make_axes_locatable(ax)
    im = ax.imshow(Q, aspect="auto", cmap=cmap, vmin=0.0, vmax=1.0, interpolation="nearest")
    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("output y")
    ax.set_ylabel("input x")
    ax.set_title(title or "Q[x, y] = P(Y=y | X=x)", fontsize=9)
    cax = div.append_axes("right", size=0.15, pad=0.08)
    ax.figure.colorbar(im, cax=cax)
    cax.set_ylabel("P(Y=y | X=x)")
    if prior is not None:
        P = checked_prior(prior, d)
        pax = div.append_axes("left", size="25%", pad=0.45, sharey=ax)
        pax.barh(np.arange(d), P, color="0.45")
        pax.invert_xaxis()
        pax.set_xlabel("prior P(x)")
        pax.set_ylabel("input x")
        ax.set_ylabel("")
        qax = div.append_axes("right", size="100%", pad=0.75, sharey=ax)
        im2 = qax.imshow(
            posterior_matrix(Q, P), aspect="auto", cmap="magma", vmin=0.0, vmax=1.0, interpolation="nearest"
        )
        qax.xaxis.set_major_locator(MaxNLocator(integer=True))
        qax.set_xlabel("output y")
        qax.set_title("posterior P(X=x | Y=y)", fontsize=9)
        qax.tick_params(labelleft=False)
        cax2 = div.append_axes("right", size=0.15, pad=0.08)
        ax.figure.colorbar(im2, cax=cax2)
        cax2.set_ylabel("P(X=x | Y=y)")
    if about is not None:
        ax.figure.suptitle(about, fontsize=9)
    return ax


def _curves(data: Any, x: str) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], str | None, str | None, str | None]:
    """{label: (xs, ys)}, objective, unit, sense from the accepted inputs of :func:`plot_tradeoff`."""
    objective = unit = sense = None
    curves: dict[str, tuple[list[float], list[float]]] = {}

    def add(label: str, xv: Any, yv: Any) -> None:
        xs, ys = curves.setdefault(label, ([], []))
        xs.append(float(xv))
        ys.append(float(yv))

    if isinstance(data, Mapping):
        items = list(data.items())
    elif isinstance(data, Sequence) and data and _is_result(data[0]):
        items = [(None, data)]
    elif isinstance(data, Sequence) and data and isinstance(data[0], Mapping):
        items = [(None, data)]
    else:
        raise ParamError("plot_tradeoff takes a list of Results, a list of sweep lines, or {label: results | (x, y)}")
    for label, series in items:
        if (
            isinstance(series, tuple)
            and len(series) == 2
            and not (_is_result(series[0]) or isinstance(series[0], Mapping))
        ):
            for xv, yv in zip(*series):
                add(str(label), xv, yv)
            continue
        for item in series:
            if _is_result(item):
                if item.value is None:
                    continue
                xv = getattr(item, x, None)
                if xv is None:
                    raise ParamError(f"a Result has no {x!r} to put on the x axis; pass {{label: (x, y)}} instead")
                add(str(label or item.solver or "result"), xv, item.value)
                objective, unit, sense = item.objective, item.unit or unit, item.sense
            elif isinstance(item, Mapping):
                if item.get("value") is None or item.get("status") == "infeasible_point":
                    continue
                point = item.get("point", item)
                if x not in point:
                    raise ParamError(f"a sweep line has no grid parameter {x!r}; it has {sorted(point)}")
                add(str(label or item.get("solver", "series")), point[x], item["value"])
                objective, unit, sense = item.get("objective"), item.get("unit") or unit, item.get("sense")
            else:
                raise ParamError(f"cannot plot a {type(item).__name__} as a tradeoff point")
    if not curves:
        raise ProblemError("no point has a value to plot")
    return ({k: (np.asarray(a), np.asarray(b)) for k, (a, b) in curves.items()}, objective, unit, sense)


def plot_tradeoff(
    data: Any,
    x: str = "eps",
    ax: Any = None,
    *,
    logx: bool | None = None,
    unit: str | None = None,
    ylabel: str | None = None,
    title: str | None = None,
) -> Any:
    """A privacy–utility curve: the value against ``x`` (ε by default), one line per solver or label.

    Parameters
    ----------
    data : list of Result, list of sweep lines, or dict
        Results (x read from the attribute ``x``; failed points skipped),
        the JSON lines of :func:`mechopt.sweep` (x read from ``point[x]``;
        ``infeasible_point`` lines skipped), or ``{label: results}`` /
        ``{label: (xs, ys)}``.
    x : str
        The grid parameter on the x axis.
    ax : matplotlib Axes, optional
        Default: a new Figure (no pyplot).
    logx : bool, optional
        Default: a log axis exactly when the x grid is log-spaced (:func:`log_spaced`).
    unit : str, optional
        The value's unit for the y label; default the results' ``unit``.

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> ax = plot_tradeoff({"a": ([1, 2, 3], [0.3, 0.2, 0.1])}, unit="squared units of the values")
    >>> ax.get_xscale(), ax.get_xlabel(), ax.get_ylabel()
    ('linear', 'eps', 'value (squared units of the values)')
    """
    curves, objective, data_unit, sense = _curves(data, x)
    ax = new_axes(ax)
    for j, (label, (xs, ys)) in enumerate(curves.items()):
        order = np.argsort(xs)
        ax.plot(xs[order], ys[order], marker="os^Dv<>"[j % 7], ls=["-", "--", ":", "-."][j % 4], label=label)
    all_x = np.concatenate([xs for xs, _ in curves.values()])
    if logx if logx is not None else log_spaced(all_x):
        ax.set_xscale("log")
    ax.set_xlabel(x)
    ax.set_ylabel(ylabel or value_label(objective, unit or data_unit, sense))
    ax.set_title(title or f"privacy–utility tradeoff over {x}", fontsize=9)
    if len(curves) > 1 or next(iter(curves)) not in ("None", "series"):
        ax.legend(fontsize=7)
    return ax
