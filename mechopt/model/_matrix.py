"""Channel matrices as plain arrays: the layer below :class:`~mechopt.model.channel.Channel`, Result and the plots.

:func:`validate_channel` is re-exported as :func:`mechopt.model.channel.validate_channel`.

Examples
--------
>>> from mechopt.model._matrix import checked_prior, posterior_matrix, validate_channel
>>> Q = validate_channel([[0.75, 0.25], [0.25, 0.75]])
>>> posterior_matrix(Q, checked_prior([0.5, 0.5], 2))[:, 0]
array([0.75, 0.25])
"""

from __future__ import annotations

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, float_array, precision_tolerance

__all__ = ["validate_channel", "checked_prior", "posterior_matrix", "column_block", "sum_column_blocks", "SUM_EXACT"]


SUM_EXACT = 64 * np.finfo(float).eps  # row sums this close to 1 are round-off: the rows are not rescaled


def validate_channel(Q, *, n_inputs: int | None = None, name: str = "Q") -> np.ndarray:
    """Check ``Q`` is a finite row-stochastic matrix and return it as floats.

    Tiny negative entries (≥ −``negative`` tolerance) are clipped to zero and
    rows renormalised; anything worse raises :class:`ProblemError`. Row sums
    are checked to the ``row_sum`` tolerance, or to the precision of ``Q``'s
    dtype when it is coarser (float32, float16:
    :func:`mechopt.model.numbers.precision_tolerance`).
    """
    if getattr(Q, "dtype", None) is not None and Q.dtype.kind == "b":
        raise ProblemError(f"{name} holds booleans, not probabilities: give a matrix of numbers")
    try:
        M = float_array(Q)  # no copy of a float matrix: the checks below are reductions
    except NotDecimal as exc:
        raise ProblemError(f"{name} has an entry that is not a plain decimal number: {exc}") from None
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a matrix of numbers") from None
    if M.ndim != 2 or M.shape[0] == 0 or M.shape[1] == 0:
        raise ProblemError(f"{name} must be a non-empty 2-D matrix (rows are inputs), got shape {M.shape}")
    lo, hi = M.min(), M.max()  # nan propagates; ±inf shows in lo or hi
    if not (np.isfinite(lo) and np.isfinite(hi)):
        x, y = np.argwhere(~np.isfinite(M))[0]
        raise ProblemError(f"{name}[{x}, {y}] is not finite ({M[x, y]})")
    neg = settings.tolerance("negative")
    if lo < -neg:
        x, y = np.argwhere(M < -neg)[0]
        raise ProblemError(f"{name}[{x}, {y}] = {M[x, y]:g} is negative: probabilities must be ≥ 0")
    if lo < 0:
        M = np.clip(M, 0.0, None)
    with np.errstate(over="ignore"):  # rows summing to inf are reported below
        sums = M.sum(axis=1)
    tol = max(settings.tolerance("row_sum"), precision_tolerance(Q))  # a float32 file at its own precision
    if np.any(np.abs(sums - 1.0) > tol):
        x = int(np.argmax(np.abs(sums - 1.0)))
        raise ProblemError(f"row {x} of {name} sums to {sums[x]:.12g}, not 1: each row must be a probability vector")
    if n_inputs is not None and M.shape[0] != n_inputs:
        raise ProblemError(f"{name} has {M.shape[0]} rows but the prior has {n_inputs} symbols: rows are inputs")
    if M is Q and np.all(np.abs(sums - 1.0) <= SUM_EXACT):
        out = M.view()  # rows already sum to 1 up to round-off: no d × n copy (10⁸ entries at
        out.flags.writeable = False  # d = 10⁴ take seconds to allocate); read-only, the caller's Q is safe
        return out
    return M / sums[:, None]


def column_block(n_columns: int, n_rows: int, most: int = 256) -> int:
    """Columns per block when an ``n_rows`` × ``n_columns`` matrix is processed a block at a time.

    At most ``most`` columns, and for a matrix of more than 2¹⁶ entries at most
    1/16 of them, so the block's temporaries (a few n_rows × block arrays) stay
    small next to the matrix (peak memory near 1× Q, the size the solvers'
    ``max_memory`` guard counts). Small matrices keep ``most`` (one block below
    it, the summation order of a plain sum).

    >>> column_block(10_000, 10_000), column_block(375, 3000), column_block(3, 3)
    (256, 24, 256)
    """
    n = int(n_columns)
    if n * int(n_rows) <= 2**16:
        return most
    return max(1, min(most, -(-n // 16)))


def sum_column_blocks(Q: np.ndarray, fn, chunk: int | None = None) -> float:
    """Σ over blocks of columns of ``fn(Q[:, block])`` (blocks of :func:`column_block` unless ``chunk``).

    >>> sum_column_blocks(np.ones((2, 5)), lambda B: B.sum(), chunk=2)
    10.0
    """
    step = chunk or column_block(Q.shape[1], Q.shape[0])
    out = 0.0
    for s in range(0, Q.shape[1], step):
        out += float(fn(Q[:, s : s + step]))
    return out


def checked_prior(prior, n_inputs: int) -> np.ndarray:
    """The validated prior of a channel with ``n_inputs`` rows; a size mismatch raises :class:`ProblemError`."""
    from mechopt.model.priors import validate_prior

    p = validate_prior(prior)
    if p.size != n_inputs:
        raise ProblemError(f"prior has {p.size} symbols but the channel has {n_inputs} inputs")
    return p


def posterior_matrix(Q: np.ndarray, P: np.ndarray) -> np.ndarray:
    """P(X=x | Y=y) = P(x) Q[x, y] / Σ_x' P(x') Q[x', y] as a (d, m) matrix; columns of outputs never
    produced are zeros (not NaN). ``Q`` and ``P`` are validated already."""
    J = P[:, None] * Q
    lam = J.sum(axis=0)
    out = np.zeros_like(J)
    used = lam > 0
    out[:, used] = J[:, used] / lam[used]
    return out
