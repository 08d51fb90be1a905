"""Mechanism files (JSON, .npy, .csv) and the audit of a mechanism under every notion.

A mechanism file, written by ``mechopt design --out`` and read by ``mechopt
audit``, is one JSON object carrying the mechanism in the same layout as
``mechopt design --json`` (:func:`mechopt.results.result.mechanism_dict`)::

    {"mechanism": {"Q": [[...], ...], "inputs": [...], "outputs": [...], "prior": [...], "values": [...]},
     "privacy": {"notion": "ldp", "eps": 1.0, ...}, "value": ..., "unit": ..., ...}

(``design --out`` writes the whole design document). ``Q`` is a list of
rows, rows are inputs; ``inputs``, ``outputs``, ``prior``, ``values`` and
``privacy`` are optional, further keys are kept but not interpreted.
``values`` (since mechopt 0.1 of 2026-11-26) are the numbers a_x of the inputs
an ``mse``/``mae`` design was solved for, one finite number per row of Q; a
file without them (written earlier) is read as before, its estimates then in
the units of the input labels. The older flat layout
``{"Q": ..., "prior": ..., "notion": ..., "eps": ...}`` is still read. :func:`read_mechanism` also reads a bare JSON
matrix, a ``.npy`` array and a ``.csv`` matrix.

Examples
--------
>>> import json, numpy as np, tempfile, os
>>> from mechopt.io.mechfile import write_mechanism, read_mechanism, audit
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> path = os.path.join(tempfile.mkdtemp(), "m.json")
>>> write_mechanism(path, Q, prior=[0.5, 0.5], notion="ldp", eps=1.1, values=[0.0, 1e-9])
>>> doc = read_mechanism(path)
>>> doc["Q"].shape, doc["notion"], doc["values"].tolist()
((2, 2), 'ldp', [0.0, 1e-09])
>>> sorted(json.load(open(path))["mechanism"])
['Q', 'inputs', 'outputs', 'prior', 'values']
>>> round(audit(doc["Q"], [0.5, 0.5])["notions"]["ldp"]["eps"], 6)   # ln 3
1.098612
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError, ProblemError
from mechopt.io.files import NpyFormatError, read_input_text, read_npy
from mechopt.io.jsontext import loads_strict
from mechopt.io.privacy_claim import claim_of
from mechopt.io.writer import write_text
from mechopt.model._mechanism import mechanism_dict
from mechopt.model.channel import validate_channel
from mechopt.model.numbers import NotDecimal, ascii_float, precision_tolerance
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.results._json import dumps

#: Largest JSON or CSV mechanism file read (about 2.5 million entries of Q in JSON).
MAX_MECHANISM_BYTES = 64 * 1024 * 1024
#: Largest .npy mechanism file read (binary, no parsing: 134 million float64 entries, a 10⁴ × 10⁴ Q).
MAX_NPY_BYTES = 1024 * 1024 * 1024
_TOO_BIG = "save a large mechanism as .npy (mechopt design --out Q.npy; .npy files up to 1 GiB are read)"

__all__ = [
    "read_mechanism",
    "check_values",
    "read_exact_entries",
    "write_mechanism",
    "audit",
    "MAX_MECHANISM_BYTES",
    "MAX_NPY_BYTES",
]


def write_mechanism(
    path: str | os.PathLike,
    Q: Any,
    *,
    prior: Any = None,
    notion: str | None = None,
    eps: float | None = None,
    eps_lower: float | None = None,
    inputs: Any = None,
    outputs: Any = None,
    values: Any = None,
    **extra: Any,
) -> None:
    """Write a mechanism file with :func:`mechopt.io.writer.write_text` (format: the module docstring).

    ``values`` (the numbers a_x of the inputs, one per row of Q) are checked as :func:`read_mechanism`
    checks them."""
    M = validate_channel(Q)
    if values is not None:
        import numpy as np

        plain = values if isinstance(values, str) else np.asarray(values, dtype=object).tolist()
        values = check_values(plain, M.shape[0], Path(path))
    mech = mechanism_dict(M, prior=None if prior is None else validate_prior(prior), values=values)
    if inputs is not None:
        mech["inputs"] = list(inputs)
    if outputs is not None:
        mech["outputs"] = list(outputs)
    doc: dict[str, Any] = {"mechanism": mech}
    if notion is not None or eps is not None:
        doc["privacy"] = {"notion": notion, "eps": eps}
        if eps_lower is not None:  # ALIP's lower level (eps is then the upper one)
            doc["privacy"]["eps_lower"] = eps_lower
    for key, value in extra.items():
        try:
            dumps(value)
        except (TypeError, ValueError):
            raise ParamError(
                f"write_mechanism: field {key!r} is a {type(value).__name__}, which JSON cannot hold; give "
                "numbers, strings, lists or dicts (a list for a set)"
            ) from None
    doc.update(extra)
    write_text(path, dumps(doc) + "\n")


def read_mechanism(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a mechanism; ``Q`` (and ``prior`` if present) become arrays.

    Four forms are read, chosen by the file name's suffix and the JSON shape:

    - ``.npy``: a 2-D numeric array (read with ``allow_pickle=False``);
    - ``.csv``: one row of Q per line, numbers separated by commas (``#`` starts a comment);
    - JSON (any other suffix): a bare matrix ``[[...], ...]``, an object with
      ``"Q"``, or an object ``{"mechanism": {"Q": ...}, ...}``; a ``"prior"`` is
      taken from the object or its ``"mechanism"``.

    The returned dict has ``"Q"``, ``"format"`` (``npy``, ``csv``, ``json-matrix``
    or ``json``), ``"precision"`` (the row-sum and privacy tolerance a file stored
    below double precision is judged at, else 0), ``"claim"`` (the file's own
    privacy claim ``{"notion", "eps"}`` read by
    :func:`mechopt.io.privacy_claim.claim_of`, or None) and the object's other keys.
    Numbers in a ``.csv`` are ASCII decimal notation only; JSON that the
    standard leaves ambiguous (duplicate keys, lone surrogates) is refused. Raises :class:`ProblemError` with
    one line naming the file for an unreadable file, invalid JSON (including
    ``NaN``/``Infinity`` literals), a pickled or non-numeric array, a missing
    ``Q``, or a ``Q`` that is not row-stochastic.

    Examples
    --------
    >>> import numpy as np, tempfile, os
    >>> folder = tempfile.mkdtemp()
    >>> np.save(os.path.join(folder, "m.npy"), np.array([[0.75, 0.25], [0.25, 0.75]]))
    >>> doc = read_mechanism(os.path.join(folder, "m.npy"))
    >>> doc["format"], doc["Q"].shape
    ('npy', (2, 2))
    >>> with open(os.path.join(folder, "m.csv"), "w") as fh:
    ...     _ = fh.write("# rows are inputs\\n0.75,0.25\\n0.25,0.75\\n")
    >>> read_mechanism(os.path.join(folder, "m.csv"))["Q"][1].tolist()
    [0.25, 0.75]
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        out: dict[str, Any] = {"Q": _load_npy(p), "format": "npy"}
    elif suffix == ".csv":
        out = {"Q": _load_csv(p), "format": "csv"}
    else:
        out = _load_json(p)
    out["precision"] = precision_tolerance(out["Q"])  # a float32/float16 .npy: judged at its own precision
    out["Q"] = validate_channel(out["Q"], name=f"Q in {p.name}")
    out["claim"] = claim_of(out, repr(p.name))
    if out.get("prior_set") is not None:  # a robust design's set: one prior per vertex, one entry per row of Q
        vs = out["prior_set"]
        if not isinstance(vs, list) or not vs or not all(isinstance(v, list) and len(v) == len(out["Q"]) for v in vs):
            raise ProblemError(f'"prior_set" in {str(p)!r} must be a list of priors with one entry per row of Q')
        out["prior_set"] = [validate_prior(v, name=f"prior-set vertex {i} in {p.name}") for i, v in enumerate(vs)]
    if out.get("values") is not None:
        out["values"] = check_values(out["values"], out["Q"].shape[0], p)
    if out.get("prior") is not None:
        if isinstance(out["prior"], (str, bool)):
            raise ProblemError(f'"prior" in {str(p)!r} must be a list of numbers, got {out["prior"]!r}')
        out["prior"] = validate_prior(out["prior"], name=f"prior in {p.name}")
        if out["prior"].size != out["Q"].shape[0]:
            raise ProblemError(
                f'"prior" in {str(p)!r} has {out["prior"].size} symbols but Q has '
                f"{out['Q'].shape[0]} rows: one prior entry per row (input)"
            )
    return out


def check_values(values: Any, d: int, p: Path) -> Any:
    """A file's ``values``: d finite numbers (one per row of Q) as a float array, else ProblemError."""
    import numpy as np

    ok = isinstance(values, list) and len(values) == d
    ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values)
    if not ok:
        raise ProblemError(
            f'"values" in {str(p)!r} must be a list of {d} finite numbers, one per row of Q (the numbers a_x '
            "of the inputs an mse/mae design was solved for)"
        )
    return np.asarray(values, dtype=float)


def read_exact_entries(path: str | os.PathLike) -> list[list[Any]]:
    """Q of a mechanism file as written, for exact arithmetic: decimals of a JSON or CSV file as
    :class:`fractions.Fraction` (``0.1`` is exactly 1/10), a ``.npy`` array's floats as they are.

    Read after :func:`read_mechanism` has validated the file (no check is repeated here beyond
    the parsing).

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> with open(path, "w") as fh:
    ...     _ = fh.write('{"Q": [[0.9, 0.1], [0.1, 0.9]]}')
    >>> read_exact_entries(path)[0]
    [Fraction(9, 10), Fraction(1, 10)]
    """
    import json
    from fractions import Fraction

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".npy":
        return _load_npy(p).tolist()
    text = read_input_text(p, "mechanism file", MAX_MECHANISM_BYTES, too_big=_TOO_BIG)
    if suffix == ".csv":
        lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
        return [[Fraction(v.strip()) for v in line.split(",")] for line in lines if line]
    doc = json.loads(text, parse_float=Fraction, parse_int=Fraction)
    return doc if isinstance(doc, list) else _flatten(doc)["Q"]


def _load_npy(p: Path) -> Any:
    import numpy as np

    try:  # header first: the claimed shape must match the file's size before any allocation
        arr = read_npy(p, "mechanism file", MAX_NPY_BYTES)
    except NpyFormatError as exc:
        if "Python objects" in str(exc):
            raise ProblemError(
                f"{str(p)!r} holds Python objects (a pickled array), which are not read: "
                "save Q with numpy.save as a float array"
            ) from None
        if "numpy reads safely" in str(exc):  # numpy's own refusal names allow_pickle too: not a pickle
            raise ProblemError(
                f"{str(p)!r} has a .npy header longer than numpy reads safely (max_header_size), not a "
                "plain array: save Q with numpy.save"
            ) from None
        if "npz" in str(exc):
            raise ProblemError(
                f"{str(p)!r} holds an .npz archive, not a numeric matrix: save Q as a float array"
            ) from None
        raise ProblemError(f"{str(p)!r} is not a readable .npy array ({exc}): save Q with numpy.save") from None
    if not isinstance(arr, np.ndarray) or arr.dtype.kind not in "biuf":
        kind = "an .npz archive" if not isinstance(arr, np.ndarray) else f"dtype {arr.dtype}"
        raise ProblemError(f"{str(p)!r} holds {kind}, not a numeric matrix: save Q as a float array")
    if arr.dtype.kind == "b":
        raise ProblemError(f"{str(p)!r} holds a boolean array, not probabilities: save Q as a float array")
    return arr


def _load_csv(p: Path) -> Any:
    import numpy as np

    text = read_input_text(p, "mechanism file", MAX_MECHANISM_BYTES, too_big=_TOO_BIG)
    rows = []
    for no, line in enumerate(text.splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            rows.append([ascii_float(v) for v in line.split(",")])
        except NotDecimal as exc:
            raise ProblemError(
                f"line {no} of {str(p)!r} has an entry that is not a plain decimal number; {exc.reason}"
            ) from None
        except ValueError:
            raise ProblemError(
                f"line {no} of {str(p)!r} is not a comma-separated list of numbers "
                "(no header row; '#' starts a comment)"
            ) from None
    if not rows:
        raise ProblemError(f"{str(p)!r} has no rows: write one row of Q per line")
    if len({len(r) for r in rows}) > 1:
        raise ProblemError(
            f"the rows of {str(p)!r} have different lengths {sorted({len(r) for r in rows})}: "
            "every row of Q has one entry per output"
        )
    return np.array(rows, dtype=float)


def _load_json(p: Path) -> dict[str, Any]:
    text = read_input_text(p, "mechanism file", MAX_MECHANISM_BYTES, too_big=_TOO_BIG)
    doc = loads_strict(text, f"mechanism file {str(p)!r}")
    if isinstance(doc, list) and doc and all(isinstance(r, list) for r in doc):
        out: dict[str, Any] = {"Q": doc, "format": "json-matrix"}
        where = "the matrix"
    else:
        doc = _flatten(doc)
        if not isinstance(doc, dict) or "Q" not in doc:
            raise ProblemError(
                f'mechanism file {str(p)!r} must be a JSON object with a "Q" matrix (rows are '
                'inputs): {"mechanism": {"Q": [[...], ...]}}, the older {"Q": [[...], ...]}, '
                "or a bare JSON matrix (a list of rows)"
            )
        out = {**doc, "format": "json"}
        where = '"Q"'
    Q = out["Q"]
    if not isinstance(Q, list) or not all(isinstance(r, list) for r in Q) or len({len(r) for r in Q}) > 1:
        raise ProblemError(f"{where} in {str(p)!r} must be a list of rows of equal length")
    if any(v is None or isinstance(v, (bool, str)) for r in Q for v in r):
        raise ProblemError(f"{where} in {str(p)!r} has a non-numeric entry (null, string or boolean)")
    return out


def _flatten(doc: Any) -> Any:
    """The current layout (``{"mechanism": {"Q", ...}, "privacy": {...}}``) as the flat one ``{"Q", ...}``.

    >>> _flatten({"mechanism": {"Q": [[1.0]], "prior": [1.0]}, "privacy": {"notion": "ldp", "eps": 1}})
    {'Q': [[1.0]], 'prior': [1.0], 'notion': 'ldp', 'eps': 1}
    """
    if not isinstance(doc, dict) or "Q" in doc or not isinstance(doc.get("mechanism"), dict):
        return doc
    rest = {k: v for k, v in doc.items() if k not in ("mechanism", "privacy")}
    privacy = doc.get("privacy") if isinstance(doc.get("privacy"), dict) else {}
    flat = {**rest, **doc["mechanism"]}
    for key in ("notion", "eps", "eps_lower"):
        if privacy.get(key) is not None:
            flat[key] = privacy[key]
    return flat


def audit(Q: Any, prior: Any = None) -> dict[str, Any]:
    """The audit document: smallest ε of ``Q`` under LDP, LIP and MIP.

    ``{"notions": {"ldp": {"eps": ...}, "lip": {"eps": ...}, "mip": {"eps": ...}}}``
    with ``None`` for an infinite ε (LIP and MIP need the prior, as a vector
    or the CLI syntax ``"0.2,0.8"`` / ``"uniform:d"`` / a file).

    Examples
    --------
    >>> import numpy as np
    >>> audit(np.eye(2), "0.5,0.5")["notions"]["ldp"]
    {'eps': None}
    """
    from mechopt.notions import audit_all

    P = None
    if prior is not None:
        P = parse_prior(prior) if isinstance(prior, (str, os.PathLike)) else validate_prior(prior)
    M = validate_channel(Q, n_inputs=None if P is None else P.size)
    notions = audit_all(M, P)
    clean = {
        k: {kk: (None if vv is None or not math.isfinite(vv) else float(vv)) for kk, vv in v.items()}
        for k, v in notions.items()
    }
    doc: dict[str, Any] = {"notions": clean, "inputs": int(M.shape[0]), "outputs": int(M.shape[1])}
    if P is not None:
        doc["prior"] = P.tolist()
    return doc
