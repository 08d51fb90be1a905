"""The privacy claim a mechanism file makes about itself, validated and checked against its Q.

A mechanism file (``design --out``, :func:`mechopt.io.mechfile.write_mechanism`)
may say what it guarantees: ``{"privacy": {"notion": "ldp", "eps": 1.0}}``
(or the older flat ``"notion"``/``"eps"`` keys). :func:`claim_of` reads that
claim strictly: the notion a known name, ε a finite JSON number in [0, 700]
(``"abc"``, ``true``, ``-1`` and ``1e308`` are refused), never ε without a
notion. :func:`check_claim` compares it with the audited ε of Q under that
notion, within the privacy tolerance or the precision the file was stored at
(a float32 ``.npy``), so ``mechopt audit`` fails (exit 1) on a file whose Q
does not keep its own promise.

Examples
--------
>>> from mechopt.io.privacy_claim import check_claim, claim_of
>>> claim = claim_of({"notion": "ldp", "eps": 0.5}, "m.json")
>>> claim
{'notion': 'ldp', 'eps': 0.5}
>>> check_claim(claim, {"ldp": {"eps": 1.0986}})["holds"]
False
>>> claim_of({"notion": "ldp", "eps": "abc"}, "m.json")
Traceback (most recent call last):
...
mechopt.errors.ProblemError: the privacy claim of m.json has eps 'abc', a str: give a number (JSON 1.0, not "1.0")
"""

from __future__ import annotations

import math
from typing import Any

from mechopt.errors import ProblemError

__all__ = ["claim_of", "check_claim", "claim_line", "CHECKABLE", "KNOWN"]

#: Notions whose ε ``mechopt audit`` computes from Q (LIP, MIP, PML and ALIP with the prior; ALIP's claim
#: names both levels, ``eps`` the upper and ``eps_lower`` the lower).
CHECKABLE = ("ldp", "lip", "mip", "pml", "alip")
#: Notions a file may name (the others need data audit does not have: a policy graph, the users' priors).
KNOWN = (*CHECKABLE, "graph-ldp", "metric-ldp", "cip")


def claim_of(doc: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The file's claim ``{"notion", "eps"}`` (notion lower-case, ε a float), or None when it makes none.

    A notion without ε claims nothing and gives None (the notion is not read); ε without a
    notion, ``eps_lower`` without ε, a notion that is not a known name, or an ε that is not a finite
    number in [0, 700] raises :class:`ProblemError`.
    """
    from mechopt.notions import REGISTERED

    known = (*KNOWN, *REGISTERED)  # notions added with mechopt.registry.register_notion too

    notion, eps = doc.get("notion"), doc.get("eps")
    if eps is None and doc.get("eps_lower") is not None:  # half of an alip claim: refused, never dropped unread
        raise ProblemError(
            f'the privacy claim of {where} gives eps_lower = {doc["eps_lower"]!r} but no eps: add "eps" (the upper one)'
        )
    if eps is None:  # a notion alone promises nothing: kept as data, not read
        return None
    if notion is not None and not isinstance(notion, str):
        raise ProblemError(
            f"the privacy claim of {where} has notion {notion!r}, a {type(notion).__name__}: give one name "
            f"({', '.join(known)})"
        )
    if notion is not None and notion.strip().lower() not in known:
        raise ProblemError(f"the privacy claim of {where} names notion {notion!r}; known: {', '.join(known)}")
    val = _level(eps, "eps", where)
    if notion is None:
        raise ProblemError(
            f'the privacy claim of {where} gives eps = {eps:g} but no notion: add "notion" ({", ".join(CHECKABLE)})'
        )
    name = notion.strip().lower()
    low = doc.get("eps_lower")
    if low is not None and name != "alip":
        raise ProblemError(f"the privacy claim of {where} gives eps_lower, which belongs to notion alip, not {name}")
    claim: dict[str, Any] = {"notion": name, "eps": val}
    if name == "alip":  # its lower level; None in a file written before mechopt stored it (then not checked)
        claim["eps_lower"] = None if low is None else _level(low, "eps_lower", where)
    return claim


def _level(eps: Any, key: str, where: str) -> float:
    """A privacy level of the claim as a float: a finite JSON number in [0, MAX_EPS], else ProblemError."""
    from mechopt.notions.base import MAX_EPS

    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise ProblemError(
            f"the privacy claim of {where} has {key} {eps!r}, a {type(eps).__name__}: "
            'give a number (JSON 1.0, not "1.0")'
        )
    try:
        val = float(eps)
    except OverflowError:  # an integer beyond double range
        val = math.inf
    if not (math.isfinite(val) and 0 <= val <= MAX_EPS):
        shown = repr(eps) if len(repr(eps)) <= 24 else f"{repr(eps)[:12]}… ({len(repr(eps))} digits)"
        raise ProblemError(
            f"the privacy claim of {where} has {key} = {shown}: give a finite number in [0, {MAX_EPS:g}] (nats)"
        )
    return val


def check_claim(claim: dict[str, Any], notions: dict[str, dict[str, Any]], precision: float = 0.0) -> dict[str, Any]:
    """The verdict on ``claim`` given the audit's smallest ε per notion.

    ``holds`` is True when the audited ε ≤ the claimed ε + tolerance (the
    privacy tolerance, or ``precision`` when the file was stored coarser),
    False when it exceeds it, None when audit cannot compute that notion (no
    prior for LIP/MIP, a policy graph or users' priors it does not have).
    For ALIP ``notions["alip"]`` gives both audited levels, ``"eps"`` (upper) and ``"eps_lower"``, and the
    claim holds when each is within tolerance of its claimed level; a claim without ``eps_lower`` (a file
    written before mechopt stored it) is not checked.

    >>> claim = {"notion": "alip", "eps": 1.0, "eps_lower": 0.5}
    >>> round(check_claim(claim, {"alip": {"eps": 0.9, "eps_lower": 0.7}})["excess"], 12)  # the lower side breaks
    0.2
    """
    from mechopt import settings

    tol = max(settings.tolerance("privacy"), precision)
    out: dict[str, Any] = {**claim, "eps_audited": None, "tolerance": tol, "holds": None, "excess": None}
    name = claim["notion"]
    if name not in notions or (name == "alip" and claim.get("eps_lower") is None):
        return out
    audited = notions[name]["eps"]
    out["eps_audited"] = audited
    excess = math.inf if audited is None else audited - claim["eps"]
    if name == "alip":  # both levels: the larger excess decides
        low = notions[name]["eps_lower"]
        out["eps_lower_audited"] = low
        excess = max(excess, math.inf if low is None else low - claim["eps_lower"])
    out["holds"] = excess <= tol
    out["excess"] = None if math.isinf(excess) else excess
    return out


def claim_line(verdict: dict[str, Any]) -> str:
    """One line for the human report (and stderr with ``--json``).

    >>> print(claim_line({"notion": "ldp", "eps": 0.5, "eps_audited": 1.0986, "holds": False, "excess": 0.5986}))
    CLAIM BROKEN: the file claims ldp eps = 0.5, but its Q needs eps = 1.0986 (0.599 nats more)
    """
    name, eps = verdict["notion"], verdict["eps"]
    label = name
    if verdict.get("prior"):  # a LIP/MIP claim checked under the file's own prior, not --prior's
        label = f"{label} (under {verdict['prior']} prior)"
    if verdict.get("prior_ball"):  # a ball design's claim, at the priors of its ball where each output is worst
        where = f"at the {verdict['prior_set']} priors where its outputs are worst"
        label = f"{label} (over the file's prior ball: {where})"
    elif verdict.get("prior_set"):  # a robust design's claim, checked at every vertex of the file's prior set
        label = f"{label} (at each of the file's {verdict['prior_set']} prior-set vertices)"
    claimed = f"{label} eps = {eps:g}"
    if verdict.get("eps_lower") is not None:
        claimed += f", eps_lower = {verdict['eps_lower']:g}"
    if verdict["holds"] is None:
        if name == "alip" and verdict.get("eps_lower") is None:
            why = 'the file gives no eps_lower, the lower level: add it to "privacy", or design again with --out'
        elif name in CHECKABLE:
            why = "it needs the prior: give --prior P"
        else:
            why = f"audit computes {', '.join(CHECKABLE)} only"
        return f"claim not checked: the file claims {claimed}, which audit cannot check ({why})"

    def level(v: float | None) -> str:
        return "inf" if v is None else f"{v:.6g}"

    needs = level(verdict["eps_audited"])
    if "eps_lower_audited" in verdict:
        needs = f"eps = {needs} and eps_lower = {level(verdict['eps_lower_audited'])}"
    if verdict["holds"]:
        return f"claim holds: the file claims {claimed}; its Q needs {needs}"
    if verdict["excess"] is None:
        return f"CLAIM BROKEN: the file claims {claimed}, but its Q needs {needs} (a zero next to a positive entry)"
    if "eps_lower_audited" not in verdict:
        needs = f"eps = {needs}"
    return f"CLAIM BROKEN: the file claims {claimed}, but its Q needs {needs} ({verdict['excess']:.3g} nats more)"
