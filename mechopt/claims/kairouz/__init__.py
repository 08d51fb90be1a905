"""Claims of Kairouz, Oh, Viswanath (JMLR 2016) for ``mechopt verify --paper kairouz``: ``CLAIMS`` lists them all."""

from mechopt.claims.kairouz.theorems import CLAIMS

__all__ = ["CLAIMS"]
