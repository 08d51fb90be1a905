"""What a "too large" message may suggest: only solvers and options that would take the problem.

``TooLargeError`` at ``uniform:10⁷`` used to end with "or use solver='sqp'", and sqp declines
anything above ``MAX_VARIABLES`` = 10 000 NLP variables (d² on the support, so d ≤ 100); it
also suggested ``solver='conic'`` for channel designs, which have no conic form.

Examples
--------
>>> "raise max_memory" + or_local(40)
"raise max_memory, or use solver='sqp' (local, uncertified)"
>>> "raise max_memory" + or_local(10 ** 7)
'raise max_memory; no local solver takes it either (sqp takes d ≤ 100 symbols)'
"""

from __future__ import annotations

import math

from mechopt.solvers.sqp import MAX_VARIABLES

__all__ = ["or_local", "sqp_takes"]


def sqp_takes(d: int) -> bool:
    """Whether ``sqp`` accepts a channel design on ``d`` symbols (``d²`` NLP variables)."""
    return d * d <= MAX_VARIABLES


def or_local(d: int) -> str:
    """The tail of a suggestion for a d-symbol channel design: the local fallback, or that there is none."""
    if sqp_takes(d):
        return ", or use solver='sqp' (local, uncertified)"
    return f"; no local solver takes it either (sqp takes d ≤ {math.isqrt(MAX_VARIABLES)} symbols)"
