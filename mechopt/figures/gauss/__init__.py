"""Figure and table reproductions of the gauss paper: ``FIGURES`` lists them all."""

from mechopt.figures.gauss.figures import FIGURES

__all__ = ["FIGURES"]
