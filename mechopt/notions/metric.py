"""Metric privacy (geo-indistinguishability) from a distance matrix: Q[x, y] ≤ e^{ε d(x, x')} Q[x', y].

``GraphLDP(..., metric=True)`` takes the metric as the shortest paths of a policy graph;
:class:`MetricLDP` takes any distance matrix d (Euclidean or haversine distances between
locations, :mod:`mechopt.geo.places`), constrains every pair with a finite distance, and audits a
channel in blocks (no Python loop over the n² pairs): the smallest ε it satisfies is
max over pairs and outputs of |log Q[x, y] − log Q[x', y]| / d(x, x').

Examples
--------
>>> import numpy as np
>>> d = np.array([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]])   # three points on a line
>>> Q = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
>>> round(MetricLDP(1.0, d).audit(Q).eps, 6)          # log 5 between neighbours, log 9 / 2 end to end
1.609438
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.notions.ldp import LDP

__all__ = ["MetricLDP", "check_distances"]

#: Entries of the (block, n, m) log-ratio array the audit builds at a time.
_BLOCK = 4_000_000


def check_distances(dist: Any, name: str = "distance matrix") -> np.ndarray:
    """``dist`` as a float matrix after checking it is a (pseudo)metric's table: square, symmetric,
    zero on the diagonal, ≥ 0 (``inf``: the pair is unconstrained).

    >>> check_distances([[0, 1], [2, 0]])
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: distance matrix is not symmetric (d[0, 1] = 1, d[1, 0] = 2): give d(x, x') = d(x', x)
    """
    try:
        D = np.array(dist, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a square matrix of numbers") from None
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] < 1:
        raise ProblemError(f"{name} must be a square matrix, got shape {D.shape}")
    if np.isnan(D).any() or (D < 0).any():
        raise ProblemError(f"{name} has NaN or negative entries: distances are ≥ 0 (inf: unconstrained pair)")
    if np.any(np.diag(D) != 0):
        raise ProblemError(f"{name} must be 0 on the diagonal (d(x, x) = 0)")
    bad = np.argwhere(D != D.T)
    if bad.size:
        i, j = (int(v) for v in bad[0])
        raise ProblemError(
            f"{name} is not symmetric (d[{i}, {j}] = {D[i, j]:g}, d[{j}, {i}] = {D[j, i]:g}): give d(x, x') = d(x', x)"
        )
    return D


class MetricLDP(LDP):
    """ε-metric privacy for the distance matrix ``dist`` (d-privacy, geo-indistinguishability).

    Parameters
    ----------
    eps : float
        Privacy per unit of distance.
    dist : array_like, shape (d, d)
        Distances between inputs (:func:`check_distances`); ``inf`` leaves a pair unconstrained.
    source : dict, optional
        How ``dist`` was made (e.g. ``{"coords": ..., "norm": "euclidean"}``), reported by
        :meth:`params` instead of the d × d table.

    Examples
    --------
    >>> import numpy as np
    >>> n = MetricLDP(0.5, [[0.0, 2.0], [2.0, 0.0]])
    >>> n.name, round(n.epsilon(np.array([[0.6, 0.4], [0.4, 0.6]]), None), 6)   # log 1.5 / 2
    ('metric-ldp', 0.202733)
    """

    name = "metric-ldp"

    def __init__(self, eps: float, dist: Any, *, source: dict[str, Any] | None = None) -> None:
        super().__init__(eps)
        self.dist = check_distances(dist)
        finite = np.isfinite(self.dist) & ~np.eye(self.dist.shape[0], dtype=bool)
        big = self.eps * np.where(finite, self.dist, 0.0)
        if big.size and big.max() > 700:
            i, j = (int(v) for v in np.unravel_index(int(np.argmax(big)), big.shape))
            raise ProblemError(
                f"eps * d({i}, {j}) = {big[i, j]:g} > 700 overflows e^(eps d); give that pair distance inf "
                "to leave it unconstrained, or measure distances in larger units"
            )
        #: Inputs with no finite distance to any other: metric privacy does not protect them.
        self.unprotected = tuple(int(x) for x in np.flatnonzero(~finite.any(axis=1))) if self.dist.shape[0] > 1 else ()
        if self.unprotected:
            warnings.warn(
                f"metric privacy: inputs {list(self.unprotected)} are at infinite distance from every other input, "
                "so they are not protected",
                UserWarning,
                stacklevel=2,
            )
        self.source = dict(source) if source else None

    def pair_weights(self, d: int) -> np.ndarray:
        if d != self.dist.shape[0]:
            raise ProblemError(f"the distance matrix has {self.dist.shape[0]} points but there are {d} inputs")
        return self.dist

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        D = self.pair_weights(Q.shape[0])
        n, m = Q.shape
        with np.errstate(divide="ignore"):
            L = np.log(np.asarray(Q, float))
        b = max(1, _BLOCK // max(1, n * m))
        worst = 0.0
        for lo in range(0, n, b):
            rows = slice(lo, min(n, lo + b))
            with np.errstate(invalid="ignore"):
                diff = np.abs(L[rows, None, :] - L[None, :, :])  # nan where both entries are 0
            r = np.nanmax(np.where(np.isnan(diff), -np.inf, diff), axis=2)  # (b, n): max log-ratio per pair
            d = D[rows]
            live = np.isfinite(d) & (r > 0)
            if not live.any():
                continue
            if np.any(live & ((d == 0) | np.isinf(r))):
                return math.inf
            worst = max(worst, float(np.max(r[live] / d[live])))
        return worst

    def params(self) -> dict[str, Any]:
        if self.source is not None:
            return {"notion": self.name, "eps": self.eps, **self.source}
        return {"notion": self.name, "eps": self.eps, "dist": self.dist.tolist()}
