"""Strict reading of numbers written as text: ASCII decimal notation only.

Python's ``float()`` and ``int()`` accept more than a decimal number: digit
separators (``float("0.7_5") == 0.75``), the digits of other scripts
(``float("١") == 1.0``, Arabic-Indic; ``float("１") == 1.0``, fullwidth) and
surrounding Unicode spaces. A prior, an ε or a policy-graph weight written
that way is a typo or a copy from somewhere else far more often than a
choice, so every number mechopt reads from text (command-line flags, prior
and mechanism files, policy-graph files, ``--set`` values, spec strings)
goes through :func:`ascii_float` or :func:`ascii_int`: the characters ``0-9``,
one ``.``, an exponent ``e``/``E``, a sign, and the words ``inf`` and ``nan``
(which the callers then refuse with their own reason). Values that are
already numbers (``int``, ``float``, numpy scalars, ``Decimal``) are converted
as ``float()``/``int()`` would.

Examples
--------
>>> from mechopt.model.numbers import ascii_float, ascii_int
>>> ascii_float(" 2.5e-3 "), ascii_int("-12")
(0.0025, -12)
>>> ascii_float("0.7_5")
Traceback (most recent call last):
...
mechopt.model.numbers.NotDecimal: '0.7_5' is not a decimal number: ... (no '_' digit separators)
>>> ascii_float("١")
Traceback (most recent call last):
...
mechopt.model.numbers.NotDecimal: '١' is not a decimal number: ... (it has U+0661 ARABIC-INDIC DIGIT ONE)
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

__all__ = ["NotDecimal", "ascii_float", "ascii_int", "is_decimal", "float_array", "precision_tolerance"]

_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_WORDS = {"inf", "infinity", "nan"}


class NotDecimal(ValueError):
    """Text that Python would read as a number but that is not plain ASCII decimal notation.

    A ``ValueError``, so callers that catch ``float()``'s errors catch it too;
    its message quotes the text and says what is wrong, ``reason`` says what is
    wrong without quoting it (for messages about files, which never echo them).
    """

    def __init__(self, text: str, reason: str, what: str = "a decimal number") -> None:
        super().__init__(f"{text!r} is not {what}: {reason}")
        self.reason = reason


def _why(text: str, digits: str = "the digits 0-9, '.' and an optional exponent such as 1e-3") -> str:
    """Why ``text`` is refused, naming the first character that is not ASCII (not quoting ``text``)."""
    odd = next((c for c in text if ord(c) > 127 and not c.isspace()), None)
    if odd is not None:
        name = unicodedata.name(odd, "unnamed")
        kind = "the ASCII digits 0-9" if odd.isnumeric() else "ASCII characters only"
        return f"write it with {kind} (it has U+{ord(odd):04X} {name})"
    return f"write it with {digits}" + (" (no '_' digit separators)" if "_" in text else "")


def _strip(text: str) -> str:
    return text.strip()  # spaces around a number (any Unicode space) change nothing


def is_decimal(text: str) -> bool:
    """Whether ``text`` (spaces around it allowed) is a decimal number, ``inf`` or ``nan``.

    >>> is_decimal("1e-3"), is_decimal("1_0"), is_decimal("-inf"), is_decimal("0x10")
    (True, False, True, False)
    """
    s = _strip(text)
    return bool(_FLOAT.fullmatch(s)) or s.lstrip("+-").lower() in _WORDS


def ascii_float(value: Any) -> float:
    """``float(value)``, strict for text: only ASCII decimal notation (see the module docstring).

    Raises
    ------
    NotDecimal
        ``value`` is a string Python would read but that is not decimal notation.
    ValueError, TypeError, OverflowError
        As ``float()`` for anything else it cannot convert.
    """
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("ascii", "replace")
    if isinstance(value, str):
        if not is_decimal(value):
            float(value)  # raises float's own ValueError for text that is no number at all
            raise NotDecimal(_strip(value), _why(_strip(value)))
        return float(_strip(value))
    return float(value)


def ascii_int(value: Any) -> int:
    """``int(value)``, strict for text: an optional sign and the ASCII digits 0-9 only.

    Non-integral floats raise ``ValueError`` (``int(2.5)`` would truncate).

    >>> ascii_int("7"), ascii_int(3.0)
    (7, 3)
    >>> ascii_int("1_000")
    Traceback (most recent call last):
    ...
    mechopt.model.numbers.NotDecimal: '1_000' is not a whole number: ... (no '_' digit separators)
    """
    if isinstance(value, str):
        s = _strip(value)
        if not _INT.fullmatch(s):
            int(s)  # float-like or no number at all: int's own ValueError
            raise NotDecimal(s, _why(s, "the digits 0-9"), "a whole number")
        return int(s)
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{value!r} is not a whole number")
        return int(value)
    return int(value)


def precision_tolerance(values: Any) -> float:
    """The round-off of a sum of probabilities stored at less than double precision, else 0.

    Rounding each entry of a probability vector to a float of machine epsilon
    u moves its sum by at most u/2; a file saved as float32 (u = 1.2e-7) or
    float16 (u = 9.8e-4) is judged at its own precision: 8u.

    >>> import numpy
    >>> precision_tolerance(numpy.zeros(2, numpy.float32)), precision_tolerance([0.5, 0.5])
    (9.5367431640625e-07, 0.0)
    """
    import numpy

    dtype = getattr(values, "dtype", None)
    if dtype is None or dtype.kind != "f" or dtype.itemsize >= 8:
        return 0.0
    return float(8 * numpy.finfo(dtype).eps)


def float_array(values: Any) -> Any:
    """``numpy.asarray(values, dtype=float)``, with text entries read by :func:`ascii_float`
    (numpy, like ``float()``, reads ``"1_0"`` as 10 and ``"١"`` as 1).

    >>> float_array(["0.25", 0.75]).tolist()
    [0.25, 0.75]
    >>> float_array([["1_0"]])
    Traceback (most recent call last):
    ...
    mechopt.model.numbers.NotDecimal: '1_0' is not a decimal number: ... (no '_' digit separators)
    """
    import numpy

    arr = numpy.asarray(values)
    if arr.dtype.kind in "USO":  # text, or a mix of text and numbers: each entry on its own
        flat = [ascii_float(v) for v in arr.ravel().tolist()]
        return numpy.asarray(flat, dtype=float).reshape(arr.shape)
    return numpy.asarray(arr, dtype=float)
