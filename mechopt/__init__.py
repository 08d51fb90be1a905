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
from typing import TYPE_CHECKING

# The public names are imported when first used (PEP 562): ``import mechopt`` itself stays cheap, so that
# ``python -m mechopt`` reaches the command line's interrupt handling (:mod:`_mechopt_entry`) before numpy,
# scipy and the solvers load (a Ctrl-C during that import printed a traceback).
_PUBLIC = {
    "audit_result": "mechopt.api", "design": "mechopt.api", "solve": "mechopt.api",
    "Dominance": "mechopt.dominance", "dominates": "mechopt.dominance",
    "MechoptError": "mechopt.errors", "ParamError": "mechopt.errors", "ProblemError": "mechopt.errors",
    "SolverError": "mechopt.errors", "SolverNotFound": "mechopt.errors", "TooLargeError": "mechopt.errors",
    "audit": "mechopt.io.mechfile", "compare": "mechopt.jobs.compare", "sweep": "mechopt.jobs.sweep.run",
    "verify": "mechopt.jobs.verify", "Estimate": "mechopt.mechanism", "Mechanism": "mechopt.mechanism",
    "Channel": "mechopt.model.channel", "Certificate": "mechopt.results.result", "Result": "mechopt.results.result",
    "Status": "mechopt.results.result",
}  # fmt: skip
_SUBMODULES = ("errors", "notions", "settings", "utilities", "problems", "solvers", "registry")

if TYPE_CHECKING:  # what type checkers and readers see: the same names, imported eagerly
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


def __getattr__(name: str):  # PEP 562: the public API and the subpackages, imported on first use
    import importlib

    if name in _PUBLIC:
        value = getattr(importlib.import_module(_PUBLIC[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"mechopt.{name}")
    else:
        raise AttributeError(f"module 'mechopt' has no attribute {name!r}")
    globals()[name] = value  # once
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
