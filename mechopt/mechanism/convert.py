"""What a :class:`~mechopt.mechanism.core.Mechanism` is made from, and its privacy audit.

A channel matrix, a :class:`~mechopt.model.channel.Channel` (with its labels),
a frequency oracle of :mod:`mechopt.oracles` (its ``matrix()``), a design's
:class:`~mechopt.results.result.Result` (its Q, privacy claim and certificate;
read by attribute, so this package does not import ``mechopt.results``), and a
privacy claim ``{"notion", "eps"}``.

Examples
--------
>>> from mechopt.mechanism.convert import claim
>>> claim(("ldp", "1.5"))
{'notion': 'ldp', 'eps': 1.5}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ParamError, ProblemError
from mechopt.mechanism.files import provenance_now
from mechopt.model._matrix import validate_channel

__all__ = ["matrix_and_labels", "claim", "from_result", "audit", "prior_for", "values_for"]


def matrix_and_labels(Q: Any) -> tuple[np.ndarray, Any, Any]:
    """The matrix of an array, a Channel (with its labels) or an oracle (its ``matrix()``)."""
    M = getattr(Q, "matrix", Q)
    if callable(M):  # a frequency oracle of mechopt.oracles: GRR(d, eps).matrix()
        M = M()
    return validate_channel(M), getattr(Q, "inputs", None), getattr(Q, "outputs", None)


def claim(claim: Any) -> dict[str, Any] | None:
    if claim is None:
        return None
    if isinstance(claim, dict):
        notion, eps = claim.get("notion"), claim.get("eps")
    else:
        try:
            notion, eps = claim
        except (TypeError, ValueError):
            raise ProblemError(f"claim must be {{'notion': ..., 'eps': ...}} or (notion, eps), got {claim!r}") from None
    if eps is not None:
        try:
            eps = float(eps)
        except (TypeError, ValueError):
            raise ProblemError(f"the claim's eps must be a number, got {eps!r}") from None
    return {"notion": None if notion is None else str(notion), "eps": eps}


def from_result(result: Any, *, prior: Any = None, inputs: Any = None, outputs: Any = None) -> dict[str, Any]:
    """The Mechanism fields of a design's Result: Q, labels, prior (``prior`` given, else the design's), values,
    claim, certificate (with status, proof, objective, value, unit) and provenance; ``result.Q`` raises
    NoChannelError when it has no channel."""
    Q = result.Q
    mech = result.mechanism
    cert = None
    if result.certificate is not None:
        cert = {**result.certificate.to_dict(), "status": result.status.value, "proof": result.proof}
    elif result.status is not None:
        cert = {"status": result.status.value, "proof": result.proof}
    if cert is not None:
        cert.update({"objective": result.objective, "value": result.value, "unit": result.unit})
    return {
        "Q": Q,
        "inputs": inputs if inputs is not None else getattr(mech, "inputs", None),
        "outputs": outputs if outputs is not None else getattr(mech, "outputs", None),
        "prior": prior if prior is not None else getattr(result, "prior", None),
        "values": getattr(result, "values", None),
        "claim": None if result.notion is None else {"notion": result.notion, "eps": result.eps},
        "certificate": cert,
        "provenance": provenance_now(f"mechopt design: solver {result.solver}, objective {result.objective}"),
    }


def audit(Q: np.ndarray, prior: Any, claimed: dict[str, Any] | None, notion: str | None) -> dict[str, Any]:
    """The audit document of :func:`mechopt.io.mechfile.audit`, restricted to ``notion`` if given, with
    ``"claim"`` (audited ε ≤ claimed ε + the ``privacy`` tolerance?) when the claim's notion was audited,
    else ``"claim"`` with ``holds`` None, ``checked`` False and ``why`` (never a silent omission).

    >>> audit(np.array([[0.75, 0.25], [0.25, 0.75]]), None, {"notion": "ldp", "eps": 1.0}, "ldp")["claim"]["holds"]
    False
    """
    from mechopt.io.mechfile import audit as audit_all

    doc = audit_all(Q, prior)
    if notion is not None:
        if notion not in doc["notions"]:
            raise ParamError(
                f"no audit for notion {notion!r} here; audited: {', '.join(doc['notions'])} (lip and mip need a prior)"
            )
        doc["notions"] = {notion: doc["notions"][notion]}
    if claimed is not None and claimed.get("notion") in doc["notions"] and claimed.get("eps") is not None:
        eps = doc["notions"][claimed["notion"]]["eps"]
        holds = eps is not None and eps <= claimed["eps"] + settings.tolerance("privacy")
        doc["claim"] = {**claimed, "eps_audited": eps, "holds": bool(holds), "checked": True}
    elif claimed is not None and claimed.get("eps") is not None and notion in (None, claimed.get("notion")):
        why = (
            f"{claimed.get('notion')} needs a prior: pass prior= or build the Mechanism with one"
            if claimed.get("notion") in ("lip", "mip", "pml") and prior is None
            else f"{claimed.get('notion')!r} is not audited here (audited: {', '.join(doc['notions'])})"
        )
        doc["claim"] = {**claimed, "eps_audited": None, "holds": None, "checked": False, "why": f"not checked: {why}"}
    return doc


def prior_for(prior: Any, design_prior: np.ndarray | None, d: int) -> np.ndarray:
    """``prior`` validated (d symbols), else the design prior, else ParamError.

    >>> prior_for(None, np.array([0.5, 0.5]), 2).tolist()
    [0.5, 0.5]
    """
    from mechopt.model.priors import validate_prior

    if prior is None:
        if design_prior is None:
            raise ParamError("a prior is needed: pass prior= or build the Mechanism with one")
        return design_prior
    P = validate_prior(prior)
    if P.size != d:
        raise ProblemError(f"prior has {P.size} symbols but Q has {d} rows (inputs)")
    return P


def values_for(values: Any, inputs: tuple[Any, ...]) -> np.ndarray:
    """One number a_x per input: ``values``, or the input labels when they are numbers.

    >>> values_for(None, (0, 2.5)).tolist()
    [0.0, 2.5]
    """
    if values is None:
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in inputs):
            raise ParamError("the inputs are not numbers: give values=, one number per input")
        values = inputs
    a = np.asarray(values, dtype=float)
    if a.shape != (len(inputs),) or not np.all(np.isfinite(a)):
        raise ParamError(f"values must be {len(inputs)} finite numbers, one per input")
    return a
