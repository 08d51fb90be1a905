"""Parameter parsing shared by the Fisher-paper problems (CLI strings in, typed values out).

Examples
--------
>>> parse_float("a", "-1"), parse_int("n", "10")
(-1.0, 10)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, ascii_int, float_array

__all__ = ["PAPER", "CORR2_CONSTANT", "parse_float", "parse_int", "parse_vector", "query_factor"]

PAPER = "fisher"
CORR2_CONSTANT = math.pi**2 / 3 - 2  # J* · Var for the Corollary 1 density


def parse_float(name: str, value: Any) -> float:
    """A finite float from a CLI string; ProblemError naming ``name`` otherwise.

    >>> parse_float("a", "-1")
    -1.0
    """
    try:
        out = ascii_float(value)
    except NotDecimal as exc:
        raise ProblemError(f"{name}: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(out):
        raise ProblemError(f"{name} must be finite, got {value!r}")
    return out


MAX_GRID = 1_000_000
"""Largest integer parameter (grid points, dimensions, horizon) accepted from a CLI string or spec."""


def parse_int(name: str, value: Any, minimum: int = 1, maximum: int = MAX_GRID) -> int:
    """An integer in [minimum, maximum] from a CLI string.

    >>> parse_int("n", "2000")
    2000
    """
    if isinstance(value, (bool, np.bool_)):
        raise ProblemError(f"{name} must be an integer, got {value!r}")
    try:
        out = ascii_int(str(value)) if not isinstance(value, (int, np.integer)) else int(value)
    except ValueError:
        raise ProblemError(f"{name} must be an integer, got {value!r}") from None
    if out < minimum:
        raise ProblemError(f"{name} must be >= {minimum}, got {out}")
    if out > maximum:
        raise ProblemError(f"{name} = {out} is too large (at most {maximum}): the grids and matrices scale with it")
    return out


def parse_vector(name: str, value: Any) -> np.ndarray:
    """A float vector from "1,2,3" or a sequence.

    >>> parse_vector("lower", "0,-1").tolist()
    [0.0, -1.0]
    """
    if isinstance(value, str):
        parts = [s for s in value.replace(";", ",").split(",") if s.strip()]
        return np.array([parse_float(name, s) for s in parts])
    try:
        arr = np.atleast_1d(float_array(value))
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a list of numbers (ASCII digits), got {value!r}") from None
    if arr.ndim != 1:
        raise ProblemError(f"{name} must be a flat list of numbers, got {value!r}")
    if not np.all(np.isfinite(arr)):
        raise ProblemError(f"{name} has non-finite entries")
    return arr


def query_factor(query: str) -> float:
    """c_f = ∫ρ‖∇f‖² for a scalar query under a uniform weight ρ (Corollaries 3 and 5).

    ``identity`` (1), ``average:a1,...,an`` (‖a‖², Example 2), or
    ``variance:n:lo:hi`` (Example 3, f = (1/n)Σ(x_i − x̄)² on [lo, hi]^n:
    ∂f/∂x_i = 2(x_i − x̄)/n and E‖∇f‖² = 4(n − 1)(hi − lo)²/(12 n²)).

    >>> query_factor("average:0.5,0.5"), round(query_factor("variance:2:0:1"), 12)
    (0.5, 0.083333333333)
    """
    kind, _, rest = str(query).partition(":")
    if kind == "identity":
        return 1.0
    if kind == "average":
        a = parse_vector("query weights", rest)
        if a.size == 0 or not np.any(a):
            raise ProblemError("average query needs at least one non-zero weight, e.g. average:0.5,0.5")
        return float(a @ a)
    if kind == "variance":
        bits = rest.split(":")
        if len(bits) != 3:
            raise ProblemError("variance query is variance:n:lo:hi, e.g. variance:10:0:1")
        n, lo, hi = parse_int("variance n", bits[0], 2), parse_float("lo", bits[1]), parse_float("hi", bits[2])
        if not hi > lo:
            raise ProblemError(f"variance query needs hi > lo, got [{lo}, {hi}]")
        return 4.0 * (n - 1) * (hi - lo) ** 2 / (12.0 * n**2)
    raise ProblemError(f"unknown query {query!r}; use identity, average:a1,..,an or variance:n:lo:hi")


def _only(pid: str, params: dict[str, Any], allowed: set[str]) -> None:
    bad = sorted(set(params) - allowed)
    if bad:
        raise ProblemError(f"unknown parameter(s) {bad} for {pid}; allowed: {sorted(allowed)}")
