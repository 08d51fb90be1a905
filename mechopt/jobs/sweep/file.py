"""The results file of a sweep: a header naming the spec, one JSON line per point, a lock.

The first line of a sweep file is a header, ``{"mechopt_sweep": 1, "spec": HASH, "problem": ...,
"points": N}``, where ``HASH`` is a hash of every task key of the spec (problem, parameters,
solver, options except the time limit). ``--resume`` continues a file only when its header
names the same spec; a file without a header (not a sweep file, or a different spec) is
refused and left untouched. While a sweep writes, it holds an exclusive ``flock`` on a
hidden lock file next to the output (``.NAME.lock``, removed at the end;
:class:`mechopt.io.writer.Lock`), so a second sweep on the same ``--out`` is refused instead
of interleaving with the first. A fresh run (or ``--force``) writes into a private temporary
(:class:`mechopt.io.writer.Output`) renamed over ``--out`` only once its first point is
written: a run that fails before that leaves the old file as it was. A device or FIFO at
``--out`` is written through, never replaced.

Examples
--------
>>> import os, tempfile
>>> from mechopt.jobs.sweep.file import SweepWriter, header_line, read_lines
>>> path = os.path.join(tempfile.mkdtemp(), "s.jsonl")
>>> with SweepWriter(path, spec_id="abc", problem="design", points=1) as w:
...     w.write({"key": "k1", "solver": "sqp", "point": {"eps": 1.0}, "status": "feasible", "value": 0.5,
...              "time_s": 0.1})
>>> [ln["key"] for ln in read_lines(path)], os.listdir(os.path.dirname(path))
(['k1'], ['s.jsonl'])
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path
from types import TracebackType
from typing import Any

from mechopt.errors import ParamError, ProblemError
from mechopt.results.result import Status

__all__ = ["spec_id", "header_line", "read_lines", "SweepWriter"]

FORMAT = 1
_STATUSES = {s.value for s in Status}

#: Largest sweep results file read by ``--resume`` (about a million points).
MAX_SWEEP_FILE_BYTES = 256 * 1024 * 1024


def spec_id(keys: list[str]) -> str:
    """16-hex identity of a spec: a hash of its task keys in order.

    >>> spec_id(["a", "b"]) == spec_id(["a", "b"]) != spec_id(["a", "c"])
    True
    """
    return hashlib.sha256("\n".join(keys).encode()).hexdigest()[:16]


def header_line(spec: str, problem: str, points: int) -> str:
    """The header line (with its newline) of a sweep file for the spec ``spec``."""
    return (
        json.dumps({"mechopt_sweep": FORMAT, "spec": spec, "problem": problem, "points": points}, separators=(",", ":"))
        + "\n"
    )


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not a number")


def _check_line(obj: Any) -> None:
    """Raise ValueError unless ``obj`` is a finished sweep line (the fields the tables and plots read)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("key"), str):
        raise ValueError("not a sweep line (no key)")
    if not isinstance(obj.get("solver"), str) or not isinstance(obj.get("point"), dict):
        raise ValueError("not a sweep line (no solver or point)")
    if obj.get("status") not in _STATUSES:
        raise ValueError(f"unknown status {obj.get('status')!r}")
    for name in ("value", "violation"):
        v = obj.get(name)
        if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v)):
            raise ValueError(f"{name} is not a finite number")
    t = obj.get("time_s")
    if isinstance(t, bool) or not isinstance(t, (int, float)):
        raise ValueError("time_s is not a number")


def _header(first: bytes) -> dict[str, Any] | None:
    try:
        obj = json.loads(first, parse_constant=_no_constant)
    except (ValueError, UnicodeDecodeError):
        return None
    return obj if isinstance(obj, dict) and obj.get("mechopt_sweep") == FORMAT else None


def read_lines(path: str | Path, *, repair: bool = False, spec: str | None = None) -> list[dict[str, Any]]:
    """The finished point lines of a sweep file (the header is checked, not returned).

    A truncated or garbled LAST line is ignored (and cut off the file when
    ``repair``); a bad line before it raises :class:`ProblemError` naming it, so
    does a NaN or an unknown status edited into a line. A file that does not
    start with a sweep header raises :class:`ParamError` and is never
    changed; with ``spec``, so does a header naming another spec.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.jsonl")
    >>> _ = open(path, "w").write("my notes\\n")
    >>> read_lines(path, repair=True)
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: 's.jsonl' is not a mechopt sweep file (no sweep header on line 1); give another
    --out, it is left as it is
    """
    p = Path(path)
    if not p.exists():
        return []
    from mechopt.io.files import read_input  # regular files only, size checked before reading

    raw = read_input(p, "sweep file", MAX_SWEEP_FILE_BYTES)
    if not raw:
        return []
    nl = raw.find(b"\n")
    head = _header(raw[:nl]) if nl >= 0 else None
    if head is None:
        start = f'{{"mechopt_sweep":{FORMAT},"spec":"{spec}"'.encode()
        if spec is not None and nl < 0 and (raw.startswith(start) or start.startswith(raw)):
            if repair:  # killed while the header itself was written: nothing finished
                _truncate(p, 0)
            return []
        raise ParamError(
            f"{p.name!r} is not a mechopt sweep file (no sweep header on line 1); "
            "give another --out, it is left as it is"
        )
    if spec is not None and head.get("spec") != spec:
        raise ParamError(
            f"{p.name!r} holds the results of another spec (spec {head.get('spec')!r}, this one "
            f"{spec!r}): resume it with the spec that wrote it, or give another --out or --force"
        )
    end = raw.rfind(b"\n") + 1  # bytes after the last newline: an unfinished line
    parts = raw[nl + 1 : end].split(b"\n")[:-1]
    out = []
    offset = nl + 1
    for i, part in enumerate(parts):
        if part.strip():
            try:
                obj = json.loads(part, parse_constant=_no_constant)
                _check_line(obj)
            except (ValueError, UnicodeDecodeError) as exc:
                if i == len(parts) - 1:  # a garbled last line: drop it too
                    end = offset
                    break
                raise ProblemError(
                    f"line {i + 2} of {p.name!r} is not a sweep line ({str(exc)[:60]}); "
                    "fix it or start over without --resume"
                ) from None
            out.append(obj)
        offset += len(part) + 1
    if repair and end < len(raw):
        _truncate(p, end)
    return out


def _truncate(path: Path, size: int) -> None:
    """Cut the regular file ``path`` to ``size`` bytes (never through a link, never a FIFO or device)."""
    from mechopt.io.writer import Output

    out = Output(path, append=True).open()
    try:
        os.ftruncate(out.fd, size)
    except OSError as exc:
        raise ProblemError(f"cannot repair {path.name!r}: {exc.strerror or exc}") from None
    finally:
        out.close()


class SweepWriter:
    """Writes a sweep file under an exclusive lock: header first, then one fsync-ed line per point.

    ``resume=True`` appends to ``path`` after :func:`read_lines` checked its
    header (see :attr:`done`); otherwise the lines go to a private temporary
    (:class:`mechopt.io.writer.Output`) that replaces ``path`` when the first
    point is written, so a run that fails before its first point leaves ``path``
    untouched. A character device or FIFO at ``path`` is written through, unlocked
    (nothing there can be lost); a symbolic link is followed and kept.
    """

    def __init__(self, path: str | Path, *, spec_id: str, problem: str, points: int, resume: bool = False) -> None:
        from mechopt.io.writer import target

        self.path = Path(path)
        self.target = target(self.path)
        self.header = header_line(spec_id, problem, points)
        self.spec = spec_id
        self.resume = resume
        self.done: list[dict[str, Any]] = []
        self._lock: Any = None
        self._out: Any = None

    def __enter__(self) -> "SweepWriter":
        from mechopt.io.lock import Lock
        from mechopt.io.writer import Output, clean_stale

        if self.target.kind == "replace":
            self._lock = Lock(self.target.path).acquire()
        try:
            if self.target.kind == "replace":
                clean_stale(self.target.path)  # temporaries of killed sweeps on this file
            if self.resume and self.target.kind == "replace":
                self.done = read_lines(self.target.path, repair=True, spec=self.spec)
            self._out = Output(self.target.path, append=self.resume).open()
            if not self._out.published or os.fstat(self._out.fd).st_size == 0:
                self._put(self.header)
        except BaseException:
            self._release()
            raise
        return self

    def _put(self, text: str) -> None:
        self._out.write(text.encode("utf-8"))
        self._out.sync()

    def write(self, line: dict[str, Any]) -> None:
        """Append one point line (NaN refused), flushed and fsync-ed; the first one publishes the file."""
        self._put(json.dumps(line, allow_nan=False, separators=(",", ":"), default=str) + "\n")
        self._out.publish()

    def _release(self) -> None:
        out, self._out = self._out, None
        lock, self._lock = self._lock, None
        try:
            if out is not None:
                out.close()  # an unpublished temporary is removed
        finally:
            if lock is not None:
                lock.release()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._release()
