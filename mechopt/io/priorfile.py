"""Prior files: a ``.npy`` vector, or text with numbers or a two-column table ``label,probability``.

A text prior is read in one of two layouts, told apart by its content:

- numbers only, separated by spaces, commas, semicolons or new lines
  (``0.2 0.8``, one number per line, ``0.2,0.3,0.5``);
- a table with one symbol per line, ``label,probability`` (commas, semicolons,
  tabs or spaces between the two fields), with an optional header line such
  as ``symbol,prob``; the labels name the inputs of the design (its report's
  ``inputs``). A one-column table may have a header line too.

``#`` starts a comment, and a UTF-8 byte-order mark (as spreadsheets write
it) is skipped. Numbers are ASCII decimal notation only
(:mod:`mechopt.model.numbers`); the ``.npy`` suffix is matched in any case
(``P.NPY``), and a ``.npy`` must hold a 1-D array of integers or floats
(booleans, strings and objects are refused). An error names the line and
field but never echoes the file's content.

Examples
--------
>>> import os, tempfile
>>> from mechopt.io.priorfile import read_prior_file
>>> path = os.path.join(tempfile.mkdtemp(), "prior.csv")
>>> _ = open(path, "w").write("symbol,prob\\nrain,0.3\\nsun,0.7\\n")
>>> p, labels = read_prior_file(path)
>>> p.tolist(), labels
([0.3, 0.7], ('rain', 'sun'))
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.numbers import NotDecimal, ascii_float, is_decimal

__all__ = ["read_prior_file", "LAYOUT_HELP"]

#: Largest text prior file read (about 1.5 million numbers; larger priors as .npy).
MAX_TEXT_BYTES = 16 * 1024 * 1024
#: Largest .npy prior file read (10⁷ float64 values and a header).
MAX_NPY_BYTES = 8 * 10_000_000 + 64 * 1024
LAYOUT_HELP = (
    "a prior file holds numbers (0.2 0.8, or one per line), or two columns label,probability "
    "with an optional header line such as symbol,prob"
)
_FIELDS = re.compile(r"\s*[,;\t]\s*|\s+")


def read_prior_file(path: str | Path) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """The prior vector of the file ``path`` and its labels (None when the file has none).

    The vector is a 1-D array as stored (a float16 ``.npy`` stays float16, so
    :func:`mechopt.model.priors.validate_prior` judges its sum at that precision);
    validating it as a distribution is the caller's step.
    """
    from mechopt.io.files import read_input

    p = Path(path)
    if not p.exists():
        raise ProblemError(
            f"prior file {str(p)!r} does not exist (give numbers like 0.2,0.8, uniform:d, or a .npy/.txt/.csv path)"
        )
    if p.is_dir():
        raise ProblemError(f"prior file {str(p)!r} is a directory: give a .npy/.txt/.csv file")
    if p.suffix.lower() == ".npy":
        arr, labels = _npy(p), None
    else:
        arr, labels = _text(p, read_input(p, "prior file", MAX_TEXT_BYTES))
    if np.ndim(arr) != 1:  # a matrix is not a prior: never flatten it silently
        raise ProblemError(
            f"prior file {p.name!r} holds an array of shape {np.shape(arr)}, not a 1-D vector; "
            "save the prior as one vector (np.save(path, p.ravel()) if that is what you mean)"
        )
    return arr, labels


def _npy(p: Path) -> np.ndarray:
    from mechopt.io.files import NpyFormatError, read_npy

    try:  # the header first: a claimed shape that the file's size cannot hold is refused before allocating
        arr = read_npy(p, "prior file", MAX_NPY_BYTES)
    except NpyFormatError as exc:
        why = str(exc)
        if "npz" in why:
            raise ProblemError(
                f"prior file {str(p)!r} is an .npz archive (a zip of arrays), not one array: "
                "save the prior with numpy.save"
            ) from None
        if "no NumPy header" in why:
            raise ProblemError(
                f"cannot read prior file {str(p)!r}: it is named .npy but has no NumPy header; "
                "save it with numpy.save, or give a text file (.txt, .csv)"
            ) from None
        raise ProblemError(f"cannot read prior file {str(p)!r}: {why}; save the prior with numpy.save") from None
    if not isinstance(arr, np.ndarray):
        raise ProblemError(f"prior file {str(p)!r} is an .npz archive, not one array: save the prior with numpy.save")
    if arr.dtype.kind == "b":
        raise ProblemError(
            f"prior file {str(p)!r} holds a boolean array, not probabilities: save the prior as floats "
            "(p.astype(float) if True/False marks what you mean)"
        )
    if arr.dtype.kind not in "iufc":
        raise ProblemError(
            f"prior file {str(p)!r} holds dtype {arr.dtype}, not numbers: save the prior as a float array"
        )
    return arr


def _text(p: Path, data: bytes) -> tuple[np.ndarray, tuple[str, ...] | None]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ProblemError(
            f"cannot read prior file {str(p)!r}: it is not UTF-8 text (a .npy file must end in .npy)"
        ) from None
    rows = []
    for no, line in enumerate(text.splitlines(), 1):
        fields = [f for f in _FIELDS.split(line.split("#", 1)[0].strip()) if f]
        if fields:
            rows.append((no, fields))
    if not rows:
        raise ProblemError(f"prior file {str(p)!r} has no numbers: {LAYOUT_HELP}")
    if all(is_decimal(f) for _, fields in rows for f in fields):
        return np.array([_number(p, no, k, f) for no, fields in rows for k, f in enumerate(fields, 1)]), None
    return _table(p, rows)


def _table(p: Path, rows: list[tuple[int, list[str]]]) -> tuple[np.ndarray, tuple[str, ...] | None]:
    """A ``label,probability`` table (or one column) with an optional header line."""
    first_no, first = rows[0]
    if not any(_numeric(f) for f in first) or (len(first) == 2 and not _numeric(first[1])):
        rows = rows[1:]  # a header line: its names are not data
    if not rows:
        raise ProblemError(
            f"prior file {str(p)!r} has no numbers (line {first_no} is not numbers, nothing follows): {LAYOUT_HELP}"
        )
    width = len(rows[0][1])
    if width > 2:
        raise ProblemError(f"prior file {str(p)!r} line {rows[0][0]} has {width} fields: {LAYOUT_HELP}")
    for no, fields in rows:
        if len(fields) != width:
            raise ProblemError(
                f"prior file {str(p)!r} line {no} has {len(fields)} field(s) where line {rows[0][0]} has "
                f"{width}: {LAYOUT_HELP}"
            )
    values = np.array([_number(p, no, width, fields[-1]) for no, fields in rows])
    if width == 1:
        return values, None
    labels = tuple(fields[0] for _, fields in rows)
    seen: dict[str, int] = {}
    for no, fields in rows:
        if fields[0] in seen:
            raise ProblemError(
                f"prior file {str(p)!r} line {no} repeats the label of line {seen[fields[0]]}: one line per symbol"
            )
        seen[fields[0]] = no
    return values, labels


def _numeric(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


def _number(p: Path, no: int, k: int, field: str) -> float:
    """Field ``k`` of line ``no`` as a number; the error says why without echoing the field."""
    try:
        return ascii_float(field)
    except NotDecimal as exc:
        raise ProblemError(
            f"prior file {str(p)!r} line {no}, field {k} is not a decimal number: {exc.reason}"
        ) from None
    except ValueError:
        raise ProblemError(f"prior file {str(p)!r} line {no}, field {k} is not a number: {LAYOUT_HELP}") from None


def prior_labels(prior: Any) -> tuple[Any, ...] | None:
    """The labels a prior carries (a pandas Series' index when it is not 0..d-1), else None.

    >>> class Series(list):  # the part of pandas.Series this reads
    ...     index = ["a", "b"]
    >>> prior_labels(Series([0.3, 0.7])), prior_labels([0.3, 0.7])
    (('a', 'b'), None)
    """
    index = getattr(prior, "index", None)
    if index is None or callable(index) or isinstance(prior, np.ndarray):  # list.index is a method
        return None
    labels = tuple(index.tolist() if hasattr(index, "tolist") else index)
    return None if labels == tuple(range(len(labels))) else labels
