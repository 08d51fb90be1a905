"""Sets of priors given by their vertices: a list of priors, a TV or L∞ ball around a prior, or the simplex.

Every set here is a polytope and is held exactly by its vertices: the linear privacy constraints
(LIP, PML, ALIP) and an expected loss are linear in the prior, so they hold, or reach their worst
case, over the convex hull exactly when they do at the vertices. A total-variation or L∞ ball
intersected with the simplex is a polytope too (polyhedral ball ∩ polyhedron): its vertices are
enumerated by Qhull (``scipy.spatial.HalfspaceIntersection``), so the "approximation" is exact up
to the rounding of the vertices (a few ulp, checked against the ball's inequalities).

Examples
--------
>>> S = PriorSet.parse("0.2,0.8;0.5,0.5")
>>> S.vertices.tolist(), S.d
([[0.2, 0.8], [0.5, 0.5]], 2)
>>> B = PriorSet.ball([0.5, 0.3, 0.2], 0.1, "tv")
>>> len(B.vertices), bool(abs(B.vertices.sum(axis=1) - 1).max() < 1e-12)
(6, True)
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError, TooLargeError
from mechopt.model.priors import validate_prior
from mechopt.problems.robust.ballset import ball_radius

__all__ = ["PriorSet", "BALL_KINDS", "MAX_BALL_SYMBOLS", "MAX_SIMPLEX"]

BALL_KINDS = ("tv", "linf")
#: Largest alphabet of a ball: the TV ball has 2^d sign halfspaces, and Qhull works in d − 1 dimensions.
MAX_BALL_SYMBOLS = 10
#: Symbols of the largest prior-free set (the simplex's d vertices, 8·d² bytes; its LPs grow like d² to d³ and
#: the solvers' own size checks refuse them well before: robust-lp's ``max_memory``).
MAX_SIMPLEX = 4096


@dataclass(frozen=True, eq=False)
class PriorSet:
    """The convex hull of ``vertices`` (one prior per row); ``source`` says where it came from."""

    vertices: np.ndarray
    source: str = "vertices"

    def __post_init__(self) -> None:
        V = _as_matrix(self.vertices)
        rows = [validate_prior(v, name=f"prior-set vertex {i}") for i, v in enumerate(V)]
        M = np.unique(np.vstack(rows), axis=0) if len(rows) > 1 else np.vstack(rows)
        M.flags.writeable = False
        object.__setattr__(self, "vertices", M)

    @property
    def d(self) -> int:
        """The number of input symbols."""
        return int(self.vertices.shape[1])

    @property
    def support(self) -> np.ndarray:
        """Symbols with mass under some prior of the set (the rows privacy constrains)."""
        return np.asarray(self.vertices.max(axis=0) > 0)

    @classmethod
    def from_vertices(cls, vertices: Any) -> "PriorSet":
        """The hull of a list of priors (rows must have one length and each be a distribution)."""
        return cls(_as_matrix(vertices), "vertices")

    @classmethod
    def simplex(cls, d: int) -> "PriorSet":
        """Every prior on ``d`` symbols (vertices e_x): prior-free (minimax) design.

        >>> PriorSet.simplex(3).vertices.tolist()
        [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]
        """
        if not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 1:
            raise ProblemError(f"a prior-free design needs a number of symbols d >= 1, got {d!r}")
        if d > MAX_SIMPLEX:
            raise TooLargeError(
                f"a prior-free design over {d} symbols lists {d} vertices of {d} entries ({8 * d * d / 1e9:.3g} GB) "
                f"and solves an LP with about d^3 = {float(d) ** 3:.2g} entries; the limit is {MAX_SIMPLEX} symbols"
            )
        return cls(np.eye(int(d)), f"simplex:{int(d)}")

    @classmethod
    def ball(cls, center: Any, radius: Any, kind: str = "tv") -> "PriorSet":
        """{P in the simplex : dist(P, center) <= radius}, dist the total variation or L∞; exact vertices.

        >>> PriorSet.ball([0.5, 0.5], 0.1, "linf").vertices.round(12).tolist()
        [[0.4, 0.6], [0.6, 0.4]]
        """
        c = validate_prior(center, name="prior-ball center")
        key = str(kind).strip().lower()
        if key not in BALL_KINDS:
            raise ProblemError(f"prior-ball kind {kind!r} is not known; use one of {', '.join(BALL_KINDS)}")
        r = ball_radius(radius)
        if c.size > MAX_BALL_SYMBOLS:
            raise ProblemError(
                f"a prior ball on {c.size} symbols is above {MAX_BALL_SYMBOLS} (its vertices grow as 2^d): "
                "give the set by its vertices (--prior-set) instead"
            )
        src = f"ball:{key}:{r:g}"
        if r == 0.0 or c.size == 1:
            return cls(c[None, :], src)
        return cls(_ball_vertices(c, r, key), src)

    @classmethod
    def parse(cls, text: Any) -> "PriorSet":
        """``"p,p,...;p,p,..."`` (one prior per ``;``), ``simplex:D`` (every prior), or a .json list of priors."""
        if isinstance(text, PriorSet):
            return text
        if not isinstance(text, str):
            return cls.from_vertices(text)
        s = text.strip()
        if s.lower().startswith("simplex:"):
            try:
                return cls.simplex(int(s.split(":", 1)[1]))
            except ValueError:
                raise ProblemError(f"prior set {s!r}: give simplex:D with D the number of symbols") from None
        if s.lower().endswith(".json"):
            path = Path(s)
            try:
                data = json.loads(path.read_text())
            except OSError as exc:
                raise ProblemError(f"cannot read prior-set file {s!r}: {exc.strerror or exc}") from None
            except ValueError as exc:
                raise ProblemError(
                    f"prior-set file {s!r} is not JSON ({str(exc)[:60]}): give a list of priors"
                ) from None
            return cls.from_vertices(data)
        try:
            rows = [[float(v) for v in part.split(",")] for part in s.split(";") if part.strip()]
        except ValueError:
            raise ProblemError(
                f"prior set {s[:60]!r} is not priors separated by ';' (e.g. \"0.2,0.8;0.5,0.5\") nor a .json file"
            ) from None
        return cls.from_vertices(rows)

    def describe(self) -> str:
        """One line: the source and the number of vertices."""
        return f"{self.source} ({len(self.vertices)} vertices on {self.d} symbols)"


def _as_matrix(vertices: Any) -> np.ndarray:
    """A 2-D float array of priors, or a ProblemError saying what is wrong."""
    try:
        rows = [np.asarray(v, float).ravel() for v in vertices]
    except (TypeError, ValueError):
        raise ProblemError("a prior set is a list of priors (each a list of probabilities)") from None
    if not rows:
        raise ProblemError("a prior set needs at least one vertex (a prior)")
    sizes = sorted({r.size for r in rows})
    if len(sizes) > 1:
        raise ProblemError(f"the priors of a prior set have different lengths {sizes}: give each the same symbols")
    return np.vstack(rows)


def _ball_vertices(c: np.ndarray, r: float, kind: str) -> np.ndarray:
    """Vertices of the ball ∩ simplex by Qhull, in the coordinates (P_0..P_{d−2}) with P_{d−1} = 1 − Σ."""
    from scipy.optimize import linprog
    from scipy.spatial import HalfspaceIntersection

    A, b = _halfspaces(c, r, kind)  # A P <= b on the full vector P (d symbols)
    d = c.size
    # substitute P_{d-1} = 1 - Σ_{i<d-1} P_i: rows A' z <= b'
    Ar = A[:, :-1] - A[:, -1:]
    br = b - A[:, -1]
    # z = c' + r·y: the ball in units of its radius about its center (c' = c[:-1]: feasible, b − A c ≥ 0), so the
    # LP and Qhull see a set of size ~1 (their tolerances are absolute: a 1e-10 ball at a center with a 0 entry
    # failed, "feasible point is not clearly inside halfspace")
    br = (br - Ar @ c[:-1]) / r
    norms = np.linalg.norm(Ar, axis=1)
    keep = norms > 0
    Ar, br, norms = Ar[keep], br[keep], norms[keep]
    # Chebyshev centre: an interior point
    res = linprog(np.r_[np.zeros(d - 1), -1.0], A_ub=np.c_[Ar, norms], b_ub=br,
                  bounds=[(None, None)] * (d - 1) + [(0, None)], method="highs")  # fmt: skip
    if res.status != 0 or res.x[-1] <= 1e-12:
        return c[None, :]  # degenerate ball (no interior in the simplex): the center alone
    if d == 2:  # an interval: Qhull needs dimension >= 2
        a = Ar[:, 0]
        Z = np.array([[np.max(br[a < 0] / a[a < 0])], [np.min(br[a > 0] / a[a > 0])]])
    else:
        Z = HalfspaceIntersection(np.c_[Ar, -br], res.x[:-1]).intersections
    Z = c[:-1] + r * Z
    V = np.c_[Z, 1.0 - Z.sum(axis=1)]
    V = np.where(np.abs(V) < 1e-14, 0.0, V)
    V = V / V.sum(axis=1, keepdims=True)
    viol = float(np.max(A @ V.T - b[:, None]))
    if viol > 1e-9 * r + 1e-15:  # relative to the ball (an absolute 1e-9 was 10 radii of a 1e-10 ball)
        raise ProblemError(f"prior-ball vertex enumeration is off by {viol:.3g}: give the vertices instead")
    return np.unique(np.round(V, 15), axis=0)


def _halfspaces(c: np.ndarray, r: float, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """A P <= b for P >= 0 and the ball: TV as Σ_x s_x (P_x − c_x) <= 2r over all signs s, L∞ as a box."""
    d = c.size
    A = [-np.eye(d)]
    b = [np.zeros(d)]
    if kind == "linf":
        A += [np.eye(d), -np.eye(d)]
        b += [c + r, r - c]
    else:
        S = np.array(list(itertools.product((-1.0, 1.0), repeat=d)))
        A.append(S)
        b.append(2 * r + S @ c)
    return np.vstack(A), np.concatenate(b)
