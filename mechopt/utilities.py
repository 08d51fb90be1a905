"""Utilities of a channel, and their column gains μ where they are sublinear.

A utility has a ``value(Q, prior)`` in its own sense (an MSE is minimised, a
mutual information maximised). Where it is a sum over output columns of a
convex, positively homogeneous gain μ(c_y) of the joint column
c_y(x) = P(x) Q[x, y], :meth:`Utility.gain` gives μ and the value is
``offset(prior) + sign · Σ_y μ(c_y)`` (math.md §1).
The two without such a gain, :class:`MAE` and :class:`FrequencyVariance`, are defined in
:mod:`mechopt.nonsublinear` and re-exported here.

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import SumMSE, HistogramMSE, MutualInfo
>>> P = np.array([0.5, 0.5]); Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> u = SumMSE([0.0, 1.0])
>>> round(u.value(Q, P), 12)   # E[(X - E[X|Y])^2] = 3/16
0.1875
>>> C = P[:, None] * Q
>>> bool(np.isclose(u.offset(P) + u.sign * u.gain(C).sum(), u.value(Q, P)))
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model import gains
from mechopt.model._matrix import sum_column_blocks
from mechopt.model.info import mutual_information
from mechopt.model.utility import Utility
from mechopt.nonsublinear import MAE, FrequencyVariance

__all__ = [
    "Utility",
    "SumMSE",
    "HistogramMSE",
    "MutualInfo",
    "MAE",
    "FrequencyVariance",
    "make_utility",
    "UTILITIES",
    "DESIGNED_BY",
]


_SQRT_TINY = float(np.sqrt(np.finfo(float).tiny))  # 1.49e-154: a smaller number's square is not a normal double


def _finite(x, what: str, fix: str) -> None:
    """A non-finite intermediate is an error, never clamped to a number."""
    if not np.all(np.isfinite(x)):
        raise ProblemError(f"{what} is not finite (overflow or NaN): {fix}")


class SumMSE(Utility):
    """MMSE of f(X) = a_X from Y: E[(a_X − E[a_X | Y])²] (sums, weighted sums).

    The value does not change when a constant is added to every a_x, so the
    numbers are computed from the centred values a − m, m the midrange of a
    (``centred``): the gain form E[ã²] − Σ_y (ãᵀc_y)² / 1ᵀc_y cancels
    catastrophically when the values share a large offset or the MSE is far
    below E[ã²], so :meth:`value` (the audit) and :meth:`column_value` use the
    termwise non-negative sum Σ_y Σ_x P(x) Q[x, y] (ã_x − â_y)² with â_y the
    posterior mean of ã (:func:`mechopt.model.gains.mse_loss`).

    Examples
    --------
    >>> import numpy as np
    >>> P, Q = np.array([0.5, 0.5]), np.full((2, 2), 0.5)
    >>> SumMSE([1e8, 1e8 + 1]).value(Q, P), SumMSE([0.0, 1.0]).value(Q, P)
    (0.25, 0.25)
    """

    name = "mse"
    sense = "min"
    unit = "squared units of the values"
    sublinear = True
    sign = -1.0

    def __init__(self, values) -> None:
        a = np.asarray(values, dtype=float)
        if a.ndim != 1 or a.size == 0 or not np.all(np.isfinite(a)):
            raise ProblemError("values a must be a non-empty finite vector, one per input symbol")
        self.a = a
        lo, hi = float(a.min()), float(a.max())
        self.centre = lo + (hi - lo) / 2 if np.isfinite(hi - lo) else lo / 2 + hi / 2
        with np.errstate(over="ignore", invalid="ignore"):
            self.centred = a - self.centre
            _finite(
                self.centred**2, "the squared values (after centring)", "the values span more than 1e154; rescale them"
            )
        half = float(np.max(np.abs(self.centred)))
        if 0 < half < _SQRT_TINY:  # squares below the normal doubles: an MSE of 0 or of a few bits, "certified"
            raise ProblemError(
                f"the values span {hi - lo:.3g}, less than 1e-154: their squares underflow double precision (an MSE "
                "would print as 0); rescale them (multiply by a power of 10; the MSE scales by its square)"
            )

    def _check(self, prior: np.ndarray) -> None:
        if np.asarray(prior).size != self.a.size:
            raise ProblemError(f"{self.a.size} values but the prior has {np.asarray(prior).size} symbols")

    def gain(self, C: np.ndarray) -> np.ndarray:
        mass = C.sum(axis=0)
        with np.errstate(over="ignore", invalid="ignore"):
            num = (self.centred @ C) ** 2
            out = np.divide(num, mass, out=np.zeros_like(mass), where=mass > 0)
        _finite(out, "the MSE gain of a column", "rescale the values")
        return out

    def offset(self, prior: np.ndarray) -> float:
        self._check(prior)
        with np.errstate(over="ignore", invalid="ignore"):
            out = float(np.asarray(prior) @ self.centred**2)
        _finite(out, "E[a²] of the centred values", "rescale the values")
        return out

    def offset_weights(self, d: int) -> np.ndarray:
        return self.centred**2

    def column_value(self, C: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore"):
            out = gains.mse_loss(self.centred, C)
        _finite(out, "the MSE of a column", "rescale the values")
        return out

    def column_error(self, C: np.ndarray) -> np.ndarray:
        return gains.mse_error(self.centred, C, self.column_value(C))

    def normalised(self) -> tuple["SumMSE", float]:
        """The values centred at their midrange and divided by their half-range s; the MSE scales by s².

        >>> u, s = SumMSE([1e3, 3e3, 5e3]).normalised()
        >>> u.a.tolist(), s
        ([-1.0, 0.0, 1.0], 4000000.0)
        """
        half = float(np.abs(self.centred).max())
        if half == 0.0 or half == 1.0:
            return self, 1.0
        return SumMSE(self.centred / half), half * half

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        self._check(prior)
        P = np.asarray(prior, float)[:, None]
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = sum_column_blocks(np.asarray(Q, float), lambda B: float(gains.mse_loss(self.centred, P * B).sum()))
        _finite(out, "the MSE of the mechanism", "check the channel and rescale the values")
        return out

    def restrict(self, index: np.ndarray) -> "SumMSE":
        return SumMSE(self.a[index])

    def params(self) -> dict[str, Any]:
        return {"utility": self.name, "values": self.a.tolist()}


class HistogramMSE(Utility):
    """Per-user histogram MSE Σ_k E[(1{X=k} − P(X=k|Y))²] = 1 − Σ_y Σ_k c_k² / 1ᵀc.

    :meth:`value` (the audit) evaluates it as the termwise non-negative
    Σ_y Σ_k c_k (1ᵀc − c_k) / 1ᵀc with 1ᵀc − c_k summed from the other entries
    (:func:`mechopt.model.gains.histogram_loss`): nothing cancels, even when a
    posterior is within 1e-20 of a point mass.
    """

    name = "histogram"
    sense = "min"
    unit = "unitless (squared probability)"
    sublinear = True
    sign = -1.0

    def gain(self, C: np.ndarray) -> np.ndarray:
        mass = C.sum(axis=0)
        out = np.divide((C**2).sum(axis=0), mass, out=np.zeros_like(mass), where=mass > 0)
        _finite(out, "the histogram gain of a column", "check the channel")
        return out

    def offset(self, prior: np.ndarray) -> float:
        return 1.0

    def offset_weights(self, d: int) -> np.ndarray:
        return np.ones(d)

    def column_value(self, C: np.ndarray) -> np.ndarray:
        return gains.histogram_loss(C)

    def column_error(self, C: np.ndarray) -> np.ndarray:
        return gains.histogram_error(C, gains.histogram_loss(C))

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        # a block of columns at a time (mechopt.model._matrix.column_block): no d × n temporaries next to Q
        P = np.asarray(prior, float)[:, None]

        def block(B: np.ndarray) -> float:
            return float(gains.histogram_loss(P * B).sum())

        out = sum_column_blocks(np.asarray(Q, float), block)
        _finite(out, "the histogram MSE of the mechanism", "check the channel")
        return out


class MutualInfo(Utility):
    """I(X; Y), maximised; μ(c) = Σ_x c_x log(c_x / (P(x) 1ᵀc)) depends on P."""

    name = "mi"
    sense = "max"
    unit = "nats"
    sublinear = True

    def __init__(self, prior=None) -> None:
        self.prior = None if prior is None else np.asarray(prior, dtype=float)

    def gain(self, C: np.ndarray) -> np.ndarray:
        """μ per column, as 1ᵀc Σ_x P(x) φ(c_x / (P(x) 1ᵀc)) (:func:`mechopt.model.gains.mi_gain`: no cancellation)."""
        return gains.mi_gain(self._prior(), np.asarray(C, float))

    def column_error(self, C: np.ndarray) -> np.ndarray:
        C = np.asarray(C, float)
        return gains.mi_error(self._prior(), C, self.gain(C))

    def _prior(self) -> np.ndarray:
        if self.prior is None:
            raise ProblemError("MutualInfo.gain needs the prior: build it as MutualInfo(prior)")
        return self.prior

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        return mutual_information(prior, Q)

    def restrict(self, index: np.ndarray) -> "MutualInfo":
        if self.prior is None:
            return self
        p = self.prior[index]
        return MutualInfo(p / p.sum())


UTILITIES: dict[str, type[Utility]] = {
    "mse": SumMSE,
    "histogram": HistogramMSE,
    "mi": MutualInfo,
    "mae": MAE,
    "freq-var": FrequencyVariance,
}

#: The solver that designs each utility by default, and what its answer proves (every notion;
#: under ``mip`` the sublinear utilities have no column program and fall to ``sqp``).
DESIGNED_BY: dict[str, str] = {
    "mse": "exact, certified; under mip: sqp, local",
    "histogram": "exact, certified; under mip: sqp, local",
    "mi": "exact, certified; under mip: sqp, local",
    "mae": "lp under ldp, lip, graph-/metric-ldp, else conic (LP or convex program), certified",
    "freq-var": "sqp, local: not convex",
}


_IGNORES_VALUES = {
    "histogram": "it scores the estimate of each symbol's indicator, whatever the symbol's value",
    "freq-var": "it scores the estimated frequency of each symbol, whatever the symbol's value",
    "mi": "mutual information depends on the probabilities only",
}


def make_utility(name: str, *, prior=None, values=None, outputs=None) -> Utility:
    """Build a utility by name (``mse`` and ``mae`` take ``values``, default 0..d-1; ``mae`` also
    ``outputs``, its output estimates b, default the values; ``mi`` the prior).

    Every utility listed here can be designed under every notion (docs: concepts, "Utilities").

    Examples
    --------
    >>> make_utility("mae", values=[0, 1], outputs=[0.5]).b.tolist()
    [0.5]
    >>> make_utility("l1")
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: unknown utility 'l1'; known: mse, histogram, mi, mae, freq-var
    """
    key = str(name).lower()
    if key not in UTILITIES:
        raise ProblemError(f"unknown utility {name!r}; known: {', '.join(UTILITIES)}")
    if outputs is not None and key != "mae":
        raise ProblemError(f"output estimates (--outputs) belong to utility mae, not {key}")
    if values is not None and key not in ("mse", "mae"):  # used or refused, never ignored
        raise ProblemError(
            f"input values (--values) belong to utilities mse and mae, not {key} "
            f"({_IGNORES_VALUES.get(key, 'it does not use them')}): drop the values"
        )
    if key in ("mse", "mae"):
        if values is None:
            if prior is None:
                raise ProblemError(f"utility {key} needs --values a_1,...,a_d")
            values = np.arange(np.asarray(prior).size, dtype=float)
        return MAE(values, outputs) if key == "mae" else SumMSE(values)
    if key == "mi":
        return MutualInfo(prior)
    return UTILITIES[key]()
