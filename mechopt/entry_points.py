"""Where the registry's solvers and problems come from: the built-in tables and the installed entry points.

Solvers and problems are ``importlib.metadata`` entry points, groups
``mechopt.solvers`` and ``mechopt.problems`` (``name = "module:Class"``): this
package declares its own in ``pyproject.toml`` (:data:`BUILTIN_SOLVERS` and
:data:`BUILTIN_PROBLEMS` below, in order of preference), and a third-party package adds a
solver by declaring one and being installed. :func:`entries` reads the metadata only
(no plugin is imported) and :func:`load` imports one entry point's class on first use.
Preference order is deterministic: the built-ins in the order below, then third-party
entry points sorted by name (a third-party name that is already taken is ignored);
:mod:`mechopt.registry` adds what is registered in-process (:func:`ordered`).

Examples
--------
>>> list(entries(SOLVER_GROUP))[:3]
['exact', 'spectral', 'lp']
>>> entries(PROBLEM_GROUP)["design"]
('mechopt.problems.design:ChannelDesign', 'mechopt')
>>> load(SOLVER_GROUP, "exact").__name__
'ExactSolver'
"""

from __future__ import annotations

import importlib
import importlib.metadata
from functools import cache
from typing import Any

from mechopt.errors import ProblemError, SolverNotFound

__all__ = [
    "SOLVER_GROUP",
    "PROBLEM_GROUP",
    "BUILTIN_SOLVERS",
    "BUILTIN_PROBLEMS",
    "entries",
    "refresh",
    "load",
    "ordered",
]

SOLVER_GROUP = "mechopt.solvers"
PROBLEM_GROUP = "mechopt.problems"
# The built-ins, in order of preference (the first installed solver that can_solve is the default).
# pyproject.toml declares the same entry points (a test keeps them equal); these targets are used
# when the installed metadata predates them (a checkout pulled without reinstalling).
BUILTIN_SOLVERS = {
    "exact": "mechopt.solvers.exact:ExactSolver",
    "spectral": "mechopt.solvers.spectral:SpectralSolver",
    "lp": "mechopt.solvers.lp:LPSolver",
    "conic": "mechopt.solvers.conic:ConicSolver",
    "greedy": "mechopt.solvers.greedy:GreedySolver",
    "sqp": "mechopt.solvers.sqp:SQPSolver",
    "search": "mechopt.solvers.search:SearchSolver",
    "gd-penalty": "mechopt.solvers.baselines:GDPenaltySolver",
    "anneal": "mechopt.solvers.baselines:AnnealSolver",
    "closed-form": "mechopt.solvers.closed_form:ClosedFormSolver",
    "robust-lp": "mechopt.solvers.robust.lp:RobustLPSolver",
    "robust-rays": "mechopt.solvers.robust.rays:RobustRaysSolver",
}
BUILTIN_PROBLEMS = {
    "design": "mechopt.problems.design:ChannelDesign",
    "geo": "mechopt.problems.geo:GeoDesign",
    "lip-binary": "mechopt.problems.lip:LIPBinary",
    "lip-mimo": "mechopt.problems.lip:LIPMimo",
    "lip-weighted-sum": "mechopt.problems.lip:LIPWeightedSum",
    "lip-histogram": "mechopt.problems.lip:LIPHistogram",
    "cip-binomial": "mechopt.problems.lip:CIPBinomial",
    "kss-mi": "mechopt.problems.kss:KssMI",
    "kss-l2": "mechopt.problems.kss:KssL2",
    "fisher-interval": "mechopt.problems.fisher:FisherInterval",
    "fisher-box": "mechopt.problems.fisher:FisherBox",
    "fisher-output": "mechopt.problems.fisher:FisherOutput",
    "fisher-weighted": "mechopt.problems.fisher:FisherWeighted",
    "fisher-gaussian": "mechopt.problems.fisher:FisherGaussian",
    "fisher-lti": "mechopt.problems.fisher:FisherLTI",
    "gauss-tradeoff": "mechopt.problems.gauss:GaussProblem",
    "gauss-dataset1": "mechopt.problems.gauss:GaussDataset1",
    "gauss-dataset2": "mechopt.problems.gauss:GaussDataset2",
    "robust": "mechopt.problems.robust:RobustDesign",
    "robust-ball": "mechopt.problems.robust:BallDesign",
}

_loaded: dict[str, Any] = {}  # "module:attr" -> the loaded object


@cache
def entries(group: str) -> dict[str, tuple[str, str]]:
    """``{name: (target, distribution)}`` of a group: built-ins in order, then third parties by name.

    Reads installed metadata only (no plugin is imported); cached, :func:`refresh` re-reads.
    """
    builtin = BUILTIN_SOLVERS if group == SOLVER_GROUP else BUILTIN_PROBLEMS
    ours: dict[str, str] = {}
    theirs: dict[str, tuple[str, str]] = {}
    for ep in importlib.metadata.entry_points(group=group):
        dist = getattr(getattr(ep, "dist", None), "name", None) or "?"
        if dist.lower() == "mechopt":
            ours.setdefault(ep.name, ep.value)
        elif ep.name not in builtin:
            theirs.setdefault(ep.name, (ep.value, dist))
    out = {name: (ours.get(name, target), "mechopt") for name, target in builtin.items()}
    out.update({name: theirs[name] for name in sorted(theirs)})
    return out


def refresh() -> None:
    """Forget the cached entry points (after installing a plugin into the running interpreter)."""
    entries.cache_clear()


def load(group: str, name: str) -> Any:
    """The class an entry point names, imported on first use."""
    target, dist = entries(group)[name]
    if target not in _loaded:
        module, _, attr = target.partition(":")
        try:
            obj = importlib.import_module(module)
            for part in filter(None, attr.split(".")):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            kind, error = ("solver", SolverNotFound) if group == SOLVER_GROUP else ("problem", ProblemError)
            raise error(
                f"{kind} {name!r} ({target}, from the package {dist}) failed to load: "
                f"{type(exc).__name__}: {exc}; reinstall or uninstall {dist}"
            ) from exc
        _loaded[target] = obj
    return _loaded[target]


def ordered(group: str, extra: dict[str, Any]) -> dict[str, Any]:
    """Names in order of preference mapped to None (not loaded) or to a class registered in-process."""
    return {**dict.fromkeys(entries(group)), **extra}
