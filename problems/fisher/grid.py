"""Densities on grids and the Fisher information as a convex program (Fisher paper, Problem 2).

A noise density p on [a, b] with p(a) = p(b) = 0 is represented by its values
at the n interior nodes w_i = a + i h, h = (b − a)/(n + 1). The represented
density is p = q² with q = √p piecewise linear between the nodes (and 0 at
the ends); its Fisher information is then exactly

    J_h(p) = ∫ p'²/p = 4 ∫ q'² = (4/h) Σ_{i=0}^{n} (√p_{i+1} − √p_i)²,   p_0 = p_{n+1} = 0,

which is what :func:`mechopt.model.info.fisher_grid` computes. Expanding the square,
(√a − √b)² = a + b − 2√(ab) and √(ab) is concave (a geometric mean), so J_h is
a convex function of p (the discrete counterpart of Proposition 2). With
t_i ≤ √(p_i p_{i+1}) ⇔ ‖(2 t_i, p_i − p_{i+1})‖ ≤ p_i + p_{i+1} (a 3-dim
second-order cone) the discretised Problem 2 is the SOCP

    minimise (4/h) [2 Σ_i p_i − 2 Σ_i t_i]
    s.t.     h Σ_i p_i = 1,  p ≥ 0,  ‖(2 t_i, p_i − p_{i+1})‖ ≤ p_i + p_{i+1}.

Substituting p = q² shows it is the finite-difference eigenproblem
(4/h²) tridiag(−1, 2, −1) q = λ q in disguise (min qᵀTq over ‖q‖ = 1, the
Perron vector being positive), so its optimum is 4 λ_min of the second-order
difference Laplacian: J_h = (16/h²) sin²(π h / (2L)) = J*(1 − (πh/L)²/12 + …)
on an interval of length L. The grid error is O(h²) and J_h < J* (math.md §4).

(The arithmetic-mean variant Σ (Δp)²/(h p̄) of the quad-over-lin form is
only first-order accurate: next to a Dirichlet end p ≈ k w², and its first
cells contribute half the true ∫p'²/p, an O(h) error. That is why the
geometric-mean form is used here.)

Examples
--------
>>> import numpy as np
>>> g = GridDensity.cos2(-1.0, 1.0, 999)
>>> round(g.mass(), 9), bool(abs(g.fisher() - np.pi ** 2) < 1e-4)
(1.0, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.info import fisher_grid

__all__ = [
    "GridDensity",
    "ProductDensity",
    "GaussianNoise",
    "interval_program",
    "box_program",
    "grid_error",
    "check_density",
    "box_fisher",
]


@dataclass(frozen=True, eq=False)
class GridDensity:
    """A density on (lower, upper) sampled at the n interior nodes of a uniform grid.

    >>> g = GridDensity(0.0, 4.0, np.array([0.25, 0.5, 0.25]))
    >>> g.h, g.mass(), g.nodes.tolist()
    (1.0, 1.0, [1.0, 2.0, 3.0])
    """

    lower: float
    upper: float
    density: np.ndarray
    smooth: bool = False

    @classmethod
    def cos2(cls, lower: float, upper: float, n: int) -> "GridDensity":
        """Samples of the Corollary 1 density (2/L) cos²(π(w − c)/L), c the midpoint."""
        L = upper - lower
        w = lower + L / (n + 1) * np.arange(1, n + 1)
        return cls(lower, upper, 2.0 / L * np.cos(np.pi * (w - (lower + upper) / 2) / L) ** 2)

    @property
    def n(self) -> int:
        return int(self.density.size)

    @property
    def h(self) -> float:
        return (self.upper - self.lower) / (self.n + 1)

    @property
    def nodes(self) -> np.ndarray:
        return self.lower + self.h * np.arange(1, self.n + 1)

    def mass(self) -> float:
        """h Σ p_i (the trapezoid rule; the end values are 0)."""
        return float(self.h * self.density.sum())

    def fisher(self) -> float:
        """The Fisher information of the represented density.

        By default (``smooth=False``) the density is the piecewise-linear-√p
        interpolant of the samples and J_h(p) = (4/h) Σ (Δ√p)² is exact for it
        (the conic solver's objective). With ``smooth=True`` the samples stand
        for a smooth density (the spectral solver's ground state) and J is
        estimated by one Richardson step over the density's own grids h and 2h:
        (4 J_h(p) − J_2h(p[1::2]))/3, accurate to O(h⁴) for smooth densities.

        >>> g = GridDensity.cos2(-1.0, 1.0, 255)
        >>> bool(abs(g.fisher() - np.pi ** 2) > 1e-4), bool(abs(g.replace_smooth().fisher() - np.pi ** 2) < 1e-8)
        (True, True)
        """
        p = np.clip(self.density, 0.0, None)
        fine = fisher_grid(p, self.h)
        if not self.smooth or (self.n + 1) % 2 or self.n < 7:
            return fine
        sub = p[1::2]
        coarse = fisher_grid(sub / (2 * self.h * sub.sum()), 2 * self.h)
        return (4 * fine - coarse) / 3

    def replace_smooth(self, smooth: bool = True) -> "GridDensity":
        """The same samples read as a smooth density (see :meth:`fisher`)."""
        return GridDensity(self.lower, self.upper, self.density, smooth)

    def moment(self, k: int = 2, center: float = 0.0) -> float:
        """h Σ (w_i − center)^k p_i."""
        return float(self.h * np.sum((self.nodes - center) ** k * self.density))

    def variance(self) -> float:
        mean = self.moment(1) / self.mass()
        return self.moment(2, mean) / self.mass()

    def to_dict(self) -> dict[str, Any]:
        stride = max(1, self.n // 20000)
        return {
            "kind": "grid-density",
            "smooth": self.smooth,
            "lower": self.lower,
            "upper": self.upper,
            "n": self.n,
            "h": self.h,
            "stride": stride,
            "density": self.density[::stride].tolist(),
        }


@dataclass(frozen=True, eq=False)
class ProductDensity:
    """A product density on a box: one :class:`GridDensity` per axis; tr J = Σ_i J_i.

    >>> g = GridDensity(0.0, 4.0, np.array([0.25, 0.5, 0.25]))
    >>> ProductDensity((g, g)).fisher() == 2 * g.fisher()
    True
    """

    axes: tuple[GridDensity, ...]

    def fisher(self) -> float:
        return float(sum(g.fisher() for g in self.axes))

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "product-density", "axes": [g.to_dict() for g in self.axes]}


@dataclass(frozen=True, eq=False)
class GaussianNoise:
    """Zero-mean Gaussian noise N(0, cov) (possibly singular, see Theorem 4).

    >>> GaussianNoise(np.eye(2)).to_dict()["kind"]
    'gaussian'
    """

    cov: np.ndarray
    generator: np.ndarray | None = None  # w = G v with v ~ N(0, S) when the noise is degenerate
    generator_cov: np.ndarray | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": "gaussian", "cov": self.cov.tolist()}
        if self.generator is not None:
            out["generator"] = self.generator.tolist()
            out["generator_cov"] = None if self.generator_cov is None else self.generator_cov.tolist()
        return out


def grid_error(L: float, n: int, J: float) -> float:
    """Leading grid error of J_h on an interval: J (πh/L)²/12, h = L/(n + 1).

    >>> round(grid_error(2.0, 1999, np.pi ** 2) / np.pi ** 2, 10)
    2.056e-07
    """
    h = L / (n + 1)
    return float(J * (np.pi * h / L) ** 2 / 12.0)


def grid_error_estimate(g: GridDensity) -> float:
    """Leading grid error of the Fisher information of a grid density: (h²/3)∫q''²/∫q², q = √p.

    The second-order difference quotient underestimates 4∫q'² by this much
    to leading order in h (the a-posteriori form of :func:`grid_error`).

    >>> n = 999; h = 2.0 / (n + 1); w = -1 + h * np.arange(1, n + 1)
    >>> p = np.cos(np.pi * w / 2) ** 2
    >>> g = GridDensity(-1.0, 1.0, p / (p.sum() * h))
    >>> bool(abs(grid_error_estimate(g) / grid_error(2.0, n, np.pi ** 2) - 1) < 0.01)
    True
    """
    q = np.sqrt(np.clip(g.density, 0.0, None))
    d2 = np.diff(np.concatenate([[0.0], q, [0.0]]), 2) / g.h**2
    return (g.h**2 / 3.0) * float(np.sum(d2**2) / np.sum(q**2))


def check_density(g: GridDensity, tol: float) -> list[str]:
    """Reasons a grid density is not a density (negative values, mass ≠ 1).

    >>> check_density(GridDensity(0.0, 4.0, np.array([0.5, 0.5, 0.25])), 1e-6)
    ['density integrates to 1.25, not 1']
    """
    out = []
    if not np.all(np.isfinite(g.density)):
        return ["density has non-finite values"]
    neg = float(-g.density.min())
    if neg > tol * max(1.0, float(g.density.max())):
        out.append(f"density is negative (down to {-neg:.3g})")
    if abs(g.mass() - 1.0) > tol:
        out.append(f"density integrates to {g.mass():.6g}, not 1")
    return out


def _pair_cone(p: Any, t: Any, first: Any, second: Any) -> Any:
    """t_i ≤ √(p[first_i] p[second_i]) as one vectorised family of 3-dim cones."""
    import cvxpy as cp

    return cp.SOC(p[first] + p[second], cp.vstack([2 * t, p[first] - p[second]]), axis=0)


def interval_program(
    lower: float,
    upper: float,
    n: int,
    *,
    potential: Callable[[np.ndarray], np.ndarray] | None = None,
    variance_bound: float | None = None,
) -> tuple[Any, Any, Callable[[Any], Any]]:
    """The SOCP of the module docstring on (lower, upper) with n interior nodes.

    Adds ∫ V p (``potential`` V, the penalty of Problem 3 with V = ξ w²) to the
    objective and h Σ w_i² p_i ≤ ``variance_bound`` (Problem 4) when given.
    Returns (cvxpy problem, the density, expression of the Fisher part); the
    density and the Fisher part are in the units of (lower, upper).

    The program is posed on the unit interval, u = (w − lower)/L with L = upper −
    lower, density p'(u) = L p(w), objective L²·(J + ∫ V p): J scales as 1/L², so
    in the original units an interval of width 2e-6 (J ≈ 1e13, h ≈ 1e-8) made
    Clarabel report "infeasible" and one of width 2e6 an "optimal" density whose
    Fisher trace was 2 % off. So ``prob.value`` is L² times the objective.

    >>> prob, p, fisher = interval_program(-1.0, 1.0, 99)
    >>> v = prob.solve(solver="CLARABEL") / 2.0 ** 2          # L = 2; Clarabel's relative gap is 1e-8
    >>> bool(abs(v / (4 * 50 ** 2 * 4 * np.sin(np.pi / 200) ** 2) - 1) < 1e-6), bool(abs(fisher.value - v) < 1e-7)
    (True, True)
    """
    import cvxpy as cp

    if n < 3:
        raise ProblemError(f"the grid needs at least 3 interior points, got n={n}")
    L = upper - lower
    hu = 1.0 / (n + 1)
    w = lower + L * hu * np.arange(1, n + 1)
    q = cp.Variable(n, nonneg=True)  # q = L p: the density on the unit interval
    t = cp.Variable(n - 1)
    fisher_u = (4.0 / hu) * (2 * cp.sum(q) - 2 * cp.sum(t))
    cons = [hu * cp.sum(q) == 1, _pair_cone(q, t, slice(0, n - 1), slice(1, n))]
    obj = fisher_u
    if potential is not None:
        obj = obj + L**2 * hu * (np.asarray(potential(w), dtype=float) @ q)
    if variance_bound is not None:
        cons.append(hu * ((w**2 / variance_bound) @ q) <= 1.0)  # relative: σ² may be 1e-8
    return cp.Problem(cp.Minimize(obj), cons), q / L, fisher_u / L**2


def box_program(lower: np.ndarray, upper: np.ndarray, n: tuple[int, ...]) -> tuple[Any, Any]:
    """The full (not separable) grid SOCP on a box: tr J = Σ_axes (4/h_k) Σ_lines (Δ√p)².

    The density is one variable on the product grid (C order); the trace is the
    sum over axes k of the 1-D form along every grid line parallel to axis k,
    weighted by the cell volume of the other axes. Returns (problem, p).

    >>> prob, p = box_program(np.array([0.0, 0.0]), np.array([1.0, 2.0]), (9, 9))
    >>> v = prob.solve(solver="CLARABEL")
    >>> h = [1 / 10, 2 / 10]
    >>> exact = sum(16 / hk ** 2 * np.sin(np.pi * hk / (2 * L)) ** 2 for hk, L in zip(h, [1, 2]))
    >>> bool(abs(v - exact) < 1e-5)
    True
    """
    import cvxpy as cp

    shape = tuple(int(k) for k in n)
    size = int(np.prod(shape))
    h = (np.asarray(upper, float) - np.asarray(lower, float)) / (np.asarray(shape) + 1)
    vol = float(np.prod(h))
    p = cp.Variable(size, nonneg=True)
    idx = np.arange(size).reshape(shape)
    obj = 0
    cons = [vol * cp.sum(p) == 1]
    for k in range(len(shape)):
        first = np.take(idx, np.arange(shape[k] - 1), axis=k).ravel()
        second = np.take(idx, np.arange(1, shape[k]), axis=k).ravel()
        t = cp.Variable(first.size)
        cons.append(_pair_cone(p, t, first, second))
        # every line along axis k: (4/h_k) Σ (Δ√p)² times the cross-section cell volume vol/h_k
        obj = obj + (vol / h[k]) * (4.0 / h[k]) * (2 * cp.sum(p) - 2 * cp.sum(t))
    return cp.Problem(cp.Minimize(obj), cons), p


def box_fisher(density: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> float:
    """tr J of a density on the interior nodes of a box grid (the objective of :func:`box_program`).

    >>> g = GridDensity.cos2(0.0, 1.0, 20).density
    >>> d = np.outer(g, g)
    >>> bool(abs(box_fisher(d, np.zeros(2), np.ones(2)) - 2 * GridDensity.cos2(0.0, 1.0, 20).fisher()) < 1e-9)
    True
    """
    shape = density.shape
    h = (np.asarray(upper, float) - np.asarray(lower, float)) / (np.asarray(shape) + 1)
    vol = float(np.prod(h))
    q = np.sqrt(np.clip(density, 0.0, None))
    total = 0.0
    for k in range(density.ndim):
        d = np.diff(q, axis=k, prepend=0.0, append=0.0)
        total += (vol / h[k]) * (4.0 / h[k]) * float(np.sum(d**2))
    return total
