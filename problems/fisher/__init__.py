"""The Fisher-information paper (Farokhi & Sandberg): additive noise minimising the trace of the Fisher information.

Bounded supports on a grid (:mod:`~mechopt.problems.fisher.interval`, :mod:`~mechopt.problems.fisher.box`,
:mod:`~mechopt.problems.fisher.grid`), the weighted and unbounded/LTI variants
(:mod:`~mechopt.problems.fisher.weighted`, :mod:`~mechopt.problems.fisher.gaussian`), Section 5
(:mod:`~mechopt.problems.fisher.dp`) and the grid error estimates (:mod:`~mechopt.problems.fisher.extrapolate`).

>>> from mechopt.problems.fisher import FisherInterval
>>> FisherInterval(a=-1.0, b=1.0).closed_form().status.value
'optimal'
"""

from mechopt.problems.fisher.gaussian import FisherGaussian, FisherLTI
from mechopt.problems.fisher.problems import PROBLEMS, FisherBox, FisherInterval, FisherOutput, problem_from_params
from mechopt.problems.fisher.weighted import FisherWeighted

__all__ = [
    "FisherInterval",
    "FisherBox",
    "FisherOutput",
    "FisherWeighted",
    "FisherGaussian",
    "FisherLTI",
    "PROBLEMS",
    "problem_from_params",
]
