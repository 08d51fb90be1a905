"""The error hierarchy of mechopt.

Every error raised on bad input or a failed backend derives from
:class:`MechoptError`; its message is one line saying what is wrong and how
to fix it. Infeasible or unbounded problems and hit limits are *statuses* of a
:class:`~mechopt.results.result.Result`, never exceptions.

Examples
--------
>>> from mechopt.errors import ProblemError, MechoptError
>>> issubclass(ProblemError, MechoptError)
True
"""

from __future__ import annotations

__all__ = [
    "MechoptError",
    "ProblemError",
    "ParamError",
    "SolverNotFound",
    "SolverError",
    "TooLargeError",
    "InputFileError",
    "OutputFileError",
    "MissingDependency",
    "NoChannelError",
    "CertificateError",
    "PlatformError",
]


class MechoptError(Exception):
    """Root of every error mechopt raises on purpose."""


class ProblemError(MechoptError, ValueError):
    """Bad problem data: a prior, ε, covariance, shape or mechanism."""


class ParamError(MechoptError, ValueError):
    """Bad option: an unknown key, a value of the wrong type or range."""


class SolverNotFound(MechoptError, LookupError):
    """No solver of that name, or none installed that can solve the problem."""


class SolverError(MechoptError, RuntimeError):
    """A backend crashed; the original exception is chained with ``from``."""


class TooLargeError(MechoptError, MemoryError):
    """An exact method would exceed its size limit; the message names what scales."""


class InputFileError(ProblemError):
    """An input file that cannot be read safely: missing, not a regular file (FIFO, device), or too large."""


class OutputFileError(ProblemError):
    """An output that cannot be written safely: a directory, socket or block device, a dangling
    symbolic link, a planted lock file, a FIFO without a reader, or an OS error (a full disk, a
    read-only folder) while writing; the message names the file."""


class MissingDependency(MechoptError, ImportError):
    """An optional dependency is not installed; the message names the extra to install
    (:func:`mechopt.runtime.optional.require`)."""


class NoChannelError(MechoptError, ValueError):
    """A result has no channel matrix Q (no mechanism, or one that is a density, covariance or plan)."""


class CertificateError(ProblemError):
    """A result whose certificate cannot be written as a checkable file (no dual evidence; a notion or
    utility the standalone checker does not know)."""


class PlatformError(MechoptError, OSError):
    """A feature this platform cannot run: sweep locking needs POSIX ``fcntl``, isolated compare rows
    and the time-limited SLSQP child need ``fork``. ``import mechopt`` and everything else work."""
