"""The lock of one output file: a sweep's exclusive ``flock`` on a hidden ``.NAME.lock`` beside it.

A planted lock file must never be followed, waited on or written: the lock file is opened with
``O_NOFOLLOW | O_NONBLOCK`` (:data:`mechopt.io.writer.SAFE_OPEN`) and refused unless it is a regular
file with a single link (a symbolic link, FIFO, device or hard link planted there is reported with
one line and nothing is written). After locking, the name must still be the locked file (a
finishing sweep unlinks it). A forked child closes the locks it inherited
(:func:`os.register_at_fork`): a child that outlives its parent never keeps the lock.

Examples
--------
>>> import os, tempfile
>>> from mechopt.io.lock import Lock
>>> folder = tempfile.mkdtemp()
>>> with Lock(os.path.join(folder, "s.jsonl")):
...     sorted(os.listdir(folder))
['.s.jsonl.lock']
>>> os.listdir(folder)
[]
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from types import TracebackType

from mechopt.errors import OutputFileError, ParamError, PlatformError
from mechopt.io.files import kind_name
from mechopt.io.writer import SAFE_OPEN

__all__ = ["Lock"]

_HELD: dict[int, "Lock"] = {}  # id -> Lock held by this process (closed in a forked child)


class Lock:
    """The exclusive lock of the output ``path`` (module docstring); a context manager."""

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(os.fspath(path))
        self.name = p.name
        self.path = p.with_name(f".{p.name}.lock")
        self.fd: int | None = None

    def _refuse(self, what: str) -> OutputFileError:
        return OutputFileError(
            f"cannot lock {self.name!r}: {str(self.path)!r} is {what}, not a lock file mechopt made; "
            "remove it and run again (nothing was written)"
        )

    def _open(self) -> int:
        with contextlib.suppress(FileNotFoundError):
            st = os.lstat(self.path)
            if not stat.S_ISREG(st.st_mode):
                raise self._refuse(kind_name(st.st_mode))
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | SAFE_OPEN, 0o600)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise self._refuse("a symbolic link") from None
            raise OutputFileError(
                f"cannot create the lock file {str(self.path)!r} of {self.name!r}: {exc.strerror or exc}"
            ) from None
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
            os.close(fd)
            raise self._refuse(kind_name(st.st_mode) if not stat.S_ISREG(st.st_mode) else "a file with other links")
        return fd

    def _is_ours(self, fd: int) -> bool:
        try:
            a, b = os.fstat(fd), os.lstat(self.path)
        except OSError:
            return False
        return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)

    def acquire(self) -> Lock:
        try:
            import fcntl
        except ImportError:  # not POSIX (Windows): the rest of mechopt works, a locked output says why not
            raise PlatformError(
                "sweep --out locks its output file with POSIX fcntl, which this platform lacks; "
                "run the sweep without --out (results on stdout) or on Linux/macOS"
            ) from None
        for _ in range(5):
            fd = self._open()
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                raise ParamError(
                    f"another sweep is writing {self.name!r} now (locked); wait for it to finish or give another --out"
                ) from None
            if self._is_ours(fd):  # not a lock file another sweep unlinked while we opened it
                self.fd = fd
                _HELD[id(self)] = self
                return self
            os.close(fd)
        raise OutputFileError(f"cannot lock {self.name!r}: its lock file {str(self.path)!r} keeps changing")

    def release(self) -> None:
        fd, self.fd = self.fd, None
        _HELD.pop(id(self), None)
        if fd is None:
            return
        try:
            if self._is_ours(fd):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(fd)

    def _forget(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
        self.fd = None

    def __enter__(self) -> Lock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def _after_fork_in_child() -> None:
    for lock in list(_HELD.values()):
        lock._forget()
    _HELD.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
