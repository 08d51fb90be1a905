"""From ``mechopt design``'s arguments to a problem, and ``mechopt sample-size``.

:func:`build_problem` reads the three ways of :mod:`mechopt.cli.design` (flags, ``--problem ID --set``,
``--spec FILE.toml``, checked by :func:`mechopt.io.catalog.load_design_spec`); :func:`robust_problem` the
prior-set forms (``--prior-set``, ``--prior-ball``, ``--prior-free``, ``--prior-counts``).
``mechopt sample-size`` is the concentration bound behind ``--prior-counts``.

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
import json
from typing import Any

from mechopt.cli.graph_file import resolve_graph as _resolve_graph
from mechopt.errors import ParamError, ProblemError

__all__ = ["build_problem", "parse_assignments", "parse_options", "robust_problem", "register", "run_sample_size"]


def parse_assignments(items: list[str], what: str = "--set") -> dict[str, str]:
    """``["k=v", ...]`` → ``{"k": "v"}``; a malformed item raises ParamError."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, val = item.partition("=")
        if not sep or not key.strip():
            raise ParamError(f"{what} expects KEY=VALUE, got {item!r}")
        out[key.strip()] = val.strip()
    return out


def parse_options(items: list[str]) -> dict[str, Any]:
    """Solver options from ``--opt k=v``: JSON values when they parse, else strings.

    Examples
    --------
    >>> parse_options(["n_starts=4", "method=SLSQP", "verbose=true"])
    {'n_starts': 4, 'method': 'SLSQP', 'verbose': True}
    """
    out: dict[str, Any] = {}
    for key, val in parse_assignments(items, "--opt").items():
        try:
            out[key] = json.loads(val)
        except ValueError:
            out[key] = val
    return out


def build_problem(
    args: argparse.Namespace, notes: list[str] | None = None
) -> tuple[Any, str | None, dict[str, Any], float | None]:
    """(problem, solver, solver options, time limit) from the design arguments.

    With ``--spec`` and ``--solver NAME``, the spec's options that belong to
    another solver are dropped (:func:`mechopt.registry.split_options`); the
    one-line note saying so is appended to ``notes`` when a list is given.
    Options given with ``--opt`` are never dropped.
    """
    from mechopt.registry import get_problem

    flags = {
        k: getattr(args, k, None)
        for k in (
            "notion",
            "utility",
            "prior",
            "eps",
            "values",
            "graph",
            "outputs",
            "coords",
            "norm",
            "eps_lower",
            "prior_set",
            "prior_ball",
            "prior_free",
            "prior_counts",
            "delta",
            "bound",
            "hull",
        )
        if getattr(args, k, None) is not None
    }  # (a Namespace built by hand may lack the newer flags)
    modes = [m for m, on in (("--problem", args.problem), ("--spec", args.spec), ("flags", flags)) if on]
    if len(modes) != 1:
        raise ParamError(
            "give exactly one of --problem ID, --spec FILE.toml, or --notion/--utility/--prior/--eps"
            + (f" (got {', '.join(modes)})" if modes else "")
        )
    if args.assign and not args.problem:
        raise ParamError("--set goes with --problem ID")
    from mechopt.cli._lp_flags import lp_options

    solver, options = lp_options(args, args.solver, parse_options(args.opt))
    tl = args.time_limit
    if args.spec:
        from mechopt.io.catalog import load_design_spec

        spec_path, spec = load_design_spec(args.spec)
        pid = spec.get("problem", "design")
        params = _resolve_graph(dict(spec["params"]), spec_path.parent)
        spec_options = dict(spec.get("options", {}))
        if solver is not None:
            from mechopt.registry import dropped_note, split_options

            spec_options, dropped = split_options(solver, spec_options, spec.get("solver"))
            if dropped and notes is not None:
                notes.append(dropped_note(solver, dropped, str(args.spec)))
        solver = solver or spec.get("solver")
        options = {**spec_options, **options}
        tl = tl if tl is not None else spec.get("time_limit")
    elif args.problem:
        pid, params = args.problem, _resolve_graph(parse_assignments(args.assign))
    else:
        if {"prior_set", "prior_ball", "prior_free", "prior_counts", "delta", "bound"} & set(flags):
            prob = robust_problem(flags, notes)
            return prob, solver or ("robust-lp" if prob.is_linear else "robust-rays"), options, tl
        if "hull" in flags:
            raise ParamError("--hull goes with a prior set: --prior-set, --prior-ball or --prior-free")
        geo = "coords" in flags  # a design on places (mechopt.problems.geo): the prior defaults to uniform
        if "norm" in flags and not geo:
            raise ParamError("--norm measures the distance between --coords locations: give --coords too")
        needed = ("notion", "utility", "eps") if geo else ("notion", "utility", "prior", "eps")
        missing = [f"--{k}" for k in needed if k not in flags]
        if missing:
            raise ParamError(f"missing {', '.join(missing)} (or use --problem ID / --spec FILE.toml)")
        pid, params = ("geo" if geo else "design"), _resolve_graph(flags)
    if _is_scalar(params.get("eps")):  # ε ≤ 0 is bad input at the CLI (notions themselves allow 0)
        from mechopt.notions import check_eps

        check_eps(params["eps"])
    cls = get_problem(pid)
    try:
        problem = cls.from_params(**params)
    except TypeError as exc:
        raise ProblemError(f"bad parameters for problem {pid!r}: {exc}") from None
    return problem, solver, options, tl


def _is_scalar(val: Any) -> bool:
    if val is None or isinstance(val, bool):
        return False
    try:
        float(val)
    except (TypeError, ValueError):
        return False
    except OverflowError:  # an integer beyond float range: a scalar, and check_eps says it is too large
        return True
    return True


def robust_problem(flags: dict[str, Any], notes: list[str] | None = None) -> Any:
    """A :class:`~mechopt.problems.robust.RobustDesign` from the design flags (exactly one set option); for
    ``--prior-counts`` the (ε, δ) guarantee of a design over the set is appended to ``notes``. mi over a TV ball
    is a :class:`~mechopt.problems.robust.BallDesign` (vertex generation; its certificate file is checked by
    certball: fully up to its ``RAYS_MAX_D`` symbols, partially above)."""
    import numpy as np

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
        if E.d > MAX_BALL_SYMBOLS or _generated(flags, E.ball().kind):  # by its inequalities
            return _ball_design(E, flags)
        S = E.prior_set()
    elif key == "prior_set":
        S = PriorSet.parse(flags["prior_set"])
    elif key == "prior_free":
        try:
            d = int(str(flags["prior_free"]))
        except ValueError:
            raise ParamError(f"--prior-free takes the number of symbols D, got {flags['prior_free']!r}") from None
        if str(flags["utility"]).lower() in ("mse", "histogram") and not flags.get("hull"):
            raise ParamError(
                f"--prior-free with --utility {flags['utility']} needs --hull: its vertices are point masses, "
                "where every channel's error is 0, so the worst case over them says nothing"
            )
        S = PriorSet.simplex(d)
    else:
        if "prior" not in flags:
            raise ParamError("--prior-ball R:KIND needs --prior (the ball's center)")
        r, sep, kind = str(flags["prior_ball"]).partition(":")
        if not sep:
            raise ParamError(f"--prior-ball takes R:KIND (e.g. 0.1:tv or 0.05:linf), got {flags['prior_ball']!r}")
        from mechopt.model.priors import read_prior

        center = read_prior(flags["prior"])[0]
        if center.size > MAX_BALL_SYMBOLS or _generated(flags, kind.strip().lower()):
            return _ball_design(BallSet(center, r, kind.strip().lower()), flags)
        S = PriorSet.ball(center, r, kind)
    prob = RobustDesign.from_params(prior_set=S, notion=flags["notion"], utility=flags["utility"], eps=flags["eps"],
                                    values=flags.get("values"), outputs=flags.get("outputs"),
                                    eps_lower=flags.get("eps_lower"), hull=bool(flags.get("hull")))  # fmt: skip
    if prob.utility.name == "mi" and np.any(np.count_nonzero(prob.prior_set.vertices, axis=1) == 1):
        raise ParamError(  # true ("optimal, value 0") but void: refused, as --prior-free mse without --hull
            "a worst case of mutual information over a set with a point mass says nothing: every channel has "
            "information 0 there, so every channel is optimal; drop the point masses from the set, or use "
            "--utility mae"
        )
    if prob.hull and not prob.hull_mse and notes is not None:
        notes.append(
            f"--hull changes nothing for {prob.utility.name}: it is linear or concave in the prior, so its worst "
            "prior over the hull is a vertex and the design over the vertices is the hull's"
        )
    return prob


def _generated(flags: dict[str, Any], kind: str) -> bool:
    """Whether mi over a TV ball: designed by vertex generation at any d (:mod:`mechopt.solvers.robust.ballrays`;
    the vertex form over all of the ball's vertices did not certify d = 8 in 120 s)."""
    return str(flags["utility"]).lower() == "mi" and kind == "tv"


def _ball_design(ball: Any, flags: dict[str, Any]) -> Any:
    """A :class:`~mechopt.problems.robust.BallDesign` (a ball by its inequalities: mae at any d, mi over a TV ball)
    from the flags."""
    from mechopt.problems.robust import BallDesign
    from mechopt.problems.robust.balls import not_certified

    utility = str(flags["utility"]).lower()
    kind = ball.ball().kind if callable(getattr(ball, "ball", None)) else ball.kind
    if utility != "mae" and not (utility == "mi" and kind == "tv"):
        raise ParamError(not_certified(utility, ball.d, str(flags["notion"]).lower(), kind))
    if flags.get("hull"):
        raise ParamError("--hull goes with mse or histogram; a ball design takes mae or mi")
    B = ball.ball() if callable(getattr(ball, "ball", None)) else ball
    if utility == "mi" and float((1.0 - B.center).min()) <= B.radius:
        raise ParamError(  # true ("optimal, value 0") but void, as for a set of vertices with a point mass
            "a worst case of mutual information over a ball holding a point mass says nothing: every channel has "
            "information 0 there; take more samples (a smaller radius), or use --utility mae"
        )
    return BallDesign.from_params(prior_set=ball, notion=flags["notion"], eps=flags["eps"], utility=utility,
                                  values=flags.get("values"), outputs=flags.get("outputs"),
                                  eps_lower=flags.get("eps_lower"))  # fmt: skip


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
