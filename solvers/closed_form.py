"""The ``closed-form`` pseudo-solver: a paper's theorem, evaluated and audited like any solver.

A closed form has no certificate (``certificate`` is None). It is
``optimal`` with ``proof="theorem"`` only inside the region where its theorem
is proven and ``mechopt verify`` finds it holding; elsewhere it is
``feasible`` (audited, unproven) or ``infeasible_point`` (its mechanism fails
the audit), with the message naming the theorem and why it is not proven
there (:func:`mechopt.problems.theorem.theorem_result`).
``extras["claim"]`` is the id of the verify claim that checks it.

Examples
--------
>>> import mechopt
>>> from mechopt.problems.lip.problems import LIPBinary
>>> r = mechopt.solve(LIPBinary(p1=0.4, eps=1.0), solver="closed-form")
>>> r.status.value, r.proof, r.extras["claim"]
('optimal', 'theorem', 'lip.thm2')
>>> r = mechopt.solve(LIPBinary(p1=0.1, eps=1.0), solver="closed-form")    # outside Theorem 2's region
>>> r.status.value, r.proof
('infeasible_point', None)
"""

from __future__ import annotations

from typing import Any

from mechopt.model.solver import Solver
from mechopt.results.result import Result

__all__ = ["ClosedFormSolver", "SOLVERS"]


class ClosedFormSolver(Solver):
    """Evaluate ``problem.closed_form()``."""

    name = "closed-form"
    forms = ("closed_form",)

    def can_solve(self, problem: Any) -> bool:
        try:  # has_closed_form: decided without computing the closed form where it can be
            cheap = getattr(problem, "has_closed_form", None)
            return cheap() if cheap is not None else problem.closed_form() is not None
        except Exception:  # a closed form that cannot apply to this instance
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        res = problem.closed_form()
        return res.replace(solver=self.name)


SOLVERS = {"closed-form": ClosedFormSolver}
