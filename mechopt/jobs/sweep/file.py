"""The results file of a sweep: a header naming the spec, one JSON line per point, a lock.

The first line of a sweep file is a header, ``{"mechopt_sweep": 1, "spec": HASH, "problem": ...,
"points": N}``, where ``HASH`` is a hash of every task key of the spec (problem, parameters,
solver, options except the time limit). ``--resume`` continues a file only when its header
names the same spec; a file without a header (not a sweep file, or a different spec) is
refused and left untouched. While a sweep writes, it holds an exclusive ``flock`` on a
hidden lock file next to the output (``.NAME.lock``, removed at the end), so a second
sweep on the same ``--out`` is refused instead of interleaving with the first. A fresh run
(or ``--force``) writes into a hidden sibling (``.NAME.part``) and moves it over ``--out``
only once its first point is written: a run that fails before that leaves the old file as it was.

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

from mechopt.errors import ParamError, PlatformError, ProblemError
from mechopt.results.result import Status

try:
    import fcntl
except ImportError:  # not POSIX (Windows): the rest of mechopt works; a sweep with --out says why it cannot lock
    fcntl = None  # type: ignore[assignment]

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
                with p.open("r+b") as fh:
                    fh.truncate(0)
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
        with p.open("r+b") as fh:
            fh.truncate(end)
    return out


class SweepWriter:
    """Writes a sweep file under an exclusive lock: header first, then one fsync-ed line per point.

    ``resume=True`` appends to ``path`` after :func:`read_lines` checked its
    header (see :attr:`done`); otherwise the lines go to a hidden ``.part``
    sibling that replaces ``path`` when the first point is written, so a run
    that fails before its first point leaves ``path`` untouched.
    """

    def __init__(self, path: str | Path, *, spec_id: str, problem: str, points: int, resume: bool = False) -> None:
        self.path = Path(path)
        self.header = header_line(spec_id, problem, points)
        self.spec = spec_id
        self.resume = resume
        self.done: list[dict[str, Any]] = []
        self._lock_path = self.path.with_name(f".{self.path.name}.lock")
        self._part = self.path.with_name(f".{self.path.name}.part")
        self._lock_fd: int | None = None
        self._fh: Any = None
        self._published = False

    def __enter__(self) -> "SweepWriter":
        if fcntl is None:
            raise PlatformError(
                "sweep --out locks its output file with POSIX fcntl, which this platform lacks; "
                "run the sweep without --out (results on stdout) or on Linux/macOS"
            )
        try:
            self._lock_fd = os.open(self._lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        except OSError as exc:
            raise ParamError(f"cannot write next to {self.path.name!r}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            self._lock_fd = None
            raise ParamError(
                f"another sweep is writing {self.path.name!r} now (locked); wait for it to finish or give another --out"
            ) from None
        try:
            if self.resume:
                self.done = read_lines(self.path, repair=True, spec=self.spec)
                fresh = not self.path.exists() or self.path.stat().st_size == 0
                self._fh = self.path.open("a", encoding="utf-8")
                self._published = True
                if fresh:
                    self._put(self.header)
            else:
                self._fh = self._part.open("w", encoding="utf-8")
                self._put(self.header)
        except BaseException:
            self._release(failed=True)
            raise
        return self

    def _put(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def write(self, line: dict[str, Any]) -> None:
        """Append one point line (NaN refused), flushed and fsync-ed; the first one publishes the file."""
        self._put(json.dumps(line, allow_nan=False, separators=(",", ":"), default=str) + "\n")
        if not self._published:
            os.replace(self._part, self.path)
            self._published = True

    def _release(self, failed: bool) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
        if not self._published:
            self._part.unlink(missing_ok=True)
        if self._lock_fd is not None:
            self._lock_path.unlink(missing_ok=True)
            os.close(self._lock_fd)
            self._lock_fd = None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self._release(failed=kind is not None)
