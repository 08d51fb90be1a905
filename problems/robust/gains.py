"""A sublinear utility (mi, mse, histogram) at every vertex of a prior set, on channel columns q = Q[:, y].

At prior P_i the utility of a channel is ``offset_i + sign · Σ_y μ_i(P_i ∘ q_y)`` with μ_i the
utility's column gain at P_i (convex, positively homogeneous: math.md §1). Written on the column
q itself, f_i(q) = μ_i(P_i ∘ q) is convex and positively homogeneous in q for every i at once, so
splitting a column into extreme rays of the privacy cone (one garbling, the same for every prior)
never lowers any f_i: the robust design is an LP over the rays of the cone (see
:mod:`mechopt.solvers.robust.rays`).

The robust *score* maximised at vertex i is s_i(Q) = Σ_y f_i(q_y) + const_i, with the utility's
value at P_i equal to ``sign · s_i`` (mi: s_i = I(P_i; Q), sign +1; mse / histogram:
s_i = −MSE_i, sign −1). The robust design maximises min_i s_i.

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import make_utility
>>> V = np.array([[0.5, 0.5], [0.2, 0.8]])
>>> g = VertexGains(V, make_utility("mi"))
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> s = g.gains(Q).sum(axis=1) + g.constants()
>>> bool(np.allclose(s, [g.value_at(Q, 0), g.value_at(Q, 1)]))
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE, Utility

__all__ = ["VertexGains", "GAIN_UTILITIES"]

#: The utilities with a column gain that a robust design over a prior set takes (besides the linear mae).
GAIN_UTILITIES = ("mi", "mse", "histogram")


@dataclass(frozen=True, eq=False)
class VertexGains:
    """The column gains f_i(q) = μ(P_i ∘ q) of ``utility`` at each row P_i of ``vertices``."""

    vertices: np.ndarray
    utility: Utility

    @property
    def sign(self) -> float:
        """+1 when the value is the score (mi), −1 when it is its negative (an MSE)."""
        return 1.0 if isinstance(self.utility, MutualInfo) else -1.0

    def _at(self, i: int) -> Utility:
        return MutualInfo(self.vertices[i]) if isinstance(self.utility, MutualInfo) else self.utility

    def gains(self, S: np.ndarray) -> np.ndarray:
        """F[i, j] = f_i(S[:, j]) for columns S (d × n), one row per vertex (k × n)."""
        S = np.asarray(S, float)
        return np.vstack([self._at(i).gain(P[:, None] * S) for i, P in enumerate(self.vertices)])

    def constants(self) -> np.ndarray:
        """const_i: 0 for mi, −offset(P_i) for an MSE (the score is −MSE_i)."""
        if isinstance(self.utility, MutualInfo):
            return np.zeros(len(self.vertices))
        if isinstance(self.utility, (SumMSE, HistogramMSE)):
            return -np.array([self.utility.offset(P) for P in self.vertices])
        raise TypeError(f"no column gain for utility {self.utility.name}")

    def value_at(self, Q: np.ndarray, i: int) -> float:
        """The utility's own value of Q at vertex i (the audit: cancellation-free forms)."""
        return float(self.utility.value(np.asarray(Q, float), self.vertices[i]))

    def values(self, Q: np.ndarray) -> np.ndarray:
        """The utility's value of Q at every vertex."""
        return np.array([self.value_at(Q, i) for i in range(len(self.vertices))])
