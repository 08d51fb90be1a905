"""Using a mechanism: randomize data with a channel Q and estimate the input distribution from the reports.

The one object is :class:`Mechanism` (:mod:`mechopt.mechanism.core`; what it tells
from reports, with the posterior means of an ``mse`` design in the unit of its values, is
:mod:`mechopt.mechanism.inference`); its sampler (:mod:`~mechopt.mechanism.sampling`), estimators
(:mod:`~mechopt.mechanism.estimators`, :mod:`~mechopt.mechanism.estimate`),
consistency maps (:mod:`~mechopt.mechanism.consistency`), identifiability
(:mod:`~mechopt.mechanism.identify`) and file (:mod:`~mechopt.mechanism.files`)
are modules of their own. This package imports neither problems nor solvers.

Examples
--------
>>> from mechopt.mechanism import Mechanism
>>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]])
>>> m.estimate_counts([600, 400]).frequencies.round(6).tolist()
[0.7, 0.3]
"""

from __future__ import annotations

from mechopt.mechanism.consistency import clip, make_consistent, norm_sub, project_simplex
from mechopt.mechanism.core import Mechanism  # noqa: F401
from mechopt.mechanism.estimate import Estimate  # noqa: F401

# Mechanism and Estimate are importable from here and documented where they are defined and where
# users import them (mechopt); __all__ lists the rest, so the API pages describe each class once.
__all__ = ["clip", "norm_sub", "project_simplex", "make_consistent"]
