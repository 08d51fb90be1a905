"""Optional dependencies: import one, or say which extra installs it.

The core (design, solve, audit, verify, sweep) needs numpy, scipy, cvxpy and
networkx; plots need matplotlib (``mechopt[plot]``), the property-based test
strategies need hypothesis (``mechopt[test]``), the peer libraries of the
benchmarks need ``mechopt[peers]``.

Examples
--------
>>> from mechopt.runtime.optional import require
>>> require("math", "plot", "nothing").sqrt(4.0)
2.0
>>> require("no_such_module_xyz", "plot", "plots")
Traceback (most recent call last):
...
mechopt.errors.MissingDependency: plots need no_such_module_xyz, which is not installed: pip install 'mechopt[plot]'
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mechopt.errors import MissingDependency, ParamError

__all__ = ["require", "require_matplotlib"]


def require(module: str, extra: str, what: str) -> ModuleType:
    """Import ``module``; if it (or its top-level package) is missing, raise
    :class:`~mechopt.errors.MissingDependency` naming ``pip install 'mechopt[extra]'``.

    ``what`` says what needs it, as the subject of "need": ``"plots"``, ``"mechopt.testing"``.
    An import error inside an installed package is not hidden.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        top = module.split(".")[0]
        if exc.name not in (module, top):
            raise
        raise MissingDependency(f"{what} need {top}, which is not installed: pip install 'mechopt[{extra}]'") from exc


def require_matplotlib() -> ModuleType:
    """``matplotlib`` (the non-interactive Agg backend unless one was chosen), or the error naming ``mechopt[plot]``.

    A backend named in the ``MPLBACKEND`` environment variable that matplotlib
    does not know (it refuses it on import with a ValueError) is a
    :class:`~mechopt.errors.ParamError` saying so.

    >>> require_matplotlib().__name__
    'matplotlib'
    """
    import os

    try:
        return require("matplotlib", "plot", "plots")
    except ValueError as exc:
        backend = os.environ.get("MPLBACKEND")
        if backend is None or "backend" not in str(exc):
            raise
        raise ParamError(
            f"matplotlib refuses the backend MPLBACKEND={backend!r} set in the environment: "
            "unset MPLBACKEND, or set it to Agg (files) or a backend matplotlib lists"
        ) from None
