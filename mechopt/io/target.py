"""What an output path is, decided before anything is written: a file to replace, a device or FIFO to write through,
or a refusal (:mod:`mechopt.io.writer` writes every output through it).

Examples
--------
>>> import os
>>> from mechopt.io.target import target
>>> target(os.devnull).kind
'direct'
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from mechopt.errors import OutputFileError
from mechopt.io.files import kind_name

__all__ = ["Target", "target"]


@dataclass(frozen=True)
class Target:
    """What an output path is: ``given`` as the user wrote it, ``path`` the file written (links
    followed), ``kind`` ``"replace"`` (missing or regular) or ``"direct"`` (character device or FIFO),
    ``st`` the status of the existing file (None when missing)."""

    given: str
    path: Path
    kind: str
    st: os.stat_result | None


def _error(given: str, exc: OSError) -> OutputFileError:
    why = "no process is reading the FIFO" if exc.errno == errno.ENXIO else (exc.strerror or str(exc))
    return OutputFileError(f"cannot write {given!r}: {why}")


def target(path: str | os.PathLike) -> Target:
    """Classify an output path (the rules in :mod:`mechopt.io.writer`); refuses what is never written.

    Examples
    --------
    >>> target(os.devnull).kind, target("/nonexistent-dir-xyz/out.json").kind
    ('direct', 'replace')
    >>> target("/")
    Traceback (most recent call last):
    ...
    mechopt.errors.OutputFileError: cannot write '/': it is a directory; give a file name inside it
    """
    given = os.fspath(path)
    try:
        st = os.lstat(given)
    except FileNotFoundError:
        return Target(given, Path(given), "replace", None)
    except OSError as exc:
        raise _error(given, exc) from None
    real = given
    if stat.S_ISLNK(st.st_mode):
        real = os.path.realpath(given)
        try:
            st = os.stat(real)
        except FileNotFoundError:
            raise OutputFileError(
                f"cannot write {given!r}: it is a symbolic link to {real!r}, which does not exist; give the file itself"
            ) from None
        except OSError as exc:  # a loop of links
            raise _error(given, exc) from None
    if stat.S_ISREG(st.st_mode):
        return Target(given, Path(real), "replace", st)
    if stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        return Target(given, Path(real), "direct", st)
    if stat.S_ISDIR(st.st_mode):
        raise OutputFileError(f"cannot write {given!r}: it is a directory; give a file name inside it")
    raise OutputFileError(
        f"cannot write {given!r}: it is {kind_name(st.st_mode)}; mechopt writes only regular files, "
        "character devices and FIFOs; give a file name"
    )
