"""Claims of the lip paper for ``mechopt verify --paper lip``: ``CLAIMS`` lists them all."""

from mechopt.claims.lip.theorems import CLAIMS

__all__ = ["CLAIMS"]
