"""Planted nodes for the writer tests of issue 27: private symlinks, FIFOs and character devices.

A device node is a private ``mknod`` of ``c 1 3`` (what ``/dev/null`` is) made inside the test's
own folder; it needs root, so :func:`plant` skips the test elsewhere. No system path is written.
:func:`snapshot` records a tree (type, size, mtime, link target) so a test can say that nothing
outside the output folder changed.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

KINDS = ("symlink", "fifo", "chardev")

#: A sweep spec of three quick exact points (LIP histogram on a binary prior).
SPEC = """problem = "design"
solvers = ["exact"]
[fixed]
notion = "lip"
utility = "histogram"
prior = "0.3,0.7"
[grid]
eps = [0.5, 1.0, 2.0]
"""


def plant(path: Path, kind: str, victim: Path | None = None) -> None:
    """Make ``path`` a symlink (to ``victim``), a FIFO or a private char device (1, 3)."""
    if kind == "symlink":
        path.symlink_to(victim if victim is not None else path.with_name("missing-target"))
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "chardev":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except (PermissionError, OSError) as exc:
            pytest.skip(f"cannot make a private device node here (needs root): {exc}")
    else:
        raise ValueError(kind)


def kind_of(path: Path) -> str:
    """``symlink``, ``fifo``, ``chardev``, ``file``, ``dir`` or ``missing`` (never follows a link)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return "missing"
    for test, name in ((stat.S_ISLNK, "symlink"), (stat.S_ISFIFO, "fifo"), (stat.S_ISCHR, "chardev")):
        if test(mode):
            return name
    return "dir" if stat.S_ISDIR(mode) else "file"


def snapshot(root: Path, skip: Path | None = None) -> dict[str, tuple]:
    """Every entry under ``root`` (not under ``skip``): kind, size, mtime_ns, link target."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        if skip is not None and (here == skip or skip in here.parents):
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            p = here / name
            if skip is not None and p == skip:
                continue
            st = os.lstat(p)
            link = os.readlink(p) if stat.S_ISLNK(st.st_mode) else None
            out[str(p.relative_to(root))] = (kind_of(p), st.st_size, st.st_mtime_ns, link)
    return out
