"""Consistency post-processing: turn an estimated frequency vector into a probability distribution.

An unbiased estimate θ̂ of a distribution can have negative entries and need not
sum to one. Three maps onto the simplex Δ = {p ≥ 0, Σp = 1} are in use:

- ``clip``: p = max(θ̂, 0) / Σ max(θ̂, 0) (clip and renormalise);
- ``norm-sub`` (Wang et al., NDSS 2020, "Norm-Sub"): set negative entries to
  0, then subtract one common amount from every positive entry so that they
  sum to 1, and repeat until no entry is negative. When the positive part sums
  to more than 1 this is the Euclidean projection; when it sums to less, the
  deficit is added to the positive entries only (the projection would also
  lift entries that were negative);
- ``project``: the Euclidean projection argmin_{p ∈ Δ} ‖p − θ̂‖₂ = max(θ̂ − τ, 0)
  with τ from the sorted prefix sums (Duchi et al. 2008; Wang & Carreira-Perpiñán 2013).

When no entry is positive, ``clip`` and ``norm-sub`` return the uniform
distribution (they have nothing to scale); ``project`` is always defined.

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.consistency import make_consistent
>>> theta = np.array([0.7, 0.5, -0.2])
>>> for how in ("clip", "norm-sub", "project"):
...     print(how, make_consistent(theta, how).round(4).tolist())
clip [0.5833, 0.4167, 0.0]
norm-sub [0.6, 0.4, 0.0]
project [0.6, 0.4, 0.0]
>>> make_consistent(np.array([0.5, 0.2, -0.1]), "norm-sub").round(4).tolist()   # positives sum to 0.7 < 1
[0.65, 0.35, 0.0]
>>> make_consistent(np.array([0.5, 0.2, -0.1]), "project").round(4).tolist()
[0.6333, 0.3333, 0.0333]
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mechopt.errors import ParamError

__all__ = ["clip", "norm_sub", "project_simplex", "make_consistent", "METHODS"]


def _uniform_if_empty(p: np.ndarray, total: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    empty = total <= 0
    if np.any(empty):
        p[empty] = 1.0 / p.shape[-1]
        total = np.where(empty, 1.0, total)
    return p, total


def clip(theta: Any) -> np.ndarray:
    """Clip negative entries to 0 and renormalise (each row of a 2-D array).

    >>> clip([0.6, 0.6, -0.2]).tolist()
    [0.5, 0.5, 0.0]
    """
    V = np.atleast_2d(np.asarray(theta, dtype=float))
    P = np.maximum(V, 0.0)
    P, total = _uniform_if_empty(P, P.sum(axis=1))
    P = P / total[:, None]
    return P[0] if np.ndim(theta) == 1 else P


def project_simplex(v: Any) -> np.ndarray:
    """Euclidean projection of each row of ``v`` onto the probability simplex.

    argmin_{p ≥ 0, Σp = 1} ‖p − v‖₂ = max(v − τ, 0) with τ from the sorted
    prefix sums (Wang & Carreira-Perpiñán 2013; Duchi et al. 2008), vectorised
    over rows: O(r · d log d).

    Examples
    --------
    >>> project_simplex([0.5, 0.8, -0.1])
    array([0.35, 0.65, 0.  ])
    """
    V = np.atleast_2d(np.asarray(v, dtype=float))
    d = V.shape[1]
    U = -np.sort(-V, axis=1)
    css = np.cumsum(U, axis=1) - 1.0
    ind = np.arange(1, d + 1)
    cond = U - css / ind > 0
    rho = d - 1 - np.argmax(cond[:, ::-1], axis=1)
    tau = css[np.arange(V.shape[0]), rho] / (rho + 1)
    P = np.maximum(V - tau[:, None], 0.0)
    return P[0] if np.ndim(v) == 1 else P


def norm_sub(theta: Any) -> np.ndarray:
    """Norm-Sub of Wang et al. (2020), in closed form (each row of a 2-D array).

    The fixed point of "zero the negatives, subtract the common excess from the
    positives": the projection of the positive part when it sums to ≥ 1, the
    positive part plus (1 − Σ)/#positives on each positive entry otherwise.

    >>> norm_sub([0.9, 0.3, -0.4]).round(6).tolist()
    [0.8, 0.2, 0.0]
    """
    V = np.atleast_2d(np.asarray(theta, dtype=float))
    P = np.maximum(V, 0.0)
    pos = P > 0
    total = P.sum(axis=1)
    over = total >= 1.0
    out = np.empty_like(P)
    if np.any(over):
        out[over] = project_simplex(P[over])
    under = ~over
    if np.any(under):
        Pu, pu, tu = P[under], pos[under], total[under]
        count = pu.sum(axis=1)
        lift = np.divide(1.0 - tu, count, out=np.zeros_like(tu), where=count > 0)
        Pu = Pu + pu * lift[:, None]
        Pu, _ = _uniform_if_empty(Pu, count.astype(float))
        out[under] = Pu
    return out[0] if np.ndim(theta) == 1 else out


#: The consistency methods by name (``Mechanism.estimate(consistency=...)``).
METHODS: dict[str, Callable[[Any], np.ndarray]] = {"clip": clip, "norm-sub": norm_sub, "project": project_simplex}


def make_consistent(theta: Any, method: str | None) -> np.ndarray:
    """``theta`` mapped onto the simplex by ``method`` (a key of :data:`METHODS`); None returns it unchanged.

    >>> make_consistent([0.2, 0.8], None).tolist()
    [0.2, 0.8]
    """
    if method is None:
        return np.asarray(theta, dtype=float)
    if method not in METHODS:
        raise ParamError(f"unknown consistency {method!r}; known: None, {', '.join(repr(m) for m in METHODS)}")
    return METHODS[method](theta)
