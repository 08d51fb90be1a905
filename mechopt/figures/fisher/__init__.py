"""Figure and table reproductions of the fisher paper: ``FIGURES`` lists them all."""

from mechopt.figures.fisher.figures import FIGURES

__all__ = ["FIGURES"]
