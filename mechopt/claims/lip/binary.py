"""LIP paper, Section IV-A (the binary model): Theorem 2, Propositions 3 and 4, the proof of Theorem 2 (App. A,
eqs. (43)-(46), Steps 1-4) and of Proposition 4 (the shape of the LDP-LIP gap, strictness); the claims are
registered in :mod:`mechopt.claims.lip.theorems`, :mod:`mechopt.claims.lip.formulas` and
:mod:`mechopt.claims.lip.proofs`.

Examples
--------
>>> len(binary_grid("lip")), binary_grid("ldp")[0].kind
(55, 'ldp')
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from mechopt.claims._spec import rel
from mechopt.claims.lip.checks import VALUE_TOL, certified, closed_deviation, grid_verdict, instance_of, value_gap
from mechopt.claims.lip.util import _L, TOL, _lam, _printed_vs_corrected, _rand_binary, ldp_opt, lip_opt
from mechopt.jobs.verify import Verdict
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.problems import LIPBinary

__all__ = [
    "P1_GRID",
    "EPS_GRID",
    "check_thm2",
    "check_prop3",
    "check_prop4",
    "check_prop4_gap_shape",
    "check_prop4_strict",
    "check_eq43",
    "check_eq44",
    "check_appA_symmetry",
    "check_appA_step3",
    "check_appA_boundary",
    "check_appA_step4",
]

P1_GRID = (0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)


EPS_GRID = (0.25, 0.5, 1.0, 2.0, 3.0)


def binary_grid(kind: str) -> list[LIPBinary]:
    return [LIPBinary(p1=p, eps=e, kind=kind) for p, e in itertools.product(P1_GRID, EPS_GRID)]


def check_thm2() -> Verdict:
    probs = binary_grid("lip")
    insts, devs, flags = [], [], []
    for prob in probs:
        opt = certified(prob)
        worst = 0.0
        for Q in cf.binary_lip_pairs(prob.p1, prob.eps):  # both optimal pairs
            viol = prob.notion.audit(Q, prob.prior).violation
            worst = max(worst, viol, value_gap(prob.evaluate(Q), opt))
        worst = max(worst, value_gap(cf.binary_lip_mse(prob.p1, prob.eps), opt))
        insts.append(instance_of(prob, eq21=cf.binary_lip_mse(prob.p1, prob.eps), certified_value=opt.value))
        devs.append(worst)
        flags.append(cf.binary_lip_region(prob.p1, prob.eps))
    return grid_verdict(
        insts,
        devs,
        flags,
        "max(P1, 1-P1) <= e^eps/(1+e^eps)",
        VALUE_TOL,
        note="outside the region the Theorem-2 channels violate eps-LIP and (21) is below the "
        "optimum (the Theorem-2 point violates e^-eps <= F2 or F3 of (46), see "
        "lip.appA_boundary); the optimum is P1(1-P1) - (hi-P1)(P1-lo) with clipped posterior "
        "bounds",
        region_kind="auto",
    )


def check_prop3() -> Verdict:
    insts, devs, flags = [], [], []
    for prob in binary_grid("lip"):
        first, second = cf.binary_lip_pairs(prob.p1, prob.eps)
        chosen = cf.binary_lip_channel(prob.p1, prob.eps)
        viol = prob.notion.audit(chosen, prob.prior).violation
        mae_excess = max(
            0.0, cf.binary_mae(prob.p1, chosen) - min(cf.binary_mae(prob.p1, first), cf.binary_mae(prob.p1, second))
        )
        is_first = float(not np.allclose(chosen, first))
        gap = value_gap(prob.evaluate(chosen), certified(prob))
        insts.append(instance_of(prob, mae=cf.binary_mae(prob.p1, chosen)))
        devs.append(max(viol, mae_excess, is_first, gap))
        flags.append(cf.binary_lip_region(prob.p1, prob.eps))
    return grid_verdict(
        insts,
        devs,
        flags,
        "max(P1, 1-P1) <= e^eps/(1+e^eps)",
        VALUE_TOL,
        note="pair 1 always has the smaller MAE (4 P1(1-P1) e^-eps <= 1); it is MSE-optimal only where Theorem 2 is",
        region_kind="auto",
    )


def check_prop4() -> Verdict:
    insts, devs = [], []
    for prob in binary_grid("ldp"):
        viol, own, gap = closed_deviation(prob)
        lip_opt = certified(LIPBinary(p1=prob.p1, eps=prob.eps, kind="lip"))
        order = max(0.0, lip_opt.value - certified(prob).value)  # E*_LDP >= E*_LIP
        order21 = max(0.0, cf.binary_lip_mse(prob.p1, prob.eps) - cf.binary_ldp_mse(prob.p1, prob.eps))
        insts.append(
            instance_of(prob, eq24=cf.binary_ldp_mse(prob.p1, prob.eps), certified_value=certified(prob).value)
        )
        devs.append(max(viol, own, gap, order, order21))
    return grid_verdict(insts, devs, [True] * len(devs), None, VALUE_TOL)


def check_prop4_gap_shape():
    """'dDE*/dP1 = 0 at P1 = 0.5 ... as |P1 - 0.5| grows, DE* also increases' (DE* = E*_LDP - E*_LIP)."""
    insts, devs = [], []
    ps = np.linspace(0.5, 0.99, 50)
    for eps in (0.5, 1.0, 2.0, 3.0, 5.0):
        for label, fn in (
            ("eq24-eq21 (paper formulas)", lambda p: cf.binary_ldp_mse(p, eps) - cf.binary_lip_mse(p, eps)),
            ("certified", lambda p: ldp_opt(p, eps) - lip_opt(p, eps)),
        ):
            g = np.array([fn(p) for p in ps])
            drop = float(np.max(np.maximum(0, g[:-1] - g[1:])))  # any decrease as P1 moves away from 0.5
            sym = abs(fn(0.5 + 1e-4) - fn(0.5 - 1e-4)) / 2e-4
            devs.append(max(drop, sym))
            k = int(np.argmax(g))
            insts.append(
                {
                    "eps": eps,
                    "which": label,
                    "argmax_P1": round(float(ps[k]), 3),
                    "gap_at_0.5": float(g[0]),
                    "gap_at_0.99": float(g[-1]),
                }
            )
    return Verdict.from_deviations(devs, 1e-9, insts, size=lambda i: i["eps"])


def check_prop4_strict():
    """'E*_LIP = E*_LDP if eps = 0 or eps = inf' (and strictly smaller otherwise); Conclusion: eps-LIP always
    outperforms eps-LDP for any eps > 0."""
    devs, insts = [], []
    for p1, eps in itertools.product((0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99), (0.05, 0.25, 1.0, 3.0, 8.0)):
        a, b = lip_opt(p1, eps), ldp_opt(p1, eps)
        devs.append(max(0.0, a - b * (1 - 1e-9)))  # needs a < b strictly
        insts.append({"P1": p1, "eps": eps, "lip": a, "ldp": b})
    e0 = [abs(lip_opt(p, 0.0) - ldp_opt(p, 0.0)) for p in (0.1, 0.5)]
    v = Verdict.from_deviations(devs + e0, 1e-12, insts + [{"eps": 0}] * 2)
    return v


def check_eq43():
    P1, q0, q1 = _rand_binary()
    l0, l1 = _lam(P1, q0, q1)
    a = (l0 - q1) ** 2 / (l0 * l1)
    b = (l1 * q1 - l0 * (1 - q1)) ** 2 / (l0 * l1)
    c = (1 - P1) ** 2 * (q0 + q1 - 1) ** 2 / (l0 * l1)  # Step 2's form
    return Verdict.from_deviations(np.maximum(abs(a - b), abs(a - c)), TOL)


def check_eq44():
    P1, q0, q1 = _rand_binary()
    h = 1e-6
    fd = (_L(P1, q0 + h, q1) - _L(P1, q0 - h, q1)) / (2 * h)
    l0, l1 = _lam(P1, q0, q1)
    printed = (1 - P1) ** 2 * (l1 * q1 + l0 * (1 - q1)) * (q1 + q0 - 1) / (l1**2 * l0**2)
    sign_ok = np.sign(fd) == np.sign(q0 + q1 - 1)
    devs = np.abs(printed - fd) / np.maximum(1.0, np.abs(fd))
    insts = [
        {"P1": round(a, 4), "q0": round(b, 4), "q1": round(c, 4), "finite_diff": float(f), "eq44": float(p)}
        for a, b, c, f, p in zip(P1, q0, q1, fd, printed)
    ]
    v = Verdict.from_deviations(np.where(sign_ok, devs, np.inf), 1e-5, insts)
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        None,
        "also checks the Step-1 conclusion sign(dL/dq0) = sign(q0 + q1 - 1)",
    )


def check_appA_symmetry():
    P1, q0, q1 = _rand_binary()
    l0, l1 = _lam(P1, q0, q1)
    F = {1: l0 / q1, 2: l1 / (1 - q1), 3: l0 / (1 - q0), 4: l1 / q0}
    m0, m1 = _lam(P1, 1 - q0, 1 - q1)
    Fp = {1: m0 / (1 - q1), 2: m1 / q1, 3: m0 / q0, 4: m1 / (1 - q0)}
    sym_L = abs(_L(P1, 1 - q0, 1 - q1) - _L(P1, q0, q1))
    printed = np.max(
        np.stack([abs(Fp[1] - F[2]), abs(Fp[2] - F[1]), abs(Fp[3] - F[4]), abs(Fp[4] - F[1]), sym_L]), axis=0
    ) / np.maximum(1, F[1])
    corr = np.max(
        np.stack([abs(Fp[1] - F[2]), abs(Fp[2] - F[1]), abs(Fp[3] - F[4]), abs(Fp[4] - F[3]), sym_L]), axis=0
    ) / np.maximum(1, F[1])
    insts = [{"P1": round(a, 4), "q0": round(b, 4), "q1": round(c, 4)} for a, b, c in zip(P1, q0, q1)]
    return _printed_vs_corrected(
        printed,
        corr,
        insts,
        1e-9,
        "F4(1-q0, 1-q1) = lambda0/(1-q0) = F3(q0, q1) (printed: = F1); the four "
        "constraints are still symmetric as a set, so the Step-2 conclusion stands",
    )


def check_appA_step3():
    P1, q0, q1 = _rand_binary()
    l0, l1 = _lam(P1, q0, q1)
    F1, F2, F3, F4 = l0 / q1, l1 / (1 - q1), l0 / (1 - q0), l1 / q0
    d12 = (1 - P1) * (1 - q0 - q1) / (q1 * (1 - q1))
    d43_printed = (1 - P1) * (1 - q0 - q1) / (q1 * (1 - q1))
    d43_corr = P1 * (1 - q0 - q1) / (q0 * (1 - q0))
    scale = np.maximum(1, abs(F1 - F2) + abs(F4 - F3))
    printed = np.maximum(abs(F1 - F2 - d12), abs(F4 - F3 - d43_printed)) / scale
    corr = np.maximum(abs(F1 - F2 - d12), abs(F4 - F3 - d43_corr)) / scale
    insts = [{"P1": round(a, 4), "q0": round(b, 4), "q1": round(c, 4)} for a, b, c in zip(P1, q0, q1)]
    return _printed_vs_corrected(
        printed,
        corr,
        insts,
        1e-9,
        "F4 - F3 = P1 (1 - q0 - q1) / (q0 (1 - q0)) (printed: a copy of F1 - F2); the "
        "sign conclusion F4 >= F3 on q0 + q1 <= 1 is unchanged",
    )


def check_appA_boundary():
    """Step 3-4: the optimum lies on {F1 = e^eps} and {F4 = e^eps} (posteriors P1 e^-eps, 1-(1-P1)e^-eps)."""
    insts, devs, flags = [], [], []
    for p1, eps in itertools.product(np.linspace(0.02, 0.98, 25), (0.25, 0.5, 1.0, 2.0, 3.0)):
        e = math.exp(eps)
        lo, hi = max(p1 / e, 1 - e * (1 - p1)), min(e * p1, 1 - (1 - p1) / e)  # certified posterior range
        dev = max(abs(lo - p1 / e), abs(hi - (1 - (1 - p1) / e)))
        opt = lip_opt(p1, eps)
        dev = max(dev, rel(cf.binary_lip_optimum(p1, eps)[0], opt))
        tight = (
            "F2 = e^-eps (posterior of 1 at e^eps P1)"
            if hi < 1 - (1 - p1) / e - 1e-12
            else "F3 = e^-eps"
            if lo > p1 / e + 1e-12
            else "F1 = F4 = e^eps"
        )
        insts.append({"P1": round(float(p1), 4), "eps": eps, "tight_at_optimum": tight})
        devs.append(dev)
        flags.append(cf.binary_lip_region(p1, eps))
    v = grid_verdict(
        insts,
        devs,
        flags,
        "max(P1, 1-P1) <= e^eps/(1+e^eps) -- exact boundary: outside it the "
        "Theorem-2 point violates e^-eps <= F2 or e^-eps <= F3",
        1e-9,
        size_keys=("eps",),
        note="Step 3 keeps e^-eps <= F2, F3 in (46) but Step 4 never uses them",
    )
    return v


def check_appA_step4():
    """Step 4: on {F1 = e^eps} L increases with q1; printed L|_{F1=e^eps} = [(1-P1)(e^eps-1) q1]^2/(l0 l1)."""
    insts, dprinted, dcorr, sign_bad = [], [], [], 0
    for p1, eps in itertools.product((0.1, 0.3, 0.5, 0.7, 0.9), (0.5, 1.0, 2.0)):
        e = math.exp(eps)
        q1 = np.linspace(0.01, 0.99, 200)
        q0 = 1 - (e - p1) * q1 / (1 - p1)  # F1 = e^eps
        ok = (q0 >= 0) & (q0 <= 1) & (q0 + q1 <= 1)
        q0, q1 = q0[ok], q1[ok]
        if q1.size < 3:
            continue
        L = _L(p1, q0, q1)
        l0, l1 = _lam(p1, q0, q1)
        sign_bad += int(np.sum(np.diff(L) < -1e-12))
        pr = ((1 - p1) * (e - 1) * q1) ** 2 / (l0 * l1)
        co = ((e - 1) * q1) ** 2 / (l0 * l1)
        dprinted.append(float(np.max(abs(pr - L))))
        dcorr.append(float(np.max(abs(co - L))))
        insts.append({"P1": p1, "eps": eps})
    note = f"monotonicity along F1 = e^eps: {sign_bad} decreasing steps"
    if sign_bad:
        return Verdict("fails", len(insts), float(sign_bad), None, None, note)
    return _printed_vs_corrected(
        dprinted,
        dcorr,
        insts,
        1e-9,
        "on F1 = e^eps, (1-P1)(q0+q1-1) = -(e^eps-1) q1, so L = [(e^eps-1) q1]^2/(l0 l1) "
        "(no (1-P1) factor; monotonicity unaffected)",
        note,
    )
