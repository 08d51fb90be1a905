"""The flags of ``mechopt design`` (:func:`register`) and its ``--utility`` help.

The command itself (what runs with these flags) is :mod:`mechopt.cli.design.command`; the three ways of giving
the problem are read by :mod:`mechopt.cli.design_problem`.

Examples
--------
>>> import argparse
>>> sub = argparse.ArgumentParser(prog="mechopt").add_subparsers()
>>> register(sub)
>>> args = sub.choices["design"].parse_args(["--problem", "lip-binary", "--set", "eps=1", "--json"])
>>> args.problem, args.assign, args.json, args.handler.__name__
('lip-binary', ['eps=1'], True, 'run_design')
"""

from __future__ import annotations

import argparse
from typing import Any

from mechopt.cli.design.command import PROGRESS_DELAY, run_design
from mechopt.results.result import vocabulary

__all__ = ["register", "utility_help", "DESIGN_EPILOG"]

DESIGN_EPILOG = (
    "The result's status says what is proven: exact and search (certificate), conic (convex),\n"
    "spectral (eigenproblem) and a closed form inside its proven region (theorem) may say\n"
    "optimal; sqp and gd-penalty at best locally_optimal; greedy and anneal feasible.\n"
    "Exit code 1 when there is no mechanism or it fails its audit (infeasible_point).\n\n" + vocabulary()
)


def register(sub: Any) -> None:
    from mechopt.cli._common import positive_float
    from mechopt.cli._lp_flags import add_lp_flags

    p = sub.add_parser(
        "design",
        help="design a mechanism for a custom or catalog problem",
        description="Design a mechanism: from flags, from --problem ID --set k=v, or from --spec FILE.toml.",
        epilog=DESIGN_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("problem (one of: flags, --problem, --spec)")
    src.add_argument("--problem", metavar="ID", help="a catalog problem id (mechopt.registry.problem_ids())")
    src.add_argument(
        "--set",
        dest="assign",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a from_params parameter of --problem (repeatable)",
    )
    src.add_argument("--spec", metavar="FILE.toml", help="a TOML design spec (or a built-in spec name)")
    src.add_argument("--notion", help="ldp, lip, mip, graph-ldp, metric-ldp, pml, alip")
    src.add_argument("--utility", help=utility_help())
    src.add_argument(
        "--prior",
        metavar="P",
        help="0.1,0.2,0.7 | uniform:d | a .npy, .txt or .csv file (numbers, or label,probability lines "
        "with an optional header: the labels name the inputs)",
    )
    src.add_argument("--eps", "--eps-upper", dest="eps", help="privacy level ε > 0 (alip: the upper level ε_u)")
    src.add_argument("--eps-lower", metavar="L", help="alip only: the lower level ε_l ≥ 0")
    src.add_argument(
        "--prior-set",
        metavar="SET",
        help='robust design over the hull of priors "p,..;p,.." or a .json list of priors (--utility mae, mi, '
        "mse, histogram; notion ldp, lip, pml, alip): private at every prior, the worst vertex optimised "
        "(mse/histogram: the worst of the vertices given, not of their hull)",
    )
    src.add_argument(
        "--prior-ball",
        metavar="R:KIND",
        help="robust design over {P : dist(P, --prior) <= R}, KIND tv or linf: exact vertices for d <= 10 (mae, "
        "mi, mse, histogram); above 10 the ball by its inequalities, --utility mae only (mi, mse, histogram "
        "refused: not certified there)",
    )
    src.add_argument("--prior-free", metavar="D", help="minimax design over every prior on D symbols (the simplex)")
    src.add_argument(
        "--prior-counts",
        metavar="N,N,...",
        help="(eps, delta) design from sample counts: private at every prior within the --bound radius of the "
        "empirical prior, so for the true prior with probability >= 1 - --delta over the samples (above 10 "
        "symbols: --utility mae only, as --prior-ball)",
    )
    src.add_argument("--delta", metavar="D", help="with --prior-counts: the probability in (0, 1) the set misses")
    src.add_argument("--bound", metavar="B", help="with --prior-counts: weissman (L1, default) or hoeffding (Linf)")
    src.add_argument(
        "--hull",
        action="store_const",
        const=True,
        default=None,
        help="with a prior set and --utility mse or histogram: the worst case over the set's hull (an interior "
        "prior can be worst), certified by adding worst priors to the set until the bounds meet",
    )
    src.add_argument("--values", metavar="a,b,...", help="input values for mse/mae (default 0,1,...,d-1)")
    src.add_argument(
        "--outputs",
        metavar="b,c,...",
        help="mae only: the fixed output estimates, one per output (default: the values)",
    )
    src.add_argument("--graph", metavar="FILE", help="policy graph (edge list, .graphml, .gml, node-link .json)")
    src.add_argument(
        "--coords",
        metavar="FILE|grid:KxK",
        help="locations (grid:KxK, grid:RxC, line:N, or a file of coordinates): a design on places "
        "(--utility loss, the distance to the reported location; --prior default uniform, or counts:FILE)",
    )
    src.add_argument("--norm", choices=["euclidean", "manhattan", "haversine"], help="with --coords: the distance")
    p.add_argument(
        "--solver",
        metavar="NAME",
        help="a registered solver (default: the spec's, else the first that "
        "applies); a spec's options for another solver are dropped with a note",
    )
    p.add_argument(
        "--opt",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a solver option, value parsed as JSON when it can be (repeatable)",
    )
    p.add_argument(
        "--time-limit",
        type=positive_float,
        metavar="SECONDS",
        help="wall-clock limit on the whole call, counted from the start of the process: reading the inputs, "
        "solving and auditing (default none: the solver stops on its own iteration cap); writing the answer "
        "comes after it (the --json of a structured 10^7-output mechanism is ~470 MB)",
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="write the design document (the --json one: the mechanism as "
        '{"mechanism": {"Q", "inputs", "outputs", "prior"}, ...}) to FILE, or Q alone to '
        "FILE.npy (large designs); mechopt audit reads both",
    )
    p.add_argument(
        "--certificate",
        metavar="FILE",
        help="write the certificate (problem, Q, dual evidence; docs: howto/certificates) to FILE.json for "
        "'mechopt check FILE' or the standalone certcheck.py (exact solver; ldp, lip, graph-ldp, metric-ldp, "
        "cip with mse, histogram, mi; robust-lp and robust-rays over a prior set), or certball.py (robust-lp "
        "over a ball beyond 10 symbols)",
    )
    p.add_argument(
        "--plot",
        metavar="FILE",
        help="draw the mechanism (heatmap of Q with the prior and posteriors) to FILE (.png, .pdf, .svg)",
    )
    p.add_argument(
        "--compare-baselines",
        action="store_true",
        help="compare the design with GRR, OUE and the best k-subset at the same eps on this prior: the variance "
        "of each one's unbiased frequency estimate (or EM's squared bias, which no n removes, where none is "
        "unbiased) and the design's objective",
    )
    add_lp_flags(p)
    p.add_argument("--json", action="store_true", help="print the result as one JSON document")
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a status line on stderr while the solver works (column-generation rounds, columns, gap, "
        f"time); default: on a terminal after {PROGRESS_DELAY:g} s, never on a pipe or with --json",
    )
    p.add_argument("--list", action="store_true", help="list the registered problem ids and their parameters")
    p.set_defaults(handler=run_design)


def utility_help() -> str:
    """The ``--utility`` help: the designable utilities, then which solver designs them.

    >>> print(utility_help())
    mse, histogram, mi, mae, freq-var (mse, histogram, mi: exact, certified; under mip: sqp, local | mae: lp under
    ldp, lip, graph-/metric-ldp, else conic (LP or convex program), certified | freq-var: sqp, local: not convex)
    """
    from mechopt.utilities import DESIGNED_BY, UTILITIES

    groups: dict[str, list[str]] = {}
    for name in UTILITIES:
        groups.setdefault(DESIGNED_BY[name], []).append(name)
    return f"{', '.join(UTILITIES)} (" + " | ".join(f"{', '.join(names)}: {how}" for how, names in groups.items()) + ")"
