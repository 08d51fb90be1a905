"""Safe reading and writing of the files a run is given.

Every reader goes through :func:`read_input`: it opens the path with
``O_NONBLOCK`` (a FIFO opens at once instead of waiting for a writer), refuses
anything that is not a regular file (FIFOs, devices such as ``/dev/zero``,
sockets, directories) and checks the size *before* reading, so a stray path
can neither hang the run nor exhaust its memory. Writing is
:mod:`mechopt.io.writer`'s (one writer for every output file). :func:`check_distinct`
refuses, before any work, an output path that is one of the run's inputs or
another output.

Examples
--------
>>> import os, tempfile
>>> from mechopt.io.files import read_input
>>> path = os.path.join(tempfile.mkdtemp(), "p.txt")
>>> _ = open(path, "w").write("0.2 0.8")
>>> read_input(path, "prior file", max_bytes=100)
b'0.2 0.8'
>>> try:
...     read_input(path, "prior file", max_bytes=4)
... except Exception as exc:
...     print(type(exc).__name__, str(exc).split(": ")[0].split("' ")[1])
InputFileError is 7 bytes, more than the 4 bytes a prior file may have; give a smaller file
"""

from __future__ import annotations

import math
import os
import stat
from collections.abc import Iterable, Mapping
from typing import Any

from mechopt.errors import InputFileError, ParamError

__all__ = [
    "read_input",
    "read_input_text",
    "read_npy",
    "NpyFormatError",
    "kind_name",
    "check_distinct",
    "files_named",
    "KIB",
    "MIB",
]

KIB = 1024
MIB = 1024 * KIB

_KINDS = {
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
}


def kind_name(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, for messages (``"a FIFO (named pipe)"``, ...).

    >>> kind_name(os.stat(os.devnull).st_mode)
    'a character device'
    """
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _human(n: int) -> str:
    if n >= 1024 * MIB:
        return f"{n / (1024 * MIB):.3g} GiB"
    return f"{n / MIB:.3g} MiB" if n >= MIB else f"{n} bytes"


def _open_regular(p: str, what: str, max_bytes: int, error: type[Exception], too_big: str) -> int:
    """A descriptor of the regular file ``p`` of at most ``max_bytes`` (never waits on a FIFO)."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(p, flags)
    except FileNotFoundError:
        raise error(f"{what} {p!r} does not exist") from None
    except OSError as exc:
        raise error(f"cannot read {what} {p!r}: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise error(f"{what} {p!r} is a directory: give a file")
        if not stat.S_ISREG(st.st_mode):
            raise error(
                f"{what} {p!r} is {kind_name(st.st_mode)}, not a regular file: save the data to a file and give that"
            )
        if st.st_size > max_bytes:
            size, limit = _human(st.st_size), _human(max_bytes)
            if size == limit:  # 1 GiB + 128 bytes: both print as 1.02e+03 MiB
                size, limit = f"{st.st_size:,} bytes", f"{max_bytes:,} bytes"
            raise error(f"{what} {p!r} is {size}, more than the {limit} a {what} may have; {too_big}")
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_input(
    path: str | os.PathLike,
    what: str,
    max_bytes: int,
    error: type[Exception] = InputFileError,
    too_big: str = "give a smaller file",
) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes`` of them.

    Parameters
    ----------
    path : str or PathLike
    what : str
        What the file is, for messages (``"prior file"``, ``"sweep spec"``).
    max_bytes : int
        Refuse a larger file before reading any of it.
    error : exception class
        A :class:`~mechopt.errors.MechoptError` subclass to raise (default
        :class:`~mechopt.errors.InputFileError`).
    too_big : str
        What to do about a file over ``max_bytes`` (the end of that message).

    Raises
    ------
    error
        Missing file, a directory, a FIFO, device or socket, a file over
        ``max_bytes``, or an OS error while reading.
    """
    p = str(path)
    fd = _open_regular(p, what, max_bytes, error, too_big)
    try:
        chunks, total = [], 0
        while True:  # the size may change under us: never read past max_bytes
            chunk = os.read(fd, min(MIB, max_bytes + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > max_bytes:
                raise error(f"{what} {p!r} grew past the {_human(max_bytes)} a {what} may have while being read")
        return b"".join(chunks)
    except OSError as exc:
        raise error(f"cannot read {what} {p!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


class NpyFormatError(ValueError):
    """A ``.npy`` file whose content is not a plain array (the message is the reason, for the caller's sentence)."""


def read_npy(path: str | os.PathLike, what: str, max_bytes: int, error: type[Exception] = InputFileError) -> Any:
    """The array of the ``.npy`` file ``path``, read with one allocation and checked before it.

    The file is opened as :func:`read_input` opens it (regular files only, size checked). Then
    the header is read with :func:`numpy.lib.format.read_magic` and ``read_array_header_*``
    (never a pickle): Python objects are refused, and the bytes the header's shape and dtype
    claim must be the bytes the file holds, so a 160-byte file claiming 100000 × 100000 is
    refused before 74.5 GiB are asked for. The data is read straight into its array (no second
    copy of the file's bytes).

    Raises
    ------
    error
        What :func:`read_input` refuses (missing, not regular, over ``max_bytes``, an OS error).
    NpyFormatError
        Not a ``.npy`` array: its message is the reason (``"it has no NumPy header"``, ``"it is
        an .npz archive ..."``, ``"it holds Python objects ..."``, a size that does not match, ...).

    Examples
    --------
    >>> import numpy as np, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "q.npy")
    >>> np.save(path, np.eye(2, order="F"))
    >>> read_npy(path, "mechanism file", 10**6).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> with open(path, "r+b") as fh:
    ...     _ = fh.seek(0, 2); _ = fh.write(b"extra")
    >>> read_npy(path, "mechanism file", 10**6)
    Traceback (most recent call last):
    ...
    mechopt.io.files.NpyFormatError: its header claims shape (2, 2) of float64 (32 bytes of data) but it holds 37
    """
    import numpy as np
    from numpy.lib import format as npf

    p = str(path)
    fd = _open_regular(p, what, max_bytes, error, "give a smaller file")
    try:
        with os.fdopen(fd, "rb", closefd=False) as fh:
            size = os.fstat(fd).st_size
            head = fh.read(6)
            if head[:4] == b"PK\x03\x04":
                raise NpyFormatError("it is an .npz archive, not a .npy array")
            if head != b"\x93NUMPY":
                raise NpyFormatError("it has no NumPy header")
            fh.seek(0)
            try:
                version = npf.read_magic(fh)
                reader = npf.read_array_header_1_0 if version == (1, 0) else npf.read_array_header_2_0
                shape, fortran, dtype = reader(fh)
            except ValueError as exc:
                text = " ".join(str(exc).split())
                if "max_header_size" in text:
                    text = "its header is longer than numpy reads safely (max_header_size)"
                raise NpyFormatError(text[:200]) from None
            if dtype.hasobject:
                raise NpyFormatError(
                    "it holds Python objects (a pickled array), which are not read (allow_pickle=False)"
                )
            count = math.prod(shape)
            need, have = count * dtype.itemsize, size - fh.tell()
            if need != have:
                raise NpyFormatError(
                    f"its header claims shape {shape} of {dtype} ({need} bytes of data) but it holds {have}"
                )
            flat = np.empty(count, dtype=dtype)
            if need and fh.readinto(flat.view(np.uint8)) != need:
                raise NpyFormatError("it ended before its data did (it changed while being read)")
    except OSError as exc:
        raise error(f"cannot read {what} {p!r}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return flat.reshape(shape[::-1]).T if fortran else flat.reshape(shape)


def read_input_text(
    path: str | os.PathLike,
    what: str,
    max_bytes: int,
    error: type[Exception] = InputFileError,
    too_big: str = "give a smaller file",
) -> str:
    """:func:`read_input` decoded as UTF-8 (a decoding failure raises ``error``)."""
    data = read_input(path, what, max_bytes, error, too_big)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"cannot read {what} {str(path)!r}: not UTF-8 text") from None


def _written_through(path: str) -> bool:
    """A character device or FIFO (through links): written, never replaced, so two outputs may share it."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def check_distinct(
    outputs: Mapping[str, str | os.PathLike | None],
    inputs: Mapping[str, Iterable[str | os.PathLike] | str | os.PathLike | None] | None = None,
) -> None:
    """Refuse, before any work, an output that is one of the run's inputs or another output.

    Parameters
    ----------
    outputs : mapping of flag to path (None: not given)
    inputs : mapping of what to path or paths (None entries and non-paths are skipped)

    Examples
    --------
    >>> check_distinct({"--out": "a.png", "--plot": "./a.png"})
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: --plot 'a.png' is the same file as --out 'a.png': give two different paths
    """
    outs = [(flag, str(p)) for flag, p in outputs.items() if p is not None]
    for i, (flag, p) in enumerate(outs):
        for flag2, p2 in outs[:i]:
            if _same(p, p2) and not _written_through(p):
                raise ParamError(
                    f"{flag} {os.path.normpath(p)!r} is the same file as {flag2} {os.path.normpath(p2)!r}: "
                    "give two different paths"
                )
    for what, paths in (inputs or {}).items():
        if paths is None:
            continue
        for src in [paths] if isinstance(paths, (str, os.PathLike)) else paths:
            if src is None or not os.path.exists(src):
                continue
            for flag, p in outs:
                if _same(p, str(src)):
                    raise ParamError(
                        f"{flag} {p!r} is the run's {what}: writing it would destroy the input; "
                        "give another output path"
                    )


def files_named(values: Iterable[object], base: str | os.PathLike | None = None) -> list[str]:
    """The strings among ``values`` (scanned into lists and dicts) that name existing files,
    as given or relative to ``base``: the input files a spec's parameters refer to.

    Examples
    --------
    >>> files_named(["0.2,0.8", os.devnull, {"graph": [os.devnull]}, 3])
    ['/dev/null', '/dev/null']
    """
    out: list[str] = []
    stack = list(values)
    while stack:
        v = stack.pop(0)
        if isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, str) and v and len(v) < 4096:
            for cand in (v, os.path.join(str(base), v) if base is not None else None):
                if cand is not None and os.path.exists(cand) and not os.path.isdir(cand):
                    out.append(cand)
                    break
    return out
