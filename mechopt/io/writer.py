"""One writer for every output file: private temporaries, and no device, FIFO or link ever replaced.

Every file mechopt writes (``design --out``/``--plot``, ``sweep --out`` and its lock, ``reproduce``,
``compare --plot``, ``bench --out``, privacy reports, figures, datasets) goes through this module.

* The target is classified first (:func:`~mechopt.io.target.target`). A missing or regular file is **replaced**: the
  bytes go to a private temporary made by :func:`tempfile.mkstemp` (``O_EXCL | O_NOFOLLOW``, a
  random name, mode 0600) in the target's own folder, are fsync-ed, and the temporary is renamed
  over the target. A character device or a FIFO is **written through**: opened and written, never
  renamed over (a FIFO without a reader is refused at once). A symbolic link is followed: the link
  stays and the file it points to is written. Anything else (a directory, a socket, a block
  device, a dangling link) is refused. No option, ``--force`` included, replaces a device, a FIFO
  or a link.
* On any failure (a full disk, ``ulimit -f``, an interrupt) the temporary is removed, the old file
  is untouched, and the :class:`~mechopt.errors.OutputFileError` names the file.
* A sweep's lock beside its output is :class:`mechopt.io.lock.Lock`.
* A forked child closes the outputs it inherited (:func:`os.register_at_fork`), so a child that
  outlives its parent publishes nothing.

Examples
--------
>>> import os, tempfile
>>> from pathlib import Path
>>> from mechopt.io.writer import write_text
>>> folder = tempfile.mkdtemp()
>>> path = write_text(os.path.join(folder, "a.json"), "{}\\n")
>>> open(path).read(), os.listdir(folder)
('{}\\n', ['a.json'])
>>> write_text(os.devnull, "nothing") == Path(os.devnull)     # written through, never renamed over
True
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from mechopt.errors import OutputFileError
from mechopt.io.target import Target, _error, target

__all__ = [
    "Target",
    "target",
    "Output",
    "write_bytes",
    "write_text",
    "text_file",
    "savefig",
    "place",
    "check_writable",
    "clean_stale",
    "pid_alive",
    "published",
]

_NAME_KEEP = 80  # characters of the target's name kept in a temporary's name (NAME_MAX is 255 bytes)
_PART = re.compile(r"\.(?P<name>.*)\.(?P<pid>[0-9]+)\.[a-z0-9_]{8}\.part")
_LIVE: dict[int, Any] = {}  # id -> Output open in this process (closed in a forked child)
_PUBLISHED: list[str] = []  # the files this process has finished, as the user named them


def published() -> list[str]:
    """The files this process has finished (published and closed, complete), in order; the list itself:
    clear it to start afresh. An interrupt's message names them (:func:`mechopt.cli.interrupted`); a
    sweep's file, published at its first line, counts only once the sweep has closed it."""
    return _PUBLISHED


#: Flags of every open of an output or a lock: never through a link, never waiting on a FIFO, no
#: controlling terminal, not inherited by exec.
SAFE_OPEN = 0
for _flag in ("O_NOFOLLOW", "O_NONBLOCK", "O_NOCTTY", "O_CLOEXEC"):
    SAFE_OPEN |= getattr(os, _flag, 0)


def _open_direct(t: Target) -> int:
    """An existing character device or FIFO, opened for writing without waiting for a reader."""
    try:
        fd = os.open(t.path, os.O_WRONLY | SAFE_OPEN)
    except OSError as exc:
        raise _error(t.given, exc) from None
    mode = os.fstat(fd).st_mode
    if not (stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)):  # swapped since target() looked
        os.close(fd)
        raise OutputFileError(f"cannot write {t.given!r}: it changed while being opened; try again")
    os.set_blocking(fd, True)  # non-blocking only for the open: the writes wait for the reader
    return fd


def _open_append(t: Target) -> int:
    """An existing regular file, opened to append (never through a link, never a FIFO)."""
    try:
        fd = os.open(t.path, os.O_WRONLY | os.O_APPEND | SAFE_OPEN)
    except OSError as exc:
        raise _error(t.given, exc) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OutputFileError(f"cannot write {t.given!r}: it changed while being opened; try again")
    os.set_blocking(fd, True)
    return fd


def _mkstemp(t: Target) -> tuple[int, str]:
    """A private temporary beside the target: ``.NAME.PID.XXXXXXXX.part`` (mkstemp: O_EXCL, O_NOFOLLOW)."""
    prefix = f".{t.path.name[:_NAME_KEEP]}.{os.getpid()}."
    try:
        return tempfile.mkstemp(prefix=prefix, suffix=".part", dir=t.path.parent)
    except OSError as exc:
        raise _error(t.given, exc) from None


def _umask() -> int:
    with contextlib.suppress(OSError, ValueError, StopIteration):
        with open("/proc/self/status", encoding="ascii") as fh:
            return int(next(ln for ln in fh if ln.startswith("Umask:")).split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _give_mode(fd: int, old: os.stat_result | None) -> None:
    """The replaced file's mode (and, as root, its owner); a new file's usual ``0666 & ~umask``."""
    os.fchmod(fd, 0o666 & ~_umask() if old is None else stat.S_IMODE(old.st_mode) & 0o777)
    if old is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
        with contextlib.suppress(OSError):
            os.fchown(fd, old.st_uid, old.st_gid)


class Output:
    """One output file being written: a private temporary published over the target, or the
    device or FIFO itself (module docstring). ``append=True`` appends to an existing regular file.

    As a context manager: published when the block ends normally, discarded (temporary removed)
    when it raises.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "s.jsonl")
    >>> with Output(path) as out:
    ...     out.write(b"header\\n")
    ...     os.path.exists(path)                  # still the temporary
    ...     out.publish()                         # now the file; writing goes on
    ...     out.write(b"line\\n")
    False
    >>> open(path).read()
    'header\\nline\\n'
    """

    def __init__(self, path: str | os.PathLike, *, append: bool = False) -> None:
        self.target = target(path)
        self.append = append
        self.fd: int | None = None
        self.tmp: str | None = None
        self.published = False

    def open(self) -> Output:
        t = self.target
        if t.kind == "direct":
            self.fd, self.published = _open_direct(t), True
        elif self.append and t.st is not None:
            self.fd, self.published = _open_append(t), True
        else:
            self.fd, self.tmp = _mkstemp(t)
        _LIVE[id(self)] = self
        return self

    def write(self, data: bytes) -> None:
        """Write all of ``data`` (a full disk raises :class:`OutputFileError` naming the file)."""
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
        except OSError as exc:
            raise _error(self.target.given, exc) from None

    def sync(self) -> None:
        """fsync a regular file (a device or FIFO has nothing to sync)."""
        if self.target.kind == "replace":
            try:
                os.fsync(self.fd)
            except OSError as exc:
                raise _error(self.target.given, exc) from None

    def publish(self) -> None:
        """fsync the temporary, give it the target's mode, rename it over the target (once)."""
        if self.published:
            return
        try:
            os.fsync(self.fd)
            _give_mode(self.fd, self.target.st)
            os.replace(self.tmp, self.target.path)
        except OSError as exc:
            raise _error(self.target.given, exc) from None
        self.published = True
        with contextlib.suppress(OSError):  # the rename itself on disk
            dfd = os.open(self.target.path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | SAFE_OPEN)
            try:
                os.fsync(dfd)
            finally:
                os.close(dfd)

    def close(self, publish: bool = False) -> None:
        """Publish (when asked) and close; an unpublished temporary is removed, whatever happens."""
        try:
            if publish:
                self.publish()
                if self.target.kind == "replace":  # the block ended normally: the file is complete
                    _PUBLISHED.append(self.target.given)
        finally:
            fd, self.fd = self.fd, None
            _LIVE.pop(id(self), None)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
            if not self.published and self.tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.tmp)
                self.tmp = None

    def _forget(self) -> None:
        """In a forked child: close the inherited descriptor; the parent keeps its temporary."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd, self.tmp = None, None

    def __enter__(self) -> Output:
        return self.open()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close(publish=kind is None)


def write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` with one :class:`Output`; returns ``path``."""
    with Output(path) as out:
        out.write(data)
    return Path(os.fspath(path))


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` with :func:`write_bytes`; returns ``path``."""
    return write_bytes(path, text.encode("utf-8"))


@contextlib.contextmanager
def text_file(path: str | os.PathLike) -> Iterator[io.StringIO]:
    """A text buffer written to ``path`` when the block ends (nothing when it raises); for ``csv``.

    >>> import csv, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
    >>> with text_file(path) as fh:
    ...     _ = csv.writer(fh).writerow(["x", 1])
    >>> open(path, newline="").read()
    'x,1\\r\\n'
    """
    target(path)  # refused before the caller's work, not after it
    buf = io.StringIO(newline="")
    yield buf
    write_text(path, buf.getvalue())


def savefig(fig: Any, path: str | os.PathLike, **kwargs: Any) -> Path:
    """``fig.savefig`` into memory, then :func:`write_bytes` (format from the suffix); returns ``path``."""
    target(path)  # a folder or a socket is refused before drawing
    kwargs.setdefault("format", Path(os.fspath(path)).suffix[1:].lower() or None)
    buf = io.BytesIO()
    fig.savefig(buf, **kwargs)
    return write_bytes(path, buf.getvalue())


def place(src: str | os.PathLike, dst: str | os.PathLike) -> Path:
    """Publish the finished file ``src`` (same file system) at ``dst`` as :class:`Output` would:
    renamed over a regular or missing ``dst`` (through a link), copied into a device or FIFO."""
    t = target(dst)
    if t.kind == "direct":
        with open(src, "rb") as fh:
            write_bytes(dst, fh.read())
        os.unlink(src)
        return Path(t.given)
    try:
        os.replace(src, t.path)
    except OSError as exc:
        raise _error(t.given, exc) from None
    _PUBLISHED.append(t.given)
    return Path(t.given)


def check_writable(path: str | os.PathLike, flag: str = "--out") -> None:
    """Refuse, before any work, an output that cannot be written: what :func:`target` refuses, a
    missing folder, a folder where no file can be created, a character device without write access.
    ``path`` is a folder (``reproduce --out``, ``compare --plot``) when it names an existing one."""
    if os.path.isdir(path):
        folder, given = Path(os.fspath(path)), os.fspath(path)
    else:
        t = target(path)
        if t.kind == "direct":
            if stat.S_ISCHR(t.st.st_mode) and not os.access(t.path, os.W_OK):
                raise OutputFileError(f"cannot write {t.given!r}: permission denied")
            return
        folder, given = t.path.parent, t.given
    if not folder.is_dir():
        raise OutputFileError(f"{flag} {given!r}: folder {str(folder)!r} does not exist; create it first")
    fd, tmp = _mkstemp(Target(given, folder / "probe", "replace", None))
    os.close(fd)
    os.unlink(tmp)


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (one owned by another user counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale(path: str | os.PathLike) -> list[str]:
    """Remove the temporaries of ``path`` left by killed writers: regular files of this user named
    ``.NAME.PID.XXXXXXXX.part`` whose process is gone (links, FIFOs and devices are never touched)."""
    t = target(path)
    name = t.path.name[:_NAME_KEEP]
    removed = []
    with contextlib.suppress(OSError):
        for entry in os.scandir(t.path.parent):
            m = _PART.fullmatch(entry.name)
            if m is None or m["name"] != name or pid_alive(int(m["pid"])):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and st.st_uid == os.geteuid():
                    os.unlink(entry.path)
                    removed.append(entry.path)
    return removed


def _after_fork_in_child() -> None:
    for obj in list(_LIVE.values()):
        obj._forget()
    _LIVE.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
