"""Curve data of the LIP paper's figures: analytic MSE, Monte Carlo, certified optimum.

A point evaluates one mechanism Q for one user problem: its analytic MSE for
N users (N × per-user MMSE, or a stated formula), a Monte-Carlo estimate with
standard error (:mod:`mechopt.oracles.simulate`), whether Q is private under the
problem's own notion, and the certified optimum of that problem (exact solver).

Each row says what its curve is: ``kind`` (``closed form``, ``printed formula``
or ``solver``), ``status`` and ``proof`` (the audited status of the mechanism,
:func:`mechopt.api.audit_result`: ``infeasible_point`` when it is not private),
and ``certified`` holds the reference optimum only when that result is
``optimal`` with a proof (``certified_status``, ``certified_proof`` and
``certified_by`` say what ran).

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.lip.problems import LIPBinary
>>> from mechopt.problems.lip import closed as cf
>>> prob = LIPBinary(p1=0.4, eps=1.0)
>>> row = point(prob, cf.binary_lip_channel(0.4, 1.0), "lip", x=1.0, n_users=100, runs=400, rng=0,
...             certify=False)
>>> row["private"], round(row["analytic"], 4), row["kind"], row["status"]
(True, 14.4102, 'closed form', 'feasible')
>>> binary_optimum(prob).proof, binary_optimum(prob).extras["claim"]
('theorem', 'lip.thm2')
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from mechopt.api import audit_result
from mechopt.claims.lip.checks import certified, reference_solver
from mechopt.oracles.simulate import UserGroup, analytic_mse, as_generator, mmse_table, simulate
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.aggregate import LIPAggregate
from mechopt.problems.lip.problems import LIPBinary
from mechopt.results.result import Result, Status
from mechopt.results.words import is_certified
from mechopt.utilities import HistogramMSE

CERT_TIME_LIMIT = 60.0  # seconds per certified optimum in a figure

__all__ = ["point", "user_f", "binary_optimum", "local_binary_points", "mechanism_status"]


def user_f(prob) -> np.ndarray:
    """f(x) of a user problem: the values a (sums) or the identity (histogram)."""
    if isinstance(prob.utility, HistogramMSE):
        return np.eye(prob.prior.size)
    return prob.utility.a


def mechanism_status(prob, Q: np.ndarray, result: Result | None = None) -> dict[str, Any]:
    """Audited ``status``, ``proof``, ``claim`` and ``private`` of the mechanism Q for ``prob``.

    ``result`` is the closed form's Result when Q is that closed form (its
    status and proof are then audited, :func:`mechopt.api.audit_result`);
    any other mechanism is ``feasible`` when private, ``infeasible_point`` if not.

    Examples
    --------
    >>> mechanism_status(LIPBinary(p1=0.1, eps=1.0), cf.binary_lip_channel(0.1, 1.0))["status"]
    'infeasible_point'
    """
    res = (
        result
        if result is not None
        else Result(status=Status.FEASIBLE, value=None, sense="min", objective=prob.objective, mechanism=Q)
    )
    res = audit_result(prob, res.replace(mechanism=np.asarray(Q, float)))
    return {
        "status": res.status.value,
        "proof": res.proof,
        "claim": res.extras.get("claim"),
        "private": res.status is not Status.INFEASIBLE_POINT,
    }


def point(
    prob,
    Q: np.ndarray,
    label: str,
    x: float,
    n_users: int,
    runs: int,
    rng: Any,
    g: np.ndarray | None = None,
    analytic: float | None = None,
    certify: bool = True,
    result: Result | None = None,
    ref: str | None = None,
) -> dict[str, Any]:
    """One curve point for N i.i.d. users of ``prob`` reporting through the closed-form mechanism Q.

    ``g`` defaults to the MMSE table; ``analytic`` to the exact MSE of (Q, g)
    (a paper formula can be passed instead; ``analytic_exact`` is always the exact one).
    ``result`` is the closed form's Result when Q is ``prob``'s closed form,
    ``ref`` the theorem or equation it comes from (for the legend).
    """
    f = user_f(prob)
    G = mmse_table(Q, prob.prior, f) if g is None else np.asarray(g, float)
    grp = UserGroup(Q=Q, prior=prob.prior, count=n_users, f=f, g=G)
    exact = analytic_mse([grp])
    mc = simulate([grp], runs=runs, rng=as_generator(rng))
    row: dict[str, Any] = {
        "x": float(x),
        "curve": label,
        "analytic": exact if analytic is None else float(analytic),
        "analytic_exact": exact,
        "mc": mc.mse,
        "mc_se": mc.se,
        "mc_nonzero": mc.extras["nonzero"],
        "n_users": n_users,
        "runs": runs,
        "kind": "closed form",
        "ref": ref,
        **mechanism_status(prob, Q, result),
    }
    if certify:
        opt = certified(prob, time_limit=CERT_TIME_LIMIT)
        proven = is_certified(opt.status, opt.proof) and opt.value is not None
        row.update(
            certified=n_users * opt.value if proven else None,
            certified_by=reference_solver(),
            certified_status=opt.status.value,
            certified_proof=opt.proof,
        )
    return row


def binary_optimum(prob: LIPBinary) -> Result:
    """The binary optimum as an audited Result, ``optimal`` with ``proof="theorem"``.

    LIP: the clipped two-point split (:func:`~mechopt.problems.lip.closed.binary_lip_optimum`),
    proven for every (P1, ε): the MSE is P1(1 − P1) − Var(posterior), the ε-LIP
    posteriors fill [lo, hi], and a law on [lo, hi] with mean P1 has variance at
    most (hi − P1)(P1 − lo), attained by the two-point split (Bhatia–Davis);
    inside Theorem 2's region it is eq. (21) (``extras["claim"] = "lip.thm2"``;
    outside it the claim is None: the derivation above is this package's, tested
    against the exact solver in ``tests/problems/test_lip.py``). LDP: randomized response, Proposition 4
    (claim ``lip.prop4``). The audit (:func:`mechopt.api.audit_result`) still
    applies: a mechanism that failed it would be ``infeasible_point``.
    """
    if prob.kind == "lip":
        val, Q = cf.binary_lip_optimum(prob.p1, prob.eps)
        claim = "lip.thm2" if cf.binary_lip_region(prob.p1, prob.eps) else None  # outside: derived here only
        how = "two-point split of P1 on the LIP posterior bounds (Bhatia-Davis)"
    else:
        Q = cf.binary_ldp_channel(prob.eps)
        val, claim, how = prob.evaluate(Q), "lip.prop4", "randomized response (Proposition 4)"
    return audit_result(
        prob,
        Result(
            status=Status.OPTIMAL,
            value=val,
            sense="min",
            objective="mse",
            mechanism=Q,
            solver="binary-optimum",
            notion=prob.kind,
            eps=prob.eps,
            proof="theorem",
            message=how,
            extras={"claim": claim},
        ),
    )


def local_binary_points(
    p1s: np.ndarray, eps: float, label: str, kind: str, runs: int, rng: Any, solve=binary_optimum
) -> dict[str, Any]:
    """Fig. 8 point: N users with local priors, each at its own optimum (Proposition 2 aggregate).

    Users sharing a prior are one :class:`UserGroup`, so the Monte Carlo costs
    O(distinct priors) per run whatever N is. ``solve`` returns an audited
    Result per distinct user; the row's ``private`` is whether every user's
    mechanism passed its audit, ``status`` the weakest status of the users
    (``statuses`` counts them) and ``proof`` their common proof (or None).
    """
    agg = LIPAggregate.local_binary(p1s, eps, notion=kind)
    out = agg.solve_with(solve)
    statuses = [r.status.value for r in out.results]
    order = ["infeasible_point", "feasible", "locally_optimal", "optimal_inaccurate", "optimal"]
    worst = min(statuses, key=lambda st: order.index(st) if st in order else -1)
    proofs = {r.proof for r in out.results}
    groups = []
    for prob, res, n in zip(agg.users, out.results, agg.counts):
        Q = res.Q
        groups.append(
            UserGroup(Q=Q, prior=prob.prior, count=int(n), f=[0.0, 1.0], g=mmse_table(Q, prob.prior, [0.0, 1.0]))
        )
    mc = simulate(groups, runs=runs, rng=as_generator(rng))
    n_users = len(p1s)
    return {
        "x": float(eps),
        "curve": label,
        "analytic": out.total,
        "analytic_exact": analytic_mse(groups),
        "mc": mc.mse,
        "mc_se": mc.se,
        "mc_nonzero": mc.extras["nonzero"],
        "n_users": n_users,
        "runs": runs,
        "kind": "closed form",
        "private": "infeasible_point" not in statuses,
        "status": worst,
        "proof": proofs.pop() if len(proofs) == 1 else None,
        "statuses": {st: statuses.count(st) for st in sorted(set(statuses))},
        "rmse_per_user": math.sqrt(out.total / n_users),
    }
