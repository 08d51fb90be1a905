"""Sizes of combinatorial output sets, in log space first: C(n, k) without million-digit integers.

``math.comb(10**7, 3_386_969)`` is a 9.2-million-bit integer that took 461 s to compute, only to be
compared with 20 000. :func:`log_comb` is O(1) whatever n; :func:`comb_at_most` decides
C(n, k) ≤ bound from the logarithm when it is clear and exactly (with ``math.comb``) only near
the bound, where the integer is small.

Examples
--------
>>> round(log_comb(10 ** 7, 3_386_969) / math.log(10), 1)      # C(n, k) ≈ 10^2780207.9
2780207.9
>>> comb_at_most(10 ** 7, 3_386_969, 20_000), comb_at_most(6, 3, 20), comb_at_most(6, 3, 19)
(False, True, False)
"""

from __future__ import annotations

import math

__all__ = ["log_comb", "comb_at_most"]


def log_comb(n: int, k: int) -> float:
    """ln C(n, k) from ``math.lgamma`` (0 ≤ k ≤ n), in O(1) whatever n."""
    return math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)


def comb_at_most(n: int, k: int, bound: int) -> bool:
    """Whether C(n, k) ≤ ``bound``: from :func:`log_comb` when it is off by more than a margin
    (lgamma's error is far below it), else exactly (then C(n, k) is about ``bound``)."""
    gap = log_comb(n, k) - math.log(max(bound, 1))
    if gap > 1.0:
        return False
    if gap < -1.0:
        return True
    return math.comb(n, k) <= bound
