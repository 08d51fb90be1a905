"""``robust-lp`` and ``robust-rays``: designs over a set of priors (:class:`~mechopt.problems.robust.RobustDesign`).

:mod:`~mechopt.solvers.robust.lp` is ``robust-lp`` (linear utilities: one LP with our own dual bound);
:mod:`~mechopt.solvers.robust.rays` is ``robust-rays`` (mi, mse, histogram: column generation over the
extreme rays of the privacy cone), priced by :mod:`~mechopt.solvers.robust.pricing` and, for mutual
information above the enumerable sizes, the meet-in-the-middle trees of :mod:`~mechopt.solvers.robust.tree`
(exact, to 40 symbols), the pattern search of :mod:`~mechopt.solvers.robust.search` and the branch and
bound of :mod:`~mechopt.solvers.robust.bnb`; under LIP / PML / ALIP above ``cone_max`` by the branch and bound
over the cone itself of :mod:`~mechopt.solvers.robust.cone`.
"""

from mechopt.solvers.robust.lp import RobustLPSolver
from mechopt.solvers.robust.rays import RobustRaysSolver

__all__ = ["RobustLPSolver", "RobustRaysSolver"]
