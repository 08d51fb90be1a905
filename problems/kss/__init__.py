"""The k-subset paper (Wang et al.): mutual-information-optimal ε-LDP and ℓ2 estimation.

>>> from mechopt.problems.kss import best_ksubset
>>> best_ksubset([0.25] * 4, 1.0)[0]
1
"""

from mechopt.problems.kss.l2 import EstimationL2, KssL2, l2_value_grad
from mechopt.problems.kss.problems import (
    CLOSED_FORMS,
    MAX_OUTPUTS,
    PROBLEMS,
    KssMI,
    KSubsetMechanism,
    best_ksubset,
    ksubset_mi,
    ksubset_result,
    ldp_fields,
)

__all__ = [
    "KssMI",
    "KssL2",
    "KSubsetMechanism",
    "EstimationL2",
    "ksubset_mi",
    "best_ksubset",
    "ksubset_result",
    "ldp_fields",
    "l2_value_grad",
    "CLOSED_FORMS",
    "PROBLEMS",
    "MAX_OUTPUTS",
]
