"""How a k-subset mask of d items is drawn: the dyadic start p = a/2^t, the fix-up words and the block size, chosen
by a raw-word cost model (for :mod:`mechopt.oracles.subset_masks`, which re-exports :func:`plan` and :class:`Plan`).

Examples
--------
>>> from mechopt.oracles.maskplan import plan
>>> plan(256, 69).t                                   # p = 1/4 for k/d = 0.27
2
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import NamedTuple

__all__ = ["Plan", "plan", "MAX_T", "TRY_COST", "BLOCK_WORDS"]

MAX_T = 4  # finest dyadic p = a/16 (each level costs ⌈d/64⌉ words per user)
TRY_COST = 1.0  # a fix-up try in raw-word units (the time of drawing one 64-bit word), for the plan's cost model
BLOCK_WORDS = 1 << 16  # random words per block of users (~512 KB: the block stays in L2)


class Plan(NamedTuple):
    """How a (d, k) subset is drawn: start p = a/2^t, F fix-up words per user, slot bits, users per block."""

    a: int
    t: int
    words: int  # F
    slot: int  # bits per fix-up try: max(3, ⌈log2 d⌉) (a value naming no valid item is a failed try)
    users: int


def _tries(d: int, k: int, p: float) -> float:
    """Expected fix-up tries from a Bernoulli(p) start: E|m − need| (normal approximation) over the success rate."""
    n = d - 1
    sd = math.sqrt(n * p * (1 - p))
    delta = k - n * p  # need − E m
    if sd == 0:
        short = max(delta, 0.0)
    else:
        z = delta / sd
        short = sd * math.exp(-z * z / 2) / math.sqrt(2 * math.pi) + delta * 0.5 * (1 + math.erf(z / math.sqrt(2)))
    extra = short - delta  # E (m − need)+, and short = E (need − m)+
    return short * d / max(d - k, 1) + extra * d / max(k, 1)


@lru_cache(maxsize=64)
def plan(d: int, k: int) -> Plan:
    """The cheapest start p = a/2^t (t ≤ :data:`MAX_T`, a odd; or p = 0, 1) by a raw-word cost model.

    Examples
    --------
    >>> plan(256, 69)[:2], plan(1024, 1)[:2], plan(1024, 1023)[:2]
    ((1, 2), (0, 0), (1, 0))
    """
    nw = -(-d // 64)
    slot = max(3, (d - 1).bit_length())  # a slot value names a bit of the row (item v ^ 7): at least a byte
    per, accept = 64 // slot, d / (1 << slot)

    def cost(c: tuple[int, int]) -> float:
        return c[1] * nw + _tries(d, k, c[0] / (1 << c[1])) * (TRY_COST + 1 / per) / accept

    cands = [(0, 0), (1, 0)] + [(a, t) for t in range(1, MAX_T + 1) for a in range(1, 1 << t, 2)]
    a, t = min(cands, key=cost)
    slots = (2 * _tries(d, k, a / (1 << t)) + 24) / accept  # ~all users finish on their words (fallback rows cost more)
    words = math.ceil(slots / per)
    per_user = t * nw + 1 + words
    users = 1 << max(0, min(16, (BLOCK_WORDS // per_user).bit_length() - 1))  # divides subset_masks.SUPER
    return Plan(a, t, words, slot, users)
