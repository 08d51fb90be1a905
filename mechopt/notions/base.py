"""The privacy-notion interface and the audit record.

A notion answers three questions about a channel: the smallest ε it satisfies
(:meth:`PrivacyNotion.audit`), its admissible joint columns as a polyhedral
cone {c ≥ 0 : A c ≥ 0} (:meth:`PrivacyNotion.cone`; c(x) = P(x) Q[x, y}),
and its constraints on a cvxpy variable Q (:meth:`PrivacyNotion.cvxpy_constraints`).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.numbers import NotDecimal, ascii_float
from mechopt.model.priors import validate_prior

__all__ = ["Audit", "PrivacyNotion", "check_eps", "log_ratio_max", "MAX_EPS"]


@dataclass(frozen=True)
class Audit:
    """The audit of one mechanism under one notion.

    ``eps`` is the smallest ε the mechanism satisfies (``inf`` when none);
    ``violation`` = max(0, eps − target) in nats, 0 when private.
    """

    notion: str
    eps: float
    target: float | None
    violation: float

    @property
    def private(self) -> bool:
        return self.violation <= settings.tolerance("privacy")

    def to_dict(self) -> dict[str, Any]:
        finite = math.isfinite(self.eps)
        return {
            "notion": self.notion,
            "eps": self.eps if finite else None,
            "target": self.target,
            "violation": self.violation if math.isfinite(self.violation) else None,
        }


MAX_EPS = 700.0
"""Largest privacy level accepted: e^ε must fit a double (e^709.78 overflows)."""


def check_eps(eps, *, allow_zero: bool = False) -> float:
    """Validate a privacy level: a finite number > 0 (≥ 0 if ``allow_zero``), at most :data:`MAX_EPS`.

    ε = ∞ (no privacy constraint) is rejected: every notion's cone and every
    closed form uses e^ε, so a design needs a finite level.

    Examples
    --------
    >>> check_eps("0.5")
    0.5
    >>> check_eps(float("inf"))
    Traceback (most recent call last):
    ...
    mechopt.errors.ProblemError: eps = inf means no privacy constraint, which is not a design target: give a
    finite eps > 0 (at most 700)
    """
    if isinstance(eps, (bool, np.bool_)):
        raise ProblemError(f"eps must be a number, got {eps!r}")
    try:
        val = ascii_float(eps)
    except NotDecimal as exc:
        raise ProblemError(f"eps: {exc}") from None
    except OverflowError:  # an integer beyond double range
        raise ProblemError(f"eps = {_digits(eps)} is too large; use eps <= {MAX_EPS:g}") from None
    except (TypeError, ValueError):
        raise ProblemError(f"eps must be a number, got {_digits(eps)}") from None
    if val == math.inf and not _says_inf(eps):  # a finite number written with too many digits
        raise ProblemError(f"eps = {_digits(eps)} is too large; use eps <= {MAX_EPS:g}")
    if val == math.inf:
        raise ProblemError(
            "eps = inf means no privacy constraint, which is not a design target: "
            f"give a finite eps > 0 (at most {MAX_EPS:g})"
        )
    if not math.isfinite(val) or val < 0 or (val == 0 and not allow_zero):
        raise ProblemError(f"eps must be a finite number > 0, got {eps!r}")
    if val > MAX_EPS:
        raise ProblemError(f"eps = {val:g} is too large: e^eps overflows double precision; use eps <= {MAX_EPS:g}")
    return val


def _says_inf(eps: Any) -> bool:
    """Whether ``eps`` is infinity itself (not a finite number too large for a double)."""
    return not isinstance(eps, str) or eps.strip().lstrip("+").lower() in ("inf", "infinity")


def _digits(value: Any, n: int = 24) -> str:
    """``repr(value)``, or its first digits and its length when it is long (a 401-digit ε)."""
    digits = (value if isinstance(value, str) else str(value) if isinstance(value, int) else "").strip()
    if len(digits) > n and digits.lstrip("+-").isdigit():
        return f"{digits[:12]}… ({len(digits.lstrip('+-'))} digits)"
    text = str(value) if isinstance(value, int) else repr(value)
    return text if len(text) <= 80 else text[:79] + "…"


def log_ratio_max(num: np.ndarray, den: np.ndarray) -> float:
    """max log(num/den) over entries, with 0/0 ignored and x/0 = inf."""
    num = np.asarray(num, dtype=float)
    den = np.asarray(den, dtype=float)
    live = (num > 0) | (den > 0)
    if not np.any(live):
        return 0.0
    if np.any((den <= 0) & (num > 0)):
        return math.inf
    n, d = num[live], den[live]
    if np.any(n <= 0):
        return math.inf
    return float(np.max(np.log(n) - np.log(d)))


class PrivacyNotion(ABC):
    """A privacy notion at level ``eps``.

    Subclasses set ``name`` and ``needs_prior`` and implement :meth:`epsilon`
    (the smallest ε a channel satisfies), :meth:`cone` (or return None when
    the notion is not a linear cone on columns) and :meth:`cvxpy_constraints`.
    """

    name: ClassVar[str]
    needs_prior: ClassVar[bool] = True
    #: Whether the constraints are linear in Q (a cone on columns; an LP with a linear utility). MIP's are not.
    linear: ClassVar[bool] = True

    def __init__(self, eps: float) -> None:
        self.eps = check_eps(eps, allow_zero=True)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(eps={self.eps:g})"

    # -- audit ----------------------------------------------------------
    @abstractmethod
    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        """Smallest ε the (validated) channel satisfies; ``inf`` when none."""

    def audit(self, Q, prior=None) -> Audit:
        """Audit a channel (and prior) against this notion at ``self.eps``."""
        M = validate_channel(Q)
        p = None
        if prior is not None or self.needs_prior:
            if prior is None:
                raise ProblemError(f"{self.name} audit needs the prior (give --prior)")
            p = validate_prior(prior)
            if p.size != M.shape[0]:
                raise ProblemError(f"Q has {M.shape[0]} rows but the prior has {p.size} symbols: rows are inputs")
        eps = self.epsilon(M, p)
        return Audit(self.name, eps, self.eps, max(0.0, eps - self.eps))

    def check_prior(self, prior: np.ndarray) -> None:
        """Raise a ProblemError for a (validated) prior no design under this notion can use; none by default."""

    # -- solver forms ---------------------------------------------------
    def cone(self, prior: np.ndarray) -> np.ndarray | None:
        """Matrix A with K = {c ≥ 0 : A c ≥ 0} on joint columns, or None."""
        return None

    @abstractmethod
    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        """cvxpy constraints on a (d, m) variable ``Q`` (rows stochastic not included)."""

    def params(self) -> dict[str, Any]:
        return {"notion": self.name, "eps": self.eps}
