"""Helpers shared by the k-subset claim checks: the uniform prior, per-check deviation records, the ε audit.

Examples
--------
>>> devs, inst = [], []
>>> record(devs, inst, {"d": 2}, {"row sums": 0.0, "audited eps": 1e-12})
>>> devs, [i["what"] for i in inst]
([0.0, 1e-12], ['row sums', 'audited eps'])
"""

from __future__ import annotations

import numpy as np

from mechopt.notions import LDP

__all__ = ["PAPER", "EPS_GRID", "TOL", "uniform", "record", "eps_error"]

PAPER = "kss"
EPS_GRID = (0.1, 0.5, 1.0, 2.0, 3.0, 5.0)
TOL = 1e-9


def uniform(d: int) -> np.ndarray:
    """The uniform prior on d symbols."""
    return np.full(d, 1.0 / d)


def record(devs: list, inst: list, where: dict, checks: dict[str, float]) -> None:
    """Append one deviation per named check; its instance is ``where`` plus ``"what"``: the check's name."""
    for what, dev in checks.items():
        devs.append(dev)
        inst.append({**where, "what": what})


def eps_error(Q: np.ndarray, eps: float) -> float:
    """|audited ε-LDP level of Q − ε|."""
    return abs(LDP(eps).audit(Q).eps - eps)
