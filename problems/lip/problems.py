"""Problems of the LIP paper: surveys (BIBO), sums (MIMO), weighted sums, histograms.

One user's channel Q (rows inputs) under ε-LIP (Definition 3) or ε-LDP
(Definition 1); the MMSE estimator E[f(X) | Y] is used throughout (eq. (10)),
so each problem is

    minimise   E[(f(X) − E[f(X) | Y])²]      (eq. (14); histogram: eq. (31), summed over k)
    s.t.       Q ≥ 0,  Q 1 = 1,  Q is ε-LIP (eq. (26)) or ε-LDP,

a :class:`~mechopt.model.problem.ChannelProblem` (column program, NLP form, audit).
N users with local priors decompose into N such problems (Proposition 2):
:class:`~mechopt.problems.lip.aggregate.LIPAggregate`.

This module is the family's registry (``PROBLEMS``, and ``CLOSED_FORMS`` for generic
designs); the classes live in :mod:`~mechopt.problems.lip.binary` and
:mod:`~mechopt.problems.lip.mimo` on the shared :mod:`~mechopt.problems.lip.base`,
and are re-exported here.

Examples
--------
>>> from mechopt.problems.lip.problems import PROBLEMS
>>> prob = PROBLEMS["lip-mimo"].from_params(prior="0.1,0.2,0.7", eps="1")
>>> prob.notion, prob.utility.a.tolist()
(LIP(eps=1), [0.0, 1.0, 2.0])
>>> res = prob.closed_form()
>>> res.solver, res.certificate, res.mechanism.shape
('closed-form', None, (3, 3))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mechopt.notions import LDP, LIP
from mechopt.problems.lip.base import make_lip_notion, parse_floats
from mechopt.problems.lip.binary import LIPBinary
from mechopt.problems.lip.mimo import LIPHistogram, LIPMimo, LIPWeightedSum, mimo_closed_form
from mechopt.results.result import Result
from mechopt.utilities import HistogramMSE, SumMSE

__all__ = [
    "LIPBinary",
    "LIPMimo",
    "LIPWeightedSum",
    "LIPHistogram",
    "PROBLEMS",
    "CLOSED_FORMS",
    "make_lip_notion",
    "parse_floats",
]


# --- closed forms for generic designs ------------------------------------------------------


def _design_closed_form(problem: Any) -> Result | None:
    """LIP/LDP + MSE of values → Theorem 3 / Opt-mimo-LDP; + histogram → Theorem 5 / Opt-mimo-LDP."""
    notion, util = getattr(problem, "notion", None), getattr(problem, "utility", None)
    if type(notion) not in (LIP, LDP) or type(util) not in (SumMSE, HistogramMSE):
        return None
    P = problem.prior
    if P.size < 2:
        return None
    kind = "lip" if isinstance(notion, LIP) else "ldp"
    if isinstance(util, HistogramMSE):
        mirror: LIPMimo = LIPHistogram(prior=P, eps=notion.eps, kind=kind)
    else:
        mirror = LIPMimo(prior=P, eps=notion.eps, values=util.a, kind=kind)
    res = mimo_closed_form(mirror)
    return res.replace(value=float(util.value(res.Q, P)), problem=getattr(problem, "id", None))


CLOSED_FORMS: list[Callable[[Any], Result | None]] = [_design_closed_form]


PROBLEMS: dict[str, type] = {
    "lip-binary": LIPBinary,
    "lip-mimo": LIPMimo,
    "lip-weighted-sum": LIPWeightedSum,
    "lip-histogram": LIPHistogram,
}
