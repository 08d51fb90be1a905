"""Centralized information privacy on a sum (LIP paper, Section IV-D).

A trusted server sees S = Σ_i D_i (D_i ~ Bernoulli(p_i) independent: binomial
for a global prior, eq. (33), Poisson-binomial for local priors) and releases
Y through a channel Q[s, y]. Definition 4 asks, for every user i, bit j, output y,

    e^{-ε} ≤ P(D_i = j) / P(D_i = j | Y = y) ≤ e^{ε},

which is linear in the posterior of S because P(D_i=j | Y) = Σ_s P(D_i=j | S=s) P(s | Y)
(:class:`mechopt.notions.CIP`). The program is min E[(S − E[S | Y])²].

Proposition 5 states the program with the constraint
e^{-ε} N P1 ≤ Ŝ ≤ N − e^{-ε}(N − N P1) on Ŝ = E[S | Y] (global prior): only the
lower halves of Definition 4's constraints. ``program="prop5"`` builds that
program (:class:`Prop5Notion`) so it can be compared with Definition 4.

Examples
--------
>>> prob = CIPBinomial.from_params(n_users="4", p1="0.3", eps="1")
>>> prob.prior.size, prob.notion.name
(5, 'cip')
>>> CIPBinomial.from_params(p="0.1,0.5,0.9", eps="1").local
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import ascii_int
from mechopt.model.priors import MAX_SYMBOLS
from mechopt.model.problem import ChannelProblem
from mechopt.notions import CIP, LIP, PrivacyNotion, check_eps
from mechopt.results.result import Result
from mechopt.utilities import SumMSE, Utility

__all__ = ["PROBLEMS", "CIPBinomial", "Prop5Notion", "prop5_band"]


def prop5_band(n_users: int, p1: float, eps: float) -> tuple[float, float]:
    """Proposition 5's band for Ŝ: [e^{-ε} N P1, N − e^{-ε}(N − N P1)].

    Examples
    --------
    >>> prop5_band(10, 0.5, 0.0)
    (5.0, 5.0)
    """
    t = math.exp(-float(eps))
    return t * n_users * p1, n_users - t * (n_users - n_users * p1)


class Prop5Notion(CIP):
    """Proposition 5's constraint: the lower halves of Definition 4 only.

    For a global prior P(D_i = 1 | S = s) = s/N, so the lower bounds
    e^{-ε} P1 ≤ E[S|Y]/N and e^{-ε}(1 − P1) ≤ 1 − E[S|Y]/N are (37); the upper
    bounds E[S|Y]/N ≤ e^{ε} P1 and 1 − E[S|Y]/N ≤ e^{ε}(1 − P1) are dropped.

    Examples
    --------
    >>> n = Prop5Notion(1.0, [0.5] * 2)
    >>> n.cone(n.prior()).shape
    (2, 3)
    """

    name = "cip-prop5"

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        m, S = self.posterior_stats(Q, prior)
        if np.any(S <= 0):
            return math.inf
        return max(0.0, float(np.max(np.log(m[:, None]) - np.log(S)))) if S.size else 0.0

    def cone(self, prior: np.ndarray) -> np.ndarray:
        G = self.stats(prior)
        m = G @ prior
        return G - math.exp(-self.eps) * np.outer(m, np.ones(prior.size))

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        return super().cvxpy_constraints(Q, prior)[:1]


@dataclass(frozen=True, eq=False)
class CIPBinomial(ChannelProblem):
    """Centralized IP on S = Σ D_i (Definition 4), global or local priors [``cip-binomial``].

    Parameters
    ----------
    p : array_like
        P(D_i = 1) per user (N values); a global prior is N equal values.
    eps : float
    program : {"cip", "prop5", "lip"}
        Definition 4; Proposition 5's relaxed program; or ε-LIP on S (Theorem 6's premise).

    Examples
    --------
    >>> prob = CIPBinomial.from_params(n_users="3", p1="0.5", eps="1", program="prop5")
    >>> prob.notion.name, prob.objective
    ('cip-prop5', 'mse')
    """

    p: np.ndarray
    eps: float
    program: str = "cip"
    id: ClassVar[str] = "cip-binomial"
    paper: ClassVar[str] = "lip"

    def __post_init__(self) -> None:
        p = np.atleast_1d(np.asarray(self.p, dtype=float))
        if p.ndim != 1 or p.size == 0 or np.any(~np.isfinite(p)) or np.any((p < 0) | (p > 1)):
            raise ProblemError("p must be user priors P(D_i = 1) in [0, 1], one per user")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "eps", check_eps(self.eps, allow_zero=True))
        if self.program not in ("cip", "prop5", "lip"):
            raise ProblemError(f"program must be 'cip', 'prop5' or 'lip', got {self.program!r}")
        if self.program == "prop5" and self.local:
            raise ProblemError("Proposition 5 is stated for a global prior: give n_users and p1, not p")

    @property
    def local(self) -> bool:
        return bool(np.any(self.p != self.p[0]))

    @property
    def n_users(self) -> int:
        return int(self.p.size)

    @property
    def notion(self) -> PrivacyNotion:  # type: ignore[override]
        if self.program == "prop5":
            return Prop5Notion(self.eps, self.p)
        if self.program == "lip":
            return LIP(self.eps)
        return CIP(self.eps, self.p)

    @property
    def prior(self) -> np.ndarray:  # type: ignore[override]
        return CIP(self.eps, self.p).prior()

    @property
    def utility(self) -> Utility:  # type: ignore[override]
        return SumMSE(np.arange(self.n_users + 1, dtype=float))

    @classmethod
    def from_params(
        cls, *, eps: Any, n_users: Any = None, p1: Any = None, p: Any = None, program: str = "cip", **extra: Any
    ) -> "CIPBinomial":
        """From CLI strings: ``n_users`` and ``p1`` (global prior) or ``p`` (local priors); ``eps``; ``program``."""
        from mechopt.problems.lip.problems import parse_floats

        if extra:
            raise ProblemError(f"unknown parameter(s) {sorted(extra)}; known: n_users, p1, p, eps, program")
        if p is not None:
            if n_users is not None or p1 is not None:
                raise ProblemError("give either p (local priors) or n_users and p1 (global prior)")
            return cls(p=parse_floats(p, "p"), eps=eps, program=program)
        if n_users is None or p1 is None:
            raise ProblemError("cip-binomial needs n_users and p1 (global prior) or p (local priors)")
        try:
            n = ascii_int(str(n_users))
        except ValueError:
            raise ProblemError(f"bad n_users {n_users!r}: give a positive integer") from None
        if n < 1:
            raise ProblemError(f"bad n_users {n_users!r}: give a positive integer")
        if n >= MAX_SYMBOLS:
            raise ProblemError(f"n_users = {n} is too large: the sum has n_users + 1 values, at most {MAX_SYMBOLS}")
        return cls(p=np.full(n, float(parse_floats(p1, "p1")[0])), eps=eps, program=program)

    def closed_form(self) -> Result | None:
        """None: the paper gives no CIP mechanism (Proposition 5 states a program, solved exactly)."""
        return None

    def params(self) -> dict[str, Any]:
        if self.local:
            return {"p": self.p.tolist(), "eps": self.eps, "program": self.program}
        return {"n_users": self.n_users, "p1": float(self.p[0]), "eps": self.eps, "program": self.program}


PROBLEMS = {"cip-binomial": CIPBinomial}
