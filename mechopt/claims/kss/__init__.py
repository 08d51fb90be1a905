"""Claims of the kss paper for ``mechopt verify --paper kss``: ``CLAIMS`` lists them all."""

from mechopt.claims.kss.theorems import CLAIMS

__all__ = ["CLAIMS"]
