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


def _design_mirror(problem: Any) -> LIPMimo | None:
    """The paper problem a generic design is (LIP/LDP + MSE of values or histogram), None otherwise."""
    notion, util = getattr(problem, "notion", None), getattr(problem, "utility", None)
    if type(notion) not in (LIP, LDP) or type(util) not in (SumMSE, HistogramMSE):
        return None
    P = problem.prior
    if P.size < 2:
        return None
    kind = "lip" if isinstance(notion, LIP) else "ldp"
    if isinstance(util, HistogramMSE):
        return LIPHistogram(prior=P, eps=notion.eps, kind=kind)
    return LIPMimo(prior=P, eps=notion.eps, values=util.a, kind=kind)


def _design_closed_form(problem: Any) -> Result | None:
    """LIP/LDP + MSE of values → Theorem 3 / Opt-mimo-LDP; + histogram → Theorem 5 / Opt-mimo-LDP."""
    mirror = _design_mirror(problem)
    if mirror is None:
        return None
    res = mimo_closed_form(mirror)
    return res.replace(value=float(problem.utility.value(res.Q, problem.prior)), problem=getattr(problem, "id", None))


# the closed form builds a d × d channel (800 MB at d = 10⁴): whether it applies is decided without it
_design_closed_form.applies = lambda problem: _design_mirror(problem) is not None  # type: ignore[attr-defined]

CLOSED_FORMS: list[Callable[[Any], Result | None]] = [_design_closed_form]


PROBLEMS: dict[str, type] = {
    "lip-binary": LIPBinary,
    "lip-mimo": LIPMimo,
    "lip-weighted-sum": LIPWeightedSum,
    "lip-histogram": LIPHistogram,
}
