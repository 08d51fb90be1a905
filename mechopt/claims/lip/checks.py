"""Shared machinery of the LIP paper's claims: the certified reference and grid verdicts.

:func:`certified` solves a problem with the exact solver (the judge of every
closed form); :func:`grid_verdict` turns per-instance deviations plus a
"where the closed form is valid" flag into ``holds`` / ``holds-in-region`` /
``fails`` with the smallest counterexample; :func:`closed_grid` does so for
the closed forms of a list of problems.

Examples
--------
>>> from mechopt.claims.lip.checks import grid_verdict
>>> v = grid_verdict([{"eps": 1.0}, {"eps": 2.0}], [0.0, 0.5], [True, False], "eps < 1.5", tol=1e-6)
>>> v.verdict, v.region, v.counterexample["eps"]
('holds-in-region', 'eps < 1.5', 2.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from mechopt.errors import SolverNotFound
from mechopt.jobs.verify import Verdict
from mechopt.model.problem import Problem
from mechopt.results.result import Result

__all__ = [
    "certified",
    "reference_solver",
    "grid_verdict",
    "value_gap",
    "closed_deviation",
    "instance_of",
    "closed_grid",
]

VALUE_TOL = 1e-6  # relative value agreement of a closed form with the certified optimum


@functools.lru_cache(maxsize=1)
def reference_solver() -> str:
    """``"exact"`` when the exact solver is installed, else ``"sqp"`` (uncertified; claims say so)."""
    from mechopt import registry

    try:
        registry.get_solver("exact")
        return "exact"
    except SolverNotFound:
        return "sqp"


def _key(problem: Problem) -> str:
    return repr((type(problem).__name__, sorted((k, repr(v)) for k, v in problem.params().items())))


_CACHE: dict[str, Result] = {}


def certified(problem: Problem, time_limit: float | None = None) -> Result:
    """The certified optimum of ``problem`` (exact solver; cached by parameters).

    Falls back to multi-start SQP (no certificate) when the exact solver is
    not installed; ``reference_solver()`` says which one ran. With
    ``time_limit`` the result may be a ``time_limit`` status without a value.
    """
    key = _key(problem) + repr(time_limit)
    if key not in _CACHE:
        from mechopt.api import solve

        name = reference_solver()
        opts: dict[str, Any] = {"n_starts": 12} if name == "sqp" else {}
        if time_limit is not None:
            opts["time_limit"] = time_limit
        _CACHE[key] = solve(problem, solver=name, **opts)
    return _CACHE[key]


def value_gap(value: float | None, optimum: Result) -> float:
    """|value − optimum| / max(1, |optimum|); inf when either is missing."""
    if value is None or optimum.value is None:
        return math.inf
    return abs(value - optimum.value) / max(1.0, abs(optimum.value))


def grid_verdict(
    instances: Sequence[dict[str, Any]],
    deviations: Sequence[float],
    in_region: Sequence[bool],
    region: str | None,
    tol: float,
    size_keys: Sequence[str] = ("d", "n_users", "eps"),
    note: str = "",
    region_kind: str | None = None,
) -> Verdict:
    """Verdict over a grid: ``holds`` if all pass; ``holds-in-region`` if only out-of-region
    instances fail; else ``fails``. The counterexample is the failing instance smallest by
    ``size_keys`` (preferring in-region failures; among equal sizes the largest deviation).
    ``region_kind="auto"``: ``exact boundary`` when every checked instance outside the region
    fails (the region cannot be widened on this grid), else ``sufficient``."""
    devs = [math.inf if d is None or math.isnan(d) else float(d) for d in deviations]
    bad = [i for i, d in enumerate(devs) if d > tol]
    worst = max(devs) if devs else 0.0
    ref = "" if reference_solver() == "exact" else " [reference: multi-start SQP, exact solver not installed]"
    if not bad:
        return Verdict("holds", len(devs), worst, note=note + ref)
    inside_bad = [i for i in bad if in_region[i]]
    pool = inside_bad or bad

    def size(i: int) -> tuple:
        inst = instances[i]
        return tuple(
            float(inst.get(k, 0.0)) if isinstance(inst.get(k, 0.0), (int, float)) else 0.0 for k in size_keys
        ) + (-devs[i],)

    i = min(pool, key=size)
    ce = {**instances[i], "deviation": devs[i]}
    if inside_bad or region is None:
        n_in = sum(bool(f) for f in in_region)
        extra = f"; fails inside the stated region too ({len(inside_bad)} of {n_in})" if inside_bad and region else ""
        return Verdict("fails", len(devs), worst, ce, None, note + extra + ref)
    n_out = sum(not f for f in in_region)
    if region_kind == "auto":
        region_kind = "exact boundary" if len(bad) == n_out else "sufficient"
    return Verdict(
        "holds-in-region",
        len(devs),
        worst,
        ce,
        region,
        note + f"; {len(bad)} of the {n_out} checked instances outside the region fail" + ref,
        region_kind=region_kind,
    )


def closed_deviation(prob, closed=None) -> tuple[float, float, float]:
    """(privacy violation, |reported − evaluated|, gap to the certified optimum) of prob's closed form."""
    res = prob.closed_form() if closed is None else closed
    viol = prob.notion.audit(res.Q, prob.prior).violation
    own = abs(res.value - prob.evaluate(res.Q)) / max(1.0, abs(res.value))
    return viol, own, value_gap(res.value, certified(prob))


def instance_of(prob, **extra) -> dict:
    """The instance record of a problem: its parameters (floats to 6 digits), d, and ``extra``."""
    p = prob.params()
    out = {k: (round(v, 6) if isinstance(v, float) else v) for k, v in p.items()}
    out["d"] = int(prob.prior.size)
    return {**out, **extra}


def closed_grid(
    problems, region_of: Callable, region: str | None, note: str = "", region_kind: str | None = "auto"
) -> Verdict:
    """Grid verdict of the problems' closed forms: privacy, self-consistency and gap to the certified optimum."""
    insts, devs, flags = [], [], []
    for prob in problems:
        viol, own, gap = closed_deviation(prob)
        opt = certified(prob)
        insts.append(
            instance_of(
                prob,
                model=type(prob).__name__,
                closed_value=prob.closed_form().value,
                certified_value=opt.value,
                violation=viol,
            )
        )
        devs.append(max(viol, own, gap))
        flags.append(bool(region_of(prob)))
    return grid_verdict(insts, devs, flags, region, VALUE_TOL, note=note, region_kind=region_kind)
