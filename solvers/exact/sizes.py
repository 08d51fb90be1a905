"""Honest memory estimates for enumerating extreme rays, in log space (no overflow at any d).

Measured with tracemalloc (tests/solvers/test_orbit_scale.py), enumerating n rays
of dimension d and solving the master LP over them peaks at about
``RAY_BYTES`` × d × n bytes (the rays, their gains and HiGHS's copy of the LP);
LIP vertex enumeration adds its subset sums, 16 × 2^d bytes. The ray count is
exact for ε-LDP (2^d − 1 patterns) and for LIP up to ``EXACT_COUNT_MAX_D``
(counted without building the vertices); above it, the number of LIP vertices is
estimated by the central limit theorem: with free coordinate j, the other
coordinates at lower or upper bound form a subset sum of Δ = hi − lo that must
fall in a window of width Δ_j, so

    #vertices ≈ Σ_j 2^{d−1} Δ_j φ((t_j − ΣΔ_{−j}/2) / σ_j) / σ_j,   σ_j² = Σ_{x≠j} Δ_x² / 4,

evaluated with logarithms. Sizes are returned as log2(bytes) and printed by
:func:`describe_bytes`, so d = 10⁹ is as fast as d = 10.

Examples
--------
>>> round(ldp_log2_bytes(20), 2)                  # 2^20 − 1 patterns of dimension 20
30.41
>>> describe_bytes(ldp_log2_bytes(10 ** 9))
'~10^301029997 GB'
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from mechopt.errors import TooLargeError
from mechopt.solvers.exact.rays import lip_vertex_count

__all__ = ["RAY_BYTES", "ldp_log2_bytes", "lip_log2_bytes", "describe_bytes", "check_enumeration", "lip_log2_vertices"]

RAY_BYTES = 68  # bytes per ray entry at the peak (measured, see the module docstring)
EXACT_COUNT_MAX_D = 20  # count LIP vertices exactly up to this d (O(d 2^d) time)


def ldp_log2_bytes(d: int) -> float:
    """log2 of the bytes of the full ε-LDP enumeration: 2^d − 1 patterns of dimension d."""
    return math.log2(RAY_BYTES * d) + d + math.log2(1.0 - 2.0 ** -min(d, 60))


def lip_log2_vertices(P: np.ndarray, eps: float) -> float:
    """log2 of the number of LIP vertices: exact up to ``EXACT_COUNT_MAX_D``, else the CLT estimate."""
    P = np.asarray(P, float)
    d = P.size
    if d <= EXACT_COUNT_MAX_D:
        return math.log2(max(lip_vertex_count(P, eps), 1))
    lo, hi = math.exp(-eps) * P, np.minimum(math.exp(eps) * P, 1.0)
    dl = hi - lo
    t = 1.0 - (lo.sum() - lo)  # Σ_{x≠j} lo + v = 1: the subset sum lies in [t − hi_j, t − lo_j]
    mean = (dl.sum() - dl) / 2.0
    var = np.maximum((np.sum(dl**2) - dl**2) / 4.0, 1e-300)
    centre = t - 0.5 * (lo + hi)
    logdens = -0.5 * (centre - mean) ** 2 / var - 0.5 * np.log(2 * math.pi * var) + np.log(np.maximum(dl, 1e-300))
    return (d - 1) + float(logsumexp(logdens)) / math.log(2)


def lip_log2_bytes(P: np.ndarray, eps: float) -> float:
    """log2 of the bytes of the full LIP vertex enumeration and its master LP."""
    d = np.asarray(P).size
    a = math.log2(RAY_BYTES * d) + lip_log2_vertices(P, eps)
    b = 4.0 + d
    return max(a, b) + math.log2(1.0 + 2.0 ** (min(a, b) - max(a, b)))


def describe_bytes(log2_bytes: float) -> str:
    """'3.1 GB' or '~10^k GB' for sizes past floating point."""
    if log2_bytes < 100:
        return f"{2.0**log2_bytes / 1e9:.2g} GB"
    return f"~10^{int(log2_bytes * math.log10(2) - 9)} GB"


def check_enumeration(what: str, log2_need: float, limit: float, alternative: str) -> None:
    """Raise TooLargeError stating the honest size when the enumeration would exceed ``limit`` bytes."""
    if log2_need > math.log2(limit):
        raise TooLargeError(
            f"{what} needs ~{describe_bytes(log2_need)} (max_memory={limit / 1e9:.2g} GB); {alternative}"
        )
