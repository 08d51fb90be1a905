"""Fisher-information noise design (Farokhi & Sandberg; seed 003): the registry of the family's problems.

``PROBLEMS`` maps the catalog ids to the classes: the bounded supports of
:mod:`~mechopt.problems.fisher.interval` (with the derivation of Corollary 1) and
:mod:`~mechopt.problems.fisher.box`, the weighted policies of
:mod:`~mechopt.problems.fisher.weighted` and the Gaussian/LTI problems of
:mod:`~mechopt.problems.fisher.gaussian`. The bounded-support classes and the
parsing helpers of :mod:`~mechopt.problems.fisher.base` are re-exported here.

Examples
--------
>>> sorted(PROBLEMS)[:3]
['fisher-box', 'fisher-gaussian', 'fisher-interval']
>>> problem_from_params(a="0", b="2", n="50").params()
{'a': 0.0, 'b': 2.0, 'n': 50, 'query': 'identity'}
"""

from __future__ import annotations

from typing import Any

from mechopt.problems.fisher.base import CORR2_CONSTANT, PAPER, parse_float, parse_int, parse_vector, query_factor
from mechopt.problems.fisher.box import FisherBox
from mechopt.problems.fisher.interval import FisherInterval, FisherOutput, problem_from_params

__all__ = [
    "FisherInterval",
    "FisherBox",
    "FisherOutput",
    "PROBLEMS",
    "problem_from_params",
    "CORR2_CONSTANT",
    "parse_float",
    "parse_int",
    "parse_vector",
    "query_factor",
    "PAPER",
]


def _lazy_problems() -> dict[str, Any]:
    from mechopt.problems.fisher.gaussian import FisherGaussian, FisherLTI
    from mechopt.problems.fisher.weighted import FisherWeighted

    return {
        "fisher-interval": FisherInterval,
        "fisher-box": FisherBox,
        "fisher-output": FisherOutput,
        "fisher-weighted": FisherWeighted,
        "fisher-gaussian": FisherGaussian,
        "fisher-lti": FisherLTI,
    }


PROBLEMS = _lazy_problems()
