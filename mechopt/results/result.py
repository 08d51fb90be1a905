"""The one result type every solver and closed form returns.

Its status words live in :mod:`mechopt.results.status`, its certificate and gap in
:mod:`mechopt.results.certificate`, its JSON values in :mod:`mechopt.results._json`;
all are re-exported here, where users import them.

Examples
--------
>>> import numpy as np
>>> from mechopt.results.result import Result, Status, Certificate
>>> r = Result(status=Status.OPTIMAL, value=0.25, sense="min", objective="mse",
...            mechanism=np.eye(2), solver="exact", proof="certificate",
...            certificate=Certificate(bound=0.25, gap=0.0))
>>> r.ok
True
>>> r.to_dict()["certificate"]
{'bound': 0.25, 'gap': 0.0}
>>> r.to_dict()["mechanism"]
{'Q': [[1.0, 0.0], [0.0, 1.0]], 'inputs': [0, 1], 'outputs': [0, 1]}
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from mechopt.model._mechanism import _channel_matrix, mechanism_dict
from mechopt.results._json import jsonable
from mechopt.results.certificate import Certificate, relative_gap  # noqa: F401
from mechopt.results.status import MEANINGS, PROOFS, Status, vocabulary  # noqa: F401

# Status, Certificate and the status/gap helpers stay importable from here (they moved to
# results.status and results.certificate); __all__ names only what this module defines, so the
# API pages document each class once where it is defined and once where users import it (mechopt).
__all__ = ["Result", "jsonable", "mechanism_dict"]


@dataclass(frozen=True)
class Result:
    """What a solve returns.

    Attributes
    ----------
    status : Status
        From the closed vocabulary.
    value : float or None
        The objective in the problem's own sense (an MSE or Fisher trace is
        minimised, a mutual information maximised); None without a solution.
    sense : {"min", "max"}
    objective : str
        Name of the objective (``"mse"``, ``"mutual_information"``, ...).
    mechanism : Any
        The channel matrix Q (rows are inputs), a density on a grid, or a
        noise covariance, as the problem defines.
    solver : str
        Registry name of the method, ``"closed-form"`` for a theorem.
    certificate : Certificate or None
        None when the method has none (say so: local solvers, heuristics).
    violation : float or None
        Audited privacy violation (0 when private); filled by ``solve``.
    eps_audited : float or None
        Smallest ε the mechanism satisfies under the problem's notion.
    notion, eps : str or None, float or None
        The privacy notion and target.
    eps_lower : float or None
        ALIP's lower level ε_l (``eps`` is then the upper level ε_u); None for every other notion.
    time_s : float
    iterations : int or None
    message : str
    extras : dict
        Method-specific data (grid size, error estimate, outputs merged...).
    problem : str or None
        Catalog id of the problem, when it has one.
    proof : str or None
        For ``optimal``: why it is proven, a key of :data:`PROOFS`
        (``certificate``, ``convex``, ``eigenproblem``, ``theorem``). ``solve``
        demotes an ``optimal`` result without one to ``feasible``.
    unit : str or None
        The unit of ``value`` (and of the certificate's bound), from the
        objective's definition (``Utility.unit`` / ``Problem.unit``): ``"nats"``
        for a mutual information, ``"squared units of the values"`` for an MSE,
        ``"1/units²"`` for a Fisher trace. ``solve`` fills it from the problem.
    values : numpy.ndarray or None
        The numbers a_x of the inputs an ``mse`` or ``mae`` design was solved for
        (one per row of Q, in the unit of the values); None for other objectives.
        ``solve`` fills it from the problem's utility; :meth:`to_dict` writes it
        as ``mechanism.values``, and :meth:`Mechanism.from_result
        <mechopt.mechanism.core.Mechanism.from_result>` takes its posterior means from it.
    prior : numpy.ndarray or None
        The prior the design was solved for (one entry per row of Q); None when the problem
        has no single prior (a robust design over a set of priors) or the result was built by
        hand. ``solve`` fills it; :meth:`to_dict` writes it as ``mechanism.prior``, and
        :meth:`Mechanism.from_result <mechopt.mechanism.core.Mechanism.from_result>` keeps it.
    """

    status: Status
    value: float | None
    sense: str
    objective: str
    mechanism: Any = None
    solver: str = ""
    certificate: Certificate | None = None
    violation: float | None = None
    eps_audited: float | None = None
    notion: str | None = None
    eps: float | None = None
    time_s: float = 0.0
    iterations: int | None = None
    message: str = ""
    extras: dict[str, Any] = field(default_factory=dict)
    problem: str | None = None
    proof: str | None = None
    unit: str | None = None
    eps_lower: float | None = None
    values: Any = None
    prior: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", Status(self.status))
        if self.sense not in ("min", "max"):
            raise ValueError(f"sense must be 'min' or 'max', got {self.sense!r}")
        if self.value is not None and not math.isfinite(self.value):
            if self.status.has_solution:
                object.__setattr__(self, "status", Status.NUMERICAL_ERROR)
                object.__setattr__(
                    self,
                    "message",
                    (self.message + "; " if self.message else "") + f"non-finite objective {self.value!r}",
                )
            object.__setattr__(self, "value", None)

    @property
    def ok(self) -> bool:
        """True when the status is ``optimal`` (proven; see :class:`Status`)."""
        return self.status is Status.OPTIMAL

    @property
    def Q(self) -> np.ndarray:
        """The mechanism as a channel matrix ``Q[x, y] = P(Y=y | X=x)``.

        Raises
        ------
        NoChannelError
            When the result carries no channel matrix: no mechanism came back
            (the status or the message says why, e.g. an ``exact`` optimum
            with too many outputs to materialise, described by
            ``extras["orbits"]``), or the mechanism is a density, a noise
            covariance or a structured plan (use ``result.mechanism``).

        Examples
        --------
        >>> Result(status="optimal", value=0.5, sense="min", objective="mse", mechanism=[[1, 0], [0, 1]]).Q
        array([[1., 0.],
               [0., 1.]])
        >>> Result(status="infeasible", value=None, sense="min", objective="mse").Q
        Traceback (most recent call last):
        ...
        mechopt.errors.NoChannelError: this infeasible result has no mechanism (...): nothing to return as Q
        """
        from mechopt.errors import MechoptError, NoChannelError

        Q = _channel_matrix(self.mechanism)
        if Q is not None:
            return Q
        why = self.message or "no message"
        if self.mechanism is None:
            if self.status.has_solution:
                if "plan" in self.extras:
                    hint = (
                        "; raise the exact solver's max_memory option to materialise Q, or sample and audit "
                        "the structured mechanism in result.extras['plan']"
                    )
                elif "orbits" in self.extras:
                    hint = (
                        "; raise the exact solver's max_outputs option to materialise Q, or read the orbit "
                        "weights in result.extras['orbits']"
                    )
                else:
                    hint = "; re-solve with a solver that returns a channel"
                raise NoChannelError(f"this {self.status.value} result has no channel matrix ({why}){hint}")
            raise NoChannelError(f"this {self.status.value} result has no mechanism ({why}): nothing to return as Q")
        name = type(self.mechanism).__name__
        try:
            getattr(self.mechanism, "matrix", None)
        except MechoptError as exc:  # a structured channel too large to write out
            raise NoChannelError(
                f"the {name} mechanism has no channel matrix here ({exc}); use result.mechanism"
            ) from None
        raise NoChannelError(f"the mechanism is a {name}, not a channel matrix: use result.mechanism")

    def to_mechanism(self, **kwargs: Any) -> Any:
        """The designed channel as a :class:`mechopt.Mechanism`, ready to randomize data and estimate.

        Keyword arguments go to :meth:`mechopt.Mechanism.from_result` (``inputs``,
        ``outputs``; ``prior`` replaces the design's own, :attr:`prior`).

        >>> r = Result(status="optimal", value=0.5, sense="min", objective="mse", mechanism=[[1, 0], [0, 1]],
        ...            notion="ldp", eps=40.0, proof="theorem")
        >>> r.to_mechanism(prior=[0.5, 0.5]).claim
        {'notion': 'ldp', 'eps': 40.0}
        """
        from mechopt.mechanism.core import Mechanism

        return Mechanism.from_result(self, **kwargs)

    def plot(self, ax: Any = None, prior: Any = None, **kwargs: Any) -> Any:
        """Draw the mechanism as a heatmap, with the prior and posteriors when ``prior`` is given.

        See :func:`mechopt.plot.plot_channel`; returns the Axes of the heatmap
        and needs a channel matrix (see :attr:`Q`).
        """
        from mechopt.plot import plot_channel

        return plot_channel(self, prior=prior, ax=ax, **kwargs)

    def _repr_html_(self) -> str:
        """A notebook summary: status, value with its unit, proof, privacy audit, a small Q table."""
        from mechopt.results._html import result_html

        return result_html(self, PROOFS)

    def better_than(self, other: float) -> bool:
        """Whether ``value`` beats ``other`` in this problem's sense."""
        if self.value is None:
            return False
        return self.value > other if self.sense == "max" else self.value < other

    def replace(self, **changes: Any) -> "Result":
        """A copy with fields changed (results are immutable)."""
        return replace(self, **changes)

    def downgrade(self, reason: str) -> "Result":
        """Demote ``optimal`` to ``optimal_inaccurate`` (a proof within a looser tolerance), recording why."""
        return self.demote(Status.OPTIMAL_INACCURATE, reason, only=(Status.OPTIMAL,))

    def demote(self, status: Status, reason: str, only: tuple[Status, ...] | None = None) -> "Result":
        """Set ``status`` and append ``reason`` to the message, if the current status is in ``only``.

        ``only`` defaults to every status that carries a solution except
        ``infeasible_point`` (a demotion never upgrades a failed audit).

        >>> r = Result(status="optimal", value=1.0, sense="min", objective="mse", proof="theorem")
        >>> r2 = r.demote(Status.FEASIBLE, "outside the proven region")
        >>> r2.status.value, r2.proof, r2.message
        ('feasible', None, 'outside the proven region')
        """
        allowed = (
            only
            if only is not None
            else tuple(s for s in Status if s.has_solution and s is not Status.INFEASIBLE_POINT)
        )
        if self.status not in allowed or self.status is status:
            return self
        msg = f"{self.message}; {reason}" if self.message else reason
        proof = self.proof if status is Status.OPTIMAL else None
        return replace(self, status=status, message=msg, proof=proof)

    def save_certificate(self, path: str) -> None:
        """Write this result's certificate file, claiming its status and value (:meth:`Certificate.save`)."""
        from mechopt.errors import CertificateError

        if self.certificate is None:
            raise CertificateError(
                f"this {self.status.value} result of solver {self.solver or '?'} has no certificate: checkable "
                "certificates come from solver 'exact' (docs: howto/certificates)"
            )
        self.certificate.save(path, status=self.status.value, value=self.value, solver=self.solver, time_s=self.time_s)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the CLI contract (design.md)."""
        return {
            "status": self.status.value,
            "value": jsonable(self.value),
            "unit": self.unit,
            "objective": self.objective,
            "sense": self.sense,
            "mechanism": mechanism_dict(self.mechanism, prior=self.prior, values=self.values),
            "privacy": {
                "notion": self.notion,
                "eps": jsonable(self.eps),
                "violation": jsonable(self.violation),
                "eps_audited": jsonable(self.eps_audited),
                **({} if self.eps_lower is None else {"eps_lower": jsonable(self.eps_lower)}),
            },
            "certificate": None if self.certificate is None else self.certificate.to_dict(),
            "solver": self.solver,
            "time_s": jsonable(self.time_s),
            "iterations": self.iterations,
            "message": self.message,
            "problem": self.problem,
            "proof": self.proof,
            "extras": jsonable(self.extras),
        }
