"""A weight on the database (Corollary 4, Fig. 1): a noise policy γ(w | x) that may depend on x.

Model (reconstructed; the seed lost the statement). A scalar database entry x
ranges over X = [c, d] with weight ρ(x) ≥ 0, ∫ρ = 1 (the weight in the cost
(9), not a prior); the answer is y = x + w with noise support [a, b] for every
x (family (i)), so p(y | x) = γ(y − x | x). The cost is

    ∫_X ρ(x) I(x) dx,   I(x) = ∫ (∂_x p(y|x))² / p(y|x) dy = 4 ∫ (∂_x v)² dy,  v = √p,

convex in γ. In (w, x) coordinates ∂_x|_y = ∂_x − ∂_w, and the stationarity
condition (Theorem 2) with a multiplier μ(x) for ∫γ(·|x) = 1 reads
−D(ρ D u) = μ(x) u with D = ∂_x − ∂_w, u = √γ, u = 0 at w = a, b.

**Corollary 4 (derivation).** Try u(w, x) = g(w) (a policy independent of x):
Du = −g', −D(ρ Du) = ρ' g' − ρ g'', so ρ'(x) g'(w) − ρ(x) g''(w) = μ(x) g(w).
This separates iff ρ'/ρ is constant, ρ ∝ e^{kx}: then g'' − k g' + (μ/ρ) g = 0,
g = e^{kw/2} sin(π(w − a)/L), i.e.

    γ(w) ∝ e^{k w} sin²(π (w − a)/L),   μ/ρ = π²/L² + k²/4,

independent of x — and for any other weight (ρ'/ρ not constant) no
x-independent policy is stationary: the optimal policy depends on x (the
paper's Fig. 1 remark that the policy is independent of x exactly when the
ratio of the weight's derivative to the weight does not depend on x). This
holds in the interior of X; on a bounded X the natural boundary conditions
ρ D u = 0 at x = c, d fail for it. Finding (claim ``fisher.cor4``): it is a
stationary point, not the minimiser. Every x-independent policy costs
J(γ)·∫ρ, so among them cos² is best for any weight (and beats e^{kw}sin²
when k ≠ 0), and x-dependent policies do better still on a bounded X (on
[0, 8] with support [−1, 1] and k = 0.5: 10.08 for the closed form, 9.84 for
cos², 6.06 for the grid optimum). On the interior of a long X the optimum is
also far from unique: v(y, x) = A(y) cos(π(x − y + c₀)/L) with any A² whose
convolution with the cos² kernel is constant has the same interior cost.
The grid optima (Fig. 1 reproduction) even "hop" between output levels:
p(y | x) ≈ δ(y − y_k) on windows of x (zero Fisher information there) with
Bernoulli mixtures t = sin²θ in between, I = t'²/(t(1 − t)) = 4θ'², a transition
of width δ costing π²/δ; levels spaced s apart leave overlaps of L − s, so
the rate is π²/(s(L − s)), minimal at s = L/2: 4π²/L², exactly the cos² rate.

**Grid.** Equal spacing h in w and x makes the lines y = const the diagonals
(i, j) → (i − 1, j + 1); with t ≤ √(γ_{i,j} γ_{i−1,j+1}) in 3-dim cones,

    minimise h Σ_j ρ_{j+½} (4/h) Σ_i (√γ_{i−1,j+1} − √γ_{i,j})²  s.t.  h Σ_i γ_{i,j} = 1,

a convex SOCP (any weight: only the coefficients ρ_{j+½} change). Its optimum
converges at **first order** in h (the transitions between output levels are a
few cells wide): for [−1, 1] × [0, 4], ρ ∝ e^{x/2}, the value drops by 0.404,
0.205 from nw = 11 to 23 to 47, and by 0.308, 0.153 from 15 to 31 to 63; the
conic form's error estimate uses that order (``grid_order``).

Examples
--------
>>> p = FisherWeighted.from_params(a="-1", b="1", c="0", d="2", weight="exp:1", nw="15")
>>> p.grid_shape
(15, 17)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.forms import ConicForm
from mechopt.model.problem import Problem, ProblemAudit
from mechopt.problems.fisher.base import PAPER, _only, parse_float, parse_int
from mechopt.problems.fisher.extrapolate import grid_estimate, solve_program
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result

__all__ = ["FisherWeighted", "weight_function", "log_weight_function", "exp_weight_policy", "stationarity_residual"]


def weight_function(spec: str) -> Any:
    """ρ from ``uniform``, ``exp:k`` (e^{kx}) or ``gauss:mu:s`` (normal shape); unnormalised.

    >>> float(weight_function("exp:2")(np.array([0.5]))[0]) == math.e
    True
    """
    log_rho = log_weight_function(spec)
    return lambda x: np.exp(log_rho(x))


def log_weight_function(spec: str) -> Any:
    """log ρ for the specs of :func:`weight_function` (ρ = e^{500x} overflows; its log does not).

    >>> float(log_weight_function("exp:500")(np.array([4.0]))[0])
    2000.0
    """
    kind, _, rest = str(spec).partition(":")
    if kind == "uniform":
        return lambda x: np.zeros_like(np.asarray(x, dtype=float))
    if kind == "exp":
        k = parse_float("weight exponent", rest or "1")
        return lambda x: k * np.asarray(x, dtype=float)
    if kind == "gauss":
        bits = rest.split(":")
        if len(bits) != 2:
            raise ProblemError("gauss weight is gauss:mu:s, e.g. gauss:1:0.5")
        mu, s = parse_float("weight mean", bits[0]), parse_float("weight scale", bits[1])
        if not s > 0:
            raise ProblemError(f"gauss weight scale must be > 0, got {s}")
        return lambda x: -0.5 * ((np.asarray(x, dtype=float) - mu) / s) ** 2
    raise ProblemError(f"unknown weight {spec!r}; use uniform, exp:k or gauss:mu:s")


def exp_weight_policy(a: float, b: float, k: float, w: np.ndarray) -> np.ndarray:
    """Corollary 4 for ρ ∝ e^{kx}: γ(w) ∝ e^{kw} sin²(π(w − a)/L), normalised on the grid w.

    >>> w = np.linspace(-1, 1, 101)[1:-1]
    >>> g = exp_weight_policy(-1.0, 1.0, 0.0, w)
    >>> bool(np.allclose(g, np.cos(np.pi * w / 2) ** 2 / (np.cos(np.pi * w / 2) ** 2).sum() / 0.02))
    True
    """
    L = b - a
    g = np.exp(k * (w - np.max(w))) * np.sin(np.pi * (w - a) / L) ** 2  # shifted: e^{kw} overflows for k ≳ 700
    return g / (g.sum() * (w[1] - w[0]))


def stationarity_residual(a: float, b: float, k: float, x: float, n: int = 20001) -> float:
    """Relative residual of ρ'(x)g'(w) − ρ(x)g''(w) = μ(x)g(w) for Corollary 4's g, ρ = e^{kx}.

    g = e^{kw/2} sin(π(w − a)/L) and μ = ρ(π²/L² + k²/4); derivatives by
    central differences on n points (so the residual is O(h²), not 0).

    >>> stationarity_residual(-1.0, 1.0, 0.5, 2.0) < 1e-6
    True
    """
    L = b - a
    w = np.linspace(a, b, n)
    h = w[1] - w[0]
    g = np.exp(k * w / 2) * np.sin(np.pi * (w - a) / L)
    g1 = np.gradient(g, h)
    g2 = np.gradient(g1, h)
    rho = math.exp(k * x)
    r = k * rho * g1 - rho * g2
    mu = rho * (math.pi**2 / L**2 + k**2 / 4)
    inner = slice(n // 100, n - n // 100)
    return float(np.abs(r - mu * g)[inner].max() / np.abs(r).max())


@dataclass(frozen=True, eq=False)
class FisherWeighted(Problem):
    """minimise ∫ρ(x) I(x) dx over policies γ(w | x) on [a, b] for x ∈ [c, d] (see the module).

    >>> FisherWeighted(-1.0, 1.0, 0.0, 1.0, "uniform", 9).grid_shape
    (9, 6)
    """

    a: float
    b: float
    c: float
    d: float
    weight: str = "uniform"
    nw: int = 31

    id: ClassVar[str] = "fisher-weighted"
    paper: ClassVar[str] = PAPER
    objective: ClassVar[str] = "weighted_fisher"
    unit: ClassVar[str | None] = "1/units² (units of the parameter θ)"
    max_grid: ClassVar[int] = 60_000
    grid_order: ClassVar[int] = 1  # observed order of convergence of the grid optimum (module docstring)

    def __post_init__(self) -> None:
        if not (self.b > self.a and self.d > self.c):
            raise ProblemError(f"need b > a and d > c, got a={self.a}, b={self.b}, c={self.c}, d={self.d}")
        if self.nw < 3:
            raise ProblemError(f"nw must be >= 3, got {self.nw}")
        object.__setattr__(self, "rho", weight_function(self.weight))
        cols = (self.d - self.c) / self.h
        if not np.isfinite(cols) or cols * self.nw > self.max_grid:
            raise ProblemError(
                f"[c, d] = [{self.c:g}, {self.d:g}] needs {cols:.3g} grid columns at step h = {self.h:.3g}, "
                f"more than {self.max_grid} points in all; lower nw or shorten [c, d]"
            )
        if np.prod(self.grid_shape) > self.max_grid:
            raise ProblemError(
                f"grid {self.grid_shape} has more than {self.max_grid} points; lower nw or shorten [c, d]"
            )

    @property
    def h(self) -> float:
        return (self.b - self.a) / (self.nw + 1)

    @property
    def grid_shape(self) -> tuple[int, int]:
        return self.nw, int(round((self.d - self.c) / self.h)) + 1

    @property
    def w(self) -> np.ndarray:
        return self.a + self.h * np.arange(1, self.nw + 1)

    @property
    def x(self) -> np.ndarray:
        return self.c + self.h * np.arange(self.grid_shape[1])

    def weights(self) -> np.ndarray:
        """ρ at the midpoints x_{j+½}, normalised so h Σ ρ = 1."""
        mid = self.x[:-1] + self.h / 2
        logr = np.asarray(log_weight_function(self.weight)(mid), dtype=float)  # in log space: e^{kx} overflows
        if not np.all(np.isfinite(logr)):
            raise ProblemError(f"the weight {self.weight!r} is not finite on [c, d]; use a smaller exponent")
        r = np.exp(logr - logr.max())
        return r / (self.h * r.sum())

    @classmethod
    def from_params(cls, **params: Any) -> "FisherWeighted":
        _only(cls.id, params, {"a", "b", "c", "d", "weight", "nw"})
        g = params.get
        return cls(
            parse_float("a", g("a", -1.0)),
            parse_float("b", g("b", 1.0)),
            parse_float("c", g("c", 0.0)),
            parse_float("d", g("d", 4.0)),
            str(g("weight", "uniform")),
            parse_int("nw", g("nw", 31), 3),
        )

    def params(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "c": self.c, "d": self.d, "weight": self.weight, "nw": self.nw}

    def cost(self, gamma: np.ndarray) -> float:
        """The grid cost of a policy γ (nw × nx array, columns are x)."""
        u = np.sqrt(np.clip(gamma, 0.0, None))
        pad = np.vstack([np.zeros((1, u.shape[1])), u, np.zeros((1, u.shape[1]))])
        diff = pad[:-1, 1:] - pad[1:, :-1]  # √γ_{i−1,j+1} − √γ_{i,j}, i = 1..nw+1
        per_x = (4.0 / self.h) * np.sum(diff**2, axis=0)
        return float(self.h * self.weights() @ per_x)

    def _program(self) -> tuple[Any, Any]:
        """The grid SOCP of the module docstring: (cvxpy problem, the policy variable G)."""
        import cvxpy as cp

        nw, nx = self.grid_shape
        G = cp.Variable((nw, nx), nonneg=True)
        t = cp.Variable((nw - 1, nx - 1))
        A, B = G[1:, :-1], G[:-1, 1:]  # γ_{i,j} and γ_{i−1,j+1}, i = 2..nw
        cone = cp.SOC(cp.vec(A + B, order="F"), cp.vstack([cp.vec(2 * t, order="F"), cp.vec(A - B, order="F")]), axis=0)
        per_x = (4.0 / self.h) * (G[0, :-1] + G[nw - 1, 1:] + cp.sum(A + B - 2 * t, axis=0))
        obj = self.h * (self.weights() @ per_x)
        return cp.Problem(cp.Minimize(obj), [self.h * cp.sum(G, axis=0) == 1, cone]), G

    def _grid_value(self, nw: int) -> float | None:
        """The grid optimum with ``nw`` points in w (the x-step follows, h = L/(nw + 1)); None if unsolved."""
        coarse = replace(self, nw=nw)
        prob, G = coarse._program()
        if not solve_program(prob):
            return None
        return coarse.cost(np.clip(np.asarray(G.value, float), 0.0, None))

    def conic_form(self) -> ConicForm:
        """The grid SOCP; ``extras["error_estimate"]`` by Richardson over coarser grids (the x-range
        [c, d] is rounded to a whole number of steps on each grid, an O(h) change when d − c is not
        a multiple of every step: then the estimate includes it).

        >>> f = FisherWeighted(-1.0, 1.0, 0.0, 1.0, "uniform", 9).conic_form()
        >>> f.sense, f.objective
        ('min', 'weighted_fisher')
        """
        nw, nx = self.grid_shape
        prob, G = self._program()
        extras: dict[str, Any] = {}

        def recover() -> np.ndarray:
            return np.clip(np.asarray(G.value, float), 0.0, None)

        def value_of(opt: float) -> float:
            val = self.cost(recover())
            extras.update(program_value=float(opt), grid_points=nw * nx, grid_shape=[nw, nx], h=self.h)
            extras.update(grid_estimate(self._grid_value, self.nw, val, order=self.grid_order))
            return val

        return ConicForm(
            problem=prob,
            recover=recover,
            sense="min",
            objective=self.objective,
            value_of=value_of,
            extras=extras,
            scope=f"the {nw}x{nx} grid discretisation",
        )

    def closed_form(self) -> Result | None:
        """Corollary 4 for ρ ∝ e^{kx} (and uniform, k = 0): the x-independent policy; ``feasible``, never ``optimal``.

        Corollary 4 (Fisher paper, Appendix G; statement reconstructed, module
        docstring) fails in ``mechopt verify`` (claim ``fisher.cor4``): on a
        bounded X the policy is not the minimiser, for k = 0 as well.

        >>> r = FisherWeighted.from_params(a="-1", b="1", c="0", d="2", weight="exp:1", nw="15").closed_form()
        >>> r.status.value, r.proof, r.extras["claim"]
        ('feasible', None, 'fisher.cor4')
        """
        kind, _, rest = self.weight.partition(":")
        if kind not in ("exp", "uniform"):
            return None
        k = float(rest or 1.0) if kind == "exp" else 0.0
        col = exp_weight_policy(self.a, self.b, k, self.w)
        gamma = np.tile(col[:, None], (1, self.grid_shape[1]))
        L = self.b - self.a
        return theorem_result(
            claim="fisher.cor4",
            proven=False,
            value=self.cost(gamma),
            sense="min",
            objective=self.objective,
            mechanism=gamma,
            problem=self.id,
            message="Corollary 4 (reconstructed): x-independent policy e^{kw} sin^2",
            why="mechopt verify finds Corollary 4 as reconstructed false (claim fisher.cor4): "
            "the policy is stationary in the interior of X, but on a bounded X x-dependent "
            "policies cost less",
            extras={"theorem": "Corollary 4 (exponential weight)", "stationary_rate": math.pi**2 / L**2 + k**2 / 4},
        )

    def audit(self, result: Result) -> ProblemAudit:
        G = np.asarray(result.mechanism, dtype=float)
        if G.shape != self.grid_shape:
            return ProblemAudit(violation=None, reasons=[f"policy has shape {G.shape}, expected {self.grid_shape}"])
        reasons = []
        mass = self.h * G.sum(axis=0)
        if np.abs(mass - 1).max() > settings.tolerance("density"):
            reasons.append(f"policy columns integrate to {mass.min():.6g}..{mass.max():.6g}, not 1")
        if G.min() < -settings.tolerance("density") * max(1.0, G.max()):
            reasons.append("policy is negative")
        return ProblemAudit(violation=0.0, notion="support", reasons=reasons, value=self.cost(G))
