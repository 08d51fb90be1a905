"""Frequency oracles under ε-LDP: randomizers a deployment can run, and their estimators.

- :mod:`mechopt.oracles.frequency` — the k-subset mechanism and generalised randomized response;
- :mod:`mechopt.oracles.bits` — unary encodings (BRR, OUE);
- :mod:`mechopt.oracles.packed` — reports drawn directly as bit masks;
- :mod:`mechopt.oracles.small_ksubset` — k-subset reports of d ≤ 16, one word each;
- :mod:`mechopt.oracles.base` — the shared oracle interface and samplers.

Examples
--------
>>> from mechopt.oracles import KSubset
>>> KSubset(d=8, eps=1.0).k
2
"""

from mechopt.oracles.base import PureOracle
from mechopt.oracles.bits import BRR, OUE, UnaryEncoding
from mechopt.oracles.frequency import GRR, project_simplex, regression_estimator
from mechopt.oracles.ksubset import KSubset

__all__ = ["PureOracle", "KSubset", "GRR", "BRR", "OUE", "UnaryEncoding", "project_simplex", "regression_estimator"]
