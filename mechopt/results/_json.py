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
    if type(obj) is _Lists:  # an array's lists, already JSON values: not walked again (10⁷ rows take seconds)
        return obj
    if isinstance(obj, (list, tuple)):  # plain ints, strings and finite floats kept as they are, without a call
        return [v if type(v) in _PLAIN or (type(v) is float and math.isfinite(v)) else jsonable(v) for v in obj]
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


_PLAIN = (int, str)


class _Lists(list):
    """A list made from a numpy array by :func:`_array`: JSON values already, so :func:`jsonable` returns it as is."""


def _array(a: np.ndarray) -> Any:
    """Nested lists of an array by numpy's own ``tolist`` (C speed), non-finite floats as None."""
    if a.dtype.kind in "iub" or (a.dtype.kind == "f" and np.isfinite(a).all()):
        return _Lists(a.tolist()) if a.ndim else a.tolist()
    if a.dtype.kind == "f":
        out = a.astype(object)
        out[~np.isfinite(a)] = None
        return _Lists(out.tolist()) if a.ndim else out.tolist()
    return jsonable(a.tolist())


#: Lists with more entries than this are written by the C encoder in :func:`dumps`: a matrix (a list of lists) one
#: row per line, a flat list on one line.
BIG = 10_000


def dumps(doc: Any, *, default: Any = None) -> str:
    """``json.dumps(jsonable(doc), indent=1, allow_nan=False)``, fast for large arrays.

    Python's indenting encoder is pure Python (11 s for the 10000 × 582 Q of a
    d = 10⁴ design; 100 s for the 10⁷-output plan of a ``uniform:10000000`` design,
    written one number per line); every list with more than :data:`BIG` entries is
    written instead by the C encoder: a list of lists one row per line, a flat list
    on one line. The text parses to the same document.

    Examples
    --------
    >>> import json
    >>> doc = {"Q": np.full((200, 60), 0.5), "eps": 1.0, "w": np.arange(20_000)}
    >>> text = dumps(doc)
    >>> json.loads(text) == jsonable(doc), len(text.splitlines()) < 260
    (True, True)
    """
    import json

    big: dict[str, str] = {}

    def swap(o: Any) -> Any:
        if isinstance(o, dict):
            return {k: swap(v) for k, v in o.items()}
        if isinstance(o, list):
            if len(o) > BIG or (o and all(isinstance(r, list) for r in o) and sum(len(r) for r in o) > BIG):
                key = f"@@mechopt-array-{len(big)}@@"
                big[key] = _c_encoded(o, json, default)
                return key
            return [swap(v) for v in o]
        return o

    text = json.dumps(swap(jsonable(doc)), indent=1, allow_nan=False, default=default)
    for key, body in big.items():
        text = text.replace(json.dumps(key), body, 1)
    return text


def _c_encoded(o: list, json: Any, default: Any) -> str:
    """A large list by the C encoder: a list of lists one row per line, any other list on one line."""
    if not (o and all(isinstance(r, list) for r in o)):
        return json.dumps(o, allow_nan=False, default=default)
    body = json.dumps(o, allow_nan=False, default=default)[1:-1]
    if '"' in body:  # a string may hold "], [": one row at a time
        return "[\n" + ",\n".join(json.dumps(r, allow_nan=False, default=default) for r in o) + "\n]"
    return "[\n" + body.replace("], [", "],\n[") + "\n]"
