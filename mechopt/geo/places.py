"""Locations for location privacy: points with a norm (Euclidean, Manhattan, haversine), grids, lines, priors.

A :class:`Places` is a set of n locations with a distance; it gives the distance matrix that both
the privacy notion (:class:`~mechopt.notions.metric.MetricLDP`, geo-indistinguishability) and the
loss (:class:`~mechopt.geo.loss.ExpectedLoss`, e.g. the distance between the true and the reported
location) are made from. Haversine coordinates are (latitude, longitude) in degrees and distances
are in kilometres (mean Earth radius 6371.0088 km).

Examples
--------
>>> import numpy as np
>>> g = grid(2, 3)
>>> g.n, g.shape, g.distances()[0, 5].round(6)      # (0, 0) to (1, 2)
(6, (2, 3), np.float64(2.236068))
>>> parse_places("line:4").distances()[0].tolist()
[0.0, 1.0, 2.0, 3.0]
>>> round(float(points([[48.8566, 2.3522], [51.5074, -0.1278]], norm="haversine").distances()[0, 1]), 1)
343.6
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError

__all__ = [
    "Places",
    "grid",
    "line",
    "points",
    "parse_places",
    "NORMS",
    "EARTH_RADIUS_KM",
    "prior_from_counts",
    "prior_from_density",
    "bin_points",
]

NORMS = ("euclidean", "manhattan", "haversine")
EARTH_RADIUS_KM = 6371.0088
#: Most locations a Places holds (its distance matrix is n² doubles: 10 000 → 800 MB).
MAX_PLACES = 10_000


@dataclass(frozen=True, eq=False)
class Places:
    """n locations (rows of ``coords``) and the norm that measures the distance between them.

    ``shape`` is (rows, cols) for a regular grid (``coords`` row-major, spacing ``spacing``), None otherwise.
    """

    coords: np.ndarray
    norm: str = "euclidean"
    shape: tuple[int, int] | None = None
    spacing: float = 1.0
    _cache: dict[str, np.ndarray] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            c = np.array(self.coords, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ProblemError("coordinates must be numbers: one row per location") from None
        if c.ndim == 1:
            c = c[:, None]
        if c.ndim != 2 or c.shape[0] < 2 or c.shape[1] not in (1, 2, 3):
            raise ProblemError(f"coordinates must be n ≥ 2 rows of 1 to 3 numbers, got shape {c.shape}")
        if not np.all(np.isfinite(c)):
            raise ProblemError("coordinates must be finite numbers")
        if c.shape[0] > MAX_PLACES:
            raise ProblemError(f"{c.shape[0]} locations: at most {MAX_PLACES} (the distance matrix is n² doubles)")
        if self.norm not in NORMS:
            raise ProblemError(f"unknown norm {self.norm!r}; known: {', '.join(NORMS)}")
        if self.norm == "haversine":
            if c.shape[1] != 2:
                raise ProblemError("haversine coordinates are (latitude, longitude) pairs in degrees")
            if np.any(np.abs(c[:, 0]) > 90) or np.any(np.abs(c[:, 1]) > 180):
                raise ProblemError("haversine coordinates: latitude in [-90, 90], longitude in [-180, 180] degrees")
        c.setflags(write=False)
        object.__setattr__(self, "coords", c)

    @property
    def n(self) -> int:
        return int(self.coords.shape[0])

    @property
    def unit(self) -> str:
        return "km" if self.norm == "haversine" else "units of the coordinates"

    def distances(self) -> np.ndarray:
        """The n × n distance matrix (computed once)."""
        if "D" not in self._cache:
            D = pairwise(self.coords, self.coords, self.norm)
            np.fill_diagonal(D, 0.0)
            D = np.minimum(D, D.T)  # exactly symmetric
            D.setflags(write=False)
            self._cache["D"] = D
        return self._cache["D"]

    def describe(self) -> dict[str, Any]:
        """A JSON-able description (``grid:RxC`` / ``line:N`` or the coordinates)."""
        if self.shape is not None and self.spacing == 1.0 and self.norm != "haversine":
            r, c = self.shape
            text = f"line:{c}" if r == 1 else f"grid:{r}x{c}"
            return {"coords": text, "norm": self.norm}
        return {"coords": self.coords.tolist(), "norm": self.norm}


def pairwise(A: np.ndarray, B: np.ndarray, norm: str) -> np.ndarray:
    """Distances between the rows of A and of B under ``norm``."""
    if norm == "haversine":
        la, lo = np.radians(A[:, 0])[:, None], np.radians(A[:, 1])[:, None]
        lb, ob = np.radians(B[:, 0])[None, :], np.radians(B[:, 1])[None, :]
        h = np.sin((lb - la) / 2) ** 2 + np.cos(la) * np.cos(lb) * np.sin((ob - lo) / 2) ** 2
        return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(h, 0.0, 1.0)))
    diff = np.abs(A[:, None, :] - B[None, :, :])
    return diff.sum(axis=2) if norm == "manhattan" else np.sqrt((diff**2).sum(axis=2))


def grid(rows: int, cols: int | None = None, *, spacing: float = 1.0, norm: str = "euclidean") -> Places:
    """A rows × cols grid (row-major), points ``spacing`` apart.

    >>> grid(2).coords.tolist()
    [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    """
    cols = rows if cols is None else cols
    if int(rows) < 1 or int(cols) < 1 or int(rows) * int(cols) < 2:
        raise ProblemError(f"a grid needs at least 2 points, got {rows} x {cols}")
    if not (np.isfinite(spacing) and spacing > 0):
        raise ProblemError(f"grid spacing must be a finite number > 0, got {spacing!r}")
    i, j = np.meshgrid(np.arange(int(rows)), np.arange(int(cols)), indexing="ij")
    xy = np.column_stack([i.ravel(), j.ravel()]).astype(float) * float(spacing)
    return Places(xy, norm=norm, shape=(int(rows), int(cols)), spacing=float(spacing))


def line(n: int, *, spacing: float = 1.0) -> Places:
    """n points on a line, ``spacing`` apart (a 1 × n grid: d(x, x') = spacing · |x − x'|)."""
    g = grid(1, n, spacing=spacing)
    return Places(g.coords[:, 1:], norm="euclidean", shape=(1, int(n)), spacing=float(spacing))


def points(coords: Any, norm: str = "euclidean") -> Places:
    """Any list of locations (rows of 1–3 coordinates; (latitude, longitude) for ``haversine``)."""
    return Places(coords, norm=norm)  # Places checks the numbers


_GRID = re.compile(r"^\s*grid:(\d+)(?:x(\d+))?\s*$", re.IGNORECASE)
_LINE = re.compile(r"^\s*line:(\d+)\s*$", re.IGNORECASE)


def parse_places(text: Any, norm: str | None = None) -> Places:
    """``grid:KxK`` / ``grid:RxC`` / ``line:N``, a Places, an array, or a path to a .npy/.csv/.txt file of
    coordinates (one location per row; comma- or space-separated; ``#`` comments).

    >>> parse_places("grid:3x2").shape
    (3, 2)
    >>> parse_places("grid:0x2")
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: a grid needs at least 2 points, got 0 x 2
    """
    if isinstance(text, Places):
        return text if norm is None or norm == text.norm else Places(text.coords, norm, text.shape, text.spacing)
    if not isinstance(text, (str, Path)):
        return points(text, norm or "euclidean")
    m = _GRID.match(str(text))
    if m:
        return grid(int(m.group(1)), int(m.group(2) or m.group(1)), norm=norm or "euclidean")
    m = _LINE.match(str(text))
    if m:
        if norm not in (None, "euclidean", "manhattan"):
            raise ProblemError(f"line:N is a line of unit steps; norm {norm!r} does not apply")
        return line(int(m.group(1)))
    return points(_read_coords(Path(text)), norm or "euclidean")


def _read_coords(path: Path) -> np.ndarray:
    from mechopt.io.files import NpyFormatError, read_input_text, read_npy

    limit = 64 * 1024 * 1024
    if path.suffix.lower() == ".npy":  # the header's shape is checked against the file's size before allocating
        try:
            return read_npy(path, "coordinates file", limit, error=ProblemError)
        except NpyFormatError as exc:
            raise ProblemError(f"{path}: not a numeric .npy array of coordinates ({exc})") from None
    text = read_input_text(path, "coordinates file", limit)
    try:
        rows = [
            [float(v) for v in re.split(r"[,\s]+", ln.split("#")[0].strip())]
            for ln in text.splitlines()
            if ln.split("#")[0].strip()
        ]
    except ValueError:
        raise ProblemError(f"{path}: coordinates must be numbers, one location per row") from None
    if not rows or len({len(r) for r in rows}) != 1:
        raise ProblemError(f"{path}: every row must hold the same number of coordinates")
    return np.asarray(rows, dtype=float)


# -- priors -------------------------------------------------------------------------------------------
def prior_from_counts(counts: Any, smoothing: float = 0.0) -> np.ndarray:
    """A prior from check-in counts per location: (counts + smoothing) / total.

    >>> prior_from_counts([3, 1, 0], smoothing=1.0).tolist()
    [0.5714285714285714, 0.2857142857142857, 0.14285714285714285]
    """
    c = np.asarray(counts, dtype=float)
    if c.ndim != 1 or c.size < 2 or not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ProblemError("counts must be a vector of ≥ 2 finite non-negative numbers, one per location")
    if not (np.isfinite(smoothing) and smoothing >= 0):
        raise ProblemError(f"smoothing must be a finite number ≥ 0, got {smoothing!r}")
    c = c + smoothing
    if c.sum() <= 0:
        raise ProblemError("the counts are all zero: give some check-ins or a smoothing > 0")
    return c / c.sum()


def prior_from_density(places: Places, density: Any) -> np.ndarray:
    """A prior proportional to ``density(coords)`` (a function of an (n, k) array, ≥ 0) at the locations."""
    vals = np.asarray(density(places.coords), dtype=float).reshape(-1)
    if vals.size != places.n:
        raise ProblemError(f"the density gave {vals.size} values for {places.n} locations")
    return prior_from_counts(vals)


def bin_points(places: Places, pts: Any) -> np.ndarray:
    """Check-in counts: each point (same coordinates as ``places``) counted at its nearest location.

    >>> bin_points(grid(2), [[0.1, 0.2], [0.9, 0.8], [1.2, 0.9]]).tolist()
    [1.0, 0.0, 0.0, 2.0]
    """
    P = np.asarray(pts, dtype=float)
    if P.ndim != 2 or P.shape[1] != places.coords.shape[1] or not np.all(np.isfinite(P)):
        raise ProblemError(f"points must be rows of {places.coords.shape[1]} finite coordinates")
    counts = np.zeros(places.n)
    for lo in range(0, P.shape[0], 4096):
        near = pairwise(P[lo : lo + 4096], places.coords, places.norm).argmin(axis=1)
        np.add.at(counts, near, 1.0)
    return counts
