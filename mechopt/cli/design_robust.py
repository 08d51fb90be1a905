"""The robust forms of ``mechopt design`` (``--prior-set``, ``--prior-ball``, ``--prior-free``, ``--prior-counts``)
and ``mechopt sample-size``, the concentration bound behind ``--prior-counts``.

``mechopt sample-size --symbols D --delta δ (--radius R | --samples N) [--bound B] [--json]``: with
``--radius R``, the least number of samples n after which the empirical prior is within R of the true
one (L1 for ``--bound weissman``, L∞ for ``hoeffding``) with probability ≥ 1 − δ
(:func:`mechopt.problems.robust.sample_size`); with ``--samples N``, the radius at N samples
(:func:`mechopt.problems.robust.empirical_radius`). ``--json`` prints ``{"bound", "norm", "symbols",
"delta", "samples", "radius"}``. Exit 0, or 2 on bad input (one line on stderr).

Examples
--------
>>> prob = robust_problem({"prior_free": "3", "notion": "ldp", "utility": "mae", "eps": "1"})
>>> prob.prior_set.source, prob.notion.name
('simplex:3', 'ldp')
>>> from mechopt.cli import main
>>> main(["sample-size", "--symbols", "4", "--delta", "1e-3", "--radius", "0.05"])  # doctest: +ELLIPSIS
samples 7638: L1 distance <= 0.05 with probability >= 1 - 0.001 on 4 symbols (weissman bound: ...)
0
"""

from __future__ import annotations

import argparse
from typing import Any

from mechopt.errors import ParamError

__all__ = ["robust_problem", "register", "run_sample_size"]


def robust_problem(flags: dict[str, Any], notes: list[str] | None = None) -> Any:
    """A :class:`~mechopt.problems.robust.RobustDesign` from the design flags (exactly one set option); for
    ``--prior-counts`` the (ε, δ) guarantee of a design over the set is appended to ``notes``."""
    from mechopt.problems.robust import BallSet, EmpiricalPrior, PriorSet, RobustDesign
    from mechopt.problems.robust.priorsets import MAX_BALL_SYMBOLS

    given = [k for k in ("prior_set", "prior_ball", "prior_free", "prior_counts") if k in flags]
    if not given and {"delta", "bound"} & set(flags):
        raise ParamError("--delta and --bound go with --prior-counts (a design from sample counts)")
    if len(given) != 1:
        raise ParamError("give one of --prior-set, --prior-ball, --prior-free, --prior-counts")
    missing = [f"--{k}" for k in ("notion", "utility", "eps") if k not in flags]
    if missing:
        raise ParamError(f"missing {', '.join(missing)} for a robust design")
    allowed = {"notion", "utility", "eps", "values", "outputs", "eps_lower", "prior", "hull", *given}
    bad = sorted(set(flags) - allowed - ({"delta", "bound"} if given[0] == "prior_counts" else set()))
    if bad or ("prior" in flags and given[0] != "prior_ball"):
        extra = bad or ["prior"]
        raise ParamError(f"--{extra[0].replace('_', '-')} does not go with --{given[0].replace('_', '-')}")
    key = given[0]
    if key == "prior_counts":
        if "delta" not in flags:
            raise ParamError("--prior-counts needs --delta (the probability in (0, 1) that the set misses the prior)")
        E = EmpiricalPrior.from_counts(flags["prior_counts"], flags["delta"], flags.get("bound", "weissman"))
        if notes is not None:
            notes.append(E.guarantee(str(flags["notion"]), flags["eps"]))
        if E.d > MAX_BALL_SYMBOLS and str(flags["utility"]).lower() == "mae":  # no vertex list: the ball's LP duals
            return _ball_design(E, flags)
        S = E.prior_set()
    elif key == "prior_set":
        S = PriorSet.parse(flags["prior_set"])
    elif key == "prior_free":
        try:
            d = int(str(flags["prior_free"]))
        except ValueError:
            raise ParamError(f"--prior-free takes the number of symbols D, got {flags['prior_free']!r}") from None
        S = PriorSet.simplex(d)
    else:
        if "prior" not in flags:
            raise ParamError("--prior-ball R:KIND needs --prior (the ball's center)")
        r, sep, kind = str(flags["prior_ball"]).partition(":")
        if not sep:
            raise ParamError(f"--prior-ball takes R:KIND (e.g. 0.1:tv or 0.05:linf), got {flags['prior_ball']!r}")
        from mechopt.model.priors import read_prior

        center = read_prior(flags["prior"])[0]
        if center.size > MAX_BALL_SYMBOLS and str(flags["utility"]).lower() == "mae":  # no vertex list, any d
            return _ball_design(BallSet(center, r, kind.strip().lower()), flags)
        S = PriorSet.ball(center, r, kind)
    return RobustDesign.from_params(prior_set=S, notion=flags["notion"], utility=flags["utility"], eps=flags["eps"],
                                    values=flags.get("values"), outputs=flags.get("outputs"),
                                    eps_lower=flags.get("eps_lower"), hull=bool(flags.get("hull")))  # fmt: skip


def _ball_design(ball: Any, flags: dict[str, Any]) -> Any:
    """A :class:`~mechopt.problems.robust.BallDesign` (a ball by its inequalities: mae at any d) from the flags."""
    from mechopt.problems.robust import BallDesign

    if flags.get("hull"):
        raise ParamError("--hull goes with mse or histogram; a ball design takes mae")
    return BallDesign.from_params(prior_set=ball, notion=flags["notion"], eps=flags["eps"], values=flags.get("values"),
                                  outputs=flags.get("outputs"), eps_lower=flags.get("eps_lower"))  # fmt: skip


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
