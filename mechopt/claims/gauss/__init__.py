"""Claims of the gauss paper for ``mechopt verify --paper gauss``: ``CLAIMS`` lists them all."""

from mechopt.claims.gauss.theorems import CLAIMS

__all__ = ["CLAIMS"]
