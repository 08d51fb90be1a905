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

import math
from dataclasses import dataclass

import numpy as np

from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE, Utility

__all__ = ["VertexGains", "ErrorGains", "error_gains", "error_duals", "pattern_errors", "GAIN_UTILITIES"]

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


class ErrorGains(VertexGains):
    """The mse's gains relative to the identity channel's: g_i(q) = f_i(q) − Σ_x f_i(q_x e_x) = −e_i(q), no constant.

    Splitting a column into its rows (the identity) gives f_i(q_x e_x) = P_ix ã_x² q_x, linear in q, so g_i is convex
    and positively homogeneous as f_i is, and with Σ_y q_y = 1 the score Σ_y g_i(q_y) is −MSE_i itself (const 0):
    the ray LP's objective is the MSE, not E[ã²] − Σ gains (a difference of two nearly equal numbers when the MSE
    is far below E[ã²]). e_i(q) = Σ_x P_ix q_x (ã_x − m_i)², m_i = N_i/T_i the column's posterior mean, is summed
    from non-negative terms (:func:`mechopt.model.gains.mse_loss`): a few ulp of itself, whatever E[ã²].

    >>> import numpy as np
    >>> from mechopt.utilities import SumMSE
    >>> V, Q = np.array([[0.5, 0.5], [0.2, 0.8]]), np.array([[1 - 1e-12, 1e-12], [1e-12, 1 - 1e-12]])
    >>> g = ErrorGains(V, SumMSE([0.0, 1.0]))
    >>> bool(np.allclose(-g.gains(Q).sum(axis=1), g.values(Q), rtol=1e-12)), g.constants().tolist()
    (True, [0.0, 0.0])
    """

    def gains(self, S: np.ndarray) -> np.ndarray:
        """G[i, j] = −e_i(S[:, j]) (≤ 0), each to a few ulp of itself."""
        S = np.asarray(S, float)
        return np.vstack([-self.utility.column_value(P[:, None] * S) for P in self.vertices])

    def constants(self) -> np.ndarray:
        return np.zeros(len(self.vertices))

    @property
    def shift(self) -> np.ndarray:
        """(k × n) the identity's gains per unit of q_x, P_ix ã_x²: g_i(q) = f_i(q) − shift_i·q."""
        return self.vertices * self.utility.offset_weights(self.vertices.shape[1])[None, :]


def pattern_errors(P: np.ndarray, a: np.ndarray, eps: float) -> np.ndarray:
    """e(r) = Σ_x P_x r_x (a_x − m)² of every ε-LDP pattern r = 1 + (e^ε − 1)z but the all-ones z, by bitmask of z.

    From the pairs: e(r) = Σ_{x<x'} w_x w_x' (a_x − a_x')² / 1ᵀw, w = P ∘ r, K_xx' = P_x P_x' (a_x − a_x')² ≥ 0 summed
    over the pairs inside z (A(z), weight e^{2ε}), across (weight e^ε: the row sums over z less 2A(z), a subtraction
    of at most 2A(z), which the e^{2ε} term dominates) and outside z (A of the complement); every other term is a sum
    of non-negative numbers, so e(r) is within a few ulp of itself relative, not of E[a²].

    >>> import numpy as np
    >>> P, a = np.array([0.2, 0.3, 0.5]), np.array([-1.0, 0.0, 2.0])
    >>> R = 1.0 + np.expm1(1.5) * ((np.arange(7)[None, :] >> np.arange(3)[:, None]) & 1)
    >>> C = P[:, None] * R
    >>> direct = (C * (a[:, None] - (a @ C) / C.sum(axis=0)) ** 2).sum(axis=0)
    >>> bool(np.allclose(pattern_errors(P, a, 1.5), direct, rtol=1e-13))
    True
    """
    P, a = np.asarray(P, float), np.asarray(a, float)
    n = P.size
    K = P[:, None] * P[None, :] * (a[:, None] - a[None, :]) ** 2
    inside, rows, mass = np.zeros(1 << n), _sums(K.sum(axis=1)), _sums(P)
    for j in range(n):  # A(S ∪ {j}) = A(S) + Σ_{x ∈ S} K_jx for S ⊆ {0..j−1}
        inside[1 << j : 2 << j] = inside[: 1 << j] + _sums(K[j, :j])
    comp = ((1 << n) - 1) ^ np.arange(1 << n)
    cross = np.maximum(rows - 2.0 * inside, 0.0)
    lo = math.exp(-eps)
    num = math.exp(eps) * inside + cross + lo * inside[comp]
    return (num / (mass + lo * mass[comp]))[:-1]


def _sums(w: np.ndarray) -> np.ndarray:
    """Σ_{x ∈ S} w_x for every subset S of w's entries, by bitmask (as ``solvers.exact.rays.subset_sums``)."""
    out = np.zeros(1 << w.size)
    for k, wx in enumerate(w):
        out[1 << k : 2 << k] = out[: 1 << k] + wx
    return out


def error_duals(gains: VertexGains, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """μ of the error frame for duals (λ, μ) of ``gains``: ρ = λᵀf − μᵀq = λᵀg − (μ − λᵀ shift)ᵀq (f = g + shift·q);
    μ itself when ``gains`` are :class:`ErrorGains` already.

    >>> import numpy as np
    >>> from mechopt.utilities import SumMSE
    >>> V, lam, mu = np.array([[0.5, 0.5]]), np.ones(1), np.array([0.3, 0.2])
    >>> u = SumMSE([-1.0, 1.0])
    >>> error_duals(VertexGains(V, u), lam, mu).tolist(), error_duals(ErrorGains(V, u), lam, mu).tolist()
    ([-0.2, -0.3], [0.3, 0.2])
    """
    if isinstance(gains, ErrorGains):
        return np.asarray(mu, float)
    return np.asarray(mu, float) - np.asarray(lam, float) @ ErrorGains(gains.vertices, gains.utility).shift


def error_gains(V: np.ndarray, utility: Utility) -> VertexGains:
    """:class:`ErrorGains` for the mse of a sum, :class:`VertexGains` otherwise (mi; histogram keeps E − Σ gains)."""
    return ErrorGains(V, utility) if isinstance(utility, SumMSE) else VertexGains(V, utility)
