"""A minimal progress bar on stderr, shown only on a terminal (or when forced).

Examples
--------
>>> import io
>>> from mechopt.progress import Progress
>>> buf = io.StringIO()
>>> with Progress(2, "demo", stream=buf, enabled=True) as bar:
...     bar.advance("a"); bar.advance("b")
>>> "2/2" in buf.getvalue()
True
>>> Progress(3, enabled=None, stream=io.StringIO()).enabled   # not a TTY
False
"""
from __future__ import annotations

import sys
import time
from typing import IO, Any

__all__ = ["Progress"]


class Progress:
    """``[#####.....] k/n label  elapsed`` redrawn in place on ``stream``.

    Parameters
    ----------
    total : int
        Number of steps.
    title : str
    stream : file, optional
        Default ``sys.stderr``.
    enabled : bool or None
        None: on only when ``stream`` is a terminal.
    """

    width = 24

    def __init__(self, total: int, title: str = "", *, stream: IO[str] | None = None,
                 enabled: bool | None = None) -> None:
        self.total = max(int(total), 0)
        self.title = title
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = enabled
        self.done = 0
        self.t0 = time.perf_counter()

    def advance(self, label: str = "", n: int = 1) -> None:
        """Count ``n`` finished steps and redraw."""
        self.done += n
        self.draw(label)

    def draw(self, label: str = "") -> None:
        if not self.enabled:
            return
        frac = self.done / self.total if self.total else 1.0
        fill = int(round(frac * self.width))
        bar = "#" * fill + "." * (self.width - fill)
        text = f"\r{self.title} [{bar}] {self.done}/{self.total} {time.perf_counter() - self.t0:6.1f}s {label}"
        self.stream.write(text[:160].ljust(100))
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()

    def __enter__(self) -> "Progress":
        self.draw()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
