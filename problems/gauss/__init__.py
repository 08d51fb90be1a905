"""The Gaussian privacy-utility tradeoff (Sharma & Amariucai) with δ and γ constraints.

>>> from mechopt.problems.gauss import GaussDataset1
>>> GaussDataset1.from_params().n
2
"""

from mechopt.problems.gauss.problem import PROBLEMS, GaussDataset1, GaussDataset2, GaussianNoise, GaussProblem

__all__ = ["GaussianNoise", "GaussProblem", "GaussDataset1", "GaussDataset2", "PROBLEMS"]
