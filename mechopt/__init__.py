"""mechopt: design privacy mechanisms by optimization, certify them, check the literature.

Examples
--------
>>> import mechopt
>>> r = mechopt.design(prior="0.2,0.8", notion="lip", utility="histogram", eps=0.5, solver="sqp")
>>> r.status.value, r.sense, r.violation <= 1e-7          # a local method: no proof of optimality
('locally_optimal', 'min', True)
>>> r = mechopt.design(prior="0.2,0.8", notion="lip", utility="histogram", eps=0.5, solver="exact")
>>> r.status.value, r.proof                               # optimal only with a proof
('optimal', 'certificate')
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from mechopt import errors, notions, settings, utilities
from mechopt.api import audit_result, design, solve
from mechopt.dominance import Dominance, dominates
from mechopt.errors import MechoptError, ParamError, ProblemError, SolverError, SolverNotFound, TooLargeError
from mechopt.io.mechfile import audit
from mechopt.jobs.compare import compare
from mechopt.jobs.sweep.run import sweep
from mechopt.jobs.verify import verify
from mechopt.mechanism import Estimate, Mechanism
from mechopt.model.channel import Channel
from mechopt.results.result import Certificate, Result, Status

try:
    __version__ = version("mechopt")
except PackageNotFoundError:  # pragma: no cover - running from a source tree
    __version__ = "0.0.0+unknown"

__all__ = [
    "solve",
    "design",
    "audit_result",
    "audit",
    "compare",
    "sweep",
    "verify",
    "dominates",
    "Dominance",
    "Channel",
    "Mechanism",
    "Estimate",
    "Result",
    "Status",
    "Certificate",
    "MechoptError",
    "ProblemError",
    "ParamError",
    "SolverError",
    "SolverNotFound",
    "TooLargeError",
    "errors",
    "notions",
    "settings",
    "utilities",
    "__version__",
]


def __getattr__(name: str):  # lazy subpackages: mechopt.problems, mechopt.solvers
    if name in ("problems", "solvers", "registry"):
        import importlib

        return importlib.import_module(f"mechopt.{name}")
    raise AttributeError(f"module 'mechopt' has no attribute {name!r}")
