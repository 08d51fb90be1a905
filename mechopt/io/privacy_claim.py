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

#: Notions whose ε ``mechopt audit`` computes from Q (LIP, MIP and PML with the prior).
CHECKABLE = ("ldp", "lip", "mip", "pml")
#: Notions a file may name (the others need data audit does not have: a policy graph, the users' priors,
#: ALIP's second level).
KNOWN = (*CHECKABLE, "graph-ldp", "metric-ldp", "cip", "alip")


def claim_of(doc: dict[str, Any], where: str) -> dict[str, Any] | None:
    """The file's claim ``{"notion", "eps"}`` (notion lower-case, ε a float), or None when it makes none.

    A notion without ε claims nothing and gives None (the notion is not read); ε without a
    notion, a notion that is not a known name, or an ε that is not a finite
    number in [0, 700] raises :class:`ProblemError`.
    """
    from mechopt.notions import REGISTERED
    from mechopt.notions.base import MAX_EPS

    known = (*KNOWN, *REGISTERED)  # notions added with mechopt.registry.register_notion too

    notion, eps = doc.get("notion"), doc.get("eps")
    if eps is None:  # a notion alone promises nothing: kept as data, not read
        return None
    if notion is not None and not isinstance(notion, str):
        raise ProblemError(
            f"the privacy claim of {where} has notion {notion!r}, a {type(notion).__name__}: give one name "
            f"({', '.join(known)})"
        )
    if notion is not None and notion.strip().lower() not in known:
        raise ProblemError(f"the privacy claim of {where} names notion {notion!r}; known: {', '.join(known)}")
    if isinstance(eps, bool) or not isinstance(eps, (int, float)):
        raise ProblemError(
            f'the privacy claim of {where} has eps {eps!r}, a {type(eps).__name__}: give a number (JSON 1.0, not "1.0")'
        )
    try:
        val = float(eps)
    except OverflowError:  # an integer beyond double range
        val = math.inf
    if not (math.isfinite(val) and 0 <= val <= MAX_EPS):
        shown = repr(eps) if len(repr(eps)) <= 24 else f"{repr(eps)[:12]}… ({len(repr(eps))} digits)"
        raise ProblemError(
            f"the privacy claim of {where} has eps = {shown}: give a finite number in [0, {MAX_EPS:g}] (nats)"
        )
    if notion is None:
        raise ProblemError(
            f'the privacy claim of {where} gives eps = {eps:g} but no notion: add "notion" ({", ".join(CHECKABLE)})'
        )
    return {"notion": notion.strip().lower(), "eps": val}


def check_claim(claim: dict[str, Any], notions: dict[str, dict[str, Any]], precision: float = 0.0) -> dict[str, Any]:
    """The verdict on ``claim`` given the audit's smallest ε per notion.

    ``holds`` is True when the audited ε ≤ the claimed ε + tolerance (the
    privacy tolerance, or ``precision`` when the file was stored coarser),
    False when it exceeds it, None when audit cannot compute that notion (no
    prior for LIP/MIP, a policy graph or users' priors it does not have).
    """
    from mechopt import settings

    tol = max(settings.tolerance("privacy"), precision)
    out: dict[str, Any] = {**claim, "eps_audited": None, "tolerance": tol, "holds": None, "excess": None}
    name = claim["notion"]
    if name not in notions:
        return out
    audited = notions[name]["eps"]
    out["eps_audited"] = audited
    excess = math.inf if audited is None else audited - claim["eps"]
    out["holds"] = excess <= tol
    out["excess"] = None if math.isinf(excess) else excess
    return out


def claim_line(verdict: dict[str, Any]) -> str:
    """One line for the human report (and stderr with ``--json``).

    >>> print(claim_line({"notion": "ldp", "eps": 0.5, "eps_audited": 1.0986, "holds": False, "excess": 0.5986}))
    CLAIM BROKEN: the file claims ldp eps = 0.5, but its Q needs eps = 1.0986 (0.599 nats more)
    """
    name, eps = verdict["notion"], verdict["eps"]
    if verdict.get("prior"):  # a LIP/MIP claim checked under the file's own prior, not --prior's
        name = f"{name} (under {verdict['prior']} prior)"
    if verdict.get("prior_ball"):  # a ball design's claim, at the priors of its ball where each output is worst
        name = f"{name} (over the file's prior ball: at the {verdict['prior_set']} priors where its outputs are worst)"
    elif verdict.get("prior_set"):  # a robust design's claim, checked at every vertex of the file's prior set
        name = f"{name} (at each of the file's {verdict['prior_set']} prior-set vertices)"
    if verdict["holds"] is None:
        why = "it needs the prior: give --prior P" if name in CHECKABLE else "audit computes ldp, lip, mip and pml only"
        return f"claim not checked: the file claims {name} eps = {eps:g}, which audit cannot compute ({why})"
    if verdict["holds"]:
        return f"claim holds: the file claims {name} eps = {eps:g}; its Q needs {verdict['eps_audited']:.6g}"
    if verdict["eps_audited"] is None:
        return (
            f"CLAIM BROKEN: the file claims {name} eps = {eps:g}, but its Q needs eps = inf "
            "(a zero next to a positive entry)"
        )
    return (
        f"CLAIM BROKEN: the file claims {name} eps = {eps:g}, but its Q needs eps = {verdict['eps_audited']:.6g} "
        f"({verdict['excess']:.3g} nats more)"
    )
