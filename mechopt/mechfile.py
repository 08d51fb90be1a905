"""Mechanism files (JSON) and the audit of a mechanism under every notion.

A mechanism file, written by ``mechopt design --out`` and read by ``mechopt
audit``, is one JSON object carrying the mechanism in the same layout as
``mechopt design --json`` (:func:`mechopt.result.mechanism_dict`)::

    {"mechanism": {"Q": [[...], ...], "inputs": [...], "outputs": [...], "prior": [...]},
     "privacy": {"notion": "ldp", "eps": 1.0, ...}, "value": ..., "unit": ..., ...}

(``design --out`` writes the whole design document). ``Q`` is a list of
rows, rows are inputs; ``inputs``, ``outputs``, ``prior`` and ``privacy`` are
optional, further keys are kept but not interpreted. The older flat layout
``{"Q": ..., "prior": ..., "notion": ..., "eps": ...}`` is still read.

Examples
--------
>>> import json, numpy as np, tempfile, os
>>> from mechopt.mechfile import write_mechanism, read_mechanism, audit
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> path = os.path.join(tempfile.mkdtemp(), "m.json")
>>> write_mechanism(path, Q, prior=[0.5, 0.5], notion="ldp", eps=1.1)
>>> doc = read_mechanism(path)
>>> doc["Q"].shape, doc["notion"]
((2, 2), 'ldp')
>>> sorted(json.load(open(path))["mechanism"])
['Q', 'inputs', 'outputs', 'prior']
>>> round(audit(doc["Q"], [0.5, 0.5])["notions"]["ldp"]["eps"], 6)   # ln 3
1.098612
"""
from __future__ import annotations

import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from .channel import validate_channel
from .errors import ProblemError
from .priors import parse_prior, validate_prior
from .result import jsonable, mechanism_dict

__all__ = ["read_mechanism", "write_mechanism", "audit", "atomic_write_text", "atomic_savefig"]


def atomic_write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file and ``os.replace``.

    Either the whole file is there or the old one is untouched; failures raise
    :class:`ProblemError` naming the path.
    """
    p = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent if str(p.parent) else ".")
    except OSError as exc:
        raise ProblemError(f"cannot write {str(p)!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o666 & ~_umask())     # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, p)
    except OSError as exc:
        _unlink(tmp)
        raise ProblemError(f"cannot write {str(p)!r}: {exc.strerror or exc}") from None
    except BaseException:
        _unlink(tmp)
        raise


def atomic_savefig(fig, path: str | os.PathLike, **kwargs) -> Path:
    """``fig.savefig`` through a temporary file and ``os.replace`` (no half-written PNG)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{p.stem}.", suffix=p.suffix or ".png", dir=p.parent if str(p.parent) else ".")
    os.close(fd)
    try:
        fig.savefig(tmp, **kwargs)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, p)
    except BaseException:
        _unlink(tmp)
        raise
    return p


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_mechanism(path: str | os.PathLike, Q: Any, *, prior: Any = None, notion: str | None = None,
                    eps: float | None = None, inputs: Any = None, outputs: Any = None,
                    **extra: Any) -> None:
    """Write a mechanism file atomically (see the module docstring for the format)."""
    M = validate_channel(Q)
    mech = mechanism_dict(M, prior=None if prior is None else validate_prior(prior))
    if inputs is not None:
        mech["inputs"] = list(inputs)
    if outputs is not None:
        mech["outputs"] = list(outputs)
    doc: dict[str, Any] = {"mechanism": mech}
    if notion is not None or eps is not None:
        doc["privacy"] = {"notion": notion, "eps": eps}
    doc.update(extra)
    atomic_write_text(path, json.dumps(jsonable(doc), indent=1) + "\n")


def _reject_constant(token: str) -> float:
    raise ValueError(f"{token} is not a number")


def read_mechanism(path: str | os.PathLike) -> dict[str, Any]:
    """Read and validate a mechanism file; ``Q`` (and ``prior`` if present) become arrays.

    Raises :class:`ProblemError` for an unreadable file, invalid JSON
    (including ``NaN``/``Infinity`` literals), a missing ``Q``, or a ``Q``
    that is not row-stochastic.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ProblemError(f"mechanism file {str(p)!r} does not exist") from None
    except IsADirectoryError:
        raise ProblemError(f"mechanism file {str(p)!r} is a directory: give the .json file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProblemError(f"cannot read mechanism file {str(p)!r}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except ValueError as exc:
        raise ProblemError(f"mechanism file {str(p)!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise ProblemError(f"mechanism file {str(p)!r} is nested too deeply to be a mechanism: "
                           "give {\"Q\": [[...], ...]}") from None
    doc = _flatten(doc)
    if not isinstance(doc, dict) or "Q" not in doc:
        raise ProblemError(f"mechanism file {str(p)!r} must be a JSON object with a \"Q\" matrix (rows are "
                           "inputs): {\"mechanism\": {\"Q\": [[...], ...]}} or, older layout, {\"Q\": [[...], ...]}")
    Q = doc["Q"]
    if not isinstance(Q, list) or not all(isinstance(r, list) for r in Q) or len({len(r) for r in Q}) > 1:
        raise ProblemError(f"\"Q\" in {str(p)!r} must be a list of rows of equal length")
    if any(v is None or isinstance(v, (bool, str)) for r in Q for v in r):
        raise ProblemError(f"\"Q\" in {str(p)!r} has a non-numeric entry (null, string or boolean)")
    out = dict(doc)
    out["Q"] = validate_channel(Q, name=f"Q in {p.name}")
    if doc.get("prior") is not None:
        if isinstance(doc["prior"], (str, bool)):
            raise ProblemError(f"\"prior\" in {str(p)!r} must be a list of numbers, got {doc['prior']!r}")
        out["prior"] = validate_prior(doc["prior"], name=f"prior in {p.name}")
        if out["prior"].size != out["Q"].shape[0]:
            raise ProblemError(f"\"prior\" in {str(p)!r} has {out['prior'].size} symbols but Q has "
                               f"{out['Q'].shape[0]} rows: one prior entry per row (input)")
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
    for key in ("notion", "eps"):
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
    from .notions import audit_all

    P = None
    if prior is not None:
        P = parse_prior(prior) if isinstance(prior, (str, os.PathLike)) else validate_prior(prior)
    M = validate_channel(Q, n_inputs=None if P is None else P.size)
    notions = audit_all(M, P)
    clean = {k: {kk: (None if vv is None or not math.isfinite(vv) else float(vv)) for kk, vv in v.items()}
             for k, v in notions.items()}
    doc: dict[str, Any] = {"notions": clean, "inputs": int(M.shape[0]), "outputs": int(M.shape[1])}
    if P is not None:
        doc["prior"] = P.tolist()
    return doc

