"""The symmetry classes of a column program, found once per program object, and its orbit count.

Inputs with equal prior (and equal utility data) form classes (:mod:`mechopt.solvers.exact.orbits.reduction`);
the exact solver asks for them while choosing its method and again in the ``symmetry`` method, so they are
cached per program (and per ``prior_equal`` tolerance).

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> cp = ChannelDesign.from_params(prior="uniform:6", notion="ldp", utility="mi", eps=1.0).column_program()
>>> orbit_count(cp, "ldp")                 # one class of 6: k = 0..6 entries high
7
>>> class_count(cp)
1
"""

from __future__ import annotations

from typing import Any

from mechopt import settings
from mechopt.model.forms import ColumnProgram
from mechopt.solvers.exact.orbits import reduction as _symmetry

__all__ = ["class_count", "orbit_count"]


def _sorted(cp: ColumnProgram) -> Any:
    """The inputs of the program sorted by class, once per program object (and tolerance)."""
    tol = settings.tolerance("prior_equal")
    cached = _CLASS_CACHE.get(id(cp))
    if cached is None or cached[0] is not cp or cached[1] != tol:
        _CLASS_CACHE.clear()
        cached = [cp, tol, _symmetry.sorted_classes(cp.prior, cp.utility, tol), None]
        _CLASS_CACHE[id(cp)] = cached
    return cached


def class_count(cp: ColumnProgram) -> int | None:
    """How many symmetry classes the program has, without building them (None if unsupported)."""
    return _sorted(cp)[2].g


def _classes(cp: ColumnProgram):
    """Symmetry classes of the program, computed once per program object."""
    cached = _sorted(cp)
    if cached[3] is None:
        cached[3] = _symmetry.classes_from(cp.prior, cached[2].found)
    return cached[3]


_CLASS_CACHE: dict[int, list] = {}


def orbit_count(cp: ColumnProgram, kind: str) -> int | None:
    """Number of orbit columns under prior symmetry, or None when the gain is unsupported."""
    cl = _classes(cp)
    if cl is None or kind not in ("ldp", "lip"):
        return None
    return _symmetry.orbit_count_ldp(cl) if kind == "ldp" else _symmetry.orbit_count_lip(cl)
