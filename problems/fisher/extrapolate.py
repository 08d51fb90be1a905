"""Error estimates of the conic Fisher grid programs: Richardson over coarser grids, truncation.

The finite-difference Fisher programs (:func:`~mechopt.problems.fisher.grid.interval_program`,
:func:`~mechopt.problems.fisher.grid.box_program`, the weighted program) converge as

    v_h = v + c₁h² + c₂h⁴ + …,        v_h < v for the plain interval (math.md §4),

so a grid value is not the continuous optimum: it is biased, by O(h²). The same
program solved on two coarser grids h₁ > h₀, h₂ > h₁ (about 2h₀ and 4h₀) gives,
by Neville's scheme in x = h²,

    R₀₁  = the line through (h₀², v₀), (h₁², v₁) at x = 0         (error O(h₀²h₁²)),
    R₀₁₂ = the parabola through all three points at x = 0          (error O(h₀²h₁²h₂²)).

Then v − v₀ = (R₀₁ − v₀) + (R₀₁₂ − R₀₁) + (v − R₀₁₂). The first two terms are
computed; the last is the error of the quadratic extrapolation, smaller than the
correction R₀₁₂ − R₀₁ it follows, and is bounded by that correction once more.
So the **error estimate** of the grid value v₀ is

    |v₀ − R₀₁| + 2 |R₀₁ − R₀₁₂| + noise,

and the **extrapolated** value R₀₁ comes with the error 2 |R₀₁ − R₀₁₂| + noise.
A method of another order p runs the same scheme in x = hᵖ (the weighted program of
:mod:`~mechopt.problems.fisher.weighted` converges at first order).
``noise`` allows for the solver: each value is trusted to ``grid_noise`` (relative,
:mod:`mechopt.settings`), times the sum of the absolute weights with which the
values enter the estimate. (|v₀ − v₁|/3, the textbook estimate for h₁ = 2h₀, is the
first term alone; on [−1, 1] it falls short of the true error by J(πh/L)⁴/90.)

A support truncated from the real line to [−R, R] adds a **truncation error**:
the same program at the same step on the window [−R′, R′], R′ ≈ 2R/3, differs from
the full one by err(R′) − err(R); when the error falls by at least half from R′ to
R (Gaussian tails: by e^{−R²/…}), err(R) ≤ |v(R′) − v(R)|.

Examples
--------
>>> import math
>>> J_h = lambda n: 4 * (n + 1) ** 2 * math.sin(math.pi / (2 * (n + 1))) ** 2   # the grid optimum on [-1, 1]
>>> est = grid_estimate(J_h, 400)              # includes the solver allowance grid_noise
>>> true = math.pi ** 2 - J_h(400)
>>> bool(true <= est["error_estimate"]), abs(est["extrapolated"] - math.pi ** 2) < 1e-8
(True, True)
>>> from mechopt import settings
>>> with settings.override(grid_noise=0.0):    # exact values need no allowance
...     sharp = grid_estimate(J_h, 400)["error_estimate"]
>>> true <= sharp < 1.0001 * true
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError

__all__ = ["coarser_grids", "richardson", "grid_estimate", "truncation_estimate", "solve_program"]

MIN_GRID = 3  # the grid programs need at least 3 interior points


def coarser_grids(n: int, levels: int = 2, minimum: int = MIN_GRID) -> list[int]:
    """``levels`` coarser grid sizes, the step about doubling each time: n_j + 1 = round((n + 1)/2^j).

    A level below ``minimum`` points is raised to ``minimum``; the result is empty
    when the levels would not be strictly coarser one after the other.

    >>> coarser_grids(400), coarser_grids(20), coarser_grids(11), coarser_grids(8)
    ([199, 99], [9, 4], [5, 3], [])
    """
    out: list[int] = []
    for j in range(1, levels + 1):
        m = max(minimum, int(round((n + 1) / 2**j)) - 1)
        if m >= (out[-1] if out else n):
            return []
        out.append(m)
    return out


def richardson(
    values: Sequence[float], steps: Sequence[float], noise: float | None = None, order: int = 2
) -> dict[str, Any]:
    """Error estimate of ``values[0]`` and the extrapolated value, from three grids (finest first).

    ``steps`` are the mesh sizes (any common unit); ``noise`` the relative accuracy
    of one value (default: the ``grid_noise`` tolerance); ``order`` p the order of
    the method, v_h = v + c₁hᵖ + c₂h²ᵖ + … (Neville in x = hᵖ; 2 for the difference
    Fisher programs). See the module docstring.

    >>> h = [0.1, 0.2, 0.4]
    >>> out = richardson([1 - 2 * s ** 2 + s ** 4 for s in h], h, noise=0.0)
    >>> true = 2 * 0.1 ** 2 - 0.1 ** 4                     # v = 1, v₀ = 1 − 2h² + h⁴ at h = 0.1
    >>> round(out["extrapolated"], 6), round(out["error_estimate"], 6), round(true, 6)
    (0.9996, 0.0203, 0.0199)
    """
    if len(values) != 3 or len(steps) != 3:
        raise ParamError(f"richardson needs three grids, got {len(values)} values and {len(steps)} steps")
    v = np.asarray(values, dtype=float)
    x = np.asarray(steps, dtype=float) ** order
    if not (x[0] < x[1] < x[2]):
        raise ParamError(f"steps must increase strictly (finest first), got {list(steps)}")
    # the extrapolations as weight vectors on the values: R = w @ v
    w01 = np.array([x[1], -x[0], 0.0]) / (x[1] - x[0])
    w12 = np.array([0.0, x[2], -x[1]]) / (x[2] - x[1])
    w012 = (x[2] * w01 - x[0] * w12) / (x[2] - x[0])
    first, second = np.array([1.0, 0.0, 0.0]) - w01, w01 - w012
    delta = settings.resolve(noise, "grid_noise") * float(np.abs(v).max())
    r01, r012 = float(w01 @ v), float(w012 @ v)
    return {
        "error_estimate": abs(float(v[0]) - r01)
        + 2 * abs(r01 - r012)
        + delta * float(np.abs(first).sum() + 2 * np.abs(second).sum()),
        "extrapolated": r01,
        "extrapolated_error": 2 * abs(r01 - r012) + delta * float(2 * np.abs(second).sum() + np.abs(w01).sum()),
        "richardson_values": [float(t) for t in v],
        "richardson_steps": [float(s) for s in steps],
    }


def grid_estimate(
    value_at: Callable[[int], float | None], n: int, value: float | None = None, order: int = 2
) -> dict[str, Any]:
    """:func:`richardson` for a one-parameter grid: ``value_at(m)`` is the program's value with m interior points.

    ``value`` is the value at ``n`` when already known (the solved program);
    ``order`` as in :func:`richardson`.
    Returns the extras to merge: ``error_estimate``, ``extrapolated``,
    ``extrapolated_error`` and the grids; or only ``error_note`` when the grid is
    too coarse to coarsen twice or a coarser program did not solve.

    >>> out = grid_estimate(lambda m: 1.0 - 1.0 / (m + 1) ** 2, 99)      # v_h = 1 − h², h = 1/(m + 1)
    >>> out["richardson_grids"], round(out["extrapolated"], 12), out["error_estimate"] >= 1e-4
    ([99, 49, 24], 1.0, True)
    >>> grid_estimate(lambda m: None, 99)["error_note"]
    'no grid error estimate: a coarser grid ([49, 24] points) did not solve'
    """
    grids = [n, *coarser_grids(n)]
    if len(grids) < 3:
        return {"error_note": f"no grid error estimate: {n} points cannot be coarsened twice (needs n >= 9)"}
    vals = [value if value is not None else value_at(n)] + [value_at(m) for m in grids[1:]]
    if any(v is None or not math.isfinite(v) for v in vals):
        return {"error_note": f"no grid error estimate: a coarser grid ({grids[1:]} points) did not solve"}
    out = richardson([float(v) for v in vals], [1.0 / (m + 1) for m in grids], order=order)  # type: ignore[arg-type]
    out["richardson_grids"] = grids
    return out


def truncation_estimate(
    value_at: Callable[[int, float], float | None], n: int, R: float, value: float
) -> dict[str, Any]:
    """Truncation error of a program on [−R, R] with n interior points: the same step on a window ≈ 2R/3.

    ``value_at(m, r)`` is the program's value on [−r, r] with m interior points.

    >>> est = truncation_estimate(lambda m, r: 1.0 + math.exp(-r ** 2), 299, 6.0, 1.0 + math.exp(-36.0))
    >>> est["truncation_error"] >= math.exp(-36.0), est["truncation_window"]
    (True, 4.0)
    """
    m = int(round((n + 1) * 2 / 3)) - 1
    r = R * (m + 1) / (n + 1)  # the same step 2R/(n + 1)
    other = value_at(m, r)
    if other is None or not math.isfinite(other):
        return {"error_note": f"no truncation estimate: the window [-{r:g}, {r:g}] did not solve"}
    delta = settings.tolerance("grid_noise") * max(abs(value), abs(other))
    return {"truncation_error": abs(other - value) + 2 * delta, "truncation_window": r}


def solve_program(prob: Any) -> bool:
    """Solve a cvxpy problem with Clarabel; whether it reports ``optimal``.

    >>> import cvxpy as cp
    >>> x = cp.Variable()
    >>> solve_program(cp.Problem(cp.Minimize(cp.square(x - 2)))), round(float(x.value), 6)
    (True, 2.0)
    >>> solve_program(cp.Problem(cp.Minimize(x), [x >= 1, x <= 0]))
    False
    """
    import cvxpy as cp

    try:
        prob.solve(solver="CLARABEL")
    except cp.error.SolverError:
        return False
    return prob.status == cp.OPTIMAL
