"""Warm starts of column generation across solves (sweeps over ε): column *types* that outlive ε.

A column of an ε-LDP master is a pattern z ∈ {0,1}^d (r ∝ P ∘ (1 + (e^ε − 1)z)),
a column of an ε-LIP master a vertex type: the set U of coordinates at the upper
bound and the free coordinate j (or none). Both descriptions are independent of
ε, so a solve at ε' can start from the columns of a solve at ε: the LDP patterns
give admissible rays at every ε; a LIP type gives a vertex of the new box when
the free coordinate's value 1 − Σ_{x≠j} p_x lies within its bounds (others are
dropped). Warm columns only seed the restricted master; the certificate still
comes from exact pricing, so a warm start changes speed, never the answer.

Examples
--------
>>> import numpy as np
>>> P = np.array([0.2, 0.3, 0.5])
>>> R = np.array([[0.2, 0.4], [0.3, 0.2], [0.5, 0.4]])
>>> info = describe(R, P, 1.0, "ldp")
>>> info["kind"], info["patterns"].astype(int).tolist()
('ldp', [[0, 0, 0], [1, 0, 0]])
>>> rebuild(info, P, 2.0, "ldp").shape
(3, 2)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.errors import ParamError
from mechopt.solvers.exact.pricing.base import pattern_rays
from mechopt.solvers.exact.pricing.lip import lip_box

__all__ = ["describe", "rebuild", "warm_info"]


def describe(R: np.ndarray, P: np.ndarray, eps: float, kind: str) -> dict[str, Any]:
    """ε-free types of the columns R of an ε-LDP or ε-LIP master."""
    if kind == "ldp":
        q = R / P[:, None]
        z = q > q.min(axis=0) * math.exp(0.5 * eps)  # midway between 1 and e^ε in log scale
        return {"kind": "ldp", "d": int(P.size), "patterns": np.unique(z.T, axis=0)}
    lo, hi = lip_box(P, eps)
    up = np.abs(R - hi[:, None]) < np.abs(R - lo[:, None])
    off = np.minimum(np.abs(R - hi[:, None]), np.abs(R - lo[:, None])) / P[:, None]
    free = np.where(off.max(axis=0) > 1e-9, off.argmax(axis=0), -1)
    return {"kind": "lip", "d": int(P.size), "upper": up.T.copy(), "free": free.astype(int)}


def rebuild(info: dict[str, Any], P: np.ndarray, eps: float, kind: str) -> np.ndarray:
    """Columns at ε from the types in ``info`` (LIP types whose free value leaves the box are dropped)."""
    if info.get("kind") != kind or int(info.get("d", -1)) != P.size:
        raise ParamError(
            f"warm_start holds {info.get('kind')} columns for d = {info.get('d')}; this problem is "
            f"{kind} with d = {P.size}"
        )
    if kind == "ldp":
        return pattern_rays(P, eps, np.asarray(info["patterns"], bool))
    lo, hi = lip_box(P, eps)
    up = np.asarray(info["upper"], bool)
    V = np.where(up, hi, lo)
    free = np.asarray(info["free"], int)
    rows = np.arange(V.shape[0])
    has = free >= 0
    V[rows[has], free[has]] = 0.0
    rest = 1.0 - V.sum(axis=1)
    ok = np.abs(rest) <= 1e-12
    jf = free[has]
    ok[has] = (rest[has] >= lo[jf] - 1e-12) & (rest[has] <= hi[jf] + 1e-12)
    V[rows[has], free[has]] = rest[has]
    V = V[ok]
    return (V / V.sum(axis=1, keepdims=True)).T


def warm_info(warm: Any) -> dict[str, Any]:
    """The column types held by a ``warm_start`` option: a previous Result, its extras, or the dict itself."""
    extras = getattr(warm, "extras", warm)
    if isinstance(extras, dict) and "warm_start" in extras:
        extras = extras["warm_start"]
    if not (isinstance(extras, dict) and extras.get("kind") in ("ldp", "lip")):
        raise ParamError(
            "warm_start must be a previous exact Result (column generation), its extras, or extras['warm_start']"
        )
    return extras
