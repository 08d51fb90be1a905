"""Exact rational matrices (``fractions.Fraction``) for checking channel witnesses without rounding.

A float enters as its exact binary value (``Fraction(0.1)`` is 3602879701896397/2**55), a
decimal string as the decimal it spells (``"0.1"`` is 1/10), a ``Fraction`` or an integer as
itself. Products, residuals and Bayes gains computed here are exact, so a witness that passes
:func:`max_abs_diff` with 0 is a proof, not a float comparison.

Examples
--------
>>> from fractions import Fraction as F
>>> A = exact_matrix([["1/2", "1/2"], [0.25, 0.75]])
>>> A[1]
(Fraction(1, 4), Fraction(3, 4))
>>> matmul(A, exact_matrix([[1, 0], [0, 1]])) == A
True
>>> solve_exact([[F(1), F(1)], [F(1), F(-1)]], [F(1), F(0)])
[Fraction(1, 2), Fraction(1, 2)]
>>> text(F(3, 4)), text(F(2))
('3/4', '2')
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from mechopt.errors import ProblemError

__all__ = [
    "Matrix",
    "to_fraction",
    "exact_matrix",
    "matmul",
    "max_abs_diff",
    "solve_exact",
    "solve_exact_many",
    "integer_form",
    "COMMON_DENOMINATOR_BITS",
    "stochastic_rows",
    "text",
    "as_floats",
    "has_floats",
    "exactly_stochastic",
]

_RATIONAL = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?(/[0-9]+)?")

#: A matrix of exact rationals, rows first.
Matrix = tuple[tuple[Fraction, ...], ...]


def to_fraction(v: Any, name: str = "entry") -> Fraction:
    """``v`` as an exact rational: a float's binary value, a string's decimal or ``p/q`` value."""
    if isinstance(v, (bool, np.bool_)):
        raise ProblemError(f"{name} is a boolean ({v!r}), not a probability: give a number")
    if isinstance(v, Fraction):
        return v
    if isinstance(v, numbers.Integral):
        return Fraction(int(v))
    if isinstance(v, str):
        if not _RATIONAL.fullmatch(v.strip()):
            raise ProblemError(f"{name} = {v!r} is not a number (write 0.25, 1/4 or 2.5e-1, ASCII digits)")
        try:
            return Fraction(v.strip())
        except (ValueError, ZeroDivisionError):
            raise ProblemError(f"{name} = {v!r} is not a number (write 0.25, 1/4 or 2.5e-1)") from None
    if isinstance(v, numbers.Real):
        f = float(v)
        if not math.isfinite(f):
            raise ProblemError(f"{name} is not finite ({f}): give a probability in [0, 1]")
        return Fraction(f)
    raise ProblemError(f"{name} = {v!r} is not a number")


def exact_matrix(Q: Any, name: str = "Q") -> Matrix:
    """``Q`` (nested sequences or a numpy array) as a non-empty rectangular matrix of exact rationals."""
    rows = Q.tolist() if isinstance(Q, np.ndarray) and Q.dtype.kind in "biuf" else Q
    if isinstance(rows, (str, bytes)) or not isinstance(rows, Sequence) and not isinstance(rows, np.ndarray):
        raise ProblemError(f"{name} must be a matrix (a list of rows), got {type(Q).__name__}")
    out = []
    for x, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not isinstance(row, (Sequence, np.ndarray)):
            raise ProblemError(f"{name} must be a matrix (a list of rows); row {x} is {row!r}")
        out.append(tuple(to_fraction(v, f"{name}[{x}, {y}]") for y, v in enumerate(row)))
    if not out or not out[0] or len({len(r) for r in out}) > 1:
        raise ProblemError(f"{name} must be a non-empty matrix with rows of equal length (rows are inputs)")
    return tuple(out)


#: Largest common denominator (in bits) with which a matrix is handled as integers over one denominator.
COMMON_DENOMINATOR_BITS = 4096


def integer_form(M: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int] | None:
    """(N, D) with M = N / D exactly, N integers and D the least common denominator; None when D would
    exceed :data:`COMMON_DENOMINATOR_BITS` bits (then exact arithmetic stays entry by entry).

    >>> integer_form([[Fraction(1, 2), Fraction(1, 4)]])
    ([[2, 1]], 4)
    """
    D = 1
    for row in M:
        for v in row:
            D = math.lcm(D, v.denominator)
            if D.bit_length() > COMMON_DENOMINATOR_BITS:
                return None
    return [[v.numerator * (D // v.denominator) for v in row] for row in M], D


def matmul(A: Matrix, B: Matrix) -> Matrix:
    """The exact product A·B (integer arithmetic over common denominators when they are moderate)."""
    fa, fb = integer_form(A), integer_form(B)
    if fa is None or fb is None:
        cols = list(zip(*B))
        return tuple(tuple(sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in cols) for row in A)
    (Na, Da), (Nb, Db) = fa, fb
    cols = list(zip(*Nb))
    den = Da * Db
    return tuple(tuple(Fraction(sum(a * b for a, b in zip(row, col)), den) for col in cols) for row in Na)


def max_abs_diff(A: Matrix, B: Matrix) -> Fraction:
    """max |A − B| over the entries, exactly (same shapes)."""
    return max(abs(a - b) for ra, rb in zip(A, B) for a, b in zip(ra, rb))


def solve_exact(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[Fraction] | None:
    """One exact solution of A x = b (free variables 0) by Gauss–Jordan elimination, or None if inconsistent."""
    return solve_exact_many(A, [b])[0]


def solve_exact_many(A: Sequence[Sequence[Fraction]], rhs: Sequence[Sequence[Fraction]]) -> list[list[Fraction] | None]:
    """:func:`solve_exact` for several right-hand sides with one elimination of A.

    >>> solve_exact_many([[Fraction(2)]], [[Fraction(1)], [Fraction(3)]])
    [[Fraction(1, 2)], [Fraction(3, 2)]]
    """
    n, k = (len(A[0]) if A else 0), len(rhs)
    rows = [list(r) + [b[x] for b in rhs] for x, r in enumerate(A)]
    pivots: list[int] = []
    r = 0
    for c in range(n):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        inv = 1 / rows[r][c]
        rows[r] = [v * inv for v in rows[r]]
        for i, row in enumerate(rows):
            if i != r and row[c] != 0:
                f = row[c]
                rows[i] = [u - f * v for u, v in zip(row, rows[r])]
        pivots.append(c)
        r += 1
        if r == len(rows):
            break
    out: list[list[Fraction] | None] = []
    for j in range(n, n + k):
        if any(rows[i][j] != 0 for i in range(r, len(rows))):
            out.append(None)
            continue
        x = [Fraction(0)] * n
        for i, c in enumerate(pivots):
            x[c] = rows[i][j]
        out.append(x)
    return out


def stochastic_rows(R: np.ndarray, bits: int = 52) -> Matrix:
    """``R`` rounded to rationals with every row exactly stochastic and every entry ≥ 0.

    Entries are clipped at 0 and rounded to multiples of 2^-``bits`` (one common denominator keeps
    exact products fast); each row's largest entry is then replaced by 1 minus the others (it stays
    ≥ 0 because it is at least the row's mean).
    """
    out = []
    for row in np.asarray(R, dtype=float):
        q = [Fraction(round(max(0.0, float(v)) * 2**bits), 2**bits) for v in row]
        k = int(np.argmax(row))
        rest = sum(q[:k] + q[k + 1 :], Fraction(0))
        if rest > 1:  # only when the row itself is far from stochastic: scale the others down
            q = [v / rest for v in q]
            rest = Fraction(1)
        q[k] = 1 - rest
        out.append(tuple(q))
    return tuple(out)


def text(v: Fraction) -> str:
    """``p/q`` (or ``p`` for an integer): the exact value as JSON-safe text."""
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def as_floats(M: Matrix) -> np.ndarray:
    """The nearest floats of an exact matrix."""
    return np.array([[float(v) for v in row] for row in M], dtype=float)


def exactly_stochastic(Q: Any, M: Matrix) -> bool:
    """Whether ``Q`` (read as ``M``) has exact entries (no binary floats) and rows summing to exactly 1.

    >>> exactly_stochastic([["1/3", "2/3"]], exact_matrix([["1/3", "2/3"]]))
    True
    >>> exactly_stochastic([[0.5, 0.5]], exact_matrix([[0.5, 0.5]]))   # floats: exact verdicts do not apply
    False
    """
    return not has_floats(Q) and all(sum(row, Fraction(0)) == 1 for row in M)


def has_floats(Q: Any) -> bool:
    """Whether ``Q`` (nested sequences or an array) holds binary floats.

    >>> has_floats([[1, "0.5"]]), has_floats(np.eye(2))
    (False, True)
    """
    if isinstance(Q, np.ndarray):
        return Q.dtype.kind in "fc" or (Q.dtype.kind == "O" and any(isinstance(v, float) for v in Q.ravel()))
    return any(has_floats(row) if isinstance(row, (list, tuple, np.ndarray)) else isinstance(row, float) for row in Q)
