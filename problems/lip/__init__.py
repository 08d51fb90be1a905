"""The LIP paper (Jiang, Li, Tandon): surveys, sums, weighted sums, histograms, and the CIP comparison.

Modules: :mod:`~mechopt.problems.lip.problems` (the four families' registry; the classes in
:mod:`~mechopt.problems.lip.binary` and :mod:`~mechopt.problems.lip.mimo`), :mod:`~mechopt.problems.lip.closed`
(the closed forms as stated), :mod:`~mechopt.problems.lip.box` (the histogram beyond Theorem 5),
:mod:`~mechopt.problems.lip.aggregate` (Proposition 2), :mod:`~mechopt.problems.lip.cip` (Section IV-D).

>>> from mechopt.problems.lip import LIPBinary
>>> LIPBinary(p1=0.3, eps=1.0).closed_form().status.value
'optimal'
"""

from mechopt.problems.lip.cip import CIPBinomial, Prop5Notion, prop5_band
from mechopt.problems.lip.problems import (
    CLOSED_FORMS,
    PROBLEMS,
    LIPBinary,
    LIPHistogram,
    LIPMimo,
    LIPWeightedSum,
    make_lip_notion,
    parse_floats,
)

__all__ = [
    "LIPBinary",
    "LIPMimo",
    "LIPWeightedSum",
    "LIPHistogram",
    "CIPBinomial",
    "Prop5Notion",
    "prop5_band",
    "PROBLEMS",
    "CLOSED_FORMS",
    "make_lip_notion",
    "parse_floats",
]
