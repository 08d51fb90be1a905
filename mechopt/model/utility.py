"""The base class of every utility: its value, and where it is sublinear, its column gains and their unit-free forms.

Defined here, below :mod:`mechopt.utilities` (which re-exports it and holds the utilities themselves), so the
model layer's forms and gains need not import the concrete utilities.

Examples
--------
>>> import numpy as np
>>> from mechopt.model.utility import Utility
>>> class Half(Utility):
...     name, sense = "half", "min"
...     def value(self, Q, prior):
...         return 0.5
>>> u = Half()
>>> u.normalised()[1], u.offset(np.array([0.3, 0.7])), u.sublinear
(1.0, 0.0, False)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model import gains

__all__ = ["Utility"]


class Utility(ABC):
    """A utility (or loss) of a channel under a prior."""

    name: ClassVar[str]
    sense: ClassVar[str]  # "min" or "max"
    #: The unit of :meth:`value` (printed with every value: CLI tables, JSON ``unit``, plot labels).
    unit: ClassVar[str] = "unitless"
    sublinear: ClassVar[bool] = False
    sign: ClassVar[float] = 1.0  # value = offset + sign * Σ μ

    @abstractmethod
    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        """The utility of channel Q under the prior."""

    def gain(self, C: np.ndarray) -> np.ndarray:
        """μ of each column of C (shape (d, m)) → shape (m,)."""
        raise ProblemError(f"utility {self.name} is not a sum of column gains; use a solver other than exact")

    def offset(self, prior: np.ndarray) -> float:
        return float(self.offset_weights(np.asarray(prior).size) @ np.asarray(prior, float))

    def offset_weights(self, d: int) -> np.ndarray:
        """w with ``offset(P) = wᵀP`` (zeros by default): ``value = Σ_y (wᵀc_y + sign·μ(c_y))``."""
        return np.zeros(d)

    def column_value(self, C: np.ndarray) -> np.ndarray:
        """Each column's share κ(c_y) = wᵀc_y + sign·μ(c_y) of the value, computed without cancellation.

        ``value(Q, P) = Σ_y κ(P ∘ Q[:, y])`` (:mod:`mechopt.model.gains`); the
        default adds the two parts, which the sublinear utilities override.
        """
        return self.offset_weights(C.shape[0]) @ C + self.sign * self.gain(C)

    def column_error(self, C: np.ndarray) -> np.ndarray:
        """A bound on the floating-point error of :meth:`column_value` per column (ulp-scale)."""
        return (8 + C.shape[0]) * gains.ULP * (np.abs(self.offset_weights(C.shape[0]) @ C) + np.abs(self.gain(C)))

    def normalised(self) -> tuple["Utility", float]:
        """(u, s) with ``value(Q, P) = s · u.value(Q, P)`` and u's data of order one (unit-free solving).

        The default is the utility itself and s = 1; utilities of values (MSE,
        MAE) centre and scale them, so values ×1e-12 and ×1e12 give one program.
        """
        return self, 1.0

    def restrict(self, index: np.ndarray) -> "Utility":
        """The same utility on the inputs ``index`` (after dropping zero-mass symbols)."""
        return self

    def linear_cost(self, prior: np.ndarray) -> np.ndarray | None:
        """L with ``value(Q, prior) = Σ_{x,y} L[x, y] Q[x, y]`` when the utility is linear in Q, else None.

        A linear utility under a notion with convex constraints is a convex
        program (an LP under LDP, graph-LDP and LIP): the ``conic`` solver
        designs it with a proof (:func:`mechopt.programs.linear.linear_conic_form`).
        """
        return None

    def params(self) -> dict[str, Any]:
        return {"utility": self.name}
