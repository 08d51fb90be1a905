"""The two utilities with no sublinear column gain, MAE and frequency-estimation variance, designed by programs of
their own (:mod:`mechopt.programs.linear`, :mod:`mechopt.programs.frequency`) and re-exported by
:mod:`mechopt.utilities`.

Examples
--------
>>> import numpy as np
>>> from mechopt.nonsublinear import MAE
>>> MAE([0.0, 1.0]).value(np.eye(2), np.array([0.5, 0.5]))
0.0
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.utility import Utility

__all__ = ["MAE", "FrequencyVariance"]


class MAE(Utility):
    """E|a_X − b_Y| with input values a and fixed output estimates b (default b = a).

    Output y reports the estimate b_y, so the value Σ_x Σ_y P(x) Q[x, y] |a_x − b_y|
    is linear in Q (:meth:`linear_cost`): under a notion whose constraints are
    linear in Q (LDP, graph-LDP, LIP, CIP) the design is an LP, under MIP a convex
    program; the ``conic`` solver designs it with proof ``convex``.

    Examples
    --------
    >>> import numpy as np
    >>> u = MAE([0.0, 1.0, 2.0], outputs=[0.5, 1.5])
    >>> Q = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]]); P = np.full(3, 1 / 3)
    >>> round(u.value(Q, P), 12), bool(np.isclose(np.sum(u.linear_cost(P) * Q), u.value(Q, P)))
    (0.5, True)
    """

    name = "mae"
    sense = "min"
    unit = "units of the values"

    def __init__(self, values, outputs=None) -> None:
        self.a = _finite_vector(values, "values a", "one per input symbol")
        self.b = self.a if outputs is None else _finite_vector(outputs, "output estimates b", "one per output")

    def linear_cost(self, prior: np.ndarray) -> np.ndarray:
        P = np.asarray(prior, float)
        if P.size != self.a.size:
            raise ProblemError(f"{self.a.size} values but the prior has {P.size} symbols")
        return P[:, None] * np.abs(self.a[:, None] - self.b[None, :])

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        Q = np.asarray(Q, float)
        if Q.shape != (self.a.size, self.b.size):
            raise ProblemError(
                f"MAE needs Q of shape ({self.a.size}, {self.b.size}) (inputs × output estimates), got {Q.shape}"
            )
        return float(np.sum(self.linear_cost(prior) * Q))

    def restrict(self, index: np.ndarray) -> "MAE":
        return MAE(self.a[index], self.b)

    def normalised(self) -> tuple["MAE", float]:
        """Values and estimates divided by s, the power of two at the largest |a_x − b_y|: exactly.

        The costs |a_x − b_y| are differences, so an offset needs no centring (centring
        would round small differences beside large values); dividing by a power of two
        changes no digit of them.

        >>> u, s = MAE([0.0, 2e-9], outputs=[1e-9]).normalised()
        >>> s == 2.0**-30, float(u.b[0] * s) == 1e-9
        (True, True)
        """
        spread = float(np.abs(self.a[:, None] - self.b[None, :]).max())
        if not (spread > 0 and np.isfinite(spread)):
            return self, 1.0
        s = math.ldexp(1.0, math.frexp(spread)[1] - 1)  # spread / s in [1, 2)
        return (self, 1.0) if s == 1.0 else (MAE(self.a / s, self.b / s), s)

    def params(self) -> dict[str, Any]:
        return {"utility": self.name, "values": self.a.tolist(), "outputs": self.b.tolist()}


def _finite_vector(values, what: str, per: str) -> np.ndarray:
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"bad {what} {values!r}: give a list of numbers, {per}") from None
    if v.ndim != 1 or v.size == 0 or not np.all(np.isfinite(v)):
        raise ProblemError(f"{what} must be a non-empty finite vector, {per}")
    return v


class FrequencyVariance(Utility):
    """Variance of the unbiased frequency estimate from one report.

    With R = (QQᵀ)⁻¹Q (so R Qᵀ = I) a report y estimates the distribution by
    the column R[:, y], unbiased: E R[:, Y] = P. Its total variance is
    E‖R[:, Y] − P‖² = Σ_y λ_y ‖R[:, y]‖² − ‖P‖²; with n users the expected
    squared-ℓ2 error of the averaged estimate is this divided by n. Needs Q of
    full row rank.

    It is not convex in Q: a channel and the same channel with two output
    labels swapped have equal values, and their midpoint can be singular
    (infinite variance), e.g. [[p, 1−p], [1−p, p]] and [[1−p, p], [p, 1−p]]
    average to the constant channel. Designs are therefore local: the ``sqp``
    solver (status ``locally_optimal``, no certificate) on channels with d
    outputs, started from the shrunk identity (k-RR under LDP at a uniform
    prior) and from random private channels (:mod:`mechopt.programs.frequency`).

    Examples
    --------
    >>> import numpy as np
    >>> p = 0.75; Q = np.array([[p, 1 - p], [1 - p, p]]); P = np.array([0.5, 0.5])
    >>> round(FrequencyVariance().value(Q, P), 12)   # (1 - 2q + 2q²)/(p - q)² - ‖P‖², q = 1 - p
    2.0
    """

    name = "freq-var"
    sense = "min"
    unit = "unitless (squared probability)"

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        Q = np.asarray(Q, float)
        P = np.asarray(prior, float)
        G = Q @ Q.T
        if np.linalg.matrix_rank(G) < Q.shape[0]:
            raise ProblemError("frequency estimation needs Q of full row rank (no unbiased estimator otherwise)")
        R = np.linalg.solve(G, Q)
        lam = P @ Q
        return float(lam @ (R**2).sum(axis=0) - P @ P)
