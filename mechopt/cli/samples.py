"""``mechopt sample-size``: the samples an empirical prior needs to be within a radius w.p. ≥ 1 − δ.

``mechopt sample-size --symbols D --delta δ (--radius R | --samples N) [--bound B] [--json]``.

With ``--radius R``: the least number of samples n after which the empirical prior is within R of the
true one (L1 for ``--bound weissman``, L∞ for ``hoeffding``) with probability ≥ 1 − δ
(:func:`mechopt.problems.robust.sample_size`). With ``--samples N``: the radius at N samples
(:func:`mechopt.problems.robust.empirical_radius`). A design from counts (``mechopt design
--prior-counts ... --delta δ``) is private over that radius. ``--json`` prints ``{"bound", "norm",
"symbols", "delta", "samples", "radius"}``. Exit 0, or 2 on bad input (one line on stderr).

Examples
--------
>>> from mechopt.cli import main
>>> main(["sample-size", "--symbols", "4", "--delta", "1e-3", "--radius", "0.05"])  # doctest: +ELLIPSIS
samples 7638: L1 distance <= 0.05 with probability >= 1 - 0.001 on 4 symbols (weissman bound: ...)
0
"""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["register", "run_sample_size"]

_FORMULAS = {"weissman": "P(L1 >= r) <= (2^d - 2) exp(-n r^2 / 2)", "hoeffding": "P(Linf >= t) <= 2d exp(-2 n t^2)"}


def register(sub: Any) -> None:
    s = sub.add_parser(
        "sample-size",
        help="samples needed for an empirical prior within a radius w.p. >= 1 - delta (or the radius at N samples)",
        description="The concentration bound behind design --prior-counts: the least n with radius(n) <= R "
        "(--radius), or the radius after N samples (--samples). weissman: L1, (2^d - 2) exp(-n r^2 / 2) <= delta "
        "(Weissman et al. 2003); hoeffding: Linf, 2d exp(-2 n t^2) <= delta (Hoeffding and a union bound).",
    )
    s.add_argument("--symbols", required=True, metavar="D", help="the number of symbols d of the prior")
    s.add_argument("--delta", required=True, metavar="D", help="the probability in (0, 1) that the bound fails")
    mode = s.add_mutually_exclusive_group(required=True)
    mode.add_argument("--radius", metavar="R", help="the target radius: print the samples needed")
    mode.add_argument("--samples", metavar="N", help="a number of samples: print the radius")
    s.add_argument("--bound", default="weissman", metavar="B", help="weissman (L1, default) or hoeffding (Linf)")
    s.add_argument("--json", action="store_true", help="print one JSON document")
    s.set_defaults(handler=run_sample_size)


def run_sample_size(args: argparse.Namespace) -> int:
    from mechopt.cli._common import emit_json
    from mechopt.problems.robust.empirical import BOUNDS, check_bound, empirical_radius, sample_size, whole_number

    bound = check_bound(args.bound)
    d = whole_number(args.symbols, "--symbols", 1)
    if args.radius is not None:
        n = sample_size(args.radius, d, args.delta, bound)
        radius = float(args.radius)
    else:
        n = whole_number(args.samples, "--samples", 1)
        radius = empirical_radius(n, d, args.delta, bound)
    doc = {"bound": bound, "norm": BOUNDS[bound][0], "symbols": d, "delta": float(args.delta), "samples": n,
           "radius": radius}  # fmt: skip
    if args.json:
        emit_json(doc)
    else:
        print(
            f"samples {n}: {doc['norm']} distance <= {radius:.6g} with probability >= 1 - {doc['delta']:g} on {d} "
            f"symbols ({bound} bound: {_FORMULAS[bound]})"
        )
    return 0
