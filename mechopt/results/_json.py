"""JSON values of numpy data: the bottom of the result layer (result, _mechanism and the reports use it).

Re-exported as :func:`mechopt.results.result.jsonable`.

Examples
--------
>>> import numpy as np
>>> from mechopt.results._json import jsonable
>>> jsonable({"Q": np.eye(2), "eps": np.float64(np.inf), "n": np.int64(3)})
{'Q': [[1.0, 0.0], [0.0, 1.0]], 'eps': None, 'n': 3}
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

import numpy as np

__all__ = ["jsonable", "dumps"]


def jsonable(obj: Any) -> Any:
    """Convert numpy values to JSON types; NaN and ±inf become None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [v if type(v) is float and math.isfinite(v) else jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _array(obj)
    if isinstance(obj, (np.bool_, bool)):
        return bool(obj)
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        val = float(obj) + 0.0  # a zero is 0.0, never -0.0
        return val if math.isfinite(val) else None
    if isinstance(obj, Enum):
        return obj.value
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    return obj


def _array(a: np.ndarray) -> Any:
    """Nested lists of an array by numpy's own ``tolist`` (C speed), non-finite floats as None."""
    if a.dtype.kind in "iub":
        return a.tolist()
    if a.dtype.kind == "f":
        ok = np.isfinite(a)
        if ok.all():
            return a.tolist()
        out = a.astype(object)
        out[~ok] = None
        return out.tolist()
    return jsonable(a.tolist())


#: Matrices (lists of lists) with more entries than this are written one row per line by :func:`dumps`.
BIG = 10_000


def dumps(doc: Any, *, default: Any = None) -> str:
    """``json.dumps(jsonable(doc), indent=1, allow_nan=False)``, fast for large matrices.

    Python's indenting encoder is pure Python (11 s for the 10000 × 582 Q of a
    d = 10⁴ design); every list of lists with more than :data:`BIG` entries is
    written instead by the C encoder, one row per line. The text parses to the
    same document.

    Examples
    --------
    >>> import json
    >>> doc = {"Q": np.full((200, 60), 0.5), "eps": 1.0}
    >>> text = dumps(doc)
    >>> json.loads(text) == jsonable(doc), len(text.splitlines()) < 260
    (True, True)
    """
    import json

    big: dict[str, list] = {}

    def swap(o: Any) -> Any:
        if isinstance(o, dict):
            return {k: swap(v) for k, v in o.items()}
        if isinstance(o, list):
            if o and all(isinstance(r, list) for r in o) and sum(len(r) for r in o) > BIG:
                key = f"@@mechopt-matrix-{len(big)}@@"
                big[key] = o
                return key
            return [swap(v) for v in o]
        return o

    text = json.dumps(swap(jsonable(doc)), indent=1, allow_nan=False, default=default)
    for key, rows in big.items():
        body = "[\n" + ",\n".join(json.dumps(r, allow_nan=False, default=default) for r in rows) + "\n]"
        text = text.replace(json.dumps(key), body, 1)
    return text
