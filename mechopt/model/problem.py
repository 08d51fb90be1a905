"""The problem interface every problem family implements.

A problem is data (a frozen dataclass in ``mechopt.problems``) that offers
canonical forms to solvers and audits a result from its own data. It never
imports a solver.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.2,0.8", notion="lip", utility="histogram", eps=1.0)
>>> prob.column_program().d
2
>>> prob.audit_channel(np.full((2, 2), 0.5)).violation
0.0
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model._matrix import sum_column_blocks
from mechopt.model.channel import validate_channel
from mechopt.model.forms import ColumnProgram, ConicForm, NLPForm
from mechopt.model.priors import Support
from mechopt.model.problem_audit import ProblemAudit
from mechopt.notions import LDP, LIP, MIP, PosteriorBox, PrivacyNotion
from mechopt.results.certificate import relative_gap
from mechopt.results.result import Result
from mechopt.utilities import FrequencyVariance, Utility

__all__ = ["Problem", "ChannelProblem", "ProblemAudit", "objective_scale", "value_gap"]


class Problem:
    """Base class of every problem; subclasses override what applies."""

    id: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    sense: ClassVar[str] = "min"
    objective: ClassVar[str] = ""
    #: The unit of the objective's value (``Result.unit``); channel problems take their utility's.
    unit: ClassVar[str | None] = None

    # canonical forms ----------------------------------------------------
    def column_program(self) -> ColumnProgram | None:
        return None

    def conic_form(self) -> ConicForm | None:
        return None

    def nlp_form(self) -> NLPForm | None:
        return None

    def greedy_form(self) -> Any:
        return None

    def closed_form(self) -> Result | None:
        """The paper's closed-form answer as a Result, or None when there is none."""
        return None

    # data ---------------------------------------------------------------
    def audit(self, result: Result) -> ProblemAudit:
        """Audit a result from the problem data (override per family)."""
        return ProblemAudit(violation=None)

    def params(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_params(cls, **params: Any) -> "Problem":
        return cls(**params)  # type: ignore[call-arg]


class ChannelProblem(Problem):
    """A problem whose mechanism is a channel Q on a finite prior.

    Subclasses provide ``prior`` (full, may have zeros), ``notion`` and
    ``utility`` attributes. This base builds the column program, audits a
    channel and evaluates the objective.
    """

    prior: np.ndarray
    notion: PrivacyNotion
    utility: Utility

    @property
    def sense(self) -> str:  # type: ignore[override]
        return self.utility.sense

    @property
    def objective(self) -> str:  # type: ignore[override]
        return self.utility.name

    @property
    def unit(self) -> str:  # type: ignore[override]
        return self.utility.unit

    @property
    def support(self) -> Support:
        return Support.of(self.prior)

    def reduced(self) -> ColumnProgram:
        """The design in canonical form: on the support, unit-free.

        Zero-mass symbols are dropped (restored on output) and the utility is
        normalised (:meth:`~mechopt.model.utility.Utility.normalised`: values centred
        and scaled to [−1, 1]) with ``scale`` mapping values and bounds back,
        so values ×1e-12 or ×1e12 give the same program and the answer ×s².

        >>> from mechopt.problems.design import ChannelDesign
        >>> prog = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mse",
        ...                                  eps=1.0, values=[0, 2e-6]).reduced()
        >>> prog.utility.a.tolist(), prog.scale
        ([-1.0, 1.0], 1e-12)
        """
        sup = self.support
        if sup.dropped and not (type(self.notion) in (LDP, LIP, MIP) or isinstance(self.notion, PosteriorBox)):
            raise ProblemError(
                f"zero-mass symbols are not supported with {self.notion.name}; remove them from the prior"
            )
        given = self.utility.restrict(sup.index)
        utility, scale = given.normalised()
        return ColumnProgram(
            prior=sup.prior,
            notion=self.notion,
            utility=utility,
            objective=self.objective,
            full_prior=sup.full,
            index=sup.index,
            scale=scale,
            unscaled=None if utility is given else given,
        )

    def column_program(self) -> ColumnProgram | None:
        if not self.utility.sublinear or not self.notion.linear:
            return None
        return self.reduced()

    def conic_form(self) -> ConicForm | None:
        """The LP / convex program when the utility is linear in Q (MAE), else None (mechopt.programs.linear)."""
        if self.utility.linear_cost(self.prior) is None:
            return None
        from mechopt.programs.linear import linear_conic_form

        return linear_conic_form(self)

    def nlp_form(self) -> NLPForm | None:
        from mechopt.programs.nlp import GRADIENTS, channel_nlp

        if isinstance(self.utility, FrequencyVariance):  # its own gradient and starts (mechopt.programs.frequency)
            from mechopt.programs.frequency import freq_var_nlp

            return freq_var_nlp(self.reduced())
        if not isinstance(self.utility, GRADIENTS):  # no analytic gradient: SQP does not apply
            return None

        return channel_nlp(self.reduced(), closed=self.closed_form)

    def nlp_size(self) -> int | None:
        """Variables of :meth:`nlp_form` (d² on the support), computed without building it; None when
        there is no NLP form. Lets a solver decline a problem cheaply (building the form is O(d³) memory)."""
        from mechopt.programs.nlp import GRADIENTS

        if type(self).nlp_form is not ChannelProblem.nlp_form:  # a family's own NLP: ask the form itself
            form = self.nlp_form()
            return None if form is None else len(form.bounds)
        if not isinstance(self.utility, (*GRADIENTS, FrequencyVariance)):
            return None
        d = int(np.count_nonzero(self.prior > 0))
        return d * d

    def evaluate(self, Q: np.ndarray) -> float:
        """The objective of channel Q under this problem's prior."""
        return float(self.utility.value(Q, self.prior))

    def audit_channel(self, Q) -> ProblemAudit:
        M = validate_channel(Q, n_inputs=self.prior.size)
        eps = float(self.notion.epsilon(M, self.prior))  # M is validated once (d × n can be 10⁸ entries)
        return ProblemAudit(
            violation=max(0.0, eps - self.notion.eps),
            eps_audited=eps,
            notion=self.notion.name,
            eps=self.notion.eps,
            value=self.evaluate(M),
        )

    def resolution(self, Q: np.ndarray) -> float | None:
        """A bound on the floating-point error of the objective of Q (sublinear utilities; None otherwise).

        At ε = 1e-9 a channel's doubles resolve its log-ratios to ~1e-16, a few 1e-7 of ε,
        and so its information to a few 1e-7 relative: no proof certifies it closer than that.
        """
        if not self.utility.sublinear:
            return None
        P = self.prior[:, None]
        return sum_column_blocks(np.asarray(Q, float), lambda B: float(np.sum(self.utility.column_error(P * B))))

    def audit(self, result: Result) -> ProblemAudit:
        if result.mechanism is None:
            from mechopt.model.structured import StructuredMechanism, audit_structured

            plan = result.extras.get("plan")
            if isinstance(plan, StructuredMechanism):  # Q too large to materialise: audit its structure
                return audit_structured(plan, self.prior, self.notion, self.utility)
            return ProblemAudit(violation=None, notion=self.notion.name, eps=self.notion.eps)
        return self.audit_channel(result.Q)

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), **self.notion.params(), **self.utility.params()}


def value_gap(problem: Any, Q: Any, value: float, bound: float, sign: float = 0.0) -> float:
    """The certificate gap of ``value`` against ``bound`` by the one rule (:func:`relative_gap`, ``sign`` as there)
    at the objective's size (:func:`objective_scale`): a value of 0 at that size is judged against its floor, as the
    standalone checker judges it. Every solver's gap, and ``mechopt.solve``'s check of it, is this one.

    >>> from mechopt.problems.design import ChannelDesign
    >>> prob = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mi", eps=1.0)
    >>> value_gap(prob, np.full((2, 1), 1.0), 0.0, 2.5e-33) < 1e-29, value_gap(prob, np.eye(2), 0.5, 0.6) > 0.1
    (True, True)
    """
    if relative_gap(value, bound, 0.0, sign) == 0:
        return 0.0
    return relative_gap(value, bound, objective_scale(problem, Q), sign)


#: Cells above which :func:`objective_scale` evaluates only the one-output channel, not d × d or d × m ones (a solve
#: peaks within 2× of its own Q: an identity of d = 1500 beside a Q of 1500 × 375 made it 15×: test_orbit_scale).
SCALE_MAX_CELLS = 2**16


def objective_scale(problem: Any, Q: Any) -> float:
    """The objective's size in its own units: the largest |value| of the channels of Q's shape that tell nothing
    (one output, one constant output) or all (the identity), e.g. Var(a) for an mse, H(P) for mi; 0 when the problem
    cannot evaluate them (then every gap is relative to the value alone). Above ``SCALE_MAX_CELLS`` only the one-output
    channel is evaluated (mi's scale is then 0).

    >>> from mechopt.problems.design import ChannelDesign
    >>> prob = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mse", eps=1.0, values="0,2")
    >>> objective_scale(prob, np.eye(2)), objective_scale(prob, None)
    (1.0, 0.0)
    """
    scale = 0.0
    if np.ndim(Q) != 2 or not callable(getattr(problem, "evaluate", None)):
        return scale
    d, m = np.shape(Q)
    wide = d * max(d, m) <= SCALE_MAX_CELLS  # d x d and d x m channels: only when they are small
    more = [np.eye(d), np.eye(d, m), *(np.eye(m)[np.full(d, j)] for j in range(min(m, 8)))] if wide else []
    for C in [np.ones((d, 1)), *more]:
        try:
            scale = max(scale, abs(float(problem.evaluate(C))))
        except (ProblemError, ValueError, TypeError, IndexError):  # not a channel of this problem's shape
            continue
    return scale if np.isfinite(scale) else 0.0
