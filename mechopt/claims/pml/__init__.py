"""Claims of the PML paper for ``mechopt verify --paper pml``: ``CLAIMS`` lists them all."""

from mechopt.claims.pml.theorems import CLAIMS

__all__ = ["CLAIMS"]
