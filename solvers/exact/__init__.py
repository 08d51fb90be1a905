"""``exact``: the certified solver, an LP over the extreme rays of the column cone (math.md).

The entry module is :mod:`~mechopt.solvers.exact.solver`; its methods live in
:mod:`~mechopt.solvers.exact.methods` (enumerate, column generation) and
:mod:`~mechopt.solvers.exact.symmetry`, their columns (the enumerated rays, the choice of pricer) in
:mod:`~mechopt.solvers.exact.columns`, the rays and master LP beside them, exact pricing in
:mod:`mechopt.solvers.exact.pricing` and the orbit (prior-symmetry) machinery in
:mod:`mechopt.solvers.exact.orbits`.
"""

from mechopt.solvers.exact.solver import SOLVERS, ExactSolver

__all__ = ["ExactSolver", "SOLVERS"]
