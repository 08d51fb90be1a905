"""The ``lp`` solver's design flags (``--spanner DELTA``, ``--lp-method``): parsed, checked, turned into options.

Examples
--------
>>> import argparse
>>> lp_options(argparse.Namespace(spanner="1.5", lp_method=None), "lp", {})
('lp', {'spanner': 1.5})
"""

from __future__ import annotations

import argparse
import math
from typing import Any

from mechopt.errors import ParamError

__all__ = ["add_lp_flags", "lp_options"]

LP_METHODS = ("auto", "colgen", "full")


def add_lp_flags(p: argparse.ArgumentParser) -> None:
    """Add ``--spanner`` and ``--lp-method`` to the design parser."""
    p.add_argument(
        "--spanner",
        metavar="DELTA",
        help="metric-ldp only (lp solver): constrain a greedy DELTA-spanner's edges at eps/DELTA (DELTA > 1): "
        "eps-private, no worse than the optimum at eps/DELTA, status feasible (not the optimum at eps)",
    )
    p.add_argument(
        "--lp-method",
        metavar="METHOD",
        help="lp solver: auto (default), colgen (column generation) or full (the whole essential-pairs LP by "
        "HiGHS's interior point, certified by the same bound; for dense metrics such as Euclidean)",
    )


def lp_options(args: argparse.Namespace, solver: str | None, options: dict[str, Any]) -> tuple[str | None, dict]:
    """(solver, options) with the lp flags added; a ParamError for a bad value or another solver."""
    spanner, method = getattr(args, "spanner", None), getattr(args, "lp_method", None)
    if spanner is None and method is None:
        return solver, options
    flag = "--spanner" if spanner is not None else "--lp-method"
    if solver not in (None, "lp"):
        raise ParamError(f"{flag} is an option of the lp solver, not {solver!r}: drop --solver or {flag}")
    out = dict(options)
    if spanner is not None:
        out["spanner"] = _dilation(spanner)
    if method is not None:
        if method not in LP_METHODS:
            raise ParamError(f"--lp-method is one of {', '.join(LP_METHODS)}, got {method!r}")
        out["method"] = method
    return "lp", out


def _dilation(text: str) -> float:
    """``--spanner`` as a finite number > 1.

    >>> _dilation("1.2")
    1.2
    """
    from mechopt.model.numbers import ascii_float

    try:
        v = ascii_float(text)
    except ValueError:
        v = math.nan
    if not (math.isfinite(v) and v > 1):
        raise ParamError(f"--spanner is the spanner's dilation, a finite number > 1 (e.g. 1.5), got {text!r}")
    return v
