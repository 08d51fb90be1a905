"""How ``mechopt compare`` judges its rows: the reference of an instance, the flags, the summary.

**Reference.** The rows of one catalog instance are judged against its
*certified* rows: status ``optimal`` with a machine-checked proof (``Result.proof``
``certificate`` — a dual bound within the gap tolerance —, ``convex`` — a convex
program solved to its tolerances —, or ``eigenproblem`` — a global ground
state). A closed form (proof ``theorem``) is a claim under test, never a
reference. A certified row that solves a *discretisation* of the instance's
continuous problem (a Fisher grid, a nested-grid eigenproblem) is the optimum
of that discretised program; its ``error_estimate`` (the method's
``extras["error_estimate"]``) says how far that value may lie from the
continuous optimum, so a grid value is never compared raw with a closed form.

**Allowance.** Two values v and v_ref (in the problem's sense) are told apart
only when they differ by more than

    allowance = gap_tol · max(1, |v_ref|) + e + e_ref,

the gap tolerance (:mod:`mechopt.settings`) plus both rows' error estimates
(0 for a row that solves the instance's own program; infinite for a
discretisation that could not estimate its error).

**Flags** (:data:`FLAGS`, the legend printed by ``mechopt compare --help``):
a row is ``suboptimal`` when some certified row beats it beyond the allowance,
``beats-certified`` when it beats a certified row so; without any certified row,
``worse-than-best`` compares with the other rows' audited values, which proves
the row not optimal and condemns no closed form. A closed form is judged
against its *claim* (the ``mechopt verify`` id in the row's ``claim``):
``claim-fails`` when, inside the claim's scope, it is ``infeasible`` or
``suboptimal`` — a counterexample —, ``outside-region`` when it is evaluated
where its theorem is not proven (``extras["in_region"]`` false), which is not
a counterexample.

Examples
--------
>>> row = lambda s, v, gap=None, proof=None: {"solver": s, "value": v, "gap": gap, "status": "optimal",
...                                           "violation": 0.0, "sense": "min", "proof": proof}
>>> rows = flag_rows([row("exact", 1.0, gap=0.0, proof="certificate"), row("greedy", 1.5),
...                   row("closed-form", 1.2, proof="theorem")])
>>> [(r["solver"], r["flag"]) for r in rows]
[('exact', 'certified'), ('greedy', 'suboptimal'), ('closed-form', 'suboptimal,claim-fails')]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mechopt import settings

__all__ = [
    "FLAGS",
    "MACHINE_PROOFS",
    "CLOSED_FORM",
    "flag_rows",
    "is_certified",
    "reference_row",
    "closed_form_findings",
    "why",
    "summary_lines",
    "legend",
]

#: The proofs that make a row a reference (``Result.proof``); ``theorem`` is a claim under test.
MACHINE_PROOFS = ("certificate", "convex", "eigenproblem")
CLOSED_FORM = "closed-form"

#: Every flag compare prints, with what it shows (the legend of ``--help`` and of the docs).
FLAGS: dict[str, str] = {
    "certified": "status optimal with a machine-checked proof: a certificate within the gap tolerance, "
    "a convex program solved to its tolerances, or a global eigenproblem (marked * in the "
    "table); the instance's reference. For a discretised program it is the optimum of the "
    "discretisation, within its error estimate of the continuous optimum.",
    "suboptimal": "worse than a certified row by more than the allowance (gap tolerance x max(1, |reference|) "
    "plus both rows' error estimates): proven not optimal.",
    "beats-certified": "better than a certified row by more than the allowance, with a mechanism that passes "
    "its audit: contradicts a proof (a bug in a certificate or solver, or an error "
    "estimate that is too small).",
    "infeasible": "the returned mechanism fails its audit (status infeasible_point: privacy violated beyond "
    "the privacy tolerance, or not a channel or density); its value is no answer and is not "
    "compared.",
    "no-solution": "no mechanism came back (infeasible, unbounded, a limit, a numerical error) although the "
    "instance has a certified optimum.",
    "worse-than-best": "the instance has no certified row and another row's audited mechanism is better by "
    "more than the allowance: this row is not optimal; the better one is not proven "
    "optimal, and no closed form is judged on this.",
    "claim-fails": "a closed form, where its claim applies, is infeasible or suboptimal: a counterexample to "
    "the claim named in the summary (and in the row's 'claim'); mechopt verify reports that "
    "claim as fails.",
    "outside-region": "a closed form evaluated outside the region where its theorem is proven: it claims no "
    "optimality here, so infeasible or suboptimal is expected, not a counterexample.",
    "error": "the solver raised; the message is printed below the table.",
    "skipped": "not run: the --budget was used up (status time_limit).",
}


def is_certified(row: dict[str, Any]) -> bool:
    """Whether a row is a reference: ``optimal`` with a machine-checked proof (see :data:`MACHINE_PROOFS`).

    A row without a ``proof`` field counts as proven by its certificate when its gap is within tolerance.

    >>> is_certified({"status": "optimal", "value": 1.0, "proof": "convex", "gap": None})
    True
    >>> is_certified({"status": "optimal", "value": 1.0, "proof": "theorem", "gap": None})
    False
    """
    if row.get("status") != "optimal" or row.get("value") is None:
        return False
    proof = row.get("proof")
    if proof is None:
        gap = row.get("gap")
        return gap is not None and gap <= settings.tolerance("gap")
    return proof in MACHINE_PROOFS


def _err(row: dict[str, Any]) -> float:
    e = row.get("error_estimate")
    return 0.0 if e is None else float(e)


def _excess(row: dict[str, Any], ref: dict[str, Any], sense: str) -> tuple[float, float]:
    """(how much ``row`` is worse than ``ref`` in the problem's sense, the allowance between them)."""
    diff = (ref["value"] - row["value"]) if sense == "max" else (row["value"] - ref["value"])
    allowance = settings.tolerance("gap") * max(1.0, abs(ref["value"])) + _err(row) + _err(ref)
    return diff, allowance


def _infeasible(row: dict[str, Any]) -> bool:
    viol = row.get("violation")
    return row.get("status") == "infeasible_point" or (viol is not None and viol > settings.tolerance("privacy"))


def reference_row(rows: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The most precise certified row (smallest error estimate, then the best value), else None.

    >>> r = lambda s, v, e: {"solver": s, "value": v, "status": "optimal", "proof": "convex",
    ...                      "error_estimate": e, "sense": "min"}
    >>> reference_row([r("conic", 9.86955, 2e-4), r("spectral", 9.8696044, 1e-12)])["solver"]
    'spectral'
    """
    cert = [r for r in rows if is_certified(r)]
    if not cert:
        return None
    sign = -1.0 if _sense(rows) == "max" else 1.0
    return min(cert, key=lambda r: (_err(r), sign * r["value"]))


def _sense(rows: Sequence[dict[str, Any]]) -> str:
    return next((r["sense"] for r in rows if r.get("sense")), "min")


def flag_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flag one instance's rows (see the module docstring); returns new dicts.

    Each row gets ``flag`` (comma-separated :data:`FLAGS`), ``certified``,
    ``reference`` (the solver of the row it is judged against, None without
    one), ``deviation`` (relative distance to it, > 0 worse) and ``allowance``.

    >>> grid = {"solver": "conic", "value": 9.8695539, "status": "optimal", "proof": "convex",
    ...         "error_estimate": 1.6e-4, "violation": 0.0, "sense": "min"}
    >>> exact = {"solver": "closed-form", "value": 9.8696044, "status": "optimal", "proof": "theorem",
    ...          "violation": 0.0, "sense": "min"}
    >>> [(r["flag"], r["reference"]) for r in flag_rows([grid, exact])]      # within the grid's error estimate
    [('certified', None), ('', 'conic')]
    >>> [r["flag"] for r in flag_rows([{**grid, "error_estimate": None}, exact])]   # a raw grid value would condemn it
    ['certified', 'suboptimal,claim-fails']
    """
    sense = _sense(rows)
    cert = [r for r in rows if is_certified(r) and not _infeasible(r)]
    ref = reference_row(cert)
    comparable = [
        r for r in rows if r.get("value") is not None and r.get("status") != "solver_error" and not _infeasible(r)
    ]
    return [_flag_one(r, cert, ref, comparable, sense) for r in rows]


def _flag_one(
    orig: dict[str, Any],
    cert: list[dict[str, Any]],
    ref: dict[str, Any] | None,
    comparable: list[dict[str, Any]],
    sense: str,
) -> dict[str, Any]:
    r = dict(orig)
    flags: list[str] = ["error"] if r.get("status") == "solver_error" else []
    infeasible = _infeasible(r)
    if infeasible:
        flags.append("infeasible")
    has_value = r.get("value") is not None and not infeasible
    judge, allowance = ref, None
    if cert and has_value:
        pairs = [(c, *_excess(r, c, sense)) for c in cert if c is not orig]
        worst = max(pairs, key=lambda p: p[1] - p[2], default=None)
        best = min(pairs, key=lambda p: p[1] + p[2], default=None)
        if worst is not None and worst[1] > worst[2]:
            flags.append("suboptimal")
            judge, allowance = worst[0], worst[2]
        elif best is not None and best[1] < -best[2]:
            flags.append("beats-certified")
            judge, allowance = best[0], best[2]
    elif cert and not infeasible and r.get("status") != "solver_error":
        flags.append("no-solution")
    elif not cert and has_value:
        others = [c for c in comparable if c is not orig]
        pairs = [(c, *_excess(r, c, sense)) for c in others]
        worst = max(pairs, key=lambda p: p[1] - p[2], default=None)
        if worst is not None and worst[1] > worst[2]:
            flags.append("worse-than-best")
            judge, allowance = worst[0], worst[2]
        else:  # the best value found, for the deviation
            judge = _best(others, sense) if others else None
    if is_certified(r) and not infeasible and not {"suboptimal", "beats-certified"} & set(flags):
        flags.insert(0, "certified")
    if r.get("solver") == CLOSED_FORM:
        if r.get("in_region") is False:
            flags.append("outside-region")
        elif {"infeasible", "suboptimal"} & set(flags):
            flags.append("claim-fails")
    if judge is orig or not has_value:
        judge = None
    r["certified"] = "certified" in flags
    r["reference"] = None if judge is None else judge.get("solver")
    r["deviation"] = _deviation(r, judge, sense)
    if allowance is None and judge is not None:
        allowance = _excess(r, judge, sense)[1]
    r["allowance"] = allowance
    r["flag"] = "skipped" if r.pop("skipped", False) else ",".join(flags)
    return r


def _best(rows: Sequence[dict[str, Any]], sense: str) -> dict[str, Any]:
    return (max if sense == "max" else min)(rows, key=lambda r: r["value"])


def _deviation(r: dict[str, Any], judge: dict[str, Any] | None, sense: str) -> float | None:
    if judge is None or r.get("value") is None or judge.get("value") is None:
        return None
    diff, _ = _excess(r, judge, sense)
    return diff / max(1.0, abs(judge["value"]))


def closed_form_findings(rows: Sequence[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(closed forms that fail their claim, closed forms outside their proven region shown not optimal).

    >>> rows = flag_rows([{"solver": "exact", "value": 1.0, "gap": 0.0, "status": "optimal", "violation": 0.0,
    ...                    "sense": "min"},
    ...                   {"solver": "closed-form", "value": 0.5, "gap": None, "status": "infeasible_point",
    ...                    "violation": 0.9, "sense": "min", "in_region": False}])
    >>> [len(x) for x in closed_form_findings(rows)]
    [0, 1]
    """
    flags = [set(r["flag"].split(",")) for r in rows]
    fails = [r for r, f in zip(rows, flags) if r["solver"] == CLOSED_FORM and "claim-fails" in f]
    outside = [
        r
        for r, f in zip(rows, flags)
        if r["solver"] == CLOSED_FORM and "outside-region" in f and {"infeasible", "suboptimal"} & f
    ]
    return fails, outside


def why(row: dict[str, Any], rows: Sequence[dict[str, Any]]) -> str:
    """Why a flagged row is not an answer: its privacy violation, or its distance to the certified optimum.

    ``rows`` are the flagged rows of the table (the row's ``reference`` is looked up among them).

    >>> rows = [{"problem": "p", "instance": "i", "solver": s, "value": v, "gap": g, "status": "optimal",
    ...          "violation": 0.0, "sense": "min", "error_estimate": e}
    ...         for s, v, g, e in [("conic", 9.8695539, 0.0, 1.6e-4), ("closed-form", 10.2, None, None)]]
    >>> why(flag_rows(rows)[1], flag_rows(rows))
    'worse than the certified optimum 9.8695539 (conic) by 0.330446 (0.0335 relative), beyond the error estimate
    0.00016 and the tolerance 9.9e-07'
    """
    from mechopt.cli._common import fmt

    if "infeasible" in row["flag"].split(","):
        viol = row.get("violation")
        if viol is not None and viol > settings.tolerance("privacy"):
            return f"violates privacy by {fmt(viol, 3)} nats of eps"
        return f"fails its audit ({row.get('message') or 'status infeasible_point'})"
    ref = next(
        r
        for r in rows
        if r["problem"] == row["problem"] and r["instance"] == row["instance"] and r["solver"] == row["reference"]
    )
    diff, allowance = _excess(row, ref, row.get("sense") or "min")
    errors = _err(row) + _err(ref)
    return (
        f"worse than the certified optimum {fmt(ref['value'], 8)} ({ref['solver']}) by {fmt(diff, 6)} "
        f"({fmt(row['deviation'], 3)} relative), beyond the error estimate {fmt(errors, 3)} "
        f"and the tolerance {fmt(allowance - errors, 2)}"
    )


def summary_lines(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The closed-form blocks printed under the ``compare`` table (empty without closed-form rows).

    >>> summary_lines([])
    []
    """
    if not any(r["solver"] == CLOSED_FORM for r in rows):
        return []
    fails, outside = closed_form_findings(rows)
    out = []
    if fails:
        out.append("closed forms that fail their claim (counterexamples; mechopt verify --claim ID checks the claim):")
        out += [f"  {_label(r)}: {why(r, rows)}" for r in fails]
    else:
        out.append("no closed form fails its claim on these instances")
    if outside:
        out.append(
            "closed forms outside the region where their theorem is proven (no optimality is claimed "
            "there; not counterexamples):"
        )
        out += [f"  {_label(r)}: {why(r, rows)}" for r in outside]
    return out


def _label(row: dict[str, Any]) -> str:
    claim = row.get("claim") or "no verify claim linked"
    return f"{row['problem']} / {row['instance']} [{claim}]"


def legend(width: int = 100) -> str:
    """The flag legend as plain text (``mechopt compare --help``).

    >>> legend().splitlines()[0]
    'flags (a row may carry several, comma-separated):'
    """
    import textwrap

    lines = ["flags (a row may carry several, comma-separated):"]
    col = max(len(name) for name in FLAGS) + 4
    for name, text in FLAGS.items():
        lines += textwrap.wrap(
            text,
            width=width,
            initial_indent=f"  {name}".ljust(col),
            subsequent_indent=" " * col,
            break_on_hyphens=False,
        )
    return "\n".join(lines)
