"""A location-privacy mechanism on its map: where each location is reported to (the caller's matplotlib).

Like :mod:`mechopt.plot`, :func:`plot_map` draws into ``ax=`` (or a new Figure made without
pyplot), returns the Axes and leaves the pyplot state and ``rcParams`` alone.

Examples
--------
>>> import numpy as np
>>> from mechopt.geo.places import grid
>>> from mechopt.geo.baselines import planar_laplace
>>> g = grid(4)
>>> ax = plot_map(planar_laplace(g, 1.0), g, prior=np.full(16, 1 / 16))
>>> ax.get_title()
'where each location is reported to'
>>> ax = plot_map(planar_laplace(g, 1.0), g, source=5)
>>> ax.get_title()
'P(report | true location 5)'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.plot import _channel_of, new_axes

__all__ = ["plot_map"]


def _xy(places: Any, coords: np.ndarray) -> tuple[np.ndarray, np.ndarray, str, str]:
    """Plot coordinates: (longitude, latitude) for haversine places, else the first two coordinates."""
    if places.norm == "haversine":
        return coords[:, 1], coords[:, 0], "longitude", "latitude"
    if coords.shape[1] == 1:
        return coords[:, 0], np.zeros(coords.shape[0]), "position", ""
    return coords[:, 1], coords[:, 0], "column", "row"


def plot_map(
    mech: Any,
    places: Any,
    *,
    prior: Any = None,
    outputs: Any = None,
    source: int | None = None,
    ax: Any = None,
    cmap: str = "viridis",
) -> Any:
    """Draw a mechanism (a Result or Q, rows are the locations of ``places``) on the map.

    Parameters
    ----------
    mech : Result or array_like (n, m)
    places : Places
        The input locations.
    prior : array_like, optional
        P(x); the outputs are then drawn with area proportional to how often they are reported.
    outputs : Places, optional
        The reportable locations (default: the inputs).
    source : int, optional
        Colour every output by P(report y | true location ``source``) instead of drawing arrows.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.axes.Axes
        Without ``source``: an arrow from every location to its expected report (the mean reported
        position) and, with a prior, a disc on every output of area ∝ P(Y = y).
    """
    Q, _ = _channel_of(mech)
    out = places if outputs is None else outputs
    if Q.shape != (places.n, out.n):
        raise ProblemError(f"Q has shape {Q.shape} but there are {places.n} locations and {out.n} outputs")
    ax = new_axes(ax, figsize=(5.5, 5.0))
    xi, yi, xl, yl = _xy(places, places.coords)
    xo, yo, _, _ = _xy(out, out.coords)
    if source is not None:
        if not 0 <= int(source) < places.n:
            raise ProblemError(f"source must be a location index in 0..{places.n - 1}, got {source!r}")
        pts = ax.scatter(xo, yo, c=Q[int(source)], cmap=cmap, s=60, marker="s", vmin=0)
        ax.figure.colorbar(pts, ax=ax, label=f"P(Y=y | X={int(source)})")
        ax.scatter([xi[int(source)]], [yi[int(source)]], marker="*", s=180, c="red", label="true location")
        ax.legend(loc="upper right", fontsize="small")
        ax.set_title(f"P(report | true location {int(source)})")
    else:
        mx, my = Q @ xo, Q @ yo  # the expected reported position of every location
        if prior is not None:
            lam = np.asarray(prior, float) @ Q
            ax.scatter(xo, yo, s=600 * lam / max(lam.max(), 1e-300), alpha=0.35, c="tab:orange", label="P(Y=y)")
        ax.scatter(xi, yi, s=8, c="k", label="true location")
        ax.quiver(xi, yi, mx - xi, my - yi, angles="xy", scale_units="xy", scale=1, width=0.004, color="tab:blue")
        ax.legend(loc="upper right", fontsize="small")
        ax.set_title("where each location is reported to")
    ax.set_xlabel(xl)
    ax.set_ylabel(yl)
    if places.norm != "haversine" and places.coords.shape[1] == 2:
        ax.set_aspect("equal")
        ax.invert_yaxis()  # row 0 at the top, as in a matrix
    return ax
