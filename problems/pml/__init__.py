"""Pointwise maximal leakage (Grosse, Saeidian, Oechtering, arXiv 2310.07381): the closed-form optimal mechanisms."""

from mechopt.problems.pml.closed import (
    binary_channel,
    high_privacy_channel,
    high_privacy_regime,
    uniform_channel,
    uniform_mi,
    uniform_posterior,
)

__all__ = [
    "binary_channel",
    "high_privacy_channel",
    "high_privacy_regime",
    "uniform_channel",
    "uniform_mi",
    "uniform_posterior",
]
