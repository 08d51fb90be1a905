"""``lp``: certified designs for utilities linear in Q, by column generation (entry: ``solver.py``)."""

from mechopt.solvers.lp.solver import SOLVERS, LPSolver

__all__ = ["LPSolver", "SOLVERS"]
