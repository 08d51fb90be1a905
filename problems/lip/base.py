"""What the LIP paper's problem families share: the notion from ``kind``, parameter parsing, and the audited
closed-form Result of a channel.

Examples
--------
>>> make_lip_notion("lip", 1.0), parse_floats("1;2", "values").tolist()
(LIP(eps=1), [1.0, 2.0])
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, float_array
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.model.problem import ChannelProblem
from mechopt.notions import LDP, LIP, PrivacyNotion, check_eps
from mechopt.oracles.simulate import mmse_table
from mechopt.problems.theorem import theorem_result
from mechopt.results.result import Result
from mechopt.utilities import HistogramMSE

__all__ = ["PAPER", "LIPChannel", "make_lip_notion", "parse_floats", "as_prior", "as_eps", "as_float", "no_extra"]

PAPER = "lip"


def make_lip_notion(name: str, eps: float) -> PrivacyNotion:
    """``"lip"`` → :class:`~mechopt.notions.LIP`, ``"ldp"`` → :class:`~mechopt.notions.LDP`.

    Examples
    --------
    >>> make_lip_notion("ldp", 2.0)
    LDP(eps=2)
    """
    key = str(name).strip().lower()
    if key == "lip":
        return LIP(eps)
    if key == "ldp":
        return LDP(eps)
    raise ProblemError(f"notion must be 'lip' or 'ldp', got {name!r}")


def parse_floats(value: Any, name: str) -> np.ndarray:
    """A float vector from a list or a comma-separated string; ProblemError names the field.

    Examples
    --------
    >>> parse_floats("0, 1,2", "values").tolist()
    [0.0, 1.0, 2.0]
    """
    try:
        if isinstance(value, str):
            arr = np.array([ascii_float(v) for v in value.replace(";", ",").split(",") if v.strip()])
        else:
            arr = np.atleast_1d(float_array(value))
    except NotDecimal as exc:
        raise ProblemError(f"bad {name}: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"bad {name} {value!r}: give comma-separated numbers") from None
    if arr.ndim != 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ProblemError(f"bad {name} {value!r}: give a non-empty list of finite numbers")
    return arr


def as_prior(value: Any) -> np.ndarray:
    """A validated prior from a vector or a CLI string (``"0.2,0.8"``, ``"uniform:3"``)."""
    if isinstance(value, str):
        return parse_prior(value)
    return validate_prior(value)


def as_eps(value: Any) -> float:
    """A validated ε ≥ 0."""
    return check_eps(value, allow_zero=True)


def as_float(value: Any, name: str) -> float:
    """A finite float; ProblemError names the field."""
    try:
        out = ascii_float(value)
    except NotDecimal as exc:
        raise ProblemError(f"bad {name}: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"bad {name} {value!r}: give a number") from None
    if not np.isfinite(out):
        raise ProblemError(f"bad {name} {value!r}: give a finite number")
    return out


def no_extra(extra: dict[str, Any], known: str) -> None:
    """Raise ProblemError for parameters a family does not know, listing the ones it does."""
    if extra:
        raise ProblemError(f"unknown parameter(s) {sorted(extra)}; known: {known}")


class LIPChannel(ChannelProblem):
    """Shared behaviour: notion from ``kind``, a closed-form Result builder."""

    paper: ClassVar[str] = PAPER
    eps: float
    kind: str

    @property
    def notion(self) -> PrivacyNotion:  # type: ignore[override]
        return make_lip_notion(self.kind, self.eps)

    def estimator(self, Q) -> np.ndarray:
        """The MMSE estimator table g(y) = E[f(X) | Y = y] of channel Q (eqs. (16), (27), (30)).

        Examples
        --------
        >>> from mechopt.problems.lip import LIPBinary
        >>> LIPBinary(p1=0.5, eps=1.0).estimator(np.eye(2)).tolist()
        [0.0, 1.0]
        """
        f = np.eye(self.prior.size) if isinstance(self.utility, HistogramMSE) else self.utility.a
        return mmse_table(Q, self.prior, f)

    def _result(
        self,
        Q: np.ndarray,
        message: str,
        *,
        claim: str,
        proven: bool,
        why: str = "",
        value: float | None = None,
        **extras: Any,
    ) -> Result:
        """A closed form's Result (:func:`~mechopt.problems.theorem.theorem_result`), audited here."""
        Q = np.asarray(Q, float)
        val = self.evaluate(Q) if value is None else float(value)
        return theorem_result(
            claim=claim,
            proven=proven,
            why=why,
            private=self.audit_channel(Q).passed,
            value=val,
            sense="min",
            objective=self.objective,
            mechanism=Q,
            certificate=None,
            notion=self.kind,
            eps=self.eps,
            message=message,
            extras=extras,
            problem=self.id,
        )
