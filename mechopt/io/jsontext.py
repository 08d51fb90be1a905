"""JSON input read strictly: the documents the standard (RFC 8259) leaves ambiguous are refused.

Python's :func:`json.loads` accepts three things that different readers of
the same file would understand differently, so a file could mean one thing to
mechopt and another to the tool that wrote or checks it:

- duplicate keys in an object (``{"Q": A, "Q": B}``: Python keeps the last,
  other parsers the first or refuse);
- the non-standard literals ``NaN``, ``Infinity`` and ``-Infinity``;
- lone UTF-16 surrogates written as escapes (``"\\ud800"``), which are not
  characters and cannot be written back as UTF-8.

:func:`loads_strict` refuses all three with one line naming the file and,
for a duplicate key, the key and where it is.

Examples
--------
>>> from mechopt.io.jsontext import loads_strict
>>> loads_strict('{"Q": [[1.0]]}', "mechanism file 'm.json'")
{'Q': [[1.0]]}
>>> loads_strict('{"Q": 1, "Q": 2}', "mechanism file 'm.json'")
Traceback (most recent call last):
...
mechopt.errors.ProblemError: mechanism file 'm.json' is ambiguous JSON: key "Q" appears twice in one object ...
"""

from __future__ import annotations

import json
import re
from typing import Any

from mechopt.errors import ProblemError

__all__ = ["loads_strict", "AmbiguousJSON"]

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class AmbiguousJSON(ValueError):
    """Raised inside the parser; :func:`loads_strict` turns it into a :class:`ProblemError`."""


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise AmbiguousJSON(
                f"key {json.dumps(key)[:60]} appears twice in one object (readers disagree on which one "
                "counts); keep one"
            )
        out[key] = value
    return out


def _constant(token: str) -> Any:
    raise ValueError(f"{token} is not a number (standard JSON has no NaN or Infinity); give a finite number")


def _lone_surrogate(value: Any) -> bool:
    """Whether any string (key or value) inside ``value`` holds a lone surrogate."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return False


def loads_strict(text: str, what: str, error: type[Exception] = ProblemError) -> Any:
    """Parse ``text`` as JSON, refusing duplicate keys, NaN/Infinity and lone surrogates.

    Parameters
    ----------
    text : str
        The document.
    what : str
        The file, for messages (``"mechanism file 'm.json'"``).
    error : exception class
        Raised (one line, naming ``what``) on invalid or ambiguous JSON.
    """
    try:
        doc = json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
    except AmbiguousJSON as exc:
        raise error(f"{what} is ambiguous JSON: {exc}") from None
    except RecursionError:
        raise error(f"{what} is nested too deeply to read") from None
    except ValueError as exc:  # json.JSONDecodeError, and int() refusing a 5000-digit integer
        raise error(f"{what} is not valid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text) and _lone_surrogate(doc):  # the text itself is valid UTF-8
        raise error(
            f"{what} is ambiguous JSON: a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff "
            "without its pair), which is not a character; write the character itself"
        )
    return doc
