"""The closed status vocabulary of a result, what each word means, and the proofs that earn ``optimal``.

Re-exported by :mod:`mechopt.results.result` (and :class:`Status` by :mod:`mechopt`).

Examples
--------
>>> Status("locally_optimal").has_solution, Status.FEASIBLE.proven
(True, False)
"""

from __future__ import annotations

from enum import Enum

__all__ = ["Status", "MEANINGS", "PROOFS", "vocabulary"]


class Status(str, Enum):
    """The closed status vocabulary shared by every solver (see :doc:`/status`).

    The words follow the optimization field (MathOptInterface ``OPTIMAL`` /
    ``LOCALLY_SOLVED``, Pyomo ``globallyOptimal`` / ``locallyOptimal`` /
    ``feasible``): only a proof earns ``optimal``.

    ``optimal``
        Proven and audited: a certificate whose gap is within tolerance, a
        convex program solved to its dual tolerance, a global eigenproblem, or
        a closed form inside the region where it is proven (``Result.proof``
        says which).
    ``optimal_inaccurate``
        A proof was attempted but holds only to a looser tolerance (gap above
        ``gap_tol``, the backend reported inaccurate, the value did not match
        the audit). Private within tolerance.
    ``locally_optimal``
        A local method converged (KKT point); audited, no global proof.
    ``feasible``
        Audited (private, a channel) but unproven: a heuristic's answer, a
        closed form outside its proven region, a converged point of a method
        without optimality conditions.
    ``infeasible_point``
        A mechanism came back but fails its audit (not private within
        tolerance, or not a channel): its value is not an answer.
    ``infeasible`` / ``unbounded``
        The problem has no admissible mechanism / no finite optimum.
    ``iteration_limit`` / ``time_limit``
        A limit stopped the method; the best point so far may come with it.
    ``numerical_error`` / ``solver_error``
        The method failed numerically / the backend crashed.
    """

    OPTIMAL = "optimal"
    OPTIMAL_INACCURATE = "optimal_inaccurate"
    LOCALLY_OPTIMAL = "locally_optimal"
    FEASIBLE = "feasible"
    INFEASIBLE_POINT = "infeasible_point"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    ITERATION_LIMIT = "iteration_limit"
    TIME_LIMIT = "time_limit"
    NUMERICAL_ERROR = "numerical_error"
    SOLVER_ERROR = "solver_error"

    def __str__(self) -> str:  # pragma: no cover - trivial
        return self.value

    @property
    def has_solution(self) -> bool:
        """Whether a mechanism comes with this status (``infeasible_point``: one that fails its audit)."""
        return self in (
            Status.OPTIMAL,
            Status.OPTIMAL_INACCURATE,
            Status.LOCALLY_OPTIMAL,
            Status.FEASIBLE,
            Status.INFEASIBLE_POINT,
            Status.ITERATION_LIMIT,
            Status.TIME_LIMIT,
        )

    @property
    def proven(self) -> bool:
        """Whether the status claims a proof of (global) optimality: only ``optimal``."""
        return self is Status.OPTIMAL


#: One line per status (the CLI help and text reports print these).
MEANINGS = {
    Status.OPTIMAL: "proven optimal (Result.proof says how) and audited",
    Status.OPTIMAL_INACCURATE: "a proof was attempted but holds only to a looser tolerance",
    Status.LOCALLY_OPTIMAL: "a local method converged; audited, no global proof",
    Status.FEASIBLE: "audited but unproven: a heuristic, a closed form outside its proven region",
    Status.INFEASIBLE_POINT: "a mechanism came back but fails its audit: not an answer",
    Status.INFEASIBLE: "the problem has no admissible mechanism",
    Status.UNBOUNDED: "the problem has no finite optimum",
    Status.ITERATION_LIMIT: "an iteration limit stopped the method (best point so far, if any)",
    Status.TIME_LIMIT: "the time limit stopped the method (best point so far, if any)",
    Status.NUMERICAL_ERROR: "the method failed numerically",
    Status.SOLVER_ERROR: "the backend failed",
}


#: What ``Result.proof`` may say: why an ``optimal`` answer is proven.
PROOFS = {
    "certificate": "a dual bound within the gap tolerance (Result.certificate)",
    "convex": "a convex program solved to its dual tolerance",
    "eigenproblem": "the global ground state of a symmetric eigenproblem",
    "theorem": "a closed form inside the region where its theorem is proven",
}


def vocabulary(width: int = 20) -> str:
    """The status words and the proofs, one per line, for help texts.

    Examples
    --------
    >>> print(vocabulary().splitlines()[0])
    statuses:
    >>> "  locally_optimal     a local method converged" in vocabulary()
    True
    """
    lines = ["statuses:"] + [f"  {s.value:<{width}}{MEANINGS[s]}" for s in Status]
    lines += ["proofs (Result.proof, for optimal):"] + [f"  {k:<{width}}{v}" for k, v in PROOFS.items()]
    return "\n".join(lines)
