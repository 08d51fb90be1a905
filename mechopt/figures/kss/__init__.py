"""Figure and table reproductions of the kss paper: ``FIGURES`` lists them all."""

from mechopt.figures.kss.figures import FIGURES

__all__ = ["FIGURES"]
