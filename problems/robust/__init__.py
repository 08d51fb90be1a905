"""Robust and prior-free (minimax) design over a set of priors: the set, the problem, its audit."""

from mechopt.problems.robust.priorsets import BALL_KINDS, PriorSet
from mechopt.problems.robust.problems import NOTIONS, RobustDesign, box_factors, robust_levels

__all__ = ["BALL_KINDS", "NOTIONS", "PriorSet", "RobustDesign", "box_factors", "robust_levels"]
