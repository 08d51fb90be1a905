"""Progress for the long jobs: bars for compare, verify, sweep, reproduce and bench (tqdm), and a status
line for one long design.

:class:`Progress` keeps the small API the jobs use (``advance(label)``, a
context manager) and hands the drawing to :mod:`tqdm.auto`: a text bar on
stderr in a terminal, a widget in a Jupyter notebook. By default it is shown
only there (stream is a terminal, or a notebook kernel is running), so pipes,
logs and ``--json`` output stay clean. :class:`StatusLine` is the
open-ended kind (a design has no known number of steps): the latest round a
solver reported (``round 12, 340 columns, gap 3.1e-04``) and the elapsed
time, redrawn in place on a terminal, appearing only after a few seconds.

Examples
--------
>>> import io
>>> from mechopt.runtime.progress import Progress
>>> buf = io.StringIO()
>>> with Progress(2, "demo", stream=buf, enabled=True) as bar:
...     bar.advance("a"); bar.advance("b")
>>> "2/2" in buf.getvalue() and "demo" in buf.getvalue()
True
>>> Progress(3, enabled=None, stream=io.StringIO()).enabled   # not a terminal
False
"""

from __future__ import annotations

import sys
import threading
import time
from typing import IO, Any

__all__ = ["Progress", "StatusLine", "in_notebook"]


def in_notebook() -> bool:
    """True when :mod:`tqdm.auto` draws notebook widgets (a Jupyter kernel with ipywidgets)."""
    from tqdm.auto import tqdm

    return tqdm.__module__.startswith("tqdm.notebook")


class Progress:
    """A ``k/n`` progress bar with a label for the step just finished.

    Parameters
    ----------
    total : int
        Number of steps.
    title : str
        Shown before the bar.
    stream : file, optional
        Where a text bar is drawn; default ``sys.stderr`` (notebook widgets ignore it).
    enabled : bool or None
        None: on only when ``stream`` is a terminal or in a notebook.
    """

    def __init__(
        self, total: int, title: str = "", *, stream: IO[str] | None = None, enabled: bool | None = None
    ) -> None:
        self.total = max(int(total), 0)
        self.title = title
        self.stream = sys.stderr if stream is None else stream
        if enabled is None:
            enabled = bool(getattr(self.stream, "isatty", lambda: False)()) or (stream is None and in_notebook())
        self.enabled = bool(enabled)
        self.done = 0
        self._bar: Any = None

    def _open(self) -> Any:
        if self._bar is None and self.enabled:
            from tqdm.auto import tqdm

            self._bar = tqdm(
                total=self.total, desc=self.title, file=self.stream, leave=True, dynamic_ncols=True, mininterval=0.1
            )
        return self._bar

    def advance(self, label: str = "", n: int = 1) -> None:
        """Count ``n`` finished steps; ``label`` names the last one."""
        self.done += n
        bar = self._open()
        if bar is not None:
            bar.set_postfix_str(label, refresh=False)
            bar.update(n)

    def close(self) -> None:
        """Draw the final state and release the line."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "Progress":
        self._open()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class StatusLine:
    """One status line on ``stream``: ``title: <latest reported fields>, <elapsed> s``.

    A daemon thread draws it every ``interval`` seconds once ``delay`` seconds
    have passed: in place (carriage return) on a terminal, as a new line only
    when something changed otherwise. :meth:`update` (thread-safe) gives the
    latest fields, e.g. the ``progress`` option of :func:`mechopt.solve`. On
    exit the final state is left on its own line when the line was shown (or
    ``delay`` is 0).

    Parameters
    ----------
    title : str
    stream : file, optional
        Default ``sys.stderr``.
    enabled : bool or None
        None: on only when ``stream`` is a terminal.
    delay, interval : float
        Seconds before the line first appears, and between redraws.

    Examples
    --------
    >>> import io
    >>> buf = io.StringIO()
    >>> with StatusLine("design", stream=buf, enabled=True, delay=0, clock=lambda: 0.0) as line:
    ...     line.update({"method": "column generation", "round": 3, "columns": 40, "gap": 2.5e-4})
    >>> print(buf.getvalue().strip().splitlines()[-1])
    design: column generation, round 3, 40 columns, gap 0.00025, 0.0 s
    """

    def __init__(
        self,
        title: str,
        *,
        stream: IO[str] | None = None,
        enabled: bool | None = None,
        delay: float = 3.0,
        interval: float = 0.5,
        clock: Any = time.monotonic,
    ) -> None:
        self.title = title
        self.stream = sys.stderr if stream is None else stream
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.enabled = self.tty if enabled is None else bool(enabled)
        self.delay, self.interval, self.clock = float(delay), float(interval), clock
        self.fields: dict[str, Any] = {}
        self.shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = ""
        self._t0 = clock()

    def update(self, fields: dict[str, Any]) -> None:
        """The latest state (a solver's round report); drawn on the next tick."""
        with self._lock:
            self.fields = dict(fields)

    def text(self) -> str:
        """The line as it would be drawn now."""
        with self._lock:
            f = dict(self.fields)
        parts = [str(f["method"])] if f.get("method") else []
        if f.get("round") is not None:
            parts.append(f"round {f['round']}")
        if f.get("columns") is not None:
            parts.append(f"{f['columns']} columns")
        for key in ("value", "bound"):
            if f.get(key) is not None:
                parts.append(f"{key} {f[key]:.8g}")
        if f.get("gap") is not None:
            parts.append(f"gap {f['gap']:.2g}")
        parts.append(f"{self.clock() - self._t0:.1f} s")
        return f"{self.title}: " + ", ".join(parts if f else ["working", *parts])

    def _draw(self) -> None:
        line = self.text()
        if self.tty:
            import shutil

            width = max(20, shutil.get_terminal_size().columns - 1)
            line = line[:width]
            self.stream.write("\r" + line.ljust(len(self._last)))
        elif line.rsplit(", ", 1)[0] != self._last.rsplit(", ", 1)[0]:  # a log: only when a field changed
            self.stream.write(line + "\n")
        else:
            return
        self.stream.flush()
        self._last, self.shown = line, True

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            self._draw()
            if self._stop.wait(self.interval):
                return

    def __enter__(self) -> "StatusLine":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="mechopt-status", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.enabled and (self.shown or self.delay == 0):
            self._last = "" if not self.tty else self._last
            self._draw()
            if self.tty:
                self.stream.write("\n")
            self.stream.flush()
