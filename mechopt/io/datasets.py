"""Loaders for the LIP paper's real datasets (Kosarak, Gowalla) and labelled synthetic stand-ins.

The real files cannot be downloaded here; these functions read their published
formats, so a user who has them gets the paper's Section V-B inputs:

- Kosarak (FIMI repository, ``kosarak.dat``): one click-stream per line, page
  ids separated by spaces. The paper treats each page as a user with
  X_i = 1{total clicks of page i > 15 000} and a global prior.
- Gowalla (SNAP, ``loc-gowalla_totalCheckins.txt``): tab-separated
  ``user, check-in time (ISO 8601), latitude, longitude, location id``. The
  paper maps locations to a 36 × 36 grid, uses each user's *last* check-in as
  the private value and the earlier check-ins as the global prior.

The ``synthetic_*`` generators write files in the same formats. They are
SYNTHETIC STAND-INS (Zipf click counts; Gaussian location clusters), not the data.

Examples
--------
>>> import tempfile, pathlib
>>> from mechopt.io.datasets import synthetic_kosarak, load_kosarak, kosarak_survey
>>> path = pathlib.Path(tempfile.mkdtemp()) / "kosarak.dat"
>>> synthetic_kosarak(path, n_streams=200, n_pages=50, rng=1)
PosixPath(...)
>>> counts = load_kosarak(path)
>>> x, p1 = kosarak_survey(counts, threshold=20)
>>> x.size == counts.size and 0.0 <= p1 <= 1.0
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from mechopt.errors import ProblemError
from mechopt.io.writer import text_file
from mechopt.oracles.simulate import as_generator

__all__ = [
    "load_kosarak",
    "kosarak_survey",
    "synthetic_kosarak",
    "Checkins",
    "load_gowalla",
    "gowalla_histogram",
    "synthetic_gowalla",
]


def load_kosarak(path: str | Path) -> np.ndarray:
    """Clicks per page id (index = page id) from a FIMI-format click-stream file."""
    path = Path(path)
    if not path.exists():
        raise ProblemError(f"Kosarak file {str(path)!r} does not exist (FIMI kosarak.dat: page ids per line)")
    ids: list[int] = []
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            try:
                ids.extend(int(tok) for tok in line.split())
            except ValueError:
                raise ProblemError(f"{path.name} line {lineno}: expected space-separated page ids") from None
    if not ids:
        raise ProblemError(f"{path.name} has no clicks")
    arr = np.asarray(ids)
    if arr.min() < 0:
        raise ProblemError(f"{path.name}: page ids must be non-negative")
    return np.bincount(arr)


def kosarak_survey(counts: np.ndarray, threshold: int = 15_000) -> tuple[np.ndarray, float]:
    """Section V-B1: X_i = 1{clicks of page i > threshold} over pages that were clicked; global prior P1."""
    c = np.asarray(counts)
    c = c[c > 0]
    x = (c > threshold).astype(int)
    return x, float(x.mean())


def synthetic_kosarak(
    path: str | Path,
    n_streams: int = 10_000,
    n_pages: int = 2_000,
    zipf_a: float = 1.3,
    mean_len: float = 8.0,
    rng: int | np.random.Generator = 0,
) -> Path:
    """SYNTHETIC stand-in for Kosarak: stream lengths 1 + Poisson(mean_len − 1), pages Zipf(zipf_a) mod n_pages."""
    gen = as_generator(rng)
    path = Path(path)
    lens = 1 + gen.poisson(mean_len - 1, n_streams)
    pages = (gen.zipf(zipf_a, int(lens.sum())) - 1) % n_pages
    with text_file(path) as fh:
        start = 0
        for n in lens:
            fh.write(" ".join(map(str, pages[start : start + n])) + "\n")
            start += n
    return path


@dataclass(frozen=True)
class Checkins:
    """Gowalla check-ins: arrays of equal length."""

    user: np.ndarray
    time: np.ndarray  # datetime64[s]
    lat: np.ndarray
    lon: np.ndarray
    location: np.ndarray


def load_gowalla(path: str | Path) -> Checkins:
    """Read SNAP's ``user<TAB>time<TAB>lat<TAB>lon<TAB>location`` check-in file."""
    path = Path(path)
    if not path.exists():
        raise ProblemError(f"Gowalla file {str(path)!r} does not exist (SNAP loc-gowalla_totalCheckins.txt)")
    cols: list[list] = [[], [], [], [], []]
    with open(path) as fh:
        for lineno, line in enumerate(fh, 1):
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 5:
                raise ProblemError(f"{path.name} line {lineno}: expected 5 tab-separated fields, got {len(parts)}")
            try:
                vals = (
                    int(parts[0]),
                    np.datetime64(parts[1].rstrip("Z"), "s"),
                    float(parts[2]),
                    float(parts[3]),
                    int(parts[4]),
                )
            except ValueError:
                raise ProblemError(f"{path.name} line {lineno}: bad field in {line.strip()!r}") from None
            for c, v in zip(cols, vals):
                c.append(v)
    if not cols[0]:
        raise ProblemError(f"{path.name} has no check-ins")
    return Checkins(
        np.array(cols[0]),
        np.array(cols[1], dtype="datetime64[s]"),
        np.array(cols[2]),
        np.array(cols[3]),
        np.array(cols[4]),
    )


def gowalla_histogram(data: Checkins, grid: int = 36) -> tuple[np.ndarray, np.ndarray]:
    """Section V-B2: (each user's last-check-in cell, global prior over the grid × grid cells).

    Cells split the bounding box of all check-ins evenly; the prior is the
    frequency of every check-in except each user's last one (all check-ins
    when no earlier ones exist).
    """

    def cell(lat: np.ndarray, lon: np.ndarray) -> np.ndarray:
        def idx(v: np.ndarray, lo: float, hi: float) -> np.ndarray:
            span = hi - lo if hi > lo else 1.0
            return np.minimum(((v - lo) / span * grid).astype(int), grid - 1)

        return idx(lat, data.lat.min(), data.lat.max()) * grid + idx(lon, data.lon.min(), data.lon.max())

    order = np.lexsort((data.time, data.user))
    users = data.user[order]
    last = np.r_[users[1:] != users[:-1], True]
    cells = cell(data.lat[order], data.lon[order])
    past = cells[~last] if np.any(~last) else cells
    prior = np.bincount(past, minlength=grid * grid).astype(float)
    return cells[last], prior / prior.sum()


def synthetic_gowalla(
    path: str | Path,
    n_users: int = 500,
    checkins_per_user: int = 10,
    n_clusters: int = 8,
    rng: int | np.random.Generator = 0,
) -> Path:
    """SYNTHETIC stand-in for Gowalla: users check in around Gaussian clusters of a world box."""
    gen = as_generator(rng)
    centers = np.column_stack([gen.uniform(-40, 60, n_clusters), gen.uniform(-120, 140, n_clusters)])
    weights = gen.dirichlet(np.ones(n_clusters))
    t0 = np.datetime64("2010-01-01T00:00:00", "s")
    with text_file(path) as fh:
        for u in range(n_users):
            home = gen.choice(n_clusters, p=weights)
            for k in range(checkins_per_user):
                c = home if gen.random() < 0.8 else gen.choice(n_clusters, p=weights)
                lat, lon = centers[c] + gen.normal(0, 2.0, 2)
                t = t0 + np.timedelta64(int(gen.integers(0, 3 * 10**7)), "s")
                fh.write(f"{u}\t{str(t)}Z\t{lat:.6f}\t{lon:.6f}\t{int(c) * 1000 + k}\n")
    return Path(path)
