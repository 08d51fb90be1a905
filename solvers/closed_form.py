"""The ``closed-form`` pseudo-solver: a paper's theorem, evaluated and audited like any solver.

A closed form has no certificate of optimality (``certificate`` is None):
``mechopt verify`` and ``mechopt compare`` judge it against the exact solver.

Examples
--------
>>> from mechopt.solvers.closed_form import ClosedFormSolver
>>> ClosedFormSolver.name
'closed-form'
"""
from __future__ import annotations

from typing import Any

from mechopt.result import Result
from mechopt.solver import Solver

__all__ = ["ClosedFormSolver", "SOLVERS"]


class ClosedFormSolver(Solver):
    """Evaluate ``problem.closed_form()``."""

    name = "closed-form"

    def can_solve(self, problem: Any) -> bool:
        try:
            return problem.closed_form() is not None
        except Exception:   # a closed form that cannot apply to this instance
            return False

    def _solve(self, problem: Any, opts: dict[str, Any]) -> Result:
        res = problem.closed_form()
        return res.replace(solver=self.name)


SOLVERS = {"closed-form": ClosedFormSolver}
