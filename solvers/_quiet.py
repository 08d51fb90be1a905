"""Silence C-level writes to standard output (HiGHS banners and debug lines), for ``--json`` and pipes.

Examples
--------
>>> with quiet_stdout():
...     pass
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

__all__ = ["quiet_stdout"]


@contextlib.contextmanager
def quiet_stdout() -> Iterator[None]:
    """Point file descriptor 1 at ``os.devnull`` for the block (C libraries write there, not to ``sys.stdout``).

    highspy ≥ 1.16 prints a two-line banner when its first ``Highs`` object is made, before any
    ``output_flag`` can be set; HiGHS's MIP prints debug lines under tight tolerances.
    """
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
