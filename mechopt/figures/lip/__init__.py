"""Figure and table reproductions of the lip paper: ``FIGURES`` lists them all."""

from mechopt.figures.lip.figures import FIGURES

__all__ = ["FIGURES"]
