"""The one JSON layout of a mechanism, and the channel matrix of any mechanism object.

Examples
--------
>>> from mechopt.model._mechanism import mechanism_dict
>>> mechanism_dict([[1.0, 0.0], [0.0, 1.0]])
{'Q': [[1.0, 0.0], [0.0, 1.0]], 'inputs': [0, 1], 'outputs': [0, 1]}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.model.channel import Channel
from mechopt.results._json import jsonable

__all__ = ["mechanism_dict"]


def _channel_matrix(mech: Any) -> np.ndarray | None:
    """The 2-D float matrix of a channel-like mechanism, or None (no mechanism, a density, a plan, a
    structured channel too large to materialise...)."""
    if mech is None:
        return None
    try:
        M = getattr(mech, "matrix", mech)
    except Exception:  # a structured channel refusing to materialise (TooLargeError, ...)
        return None
    if isinstance(M, (str, bytes, dict)):
        return None
    try:
        M = np.asarray(M, dtype=float)
    except (TypeError, ValueError):
        return None
    return M if M.ndim == 2 and M.size else None


def mechanism_dict(mech: Any, prior: Any = None, values: Any = None) -> Any:
    """The one JSON layout of a mechanism (design ``--json``, ``design --out``, ``Result.to_dict``).

    A channel becomes ``{"Q": rows, "inputs": labels, "outputs": labels}``
    plus ``"prior"`` and ``"values"`` (the numbers a_x of an ``mse``/``mae``
    design, one per input) when given; anything else (a density, a covariance, a
    structured plan) its own JSON form; no mechanism ``None``.

    Examples
    --------
    >>> mechanism_dict([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5])
    {'Q': [[0.75, 0.25], [0.25, 0.75]], 'inputs': [0, 1], 'outputs': [0, 1], 'prior': [0.5, 0.5]}
    """
    if hasattr(mech, "to_dict") and not isinstance(mech, Channel):  # a structured mechanism describes itself
        doc = jsonable(mech.to_dict())
        if isinstance(doc, dict) and "Q" in doc and prior is not None and np.size(prior) == len(doc["Q"]):
            doc["prior"] = jsonable(np.asarray(prior, dtype=float))
        return doc
    Q = _channel_matrix(mech)
    if Q is None:
        return jsonable(mech)
    inputs = list(getattr(mech, "inputs", None) or range(Q.shape[0]))
    outputs = list(getattr(mech, "outputs", None) or range(Q.shape[1]))
    doc: dict[str, Any] = {
        "Q": jsonable(Q),
        "inputs": jsonable(inputs),
        "outputs": [o if isinstance(o, (int, float, str)) else str(o) for o in jsonable(outputs)],
    }
    if prior is not None and np.ndim(prior) == 1 and np.size(prior) == Q.shape[0]:
        doc["prior"] = jsonable(np.asarray(prior, dtype=float))
    if values is not None and np.ndim(values) == 1 and np.size(values) == Q.shape[0]:
        doc["values"] = jsonable(np.asarray(values, dtype=float))
    return doc
