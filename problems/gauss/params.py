"""Parameters of the Gaussian tradeoff from CLI strings: bounded numbers, and matrices given inline or as files.

Examples
--------
>>> parse_number("delta", "0.3", lo=0.0), parse_matrix("cov_p", "2,1;1,1").tolist()
(0.3, [[2.0, 1.0], [1.0, 1.0]])
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import ascii_float, float_array

__all__ = ["parse_number", "parse_matrix"]


def parse_number(name: str, value: Any, lo: float = -math.inf, allow_none: bool = False) -> float | None:
    """A finite number ≥ ``lo`` (None for an empty value when ``allow_none``); ProblemError names the field."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none")):
        if allow_none:
            return None
        raise ProblemError(f"{name} is required")
    try:
        x = ascii_float(value)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a number (ASCII digits 0-9), got {value!r}") from None
    if not math.isfinite(x) or x < lo:
        raise ProblemError(f"{name} must be a finite number ≥ {lo:g}, got {value!r}")
    return x


def parse_matrix(name: str, value: Any) -> np.ndarray:
    """A matrix from an array, a string 'a,b;c,d' (rows split by ';') or a .npy/.txt path."""
    if isinstance(value, str):
        path = Path(value)
        if value.endswith((".npy", ".txt", ".csv")):
            if not path.is_file():
                raise ProblemError(f"{name}: file {value!r} not found (give a .npy/.txt/.csv file or rows 'a,b;c,d')")
            import io

            from mechopt.io.files import read_input, read_npy

            limit = 64 * 1024 * 1024
            try:
                if value.endswith(".npy"):  # header checked against the file's size before allocating
                    return read_npy(path, f"{name} file", limit, error=ProblemError)
                data = io.BytesIO(read_input(path, f"{name} file", limit))
                return np.loadtxt(data, delimiter="," if value.endswith(".csv") else None, ndmin=2)
            except ProblemError:
                raise
            except (OSError, ValueError, UnicodeDecodeError, EOFError) as exc:
                raise ProblemError(f"{name}: cannot read {value!r} as a numeric matrix: {exc}") from None
        try:
            return np.array([[ascii_float(x) for x in row.split(",")] for row in value.split(";")])
        except ValueError:
            raise ProblemError(f"{name} must be rows 'a,b;c,d' or a .npy/.txt/.csv path, got {value!r}") from None
    try:
        return float_array(value)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a square matrix of numbers (rows 'a,b;c,d'), got {value!r}") from None
