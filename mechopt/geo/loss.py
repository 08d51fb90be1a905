"""Expected-loss utilities: Σ_{x,y} P(x) Q[x, y] L[x, y] for any loss matrix L (linear in Q).

L[x, y] is the loss of reporting output y when the input is x: a matrix, a metric between
inputs and outputs, or the distance between locations (:mod:`mechopt.geo.places`). The value is
linear in Q (:meth:`ExpectedLoss.linear_cost`), so under LDP, graph- and metric-LDP and LIP a
design is an LP (the ``lp`` solver, :mod:`mechopt.solvers.lp`). ``mae`` is the special case
L[x, y] = |a_x − b_y|.

Examples
--------
>>> import numpy as np
>>> from mechopt.geo.places import line
>>> u = ExpectedLoss.from_places(line(3))
>>> Q = np.array([[1.0, 0, 0], [0.5, 0.5, 0], [0, 0, 1.0]]); P = np.full(3, 1 / 3)
>>> round(u.value(Q, P), 12)          # only input 1 errs, by 1 with probability 1/2
0.166666666667
>>> from mechopt.utilities import MAE
>>> bool(np.isclose(u.value(Q, P), MAE([0.0, 1.0, 2.0]).value(Q, P)))
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.utilities import Utility

__all__ = ["ExpectedLoss"]


class ExpectedLoss(Utility):
    """The expected loss E[L(X, Y)] = Σ P(x) Q[x, y] L[x, y] of a channel, minimised.

    Parameters
    ----------
    loss : array_like, shape (n_inputs, n_outputs)
        Finite losses (any sign: only the differences within a row matter to the design).
    unit : str, optional
        The unit of the loss (e.g. ``"km"``).
    source : dict, optional
        How ``loss`` was made (reported by :meth:`params` instead of the matrix).
    """

    name = "loss"
    sense = "min"

    def __init__(self, loss: Any, *, unit: str | None = None, source: dict[str, Any] | None = None) -> None:
        try:
            L = np.array(loss, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise ProblemError("the loss must be a matrix of numbers, rows are inputs and columns outputs") from None
        if L.ndim != 2 or L.shape[0] < 1 or L.shape[1] < 1:
            raise ProblemError(f"the loss must be a matrix (inputs x outputs), got shape {L.shape}")
        if not np.all(np.isfinite(L)):
            raise ProblemError("the loss matrix has non-finite entries: every report needs a finite loss")
        L.setflags(write=False)
        self.L = L
        self.unit = unit or "units of the loss"  # type: ignore[misc]
        self.source = dict(source) if source else None

    @classmethod
    def from_places(cls, places: Any, outputs: Any = None, power: float = 1.0) -> "ExpectedLoss":
        """The distance (to the power ``power``) between the true location and the reported one.

        ``outputs`` are the reportable locations (a Places with the same norm; default the inputs).

        >>> from mechopt.geo.places import grid
        >>> ExpectedLoss.from_places(grid(2), power=2).L[0].tolist()
        [0.0, 1.0, 1.0, 2.0000000000000004]
        """
        from mechopt.geo.places import pairwise

        if not (np.isfinite(power) and power > 0):
            raise ProblemError(f"power must be a finite number > 0, got {power!r}")
        out = places if outputs is None else outputs
        if out.norm != places.norm:
            raise ProblemError(f"inputs use norm {places.norm} but outputs {out.norm}: give both the same norm")
        D = places.distances() if outputs is None else pairwise(places.coords, out.coords, places.norm)
        unit = places.unit if power == 1 else f"({places.unit})^{power:g}"
        source = {"loss": "distance" if power == 1 else f"distance^{power:g}", "norm": places.norm}
        return cls(D**power, unit=unit, source=source)

    def _check(self, rows: int) -> None:
        if rows != self.L.shape[0]:
            raise ProblemError(f"the loss matrix has {self.L.shape[0]} rows but the prior has {rows} symbols")

    def linear_cost(self, prior: np.ndarray) -> np.ndarray:
        P = np.asarray(prior, float)
        self._check(P.size)
        return P[:, None] * self.L

    def value(self, Q: np.ndarray, prior: np.ndarray) -> float:
        Q = np.asarray(Q, float)
        if Q.shape != self.L.shape:
            raise ProblemError(f"the loss needs Q of shape {self.L.shape} (inputs x outputs), got {Q.shape}")
        return float(np.sum(self.linear_cost(prior) * Q))

    def restrict(self, index: np.ndarray) -> "ExpectedLoss":
        return ExpectedLoss(self.L[index], unit=self.unit, source=self.source)

    def params(self) -> dict[str, Any]:
        if self.source is not None:
            return {"utility": self.name, **self.source}
        return {"utility": self.name, "loss": self.L.tolist()}
