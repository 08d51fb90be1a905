"""A mechanism's file: versioned JSON with Q, labels, prior, privacy claim, certificate and provenance.

The document (format ``mechopt.mechanism``, version :data:`VERSION`) is a
mechanism file in the sense of :mod:`mechopt.io.mechfile`, so ``mechopt audit``
reads it too::

    {"format": "mechopt.mechanism", "version": 2,
     "mechanism": {"Q": [[...], ...], "inputs": [...], "outputs": [...], "prior": [...] or null,
                   "values": [...] or null},
     "privacy": {"notion": "ldp", "eps": 1.0} or null,
     "certificate": {"bound": ..., "gap": ..., "status": ..., ...} or null,
     "provenance": {"mechopt": "0.1.0", "date": "2026-11-25T10:00:00+00:00", "source": "..."}}

Version 2 (2026-11-26) added ``values``: the numbers a_x of the inputs
(an ``mse``/``mae`` design's, one per row), from which
:meth:`~mechopt.mechanism.inference.Inference.posterior_means` computes the
estimates. A version-1 file (no ``values``) is read as before: its posterior
means take the input labels as the values, with a warning when the mechanism
is an ``mse``/``mae`` design. A file of a newer version is refused.

A Q of more than :data:`JSON_MAX_ENTRIES` entries is written beside the JSON
as ``<name>.Q.npy`` (``"Q": null, "Q_file": "<name>.Q.npy"``). Labels that are
not strings or numbers are written as strings. :func:`read` also reads every
other mechanism file :func:`mechopt.io.mechfile.read_mechanism` reads (a
``design --out`` document, a bare matrix, ``.npy``, ``.csv``).

Examples
--------
>>> import os, tempfile, numpy as np
>>> from mechopt.mechanism.files import write, read
>>> path = os.path.join(tempfile.mkdtemp(), "m.json")
>>> write(path, {"Q": np.eye(2), "inputs": ("a", "b"), "outputs": (0, 1), "prior": None,
...              "claim": None, "certificate": None, "provenance": {"source": "doc"}})
>>> doc = read(path)
>>> doc["inputs"], doc["Q"].tolist(), doc["provenance"]["source"]
(('a', 'b'), [[1.0, 0.0], [0.0, 1.0]], 'doc')
"""

from __future__ import annotations

import io
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.io.files import read_input_text
from mechopt.io.jsontext import loads_strict
from mechopt.io.mechfile import MAX_MECHANISM_BYTES, check_values, read_mechanism
from mechopt.io.privacy_claim import claim_of
from mechopt.io.writer import write_bytes, write_text
from mechopt.results._json import dumps, jsonable

__all__ = ["write", "read", "FORMAT", "VERSION", "JSON_MAX_ENTRIES", "provenance_now"]

FORMAT = "mechopt.mechanism"
VERSION = 2
#: Largest Q (entries) written inside the JSON; a larger one goes to a .npy file beside it.
JSON_MAX_ENTRIES = 1_000_000


def provenance_now(source: str) -> dict[str, str]:
    """``{"mechopt": version, "date": now (UTC, ISO 8601), "source": source}``.

    >>> sorted(provenance_now("test"))
    ['date', 'mechopt', 'source']
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        ver = version("mechopt")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        ver = "0.0.0+unknown"
    return {"mechopt": ver, "date": datetime.now(timezone.utc).isoformat(timespec="seconds"), "source": source}


def _label(v: Any) -> Any:
    """A label as JSON: numbers, strings, booleans and null as they are, a tuple as a list (read back as a
    tuple: a list cannot be a label), anything else as its text."""
    if v is None or isinstance(v, (str, int, float)):
        return v
    return [_label(u) for u in v] if isinstance(v, tuple) else str(v)


def _unlabel(v: Any) -> Any:
    return tuple(_unlabel(u) for u in v) if isinstance(v, list) else v


def write(path: str | os.PathLike, mech: dict[str, Any]) -> None:
    """Write the document of ``mech`` (keys Q, inputs, outputs, prior, claim, certificate, provenance; values
    optional)."""
    p = Path(path)
    Q = np.asarray(mech["Q"], dtype=float)
    body: dict[str, Any] = {
        "Q": None,
        "inputs": [_label(v) for v in mech["inputs"]],
        "outputs": [_label(v) for v in mech["outputs"]],
        "prior": None if mech["prior"] is None else jsonable(np.asarray(mech["prior"], dtype=float)),
        "values": None if mech.get("values") is None else jsonable(np.asarray(mech["values"], dtype=float)),
    }
    if Q.size > JSON_MAX_ENTRIES:
        npy = p.with_name(p.stem + ".Q.npy")
        buf = io.BytesIO()
        np.save(buf, np.ascontiguousarray(Q), allow_pickle=False)
        write_bytes(npy, buf.getvalue())
        body["Q_file"] = npy.name
    else:
        body["Q"] = jsonable(Q)
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "mechanism": body,
        "privacy": mech["claim"],
        "certificate": jsonable(mech["certificate"]),
        "provenance": jsonable(mech["provenance"]),
    }
    write_text(p, dumps(doc) + "\n")


def read(path: str | os.PathLike) -> dict[str, Any]:
    """The fields of a Mechanism from a file: Q, inputs, outputs, prior, values, claim, certificate, provenance.

    ``values`` is None for a file without them (a version-1 file, a design document written before
    2026-11-26, a bare matrix)."""
    p = Path(path)
    head = _own_document(p)
    if head is not None and head["mechanism"].get("Q_file"):
        doc = head
        npy = p.with_name(str(head["mechanism"]["Q_file"]))
        Q = read_mechanism(npy)["Q"]
        prior, values = doc["mechanism"].get("prior"), doc["mechanism"].get("values")
        flat = {"Q": Q, "prior": None if prior is None else np.asarray(prior, dtype=float)}
        flat["values"] = None if values is None else check_values(values, Q.shape[0], p)
    else:
        flat = read_mechanism(p)  # validates, with errors naming the file
        doc = head if head is not None else {}
        if head is not None:  # the numbers as written: read_mechanism renormalises rows of a parsed list
            flat["Q"] = np.asarray(head["mechanism"]["Q"], dtype=float)
    if head is not None and head.get("version", VERSION) > VERSION:
        raise ProblemError(
            f"{str(p)!r} is a mechanism file of version {head['version']}, newer than this mechopt reads "
            f"({VERSION}): upgrade mechopt"
        )
    mech = doc.get("mechanism", flat)
    if head is not None and isinstance(head.get("privacy"), dict):
        claim_of(head["privacy"], repr(p.name))  # the same checks as any mechanism file's claim
    claim = doc.get("privacy") if head is not None else _claim(flat)
    return {
        "Q": flat["Q"],
        "inputs": _labels(mech.get("inputs")),
        "outputs": _labels(mech.get("outputs")),
        "prior": flat.get("prior"),
        "values": flat.get("values"),
        "claim": claim,
        "certificate": doc.get("certificate") if head is not None else _certificate(flat),
        "provenance": doc.get("provenance") if head is not None else _provenance(flat, p),
    }


def _own_document(p: Path) -> dict[str, Any] | None:
    """The JSON document when ``p`` is one of ours (format ``mechopt.mechanism``), else None."""
    if p.suffix.lower() in (".npy", ".csv"):
        return None
    try:  # strictly: a key twice, NaN or a lone surrogate is not ours (read_mechanism then refuses it)
        doc = loads_strict(read_input_text(p, "mechanism file", MAX_MECHANISM_BYTES), "it", error=ValueError)
    except ValueError:
        return None  # read_mechanism gives the error
    if isinstance(doc, dict) and doc.get("format") == FORMAT and isinstance(doc.get("mechanism"), dict):
        return doc
    return None


def _labels(v: Any) -> tuple[Any, ...] | None:
    return None if v is None else tuple(_unlabel(u) for u in v)


def _claim(flat: dict[str, Any]) -> dict[str, Any] | None:
    if flat.get("notion") is None and flat.get("eps") is None:
        return None
    return {"notion": flat.get("notion"), "eps": flat.get("eps")}


def _certificate(flat: dict[str, Any]) -> dict[str, Any] | None:
    """What a design document proved: its certificate with the status, proof, objective and value; a design
    without a certificate (``locally_optimal``, ``feasible``) keeps its status, objective and value."""
    cert = flat.get("certificate")
    if not isinstance(cert, dict) and not isinstance(flat.get("status"), str):
        return None
    keys = ("status", "proof", "objective", "value", "unit", "solver")
    return {**(cert if isinstance(cert, dict) else {}), **{k: flat[k] for k in keys if flat.get(k) is not None}}


def _provenance(flat: dict[str, Any], p: Path) -> dict[str, Any]:
    """Where a file that is not ours came from: its name and form, and the mechopt version and date a
    ``design --out`` document records (``provenance``; earlier documents have none)."""
    prov = flat.get("provenance") if isinstance(flat.get("provenance"), dict) else {}
    kept = {k: prov[k] for k in ("mechopt", "date") if isinstance(prov.get(k), str)}
    return {**kept, "source": f"{p.name} ({flat.get('format', 'file')})"}
