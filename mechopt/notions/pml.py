"""Posterior-box notions: ε-pointwise maximal leakage (PML) and asymmetric LIP (ALIP).

Both bound the information density i(x; y) = log P(x | y) / P(x) of every output y:

- (ε_u, ε_l)-ALIP ("Quantifying Privacy via Information Density", arXiv 2402.12967):
  −ε_l ≤ i(x; y) ≤ ε_u, i.e. e^{−ε_l} λ_y ≤ Q[x, y] ≤ e^{ε_u} λ_y with λ_y = Σ_x P(x) Q[x, y];
- ε-PML (Saeidian, Cervia, Oechtering, Skoglund, "Pointwise maximal leakage"; Grosse, Saeidian,
  Oechtering, "Extremal mechanisms for pointwise maximal leakage", arXiv 2310.07381):
  ℓ(X → y) = log max_x P(x | y) / P(x) ≤ ε for every output y, the case ε_l = ∞ of ALIP;
- ε-LIP (:class:`~mechopt.notions.info.LIP`) is the symmetric case ε_u = ε_l = ε.

For a fixed prior each is a polyhedral cone on joint columns: the posterior p_y lies in the box
B = {p ∈ Δ : e^{−ε_l} P ≤ p ≤ min(e^{ε_u} P, 1)} (lower bound 0 under PML), so the exact solver's
LP over the extreme rays (the vertices of B) applies (math.md §1). Zeros in Q are allowed under
PML. Rows of inputs with P(x) = 0 are unconstrained (their posterior is 0 whatever Q does).

Examples
--------
>>> import numpy as np
>>> Q = np.array([[0.8, 0.2], [0.3, 0.7]]); P = np.array([0.4, 0.6])
>>> lam = P @ Q
>>> bool(np.isclose(PML(1.0).audit(Q, P).eps, np.log((Q / lam).max())))
True
>>> a = ALIP(0.5, eps_lower=1.0)
>>> up, low = a.levels(Q, P)
>>> bool(np.isclose(up, np.log((Q / lam).max())) and np.isclose(low, np.log((lam / Q).max())))
True
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.notions.base import PrivacyNotion, check_eps

__all__ = ["PosteriorBox", "ALIP", "PML"]


class PosteriorBox(PrivacyNotion):
    """e^{−ε_l} P ≤ p_y ≤ e^{ε_u} P for every output's posterior p_y (``eps`` is ε_u).

    The audit's single number is the smallest ε_u' such that the channel satisfies
    (ε_u', ε_u' + ε_l − ε_u)-ALIP, so its violation max(0, ε − ε_u) is the larger of the
    upper and lower excesses, in nats: max(0, ε_u(Q) − ε_u, ε_l(Q) − ε_l).
    :meth:`levels` gives the two audited levels themselves.
    """

    name = "posterior-box"

    def __init__(self, eps: float, eps_lower: float = math.inf) -> None:
        super().__init__(eps)
        if eps_lower == math.inf:
            self.eps_lower = math.inf
        else:
            self.eps_lower = check_eps(eps_lower, allow_zero=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps={self.eps:g}, eps_lower={self.eps_lower:g})"

    # -- the box --------------------------------------------------------
    def factors(self) -> tuple[float, float]:
        """(e^{−ε_l}, e^{ε_u}): the bounds of Q[x, y] / λ_y (0 below under PML)."""
        return math.exp(-self.eps_lower), math.exp(self.eps)

    def deviations(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lo − P, hi − P) of the posterior box, each to a few ulp relative (no cancellation at small ε).

        >>> dlo, dhi = PML(1e-9).deviations(np.array([0.5, 0.5]))
        >>> dlo.tolist(), float(dhi[0] / 5e-10)
        ([-0.5, -0.5], 1.0000000005)
        """
        P = np.asarray(P, float)
        dlo = -P if self.eps_lower == math.inf else P * math.expm1(-self.eps_lower)
        dhi = np.where(math.exp(self.eps) * P < 1.0, P * math.expm1(self.eps), 1.0 - P)
        return dlo, dhi

    def box(self, P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(lo, hi) of the posterior box B."""
        P = np.asarray(P, float)
        lo_f, hi_f = self.factors()
        return lo_f * P, np.minimum(hi_f * P, 1.0)

    # -- audit ----------------------------------------------------------
    def levels(self, Q: np.ndarray, prior: np.ndarray) -> tuple[float, float]:
        """(ε_u(Q), ε_l(Q)): max and −min of log Q[x, y] / λ_y over inputs with P(x) > 0 and used outputs."""
        Q = np.asarray(Q, float)
        P = np.asarray(prior, float)
        lam = P @ Q
        used, rows = lam > 0, P > 0
        if not np.any(used) or not np.any(rows):
            return 0.0, 0.0
        Qr = Q[rows][:, used]
        ll = np.log(lam[used])
        upper = float(np.max(np.log(Qr.max(axis=0)) - ll))
        lo = Qr.min(axis=0)
        lower = math.inf if np.any(lo <= 0) else float(np.max(ll - np.log(lo)))
        return max(0.0, upper), max(0.0, lower)

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        upper, lower = self.levels(Q, prior)
        if self.eps_lower == math.inf:
            return upper
        return max(upper, lower + (self.eps - self.eps_lower))

    def check_prior(self, prior: np.ndarray) -> None:
        """Refuse a prior whose posterior floor e^{−ε_l}·P(x) falls below the double range (ALIP only).

        >>> from mechopt.errors import ProblemError
        >>> try:
        ...     ALIP(1.0, eps_lower=700.0).check_prior(np.array([1e-100, 1.0 - 1e-100]))
        ... except ProblemError as e:
        ...     print(str(e).split(": ")[-1])
        give eps_lower <= 478.1
        """
        P = np.asarray(prior, float)
        if self.eps_lower == math.inf or not np.any(P > 0):
            return
        p_min, tiny = float(P[P > 0].min()), sys.float_info.min  # the smallest normal double, 2.2e-308
        if p_min * math.exp(-self.eps_lower) < tiny:
            raise ProblemError(
                f"alip's lower level eps_lower = {self.eps_lower:g} puts the posterior floor e^-eps_lower * P(x) "
                f"below the double range for the prior entry {p_min:.3g}: give eps_lower <= "
                f"{math.log(p_min / tiny):.4g}"
            )

    # -- solver forms ---------------------------------------------------
    def cone(self, prior: np.ndarray) -> np.ndarray:
        """Rows e^{ε_u} P(x) 1ᵀc − c_x ≥ 0 (and c_x − e^{−ε_l} P(x) 1ᵀc ≥ 0 when ε_l < ∞)."""
        P = np.asarray(prior, float)
        lo_f, hi_f = self.factors()
        eye, ones = np.eye(P.size), np.ones(P.size)
        upper = hi_f * np.outer(P, ones) - eye
        if self.eps_lower == math.inf:
            return upper
        return np.vstack([eye - lo_f * np.outer(P, ones), upper])

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        import cvxpy as cp

        P = np.asarray(prior, float)
        lam = P @ Q
        d = Q.shape[0]
        L = cp.vstack([lam] * d) if d > 1 else cp.reshape(lam, (1, Q.shape[1]), order="F")
        rows = P > 0
        lo_f, hi_f = self.factors()
        Qr, Lr = (Q, L) if np.all(rows) else (Q[np.flatnonzero(rows), :], L[np.flatnonzero(rows), :])
        out = [Qr <= hi_f * Lr]
        if self.eps_lower != math.inf:
            out.append(Qr >= lo_f * Lr)
        return out

    def params(self) -> dict[str, Any]:
        out: dict[str, Any] = {"notion": self.name, "eps": self.eps}
        if self.eps_lower != math.inf:
            out["eps_lower"] = self.eps_lower
        return out


class ALIP(PosteriorBox):
    """(ε_u, ε_l)-asymmetric localized information privacy: e^{−ε_l} ≤ Q[x, y] / λ_y ≤ e^{ε_u}.

    Parameters
    ----------
    eps : float
        ε_u, the bound on the information density from above (the posterior's growth).
    eps_lower : float
        ε_l, the bound from below (how far a posterior may fall); ``inf`` is PML.

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.array([[0.8, 0.2], [0.3, 0.7]]); P = np.array([0.4, 0.6])
    >>> n = ALIP(2.0, eps_lower=0.5)
    >>> up, low = n.levels(Q, P)
    >>> round(n.audit(Q, P).violation, 12) == round(max(0.0, up - 2.0, low - 0.5), 12)
    True
    """

    name = "alip"

    def __init__(self, eps: float, eps_lower: float | None = None) -> None:
        if eps_lower is None:
            raise ProblemError("notion alip needs the lower level ε_l: give --eps-lower L (and --eps for ε_u)")
        super().__init__(eps, eps_lower)
        if self.eps_lower == math.inf:
            raise ProblemError("ALIP with eps_lower = inf is ε-PML: use --notion pml")


class PML(PosteriorBox):
    """ε-pointwise maximal leakage for the prior P: max_x P(x | y) / P(x) ≤ e^ε for every output y.

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([0.25, 0.75])
    >>> PML(np.log(2.0)).box(P)[1].tolist()           # a posterior may at most double
    [0.5, 1.0]
    >>> PML(1.0).audit(np.eye(2), P).eps == float(np.log(4.0))   # output 0 reveals x = 0
    True
    """

    name = "pml"

    def __init__(self, eps: float) -> None:
        super().__init__(eps, math.inf)

    def __repr__(self) -> str:
        return f"PML(eps={self.eps:g})"
