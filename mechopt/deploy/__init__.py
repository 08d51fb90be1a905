"""Deploying a mechanism: what its guarantee becomes once reports are used, composed or shuffled, and how it
leaves mechopt.

- :mod:`~mechopt.deploy.composition` (its privacy-loss distributions in :mod:`~mechopt.deploy.privacy_loss`):
  δ(ε) after k uses;
- :mod:`~mechopt.deploy.shuffle`: the central (ε, δ) after shuffling n reports (amplification bounds), and
  :mod:`~mechopt.deploy.shuffle_design`: a certified local design whose shuffled guarantee meets a target;
- :mod:`~mechopt.deploy.opendp`: export to OpenDP; :mod:`~mechopt.deploy.card`: a one-page report card.

This package sits above :mod:`mechopt.mechanism` and :mod:`mechopt.results` and imports neither problems nor
solvers.

Examples
--------
>>> from mechopt.deploy import central_guarantee, compose
>>> compose([[0.75, 0.25], [0.25, 0.75]], uses=2, eps=0.0).delta.tolist()
[[0.5]]
>>> central_guarantee([[0.75, 0.25], [0.25, 0.75]], n=1000, delta=1e-6).bound
'variation-ratio'
"""

from __future__ import annotations

from mechopt.deploy.composition import Composition, compose, compose_parallel
from mechopt.deploy.shuffle import ShuffleGuarantee, central_guarantee

__all__ = ["Composition", "compose", "compose_parallel", "ShuffleGuarantee", "central_guarantee"]
