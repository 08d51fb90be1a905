"""Progress bars for the long jobs (compare, verify, sweep, reproduce, bench), drawn by tqdm.

:class:`Progress` keeps the small API the jobs use (``advance(label)``, a
context manager) and hands the drawing to :mod:`tqdm.auto`: a text bar on
stderr in a terminal, a widget in a Jupyter notebook. By default it is shown
only there (stream is a terminal, or a notebook kernel is running), so pipes,
logs and ``--json`` output stay clean.

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
from typing import IO, Any

__all__ = ["Progress", "in_notebook"]


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
