"""Location privacy: places and their distances, expected-loss utilities, baselines and map plots.

- :mod:`mechopt.geo.places` — grids, lines, points (Euclidean, Manhattan, haversine), priors from counts.
- :mod:`mechopt.geo.loss` — :class:`ExpectedLoss`, any loss matrix (linear in Q).
- :mod:`mechopt.geo.baselines` — planar Laplace on a grid and Bayesian remapping (baselines, not optima).
- :mod:`mechopt.geo.plot` — where each location is reported to, on the map.

The design problem is :class:`mechopt.problems.geo.GeoDesign`, solved by the ``lp`` solver.
"""

from mechopt.geo.loss import ExpectedLoss
from mechopt.geo.places import (
    Places,
    bin_points,
    grid,
    line,
    parse_places,
    points,
    prior_from_counts,
    prior_from_density,
)

__all__ = [
    "ExpectedLoss",
    "Places",
    "grid",
    "line",
    "points",
    "parse_places",
    "prior_from_counts",
    "prior_from_density",
    "bin_points",
]
