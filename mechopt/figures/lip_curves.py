"""Curve data of the LIP paper's figures: analytic MSE, Monte Carlo, certified optimum.

A point evaluates one mechanism Q for one user problem: its analytic MSE for
N users (N × per-user MMSE, or a stated formula), a Monte-Carlo estimate with
standard error (:mod:`mechopt.simulate`), whether Q is private under the
problem's own notion, and the certified optimum of that problem (exact solver).

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.lip import LIPBinary
>>> from mechopt.problems import lip_closed as cf
>>> prob = LIPBinary(p1=0.4, eps=1.0)
>>> row = point(prob, cf.binary_lip_channel(0.4, 1.0), "lip", x=1.0, n_users=100, runs=400, rng=0,
...             certify=False)
>>> row["private"], round(row["analytic"], 4)
(True, 14.4102)
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..claims.lip_checks import certified, reference_solver
from ..problems import lip_closed as cf
from ..problems.lip import LIPBinary
from ..problems.lip_aggregate import LIPAggregate
from ..result import Result, Status
from ..simulate import UserGroup, analytic_mse, as_generator, mmse_table, simulate
from ..utilities import HistogramMSE

CERT_TIME_LIMIT = 60.0    # seconds per certified optimum in a figure

__all__ = ["point", "user_f", "binary_optimum", "local_binary_points"]


def user_f(prob) -> np.ndarray:
    """f(x) of a user problem: the values a (sums) or the identity (histogram)."""
    if isinstance(prob.utility, HistogramMSE):
        return np.eye(prob.prior.size)
    return prob.utility.a


def point(prob, Q: np.ndarray, label: str, x: float, n_users: int, runs: int, rng: Any,
          g: np.ndarray | None = None, analytic: float | None = None, certify: bool = True) -> dict[str, Any]:
    """One curve point for N i.i.d. users of ``prob`` reporting through Q.

    ``g`` defaults to the MMSE table; ``analytic`` to the exact MSE of (Q, g)
    (a paper formula can be passed instead; ``analytic_exact`` is always the exact one).
    """
    f = user_f(prob)
    G = mmse_table(Q, prob.prior, f) if g is None else np.asarray(g, float)
    grp = UserGroup(Q=Q, prior=prob.prior, count=n_users, f=f, g=G)
    exact = analytic_mse([grp])
    mc = simulate([grp], runs=runs, rng=as_generator(rng))
    row: dict[str, Any] = {"x": float(x), "curve": label, "analytic": exact if analytic is None else float(analytic),
                           "analytic_exact": exact, "mc": mc.mse, "mc_se": mc.se, "mc_nonzero": mc.extras["nonzero"],
                           "n_users": n_users, "runs": runs, "private": bool(prob.notion.audit(Q, prob.prior).violation <= 1e-7)}
    if certify:
        opt = certified(prob, time_limit=CERT_TIME_LIMIT)
        row["certified"] = n_users * opt.value if opt.ok and opt.value is not None else None
        row["certified_by"] = f"{reference_solver()} ({opt.status.value})"
    return row


def binary_optimum(prob: LIPBinary) -> Result:
    """The binary optimum as a Result: the clipped two-point split for LIP
    (:func:`~mechopt.problems.lip_closed.binary_lip_optimum`, checked against the exact solver
    in ``lip.thm2``), randomized response for LDP (Proposition 4, checked in ``lip.prop4``)."""
    if prob.kind == "lip":
        val, Q = cf.binary_lip_optimum(prob.p1, prob.eps)
    else:
        Q = cf.binary_ldp_channel(prob.eps)
        val = prob.evaluate(Q)
    return Result(status=Status.OPTIMAL, value=val, sense="min", objective="mse", mechanism=Q,
                  solver="binary-optimum", notion=prob.kind, eps=prob.eps)


def local_binary_points(p1s: np.ndarray, eps: float, label: str, kind: str, runs: int, rng: Any,
                        solve=binary_optimum) -> dict[str, Any]:
    """Fig. 8 point: N users with local priors, each at its own optimum (Proposition 2 aggregate).

    Users sharing a prior are one :class:`UserGroup`, so the Monte Carlo costs
    O(distinct priors) per run whatever N is.
    """
    agg = LIPAggregate.local_binary(p1s, eps, notion=kind)
    out = agg.solve_with(solve)
    groups = []
    for prob, res, n in zip(agg.users, out.results, agg.counts):
        Q = res.Q
        groups.append(UserGroup(Q=Q, prior=prob.prior, count=int(n), f=[0.0, 1.0],
                                g=mmse_table(Q, prob.prior, [0.0, 1.0])))
    mc = simulate(groups, runs=runs, rng=as_generator(rng))
    n_users = len(p1s)
    return {"x": float(eps), "curve": label, "analytic": out.total, "analytic_exact": analytic_mse(groups),
            "mc": mc.mse, "mc_se": mc.se, "mc_nonzero": mc.extras["nonzero"], "n_users": n_users, "runs": runs,
            "private": True, "rmse_per_user": math.sqrt(out.total / n_users)}
