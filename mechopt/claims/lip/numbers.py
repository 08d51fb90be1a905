"""LIP paper, printed estimators and example numbers: the context-free estimator (41)-(42), the OUE
histogram MSE of Section V-A3, and the numbers of Example 1 / Fig. 2 (claims ``lip.eq41``, ``lip.oue``,
``lip.ex1`` of :mod:`mechopt.claims.lip.theorems`).

Examples
--------
>>> round(eq41_printed_bias(10, 1.0, 3), 12)      # as printed, E[C_hat | S = 3] = 7: off by 4 of 10
0.4
"""

from __future__ import annotations

import itertools

import numpy as np

from mechopt.claims.lip.checks import certified
from mechopt.jobs.verify import Verdict, corrected
from mechopt.oracles.simulate import UserGroup, analytic_mse
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.problems import LIPBinary

__all__ = ["check_eq41", "check_oue", "check_ex1", "eq41_printed_bias", "oue_deviation", "ex1_deviation"]


# --- estimators and example numbers ------------------------------------------------------

EQ41_CORRECTION = (
    "p = 1/(e^eps+1), the flip probability of the channel: C_hat = (sum Y - N p)/(1 - 2p) is then "
    "unbiased, and (42) N e^eps/(e^eps-1)^2 is its MSE (p(1-p)/(1-2p)^2 is symmetric in p <-> 1-p)"
)


def eq41_printed_bias(n_users: int, eps: float, s: int) -> float:
    """|E[C_hat | S = s] - s| / max(1, N) for (41) with p as printed, p = e^eps/(e^eps+1).

    Each user reports its bit through binary RR flipping w.p. q = 1/(e^eps+1), so
    E[sum Y | S] = S(1-q) + (N-S) q; with p = 1 - q, E[C_hat] = N - S.
    """
    q = 1.0 / (np.exp(eps) + 1.0)
    p = 1.0 - q
    mean_y = s * (1 - q) + (n_users - s) * q
    return float(abs((mean_y - n_users * p) / (1 - 2 * p) - s) / max(1.0, n_users))


def check_eq41() -> Verdict:
    devs, insts, printed, pinsts = [], [], [], []
    for n, eps in itertools.product((1, 10, 100), (0.5, 1.0, 2.0, 4.0)):
        Q = cf.binary_ldp_channel(eps)
        g = cf.context_free_estimate(np.array([0.0, 1.0]), 1, eps)
        for p1 in (0.1, 0.5, 0.9):
            grp = UserGroup(Q=Q, prior=[1 - p1, p1], count=n, f=[0.0, 1.0], g=g)
            exact, stated = analytic_mse([grp]), cf.context_free_mse(n, eps)
            devs.append(abs(exact - stated) / max(1.0, stated))
            insts.append({"n_users": n, "eps": eps, "p1": p1, "exact": exact, "eq42": stated})
        for s_ in range(n + 1):
            printed.append(eq41_printed_bias(n, eps, s_))
            pinsts.append({"n_users": n, "eps": eps, "S": s_})
    v = Verdict.from_deviations(devs, 1e-9, insts)
    k = int(np.argmax(printed))
    return corrected(
        v,
        EQ41_CORRECTION,
        max(printed),
        {**pinsts[k], "printed_deviation": printed[k]},
        note="as printed (p = e^eps/(e^eps+1)) E[C_hat] = N - S: the estimator counts the zeros",
        tol=1e-9,
    )


def oue_deviation(d: int, eps: float) -> float:
    """Relative gap between the exact OUE histogram MSE (uniform prior, one user) and the printed one."""
    exact, stated = cf.oue_mse_exact(np.full(d, 1 / d), 1, eps), cf.oue_mse(1, eps)
    return float(abs(exact - stated) / stated)


def check_oue() -> Verdict:
    devs, insts = [], []
    for d, eps in itertools.product((2, 5, 20), (0.5, 1.0, 2.0, 5.0)):
        exact, stated = cf.oue_mse_exact(np.full(d, 1 / d), 1, eps), cf.oue_mse(1, eps)
        devs.append(oue_deviation(d, eps))
        insts.append({"d": d, "eps": eps, "exact_total": exact, "stated": stated})
    v = Verdict.from_deviations(devs, 1e-6, insts, size=lambda i: (i["d"], i["eps"]))
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        v.region,
        "4n e^eps/(e^eps-1)^2 is the variance of one category's count with no holder (n_k = 0); "
        "the total histogram MSE is n[d q(1-q) + 1/4 - q(1-q)]/(1/2-q)^2",
    )


def ex1_deviation(eps: float, quantity: str) -> float:
    """Relative gap between one printed number of Example 1 and the correct one (see :func:`check_ex1`)."""
    r = cf.example1(eps)
    truth = {
        "ldp_vs_eq42": lambda: r["ldp_eq42"],
        "opt_ldp_vs_certified": lambda: 100 * certified(LIPBinary(p1=0.1, eps=eps, kind="ldp")).value,
        "lip_vs_certified": lambda: 100 * certified(LIPBinary(p1=0.1, eps=eps)).value,
    }[quantity]()
    printed = {"ldp_vs_eq42": r["ldp"], "opt_ldp_vs_certified": r["opt_ldp"], "lip_vs_certified": r["lip"]}[quantity]
    return float(abs(printed - truth) / max(1.0, abs(truth)))


def check_ex1() -> Verdict:
    devs, insts = [], []
    for eps in (0.5, 1.0, 2.0, 3.0, 4.0):
        r = cf.example1(eps)
        lip_opt = 100 * certified(LIPBinary(p1=0.1, eps=eps)).value
        ldp_opt = 100 * certified(LIPBinary(p1=0.1, eps=eps, kind="ldp")).value
        pairs = {
            "ldp_vs_eq42": (r["ldp"], r["ldp_eq42"]),
            "opt_ldp_vs_certified": (r["opt_ldp"], ldp_opt),
            "lip_vs_certified": (r["lip"], lip_opt),
        }
        for name, (printed, truth) in pairs.items():
            devs.append(abs(printed - truth) / max(1.0, abs(truth)))
            insts.append({"eps": eps, "quantity": name, "printed": printed, "correct": truth})
    return Verdict.from_deviations(devs, 1e-6, insts, size=lambda i: i["eps"])
