"""Deploying a mechanism: accounting for repeated use (:mod:`~mechopt.deploy.composition`, its privacy-loss
distributions in :mod:`~mechopt.deploy.privacy_loss`), export to OpenDP (:mod:`~mechopt.deploy.opendp`) and a
one-page report card (:mod:`~mechopt.deploy.card`).

This package sits above :mod:`mechopt.mechanism` and :mod:`mechopt.results` and imports neither problems nor
solvers.

Examples
--------
>>> from mechopt.deploy import compose
>>> compose([[0.75, 0.25], [0.25, 0.75]], uses=2, eps=0.0).delta.tolist()
[[0.5]]
"""

from __future__ import annotations

from mechopt.deploy.composition import Composition, compose, compose_parallel

__all__ = ["Composition", "compose", "compose_parallel"]
