"""The words a report may use for a status: design reports, sweep tables and legends, figure legends.

One rule for every output (``design``, ``sweep``, ``reproduce``): nothing
unproven is presented as optimal. A point is *certified* only when its status
is ``optimal`` and it carries a proof (:data:`mechopt.results.result.PROOFS`); a series
(a sweep curve, a figure curve) is certified only when every point is. A local
method's answer is *locally optimal*, a heuristic's *heuristic*, any other
audited but unproven answer *feasible, no proof*; a mechanism that fails its
privacy audit (``infeasible_point``) is *not private* and a hit limit is a
limit, whatever the method hoped for.

Examples
--------
>>> from mechopt.results.words import series_label, series_word
>>> series_word([("optimal", "certificate"), ("optimal", "certificate")])
'certified optimum'
>>> series_word([("locally_optimal", None), ("optimal", "certificate")])
'locally optimal at 1 of 2 points, certified at 1'
>>> series_label([("feasible", None), ("infeasible_point", None)], guarantee="heuristic")
'heuristic; 1 of 2 not private'
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from mechopt.results.result import PROOFS

__all__ = [
    "CERTIFIED",
    "CLOSED_FORM",
    "NOT_PRIVATE",
    "LOCAL",
    "HEURISTIC",
    "UNPROVEN",
    "INACCURATE",
    "MC",
    "MC_NOT_PRIVATE",
    "POINT_NOT_PRIVATE",
    "POINT_LIMIT",
    "LIMITS",
    "status_of",
    "is_certified",
    "point_word",
    "series_word",
    "series_label",
    "status_line",
    "status_counts",
]

CERTIFIED = "certified optimum"
CLOSED_FORM = "closed form"
NOT_PRIVATE = "closed form, not private at this ε"
LOCAL = "locally optimal"
HEURISTIC = "heuristic"
UNPROVEN = "feasible, no proof"
INACCURATE = "optimal within a looser tolerance"
MC = "Monte-Carlo (± 1.96 se)"
MC_NOT_PRIVATE = "Monte-Carlo (not private)"
POINT_NOT_PRIVATE = "not private (audit failed)"
POINT_LIMIT = "hit a limit (best point so far)"

LIMITS = frozenset({"iteration_limit", "time_limit"})
_ANSWERS = ("optimal", "optimal_inaccurate", "locally_optimal", "feasible")


def status_of(status: Any) -> str:
    """The status word of a :class:`~mechopt.results.result.Status` or a string (``None`` → ``"missing"``).

    >>> from mechopt.results.result import Status
    >>> status_of(Status.LOCALLY_OPTIMAL), status_of("optimal"), status_of(None)
    ('locally_optimal', 'optimal', 'missing')
    """
    if status is None:
        return "missing"
    return str(getattr(status, "value", status))


def is_certified(status: Any, proof: str | None) -> bool:
    """Whether a point may be called certified: ``optimal`` with a proof from :data:`~mechopt.results.result.PROOFS`.

    >>> is_certified("optimal", "certificate"), is_certified("optimal", None), is_certified("feasible", None)
    (True, False, False)
    """
    return status_of(status) == "optimal" and proof in PROOFS


def point_word(status: Any, proof: str | None = None, guarantee: str | None = None) -> str:
    """The legend word of one point.

    ``guarantee`` is the solver's (``"global"``, ``"local"``, ``"heuristic"``;
    :attr:`mechopt.model.solver.Solver.guarantee`): a ``feasible`` answer of a
    heuristic is called ``heuristic``. An ``optimal`` status without a proof
    (an old sweep file, say) is not called optimal.

    >>> point_word("optimal", "convex"), point_word("optimal", None), point_word("feasible", None, "heuristic")
    ('certified optimum', 'feasible, no proof', 'heuristic')
    """
    s = status_of(status)
    if s == "optimal":
        return CERTIFIED if proof in PROOFS else UNPROVEN
    return {
        "optimal_inaccurate": INACCURATE,
        "locally_optimal": LOCAL,
        "feasible": HEURISTIC if guarantee == "heuristic" else UNPROVEN,
        "infeasible_point": "not private",
        "iteration_limit": "hit a limit",
        "time_limit": "hit a limit",
    }.get(s, s.replace("_", " "))


def _pairs(points: Iterable[Any]) -> list[tuple[str, str | None]]:
    out = []
    for p in points:
        if isinstance(p, Mapping):
            out.append((status_of(p.get("status")), p.get("proof")))
        elif isinstance(p, tuple):
            out.append((status_of(p[0]), p[1] if len(p) > 1 else None))
        else:  # a Result
            out.append((status_of(p.status), getattr(p, "proof", None)))
    return out


def series_word(points: Iterable[Any], guarantee: str | None = None) -> str:
    """The word of a series from the points that are answers (audited private, no limit hit).

    ``points`` are ``(status, proof)`` pairs, mappings with ``status`` and
    ``proof`` keys (sweep lines, figure rows) or Results. One word when every
    answer has the same one, else the weakest first with counts; ``"no answer"``
    when no point is an answer.

    >>> series_word([{"status": "optimal", "proof": "theorem"}])
    'certified optimum'
    >>> series_word([("time_limit", None)])
    'no answer'
    """
    pairs = [p for p in _pairs(points) if p[0] in _ANSWERS]
    if not pairs:
        return "no answer"
    words = Counter(point_word(s, pr, guarantee) for s, pr in pairs)
    if len(words) == 1:
        return next(iter(words))
    order = [UNPROVEN, HEURISTIC, LOCAL, INACCURATE, CERTIFIED]
    ranked = sorted(words, key=lambda w: order.index(w) if w in order else -1)
    first, rest = ranked[0], ranked[1:]
    tail = ", ".join(f"{w.replace(' optimum', '')} at {words[w]}" for w in rest)
    return f"{first} at {words[first]} of {len(pairs)} points, {tail}"


def series_label(points: Iterable[Any], guarantee: str | None = None) -> str:
    """:func:`series_word` plus how many points are not private or hit a limit.

    >>> series_label([("optimal", "certificate"), ("time_limit", None)])
    'certified optimum; 1 of 2 hit a limit'
    """
    pairs = _pairs(points)
    counts = Counter(s for s, _ in pairs)
    parts = [series_word(pairs, guarantee)]
    n_np = counts["infeasible_point"]
    n_lim = sum(counts[s] for s in LIMITS)
    if n_np:
        parts.append(f"{n_np} of {len(pairs)} not private")
    if n_lim:
        parts.append(f"{n_lim} of {len(pairs)} hit a limit")
    return "; ".join(parts)


def status_line(res: Any, guarantee: str | None = None) -> str:
    """What a design report says about a result's status: the word, and what backs it.

    ``guarantee`` is the solver's (:attr:`mechopt.model.solver.Solver.guarantee`);
    a ``feasible`` answer of a ``"heuristic"`` says so.

    Examples
    --------
    >>> from mechopt.results.result import Certificate, Result
    >>> r = Result(status="optimal", value=0.5, sense="min", objective="mse", solver="exact",
    ...            proof="certificate", certificate=Certificate(0.5, 2e-16))
    >>> status_line(r)
    'optimal (proof: certificate, gap 2e-16)'
    >>> status_line(r.replace(status="locally_optimal", proof=None, solver="sqp", extras={"starts": 20}))
    'locally_optimal: best local optimum of 20 sqp starts, no certificate'
    >>> status_line(r.replace(status="feasible", proof=None, solver="greedy", certificate=None), "heuristic")
    'feasible: audited private, optimality not proven (greedy is a heuristic)'
    """
    s = status_of(res.status)
    cert = getattr(res, "certificate", None)
    gap = "" if cert is None else f", gap {cert.gap:.1g}"
    solver = getattr(res, "solver", "") or "the method"
    if s == "optimal":
        if res.proof in PROOFS:
            claim = (res.extras or {}).get("claim")
            return f"optimal (proof: {res.proof}{gap}" + (f", claim {claim}" if claim else "") + ")"
        return "optimal claimed without a proof: treat it as feasible (audited, unproven)"
    if s == "optimal_inaccurate":
        return f"optimal_inaccurate: proven only to a looser tolerance{gap}"
    if s == "locally_optimal":
        starts = (res.extras or {}).get("starts")
        what = f"best local optimum of {starts} {solver} starts" if starts else f"a local optimum of {solver}"
        return f"locally_optimal: {what}, no certificate"
    if s == "feasible":
        who = f"{solver} is a heuristic" if guarantee == "heuristic" else solver
        return f"feasible: audited private, optimality not proven ({who})" + (
            f"; proven bound{gap}" if cert is not None else ""
        )
    if s == "infeasible_point":
        viol = getattr(res, "violation", None)
        return (
            "infeasible_point: the returned mechanism fails its privacy audit"
            + (f" (violation {viol:.3g})" if viol is not None else "")
            + "; its value is not an answer"
        )
    if s in LIMITS:
        return f"{s}: stopped by the {s.replace('_', ' ')}; the best point so far (if any) is unproven"
    return s


def status_counts(lines: Iterable[Mapping[str, Any]]) -> str:
    """One line counting the statuses of sweep lines in the status vocabulary.

    ``optimal`` points are split by proof; an ``optimal`` line without a proof
    is counted as ``optimal (no proof: unproven)``.

    >>> status_counts([{"status": "optimal", "proof": "certificate"}, {"status": "locally_optimal"},
    ...                {"status": "optimal", "proof": "certificate"}, {"status": "infeasible_point"}])
    '4 points: 2 optimal (certified: certificate), 1 locally_optimal (no certificate), 1 infeasible_point (not private)'
    """
    lines = list(lines)
    counts = Counter(status_of(ln.get("status")) for ln in lines)
    gloss = {
        "locally_optimal": "no certificate",
        "feasible": "audited, unproven",
        "infeasible_point": "not private",
        "optimal_inaccurate": "looser tolerance",
    }
    parts = []
    order = [
        "optimal",
        "optimal_inaccurate",
        "locally_optimal",
        "feasible",
        "infeasible_point",
        "iteration_limit",
        "time_limit",
        "infeasible",
        "unbounded",
        "numerical_error",
        "solver_error",
    ]
    for s in sorted(counts, key=lambda k: order.index(k) if k in order else len(order)):
        if s == "optimal":
            proofs = Counter(ln.get("proof") for ln in lines if status_of(ln.get("status")) == "optimal")
            proven = ", ".join(
                f"{p}" + (f" {n}" if len(proofs) > 1 else "") for p, n in sorted(proofs.items(), key=str) if p in PROOFS
            )
            unproven = sum(n for p, n in proofs.items() if p not in PROOFS)
            if proven:
                parts.append(f"{counts[s] - unproven} optimal (certified: {proven})")
            if unproven:
                parts.append(f"{unproven} optimal (no proof: unproven)")
        else:
            parts.append(f"{counts[s]} {s}" + (f" ({gloss[s]})" if s in gloss else ""))
    return f"{len(lines)} points: " + ", ".join(parts)
