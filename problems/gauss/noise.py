"""The mechanism of the Gaussian tradeoff: independent noise variances per feature, ∞ for a suppressed one.

Examples
--------
>>> GaussianNoise([0.0, 2.0]).to_dict()["exact"]
[0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ProblemError

__all__ = ["GaussianNoise"]


@dataclass(frozen=True)
class GaussianNoise:
    """The mechanism: independent noise variances v ∈ [0, ∞]ⁿ (∞ = feature suppressed).

    ``notes`` carries what the problem changed in its data (a PSD projection),
    so every result built on projected data says so.

    Examples
    --------
    >>> GaussianNoise([0.0, float("inf")]).to_dict()["suppressed"]
    [1]
    """

    variances: Any
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        v = np.asarray(self.variances, dtype=float).ravel()
        if np.any(np.isnan(v)) or np.any(v < 0):
            raise ProblemError(f"noise variances must be in [0, inf], got {v.tolist()}")
        object.__setattr__(self, "variances", v)

    def to_dict(self) -> dict[str, Any]:
        v = self.variances
        return {
            "noise_variances": [float(x) if math.isfinite(x) else "inf" for x in v],
            "suppressed": [int(i) for i in np.flatnonzero(np.isinf(v))],
            "exact": [int(i) for i in np.flatnonzero(v == 0)],
            "notes": list(self.notes),
        }
