"""Numerical tolerances, in one place, overridable per call.

Every algorithm reads its tolerances from :data:`DEFAULTS` through
:func:`tolerance`; a caller overrides one for a block with :func:`override`
or for one call with the solver option of the same name.

Examples
--------
>>> from mechopt import settings
>>> settings.tolerance("prior_sum")
1e-09
>>> with settings.override(prior_sum=1e-6):
...     settings.tolerance("prior_sum")
1e-06
"""
from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, fields, replace

from .errors import ParamError

__all__ = ["Tolerances", "DEFAULTS", "tolerance", "override", "current"]


@dataclass(frozen=True)
class Tolerances:
    """The tolerances every algorithm uses.

    Attributes
    ----------
    prior_sum : float
        |Σ P − 1| allowed for a prior.
    row_sum : float
        |Σ_y Q[x, y] − 1| allowed for a channel row.
    negative : float
        Most negative entry tolerated (clipped to 0) in a channel or prior.
    privacy : float
        Audited ε may exceed the target by this much (absolute, in nats)
        and a mechanism still counts as private.
    gap : float
        Relative certificate gap below which a result is ``optimal``.
    merge : float
        Posteriors closer than this (max-norm) are merged into one output.
    prior_equal : float
        Prior values closer than this are one symmetry class.
    zero_mass : float
        Prior entries at or below this are dropped from a design.
    density : float
        |∫p − 1| allowed for a noise density on a grid (and its most negative
        value, relative to its maximum); the conic solver's feasibility is ~1e-8.
    """

    prior_sum: float = 1e-9
    row_sum: float = 1e-8
    negative: float = 1e-12
    privacy: float = 1e-7
    gap: float = 1e-7
    merge: float = 1e-9
    prior_equal: float = 1e-12
    zero_mass: float = 0.0
    density: float = 1e-6


DEFAULTS = Tolerances()
_current: list[Tolerances] = [DEFAULTS]


def current() -> Tolerances:
    """The tolerances in force."""
    return _current[-1]


def tolerance(name: str) -> float:
    """One tolerance by name; unknown names raise :class:`ParamError`."""
    try:
        return getattr(current(), name)
    except AttributeError:
        names = ", ".join(f.name for f in fields(Tolerances))
        raise ParamError(f"unknown tolerance {name!r}; known: {names}") from None


@contextlib.contextmanager
def override(**values: float) -> Iterator[Tolerances]:
    """Override tolerances inside a ``with`` block."""
    known = {f.name for f in fields(Tolerances)}
    bad = sorted(set(values) - known)
    if bad:
        raise ParamError(f"unknown tolerance(s) {bad}; known: {sorted(known)}")
    for key, val in values.items():
        if not (isinstance(val, (int, float)) and val >= 0):
            raise ParamError(f"tolerance {key} must be a non-negative number, got {val!r}")
    _current.append(replace(current(), **values))
    try:
        yield current()
    finally:
        _current.pop()
