"""Claims of the fisher paper for ``mechopt verify --paper fisher``: ``CLAIMS`` lists them all."""

from mechopt.claims.fisher.theorems import CLAIMS

__all__ = ["CLAIMS"]
