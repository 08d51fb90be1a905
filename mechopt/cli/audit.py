"""``mechopt audit MECHANISM [--prior P] [--eps E [--notion N]] [--report FILE]``.

Prints the smallest ε a mechanism satisfies under LDP, LIP, MIP and PML. The
mechanism is read by :func:`mechopt.io.mechfile.read_mechanism`: a ``.npy`` array,
a ``.csv`` matrix, a bare JSON matrix, or a JSON object with ``"Q"`` (or
``{"mechanism": {"Q": ...}}``); rows must be probability vectors, as many as
the prior has symbols. ``--json`` prints ``{"notions": {"ldp": {"eps": ...},
"lip": {...}, "mip": {...}, "pml": {...}}, "inputs": d, "outputs": m}`` with ``null`` for an
infinite ε (plus ``"check"`` with ``--eps``).

With ``--eps E`` the command is a pass/fail check for CI pipelines: exit 0
when the mechanism satisfies ε = E under every ``--notion`` (default ``ldp``)
within the privacy tolerance, exit 1 when it does not (one line says which
notion failed and by how much), exit 2 on bad input. A file's own privacy
claim (``{"privacy": {"notion", "eps"}}``, as ``design --out`` writes it) is
always checked the same way (:mod:`mechopt.io.privacy_claim`): exit 1 when
its Q needs a larger ε than it claims (``--json``: ``"claim"``); an ALIP claim
(``"eps"`` the upper level, ``"eps_lower"`` the lower) on both levels; a LIP, MIP, PML or ALIP
claim under the file's own prior, even when ``--prior`` audits another; a LIP, PML or ALIP claim of a robust
design's file (``"prior_set"``, as ``design --out`` writes it) at every vertex of its set when no ``--prior``
is given (``"claim": {..., "prior_set": k}``), or over the ball of a ball design's file (``"prior_ball"``)
at the priors where each output is worst (``"prior_set"``: how many). A file
stored below double precision (a float32 ``.npy``) is judged at its own
precision. ``--report FILE`` writes
the privacy report of :mod:`mechopt.results.report` as ``.json``, ``.html`` (one
self-contained page) or ``.png``.

Examples
--------
>>> from mechopt.cli import main
>>> main(["audit", "/nonexistent.json"])
2
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

__all__ = ["register", "run_audit", "check_eps_levels"]

CHECK_NOTIONS = ("ldp", "lip", "mip", "pml")


def register(sub: Any) -> None:
    a = sub.add_parser(
        "audit",
        help="audit a mechanism (JSON, .npy, .csv): ε under LDP/LIP/MIP, pass/fail, report",
        description="Print the smallest ε a mechanism satisfies under each notion (null: infinite). "
        "With --eps: exit 0 if private, 1 if not, 2 on bad input. A file's own privacy claim is always "
        "checked (exit 1 when broken). Audit checks privacy, not the file's value: a value is proven by "
        "'mechopt check' on the design's --certificate.",
    )
    a.add_argument(
        "mechanism",
        metavar="MECHANISM",
        help='a .json file (a matrix, {"Q": ...} or {"mechanism": {"Q": ...}}), a .npy or a .csv '
        "matrix; rows are inputs",
    )
    a.add_argument("--prior", metavar="P", help='the prior (default: the file\'s "prior"; without one only LDP)')
    a.add_argument("--eps", metavar="E", help="check the mechanism is E-private: exit 0 if so, 1 if not")
    a.add_argument(
        "--notion",
        action="append",
        choices=CHECK_NOTIONS,
        metavar="N",
        help="notion checked by --eps: ldp (default), lip, mip or pml (all but ldp need a prior); repeatable",
    )
    a.add_argument(
        "--report",
        metavar="FILE",
        help="write the privacy report (ε per notion, maximal leakage, mutual information, Bayes "
        "vulnerability, δ(ε) profile) to FILE.json, FILE.html or FILE.png",
    )
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=run_audit)


def check_eps_levels(
    notions: dict[str, dict[str, Any]], target: float, wanted: list[str], precision: float = 0.0
) -> dict[str, Any]:
    """The ``--eps`` verdict: for each wanted notion, whether its smallest ε ≤ ``target`` + tolerance
    (the privacy tolerance, or ``precision`` for a file stored below double precision).

    Examples
    --------
    >>> check_eps_levels({"ldp": {"eps": 1.2}}, 1.0, ["ldp"])["failed"]
    [{'notion': 'ldp', 'eps': 1.2, 'excess': 0.19999999999999996}]
    """
    from mechopt import settings

    tol = max(settings.tolerance("privacy"), precision)
    failed = []
    for name in wanted:
        eps = notions[name]["eps"]
        if eps is None or eps - target > tol:
            failed.append({"notion": name, "eps": eps, "excess": None if eps is None else eps - target})
    return {"eps": target, "notions": wanted, "tolerance": tol, "private": not failed, "failed": failed}


def _verdict_line(check: dict[str, Any]) -> str:
    if check["private"]:
        return f"PASS: eps <= {check['eps']:g} under {', '.join(check['notions'])} (tolerance {check['tolerance']:g})"
    parts = [
        f"{f['notion']} needs eps = inf (a zero next to a positive entry in some column)"
        if f["eps"] is None
        else f"{f['notion']} eps = {f['eps']:.6g} exceeds {check['eps']:g} by {f['excess']:.3g} nats"
        for f in check["failed"]
    ]
    return "FAIL: " + "; ".join(parts)


def _worst_vertex(Q: Any, vertices: Any) -> dict[str, dict[str, Any]]:
    """The LIP, PML and ALIP levels of Q over a prior set: the largest at its vertices, on the rows of the set's
    support (each side of these notions is a log of a ratio to λ = P·Q[:, y], linear in P, so its maximum over
    the hull is at a vertex; a vertex with P(x) = 0 still constrains row x, as the hull has priors with
    P(x) > 0 arbitrarily close to it: :func:`mechopt.problems.robust.problems.robust_sides`); None: infinite.
    One prior is the set of one vertex.

    >>> round(_worst_vertex([[0.75, 0.25], [0.25, 0.75]], [[0.5, 0.5], [0.9, 0.1]])["pml"]["eps"], 6)  # log(.75/.3)
    0.916291
    >>> round(_worst_vertex([[0.75, 0.25], [0.25, 0.75]], [[1.0, 0.0], [0.0, 1.0]])["pml"]["eps"], 6)  # log(.75/.25)
    1.098612
    """
    import math

    import numpy as np

    from mechopt.problems.robust.problems import robust_sides

    upper, lower = (float(np.max(side)) for side in robust_sides(np.asarray(Q, float), np.atleast_2d(vertices)))

    def level(v: float) -> float | None:
        return None if math.isinf(v) else v

    return {
        "lip": {"eps": level(max(upper, lower))},
        "pml": {"eps": level(upper)},
        "alip": {"eps": level(upper), "eps_lower": level(lower)},
    }


def _ball_priors(Q: Any, ball: Any, source: str) -> Any:
    """The priors of a file's ``"prior_ball"`` where Q is worst (:meth:`BallSet.privacy_priors
    <mechopt.problems.robust.ballset.BallSet.privacy_priors>`): over them :func:`_worst_vertex` is exact."""
    import numpy as np

    from mechopt.errors import ProblemError
    from mechopt.problems.robust.ballset import BallSet

    if not isinstance(ball, dict) or set(ball) != {"center", "radius", "kind"}:
        raise ProblemError(f'"prior_ball" in {source!r} must be {{"center": [...], "radius": r, "kind": "tv"|"linf"}}')
    try:
        B = BallSet(np.asarray(ball["center"], float), ball["radius"], str(ball["kind"]))
    except (TypeError, ValueError):
        raise ProblemError(f'"prior_ball" in {source!r}: the center must be a list of numbers') from None
    except ProblemError as exc:
        raise ProblemError(f'"prior_ball" in {source!r}: {exc}') from None
    if B.d != np.shape(Q)[0]:
        raise ProblemError(f'"prior_ball" in {source!r} has {B.d} symbols but Q has {np.shape(Q)[0]} rows')
    return B.privacy_priors(Q)


def run_audit(args: argparse.Namespace) -> int:
    from mechopt.cli._common import check_out_file, emit_json, table
    from mechopt.errors import ProblemError
    from mechopt.io.mechfile import audit, read_mechanism
    from mechopt.io.privacy_claim import check_claim, claim_line
    from mechopt.notions import check_eps

    target = None if args.eps is None else check_eps(args.eps, allow_zero=True)
    if args.notion and target is None:
        raise ProblemError("--notion chooses what --eps checks: give --eps E too")
    if args.report is not None:
        from mechopt.results.report_files import REPORT_SUFFIXES

        check_out_file(args.report, "--report")
        if not args.report.lower().endswith(REPORT_SUFFIXES):
            raise ProblemError(f"--report {args.report!r}: end the file name in .json, .html or .png")
    doc = read_mechanism(args.mechanism)
    prior = args.prior if args.prior is not None else doc.get("prior")
    wanted = list(dict.fromkeys(args.notion or ["ldp"]))
    if prior is None and set(wanted) - {"ldp"}:
        raise ProblemError(f"--notion {'/'.join(sorted(set(wanted) - {'ldp'}))} needs the prior: give --prior P")
    claim, vertices = doc.get("claim"), doc.get("prior_set")
    if vertices is None and doc.get("prior_ball") is not None:  # a ball design: its worst priors for this Q
        vertices = _ball_priors(doc["Q"], doc["prior_ball"], args.mechanism)
    if claim is not None and claim["notion"] in ("lip", "mip", "pml", "alip") and prior is None and vertices is None:
        raise ProblemError(
            f"{args.mechanism!r} claims {claim['notion']} eps = {claim['eps']:g}, which needs the prior to be "
            "checked: give --prior P"
        )
    report = audit(doc["Q"], prior)
    precision = doc.get("precision", 0.0)
    check = None if target is None else check_eps_levels(report["notions"], target, wanted, precision)
    verdict = None
    if claim is not None and vertices is not None and args.prior is None and claim["notion"] in ("lip", "pml", "alip"):
        verdict = {**check_claim(claim, _worst_vertex(doc["Q"], vertices), precision),
                   "prior": None, "prior_set": len(vertices)}  # fmt: skip
        if doc.get("prior_set") is None:
            verdict["prior_ball"] = True
    elif claim is not None:  # a LIP/MIP claim is about the file's own prior, whatever --prior asks
        on_prior = claim["notion"] in ("lip", "mip", "pml", "alip")
        own = doc.get("prior") is not None and args.prior is not None and on_prior
        about = audit(doc["Q"], doc["prior"]) if own else report
        notions = about["notions"]
        if claim["notion"] == "alip":  # both levels, under the prior the claim is about
            notions = {**notions, "alip": _worst_vertex(doc["Q"], about["prior"])["alip"]}
        verdict = {**check_claim(claim, notions, precision), "prior": "the file's" if own else None}
    if args.report is not None:
        from mechopt.results.report import privacy_report
        from mechopt.results.report_files import write_report

        write_report(
            privacy_report(doc["Q"], prior), args.report, Q=doc["Q"], title=f"privacy report: {args.mechanism}"
        )
    if args.json:
        out = {"notions": report["notions"], "inputs": report["inputs"], "outputs": report["outputs"]}
        if check is not None:
            out["check"] = check
        if verdict is not None:
            out["claim"] = verdict
        emit_json(out)
        if verdict is not None:
            print(claim_line(verdict), file=sys.stderr)
        if check is not None:
            print(_verdict_line(check), file=sys.stderr)
    else:
        rows = [[name, v["eps"] if v["eps"] is not None else "inf"] for name, v in report["notions"].items()]
        print(
            f"{args.mechanism}: {report['inputs']} inputs x {report['outputs']} outputs"
            + ("" if prior is not None else " (no prior: LIP and MIP need --prior)")
        )
        print(table(["notion", "smallest eps"], rows))
        if args.report is not None:
            print(f"report written to {args.report}")
        if verdict is not None:
            print(claim_line(verdict))
        if check is not None:
            print(_verdict_line(check))
    broken = verdict is not None and verdict["holds"] is False
    return 1 if broken or (check is not None and not check["private"]) else 0
