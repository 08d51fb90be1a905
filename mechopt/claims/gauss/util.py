"""Helpers shared by the Gaussian-paper claim modules (:mod:`mechopt.claims.gauss.theorems` and
:mod:`mechopt.claims.gauss.sections`): the min I(X_p; Y) curve, the seeded random instance and the
MI-versus-Fisher comparison. Both modules import them from here; ``curve`` and
``random_instance`` are re-exported by :mod:`mechopt.claims.gauss.theorems`.

Examples
--------
>>> from mechopt.claims.gauss.util import random_instance
>>> [c.shape for c in random_instance(1)]
[(3, 3), (3, 3)]
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from mechopt.api import solve
from mechopt.jobs.verify import Verdict
from mechopt.problems.gauss.problem import GaussProblem

__all__ = ["curve", "random_instance"]


def curve(problem: GaussProblem, deltas: tuple[float, ...], solver: str, **opts: Any) -> list[dict[str, Any]]:
    """min I(X_p; Y) against δ with one solver: rows of δ, value, violation, status, proof, time_s, bound.

    Examples
    --------
    >>> p = GaussProblem.from_params(dataset="1")
    >>> [round(r["value"], 4) for r in curve(p, (0.3,), "search")]
    [1.1617]
    """
    rows = []
    for d in deltas:
        r = solve(problem.with_params(delta=float(d)), solver=solver, **opts)
        rows.append(
            {
                "delta": float(d),
                "value": r.value,
                "violation": r.violation,
                "status": r.status.value,
                "proof": r.proof,
                "time_s": r.time_s,
                "bound": None if r.certificate is None else r.certificate.bound,
            }
        )
    return rows


def random_instance(seed: int, n: int = 2, n_p: int = 1, n_u: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """A random (Σ_{X∪Xp}, Σ_{X∪Xu}) pair from one Wishart-like draw (seeded).

    Examples
    --------
    >>> cp, cu = random_instance(0, n=2, n_u=2)
    >>> cp.shape, cu.shape
    ((3, 3), (4, 4))
    """
    rng = np.random.default_rng(seed)
    d = n + n_p + n_u
    A = rng.normal(size=(d, d))
    C = A @ A.T / d + 0.1 * np.eye(d)
    ip = list(range(n + n_p))
    iu = list(range(n)) + list(range(n + n_p, d))
    return C[np.ix_(ip, ip)], C[np.ix_(iu, iu)]


def _check_same_curves() -> Verdict:
    """Greedy and global minima with MI vs Fisher utility (δ mapped by eq. (13))."""
    devs, inst = [], []
    base = GaussProblem.from_params(dataset="1")
    for d in (0.1, 0.3, 0.75):
        for g in (0.0, 3.0):
            a = base.with_params(delta=d, gamma=g)
            b = a.with_params(utility="fisher")
            for solver in ("search", "greedy"):
                va, vb = solve(a, solver=solver).value, solve(b, solver=solver).value
                devs.append(abs(va - vb))
                inst.append(
                    {
                        "dataset": "1",
                        "n_u": 1,
                        "delta": d,
                        "gamma": g,
                        "solver": solver,
                        "mi_value": va,
                        "fisher_value": vb,
                    }
                )
    for seed in (4, 2):
        cp, cu = random_instance(seed, n=2, n_u=2)
        a = GaussProblem(cov_p=cp, cov_u=cu, n=2)
        a = a.with_params(delta=0.4 * a.mi_full) if seed == 2 else a.with_params(delta=0.25 * a.mi_full)
        b = a.with_params(utility="fisher")
        va, vb = solve(a, solver="search").value, solve(b, solver="search").value
        devs.append(abs(va - vb))
        inst.append(
            {
                "instance": f"random_instance({seed}, n=2, n_u=2)",
                "n_u": 2,
                "delta": a.delta,
                "gamma": 0.0,
                "solver": "search",
                "mi_value": va,
                "fisher_value": vb,
            }
        )
    bad = [i for i, x in enumerate(devs) if x > 1e-6]
    region = "n_u = 1 and γ = 0 (then eq. (13) makes the two feasible sets identical)"
    if not bad:
        return Verdict("holds", len(devs), max(devs))
    ce = min((inst[i] for i in bad), key=lambda x: (x["n_u"], x["gamma"]))
    other = [inst[i] for i in bad if inst[i]["n_u"] != ce["n_u"]]
    if other:
        ce = {**ce, "also": other[0]}
    in_region_fail = any(inst[i]["n_u"] == 1 and inst[i]["gamma"] == 0.0 for i in bad)
    return Verdict(
        "fails" if in_region_fail else "holds-in-region",
        len(devs),
        max(devs),
        {**ce, "deviation": abs(ce["mi_value"] - ce["fisher_value"])},
        region,
        note="differs when γ > 0 (eq. (13) is nonlinear, so no constant γ maps the ratio "
        "constraint) and for n_u > 1 with the trace of the Fisher matrix; the region is exact for "
        "the equality of the feasible sets (eq. (13) is a bijection), see gauss.sec5_conjecture",
        region_kind=None if in_region_fail else "exact boundary",
    )


#: The δ grid of the dataset-1 curves (Figs. 3-6).
DELTAS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0)


@lru_cache(maxsize=1)
def _dataset1_curves() -> dict[str, list[dict[str, Any]]]:
    """The search, greedy and gd-penalty curves of dataset 1 at γ = 0 over :data:`DELTAS` (computed once)."""
    p = GaussProblem.from_params(dataset="1", gamma="0")
    return {s: curve(p, DELTAS, s) for s in ("search", "greedy", "gd-penalty")}
