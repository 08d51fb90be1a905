"""The ``mechopt`` console script: an interrupt at any moment ends with one line, never a traceback.

The package takes a few hundred milliseconds to import (numpy, scipy, the solvers), and the command
line's own interrupt handling (:func:`mechopt.cli.main`) exists only once that import is done. A
console script that imports ``mechopt.cli`` at its top therefore printed a ``KeyboardInterrupt``
traceback when Ctrl-C came during the import. This module lives outside the package and imports
only the standard library, so the console script reaches :func:`main` first; :func:`main` imports
the package under its ``try``.

Exit status of an interrupt: 128 + the signal's number (130 for SIGINT, 143 for SIGTERM, 129 for
SIGHUP), as a shell reports a process killed by that signal; one line ``mechopt: error: ...`` on
stderr. After the command has finished, SIGINT gets its default action back, so an interrupt while
the interpreter shuts down ends the process with the same status and no traceback either. (An
interrupt during Python's own start-up, before this module runs, is Python's to report.)

Examples
--------
>>> import _mechopt_entry
>>> _mechopt_entry.main(["audit", "/nonexistent.json", "--prior", "0.5,0.5"])
2
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Import the command line and run it; an interrupt anywhere gives one line and 128 + its signal."""
    try:
        from mechopt.cli import main as run

        code = run(argv)
    except KeyboardInterrupt as exc:  # during the import, or between the command's own handlers
        describe = getattr(sys.modules.get("mechopt.cli"), "interrupted", None)  # never imported here
        message = describe(exc) if callable(describe) else str(exc) or "interrupted"
        sys.stderr.write(f"mechopt: error: {message}\n")
        return 128 + int(getattr(exc, "signum", signal.SIGINT))  # as mechopt.runtime.lifeline.interrupt_status
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # from here on: killed by SIGINT, no traceback
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
