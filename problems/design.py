"""A custom channel-design problem: any notion, any utility, any prior.

The program (Q[x, y] = P(Y=y | X=x), rows are inputs):

    optimise  U(Q; P)      (an MSE minimised, a mutual information maximised)
    s.t.      Q ≥ 0,  Q 1 = 1,  Q satisfies the notion at level ε.

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="uniform:3", notion="ldp", utility="mi", eps=1.0)
>>> prob.sense, prob.objective, prob.notion
('max', 'mi', LDP(eps=1))
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, float_array
from mechopt.model.priors import read_prior, validate_prior
from mechopt.model.problem import ChannelProblem
from mechopt.notions import PrivacyNotion, make_notion
from mechopt.results.result import Result
from mechopt.utilities import FrequencyVariance, Utility, make_utility

__all__ = ["ChannelDesign", "PROBLEMS"]

# Paper modules that contribute closed forms for generic designs (CLOSED_FORMS lists).
_CLOSED_FORM_MODULES = ("mechopt.problems.lip.problems", "mechopt.problems.kss.problems")


@dataclass(frozen=True, eq=False)
class ChannelDesign(ChannelProblem):
    """Design Q for ``prior`` under ``notion`` optimising ``utility``."""

    prior: np.ndarray
    notion: PrivacyNotion
    utility: Utility
    label: str = field(default="custom")
    #: labels of the inputs (a prior file's ``label,probability`` table, a pandas Series' index), else None
    inputs: tuple[Any, ...] | None = field(default=None)

    id: ClassVar[str] = "design"
    paper: ClassVar[str] = ""

    def __post_init__(self) -> None:
        prior = validate_prior(self.prior)
        prior.flags.writeable = False  # a frozen problem: prob.prior[0] = 0.9 is refused, not half-applied
        object.__setattr__(self, "prior", prior)
        if not isinstance(self.notion, PrivacyNotion):
            raise ProblemError("notion must be a PrivacyNotion (see mechopt.notions.make_notion)")
        if not isinstance(self.utility, Utility):
            raise ProblemError("utility must be a Utility (see mechopt.utilities.make_utility)")
        a = getattr(self.utility, "a", None)
        if a is not None and a.size != self.prior.size:
            raise ProblemError(f"{a.size} values but the prior has {self.prior.size} symbols")
        if self.inputs is not None and len(self.inputs) != self.prior.size:
            raise ProblemError(f"{len(self.inputs)} input labels for a prior of {self.prior.size} symbols")
        if isinstance(self.utility, FrequencyVariance) and np.any(self.prior <= 0):
            raise ProblemError(
                "freq-var needs every symbol to have prior mass > 0 (zero-mass symbols are dropped from "
                "a design, and their rows would leave no unbiased estimator); remove them from the prior"
            )
        self.notion.check_prior(self.prior)

    @classmethod
    def from_params(
        cls,
        *,
        prior: Any,
        notion: str,
        utility: str,
        eps: Any,
        values: Any = None,
        graph: Any = None,
        outputs: Any = None,
        eps_lower: Any = None,
        **extra: Any,
    ) -> "ChannelDesign":
        """Build from CLI-style parameters (strings accepted for prior, values and outputs).

        ``outputs`` are the fixed output estimates b of utility ``mae`` (default: the values).
        Every parameter is used or refused: ``values`` belong to ``mse`` and ``mae``,
        ``graph`` to ``graph-ldp`` and ``metric-ldp``, ``eps_lower`` (ε_l; ``eps`` is then ε_u) to
        ``alip``. A prior file's labels (or a
        pandas Series' index) become the problem's ``inputs``.
        """
        if extra:
            raise ProblemError(
                f"unknown design parameter(s) {sorted(extra)}; "
                "known: prior, notion, utility, eps, values, graph, outputs, eps_lower"
            )
        from mechopt.io.priorfile import prior_labels

        P, labels = read_prior(prior) if isinstance(prior, str) else (validate_prior(prior), prior_labels(prior))
        if P.size < 2:
            raise ProblemError(
                "the prior has one symbol: there is nothing to hide or estimate; "
                "a design needs at least 2 input symbols"
            )
        values = _numbers(values, "values", "one per input symbol")
        outputs = _numbers(outputs, "outputs", "one output estimate per output")
        kw = {"graph": graph} if graph is not None else {}
        if eps_lower is not None:
            kw["eps_lower"] = eps_lower
        return cls(
            prior=P,
            notion=make_notion(notion, eps, **kw),
            utility=make_utility(utility, prior=P, values=values, outputs=outputs),
            inputs=labels,
        )

    def closed_form(self) -> Result | None:
        for hook in _closed_form_hooks():
            res = hook(self)
            if res is not None:
                return res
        return None

    def has_closed_form(self) -> bool:
        """Whether :meth:`closed_form` gives a result, decided without computing it where a hook
        says cheaply whether it applies (``hook.applies``): a solver that cannot solve the design
        names the ones that can in a second, not after building a d × d closed form.

        >>> ChannelDesign.from_params(prior="uniform:10000", notion="lip", utility="histogram", eps=1).has_closed_form()
        True
        """
        for hook in _closed_form_hooks():
            applies = getattr(hook, "applies", None)
            if applies(self) if applies is not None else hook(self) is not None:
                return True
        return False


def _closed_form_hooks() -> list[Any]:
    """The ``CLOSED_FORMS`` hooks of the paper modules that are installed, in order."""
    hooks: list[Any] = []
    for name in _CLOSED_FORM_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        hooks += getattr(mod, "CLOSED_FORMS", ())
    return hooks


def _numbers(values: Any, what: str, per: str) -> Any:
    """A comma-separated string or a sequence as a float array (None stays None)."""
    if isinstance(values, str):
        try:
            return np.asarray([ascii_float(v) for v in values.split(",")])
        except NotDecimal as exc:
            raise ProblemError(f"bad {what}: {exc}") from None
        except ValueError:
            raise ProblemError(f"bad {what} {values!r}: give comma-separated numbers") from None
    if values is not None:
        try:
            return float_array(values)
        except NotDecimal as exc:
            raise ProblemError(f"bad {what}: {exc}") from None
        except (TypeError, ValueError, OverflowError):
            raise ProblemError(f"bad {what} {values!r}: give a list of numbers, {per}") from None
    return None


PROBLEMS = {"design": ChannelDesign}
