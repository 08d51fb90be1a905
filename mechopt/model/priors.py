"""Priors: validation, parsing, and the support of a design.

A prior is a probability vector P over the inputs ``0..d-1``. Designs work on
the support (symbols of positive mass); :class:`Support` drops zero-mass
symbols and restores them in the output mechanism. A zero-mass row is free
for every prior-dependent notion; we give it the output marginal λ, which is
also admissible under LDP whenever the supported rows are.

Examples
--------
>>> from mechopt.model.priors import parse_prior, validate_prior
>>> parse_prior("0.1,0.2,0.7")
array([0.1, 0.2, 0.7])
>>> parse_prior("uniform:4")
array([0.25, 0.25, 0.25, 0.25])
>>> validate_prior([0.5, 0.6])
Traceback (most recent call last):
...
mechopt.errors.ProblemError: prior sums to 1.1, not 1: normalise it (divide by its sum)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, ascii_int, float_array, is_decimal, precision_tolerance

__all__ = [
    "validate_prior",
    "parse_prior",
    "read_prior",
    "Support",
    "binomial_prior",
    "poisson_binomial",
    "MAX_SYMBOLS",
]

MAX_SYMBOLS = 10_000_000
"""Most input symbols a prior may have (``uniform:d`` and files): 80 MB of floats."""


def validate_prior(prior, *, name: str = "prior", tol: float | None = None) -> np.ndarray:
    """Return ``prior`` as a float vector after checking it is a distribution.

    Raises :class:`ProblemError` for a non-vector, NaN/inf, negative entries,
    fewer than one symbol, or a sum off 1 by more than ``tol``.
    """
    tol = max(settings.tolerance("prior_sum") if tol is None else tol, precision_tolerance(prior))
    if getattr(prior, "dtype", None) is not None and prior.dtype.kind == "b":
        raise ProblemError(f"{name} holds booleans, not probabilities: give numbers (astype(float))")
    try:
        raw = np.asarray(prior)
        if np.iscomplexobj(raw):  # numpy would drop the imaginary part with a warning
            raise TypeError("complex")
        p = float_array(raw)
    except NotDecimal as exc:
        raise ProblemError(f"{name} has an entry that is not a plain decimal number: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a vector of numbers, got {_short(prior)}") from None
    if p.ndim != 1 or p.size == 0:
        raise ProblemError(f"{name} must be a non-empty 1-D vector, got shape {p.shape}")
    if p.size > MAX_SYMBOLS:
        raise ProblemError(f"{name} has {p.size} symbols, more than mechopt handles ({MAX_SYMBOLS}); merge symbols")
    if not np.all(np.isfinite(p)):
        bad = int(np.flatnonzero(~np.isfinite(p))[0])
        raise ProblemError(f"{name} has a non-finite entry at index {bad}: {p[bad]}")
    if np.any(p < 0):
        bad = int(np.flatnonzero(p < 0)[0])
        raise ProblemError(f"{name} has a negative entry at index {bad}: {p[bad]:g}")
    tiny = np.flatnonzero((p > 0) & (p < np.finfo(float).tiny))
    if tiny.size:  # subnormal: 1/p overflows, LP solvers reject the rows
        raise ProblemError(
            f"{name} has a subnormal entry at index {int(tiny[0])}: {p[tiny[0]]:g}; set it to 0 "
            f"or give masses >= {np.finfo(float).tiny:.3g}"
        )
    with np.errstate(over="ignore"):  # a sum overflowing to inf is reported below, not warned about
        total = float(p.sum())
    if abs(total - 1.0) > tol:
        raise ProblemError(f"{name} sums to {total:.12g}, not 1: normalise it (divide by its sum)")
    return p / total


def _short(value: Any, n: int = 80) -> str:
    """``repr(value)`` cut to ``n`` characters (a long list in an error message is noise)."""
    text = repr(value)
    return text if len(text) <= n else text[: n - 1] + "…"


def parse_prior(text: str | os.PathLike) -> np.ndarray:
    """Parse the CLI's prior syntax: ``0.1,0.2,0.7``, ``uniform:d``, or a file.

    A file is a ``.npy`` array, or text: numbers separated by spaces or commas,
    or a ``label,probability`` table (:mod:`mechopt.io.priorfile`; :func:`read_prior`
    also returns the labels). Numbers are ASCII decimal notation only
    (:mod:`mechopt.model.numbers`: ``0.7_5`` and other scripts' digits are refused).
    """
    if isinstance(text, os.PathLike):
        return _read_prior_file(Path(text))
    if not isinstance(text, str):  # already a vector (list, array): validate it
        return validate_prior(text)
    s = text.strip()
    if not s:
        raise ProblemError("the prior is empty: give numbers like 0.2,0.8, uniform:d, or a .npy/.txt path")
    if s.startswith("uniform:"):
        try:
            d = ascii_int(s.split(":", 1)[1])
        except ValueError:
            raise ProblemError(f"bad prior {s!r}: write uniform:d with an integer d ≥ 1 (digits 0-9)") from None
        if d < 1:
            raise ProblemError(f"bad prior {s!r}: uniform:d needs d ≥ 1")
        if d > MAX_SYMBOLS:
            raise ProblemError(f"bad prior {s!r}: at most {MAX_SYMBOLS} symbols; merge symbols")
        return np.full(d, 1.0 / d)
    if "," in s or _is_number(s):
        try:
            vals = [ascii_float(v) for v in s.split(",") if v.strip()]
        except NotDecimal as exc:
            raise ProblemError(f"bad prior {s!r}: {exc}") from None
        except ValueError:
            raise ProblemError(f"bad prior {s!r}: give comma-separated numbers, uniform:d, or a file") from None
        return validate_prior(vals)
    return _read_prior_file(Path(s))


def _is_number(s: str) -> bool:
    """Whether ``s`` reads as one number, in any notation ``float()`` takes (strictness comes later)."""
    if is_decimal(s):
        return True
    try:
        float(s)
    except ValueError:
        return False
    return not Path(s).exists()  # a file named like a number ("١") is still a file


def _read_prior_file(path: Path) -> np.ndarray:
    return read_prior(path)[0]


def read_prior(text: str | os.PathLike) -> tuple[np.ndarray, tuple[Any, ...] | None]:
    """:func:`parse_prior` and the labels of the inputs when the prior names them (a prior file
    with a ``label,probability`` table, :mod:`mechopt.io.priorfile`), else None.

    >>> read_prior("0.5,0.5")
    (array([0.5, 0.5]), None)
    """
    path = Path(text) if isinstance(text, os.PathLike) else None
    if isinstance(text, str):
        s = text.strip()
        if s and not s.startswith("uniform:") and not ("," in s or _is_number(s)):
            path = Path(s)
    if path is None:
        return parse_prior(text), None
    from mechopt.io.priorfile import read_prior_file

    arr, labels = read_prior_file(path)
    return validate_prior(arr, name=f"prior from {path.name}"), labels


@dataclass(frozen=True)
class Support:
    """The symbols of positive prior mass, and the map back to all symbols.

    Examples
    --------
    >>> import numpy as np
    >>> s = Support.of([0.5, 0.0, 0.5])
    >>> s.prior
    array([0.5, 0.5])
    >>> s.restore(np.array([[1.0, 0.0], [0.0, 1.0]]))
    array([[1. , 0. ],
           [0.5, 0.5],
           [0. , 1. ]])
    """

    full: np.ndarray
    index: np.ndarray

    @classmethod
    def of(cls, prior) -> "Support":
        p = validate_prior(prior)
        idx = np.flatnonzero(p > settings.tolerance("zero_mass"))
        return cls(full=p, index=idx)

    @property
    def prior(self) -> np.ndarray:
        """The prior restricted to the support, renormalised."""
        p = self.full[self.index]
        return p / p.sum()

    @property
    def dropped(self) -> bool:
        return self.index.size < self.full.size

    def restore(self, Q: np.ndarray) -> np.ndarray:
        """Rows for every symbol: zero-mass rows get the output marginal λ."""
        if not self.dropped:
            return Q
        lam = self.prior @ Q
        out = np.tile(lam, (self.full.size, 1))
        out[self.index] = Q
        return out


def binomial_prior(n: int, p1: float) -> np.ndarray:
    """Distribution of S = Σ_i D_i for n i.i.d. Bernoulli(p1) (LIP paper eq. (33))."""
    from scipy.stats import binom

    return binom.pmf(np.arange(n + 1), n, p1)


def poisson_binomial(p: np.ndarray) -> np.ndarray:
    """Distribution of a sum of independent Bernoulli(p_i), by convolution."""
    dist = np.array([1.0])
    for pi in np.asarray(p, dtype=float):
        dist = np.convolve(dist, [1.0 - pi, pi])
    return dist
