"""Robust and prior-free (minimax) design over a set of priors: the set, the problem, its audit."""

from mechopt.problems.robust.balls import BallDesign
from mechopt.problems.robust.ballset import BallSet
from mechopt.problems.robust.empirical import BOUNDS, EmpiricalPrior, empirical_radius, sample_size
from mechopt.problems.robust.priorsets import BALL_KINDS, PriorSet
from mechopt.problems.robust.problems import NOTIONS, RobustDesign, box_factors, robust_levels

__all__ = [
    "BALL_KINDS",
    "BOUNDS",
    "BallDesign",
    "BallSet",
    "NOTIONS",
    "EmpiricalPrior",
    "PriorSet",
    "RobustDesign",
    "box_factors",
    "empirical_radius",
    "robust_levels",
    "sample_size",
]
