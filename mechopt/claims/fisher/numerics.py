"""How the Fisher claims judge a closed form against the numerical solvers: each solver's tolerance, the
closed-form-vs-solvers verdict, and the measured order of the grid error those tolerances rest on.

Examples
--------
>>> abs(grid_order("spectral") - 2) < 0.1
True
"""

from __future__ import annotations

import math
from typing import Any

from mechopt.api import solve
from mechopt.claims._spec import rel
from mechopt.jobs.verify import Verdict
from mechopt.problems.fisher.problems import FisherInterval

__all__ = ["SPECTRAL_TOL", "conic_tol", "against_solvers", "grid_order", "check_order2"]

SPECTRAL_TOL = 1e-8


def conic_tol(res: Any) -> float:
    """The conic solver's tolerance for one result: 1.5 x its own grid-error estimate (relative) + 1e-6."""
    return 1.5 * float(res.extras.get("error_estimate", 0.0)) / max(1.0, abs(res.value)) + 1e-6


def against_solvers(problems: list[Any], names: list[dict[str, Any]]) -> Verdict:
    """Closed form vs spectral (1e-8) and conic (derived tolerance): deviations scaled to tolerance."""
    devs, inst = [], []
    for prob, label in zip(problems, names):
        cf = prob.closed_form().value
        sp = solve(prob, solver="spectral")
        co = solve(prob, solver="conic")
        devs += [rel(sp.value, cf) / SPECTRAL_TOL, rel(co.value, cf) / conic_tol(co)]
        inst += [
            {**label, "solver": "spectral", "closed_form": cf, "numerical": sp.value},
            {**label, "solver": "conic", "closed_form": cf, "numerical": co.value},
        ]
    v = Verdict.from_deviations(devs, tol=1.0, instances=inst)
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        note="deviations in units of each solver's tolerance (1 = at the tolerance)",
    )


def grid_order(solver: str, ns: tuple[int, ...] = (99, 199, 399)) -> float:
    """Measured order log₂(e_h / e_{h/2}) of the raw grid error of J on [−1, 1] (last pair).

    >>> abs(grid_order("spectral") - 2) < 0.1
    True
    """
    errs = []
    for n in ns:
        if solver == "spectral":
            from mechopt.solvers.spectral import ground_state

            J = ground_state(-1.0, 1.0, n)[0]
        else:
            J = solve(FisherInterval(-1.0, 1.0, n=n), solver="conic").value
        errs.append(abs(J - math.pi**2))
    return float(math.log2(errs[-2] / errs[-1]))


def check_order2() -> Verdict:
    """Both solvers' measured grid order is 2 within 0.1."""
    orders = {s: grid_order(s) for s in ("spectral", "conic")}
    return Verdict.from_deviations(
        [abs(o - 2) for o in orders.values()], tol=0.1, instances=[{"solver": s, "order": o} for s, o in orders.items()]
    )
