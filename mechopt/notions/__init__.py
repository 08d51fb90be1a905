"""Privacy notions: audits, column cones and cvxpy constraints.

Examples
--------
>>> from mechopt.notions import make_notion
>>> make_notion("lip", 1.0)
LIP(eps=1)
"""

from __future__ import annotations

from typing import Any

from mechopt.errors import ProblemError
from mechopt.notions.base import Audit, PrivacyNotion, check_eps
from mechopt.notions.info import CIP, LIP, MIP, PosteriorStatNotion
from mechopt.notions.ldp import LDP, GraphLDP
from mechopt.notions.metric import MetricLDP
from mechopt.notions.pml import ALIP, PML, PosteriorBox

__all__ = [
    "Audit",
    "PrivacyNotion",
    "LDP",
    "GraphLDP",
    "MetricLDP",
    "LIP",
    "CIP",
    "MIP",
    "PML",
    "ALIP",
    "PosteriorBox",
    "PosteriorStatNotion",
    "make_notion",
    "NOTIONS",
    "audit_all",
    "check_eps",
]

NOTIONS: dict[str, type[PrivacyNotion]] = {"ldp": LDP, "lip": LIP, "mip": MIP}
BUILTIN_NAMES = (*NOTIONS, "graph-ldp", "metric-ldp", "cip", "pml", "alip")
REGISTERED: dict[str, type[PrivacyNotion]] = {}  # mechopt.registry.register_notion writes here


def make_notion(name: str, eps: float, **kwargs: Any) -> PrivacyNotion:
    """Build a notion by name: ``ldp``, ``lip``, ``mip``, ``graph-ldp``, ``metric-ldp``, ``cip``, ``pml``,
    ``alip`` (with ``eps_lower``: ``eps`` is then the upper level), or a registered one.

    Notions added with :func:`mechopt.registry.register_notion` are built as ``cls(eps)``.

    >>> make_notion("alip", 1.0, eps_lower=0.5)
    ALIP(eps=1, eps_lower=0.5)
    """
    eps = check_eps(eps)  # a design target must be > 0
    key = str(name).lower()
    if "graph" in kwargs and key not in ("graph-ldp", "metric-ldp"):  # used or refused, never ignored
        raise ProblemError(
            f"a policy graph (--graph) belongs to notions graph-ldp and metric-ldp, not {key}: "
            "drop the graph, or use --notion graph-ldp"
        )
    if "p" in kwargs and key != "cip":
        raise ProblemError(f"the users' priors p belong to notion cip, not {key}")
    if "eps_lower" in kwargs and key != "alip":
        raise ProblemError(f"a lower privacy level (--eps-lower) belongs to notion alip, not {key}")
    if key == "pml":
        return PML(eps)
    if key == "alip":
        return ALIP(eps, kwargs.get("eps_lower"))
    if key in NOTIONS:
        return NOTIONS[key](eps)
    if key in REGISTERED:
        return REGISTERED[key](eps)
    if key == "metric-ldp" and kwargs.get("dist") is not None:  # a distance matrix (mechopt.geo.places)
        return MetricLDP(eps, kwargs["dist"], source=kwargs.get("source"))
    if key in ("graph-ldp", "metric-ldp"):
        if "graph" not in kwargs:
            raise ProblemError(
                f"notion {key} needs a policy graph (--graph FILE)"
                + (" or locations (--coords FILE|grid:KxK)" if key == "metric-ldp" else "")
            )
        return GraphLDP(eps, kwargs["graph"], metric=key == "metric-ldp")
    if key == "cip":
        if "p" not in kwargs:
            raise ProblemError("notion cip needs the users' priors p (P(D_i = 1), one per user)")
        return CIP(eps, kwargs["p"])
    known = sorted([*BUILTIN_NAMES, *REGISTERED])
    raise ProblemError(f"unknown privacy notion {name!r}; known: {', '.join(known)}")


def audit_all(Q, prior=None) -> dict[str, dict[str, float | None]]:
    """Smallest ε under LDP, and (with a prior) LIP, MIP and PML: the ``audit`` document."""
    out: dict[str, dict[str, float | None]] = {}
    for name, cls in {**NOTIONS, "pml": PML}.items():
        if cls.needs_prior and prior is None:
            continue
        eps = cls(0.0).audit(Q, prior).eps
        out[name] = {"eps": eps if eps != float("inf") else None}
    return out
