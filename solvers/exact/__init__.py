"""``exact``: the certified solver, an LP over the extreme rays of the column cone (math.md).

The entry module is :mod:`~mechopt.solvers.exact.solver`; its methods live in
:mod:`~mechopt.solvers.exact.methods` (enumerate, symmetry, column generation), the rays and
master LP beside it, exact pricing in :mod:`mechopt.solvers.exact.pricing` and the orbit
(prior-symmetry) machinery in :mod:`mechopt.solvers.exact.orbits`.
"""

from mechopt.solvers.exact.solver import SOLVERS, ExactSolver

__all__ = ["ExactSolver", "SOLVERS"]
