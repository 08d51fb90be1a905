"""Comparing channels: Blackwell dominance (Q2 = Q1·R) with witnesses checked in exact rational arithmetic.

:func:`dominates` decides it (:mod:`mechopt.dominance.blackwell`); :mod:`mechopt.dominance.rational`
holds the exact matrices the witnesses are checked with.

Examples
--------
>>> from mechopt.dominance import dominates
>>> dominates([[1, 0], [0, 1]], [["3/4", "1/4"], ["1/4", "3/4"]]).verdict
'garbling'
"""

from mechopt.dominance.blackwell import VERDICTS, Dominance, bayes_gain, dominates, garbling_residual  # noqa: F401

# dominates and Dominance are importable from here and documented where they are defined and where
# users import them (mechopt); __all__ lists the rest, so the API pages describe each object once.
__all__ = ["garbling_residual", "bayes_gain", "VERDICTS"]
