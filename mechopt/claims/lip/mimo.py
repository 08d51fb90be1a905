"""LIP paper, Sections IV-B and IV-C (sums and histograms of d symbols): Theorems 3-5, the Opt-mimo-LDP
channel, the output range (Theorem 4 / App. C) and the histogram reduction of App. D; the claims are
registered in :mod:`mechopt.claims.lip.theorems` and :mod:`mechopt.claims.lip.proofs`.

Examples
--------
>>> len(mimo_grid(LIPMimo, "lip")), len(MIMO_PRIORS) * len(MIMO_EPS)
(45, 45)
"""

from __future__ import annotations

import itertools

import numpy as np

from mechopt.claims.lip.checks import certified, closed_grid, grid_verdict, instance_of
from mechopt.claims.lip.util import _printed_vs_corrected, basic_outputs
from mechopt.jobs.verify import Verdict
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.problems import LIPHistogram, LIPMimo

__all__ = [
    "MIMO_PRIORS",
    "MIMO_EPS",
    "check_thm3",
    "check_thm5",
    "check_ldp_mimo",
    "check_thm4",
    "check_thm4_fewer",
    "check_appC_more",
    "check_eq55_57",
]

MIMO_PRIORS = (
    (1 / 3, 1 / 3, 1 / 3),
    (0.3, 0.3, 0.4),
    (0.25, 0.35, 0.4),
    (0.1, 0.2, 0.7),
    (0.25, 0.25, 0.25, 0.25),
    (0.2, 0.2, 0.3, 0.3),
    (0.1, 0.2, 0.3, 0.4),
    (0.2, 0.2, 0.2, 0.2, 0.2),
    (0.15, 0.15, 0.2, 0.2, 0.3),
)


MIMO_EPS = (0.5, 1.0, 2.0, 3.0, 4.0)


def mimo_grid(cls, kind: str) -> list:
    return [cls(prior=np.array(p), eps=e, kind=kind) for p, e in itertools.product(MIMO_PRIORS, MIMO_EPS)]


def check_thm3() -> Verdict:
    squares = [
        LIPMimo(prior=p.prior, eps=p.eps, values=np.arange(p.prior.size) ** 2.0) for p in mimo_grid(LIPMimo, "lip")
    ]
    return closed_grid(
        mimo_grid(LIPMimo, "lip") + squares,
        lambda p: cf.mimo_lip_region(p.prior, p.eps),
        "min_m P_m >= 1/(1+e^eps)",
        note="outside the region the channel is not eps-LIP: corrected eq. (51) is >= 0 iff "
        "P_k >= 1/(1+e^eps) (lip.eq51); values a = 0..d-1 and a = k^2; inside the region the LIP polytope "
        "is a simplex with d "
        "vertices, so Theorem 3's channel is the unique optimum for any sublinear utility",
    )


def check_thm5() -> Verdict:
    return closed_grid(
        mimo_grid(LIPHistogram, "lip"),
        lambda p: cf.mimo_lip_region(p.prior, p.eps),
        "min_m P_m >= 1/(1+e^eps)",
        note="outside the region the Theorem-3 channel is not eps-LIP (lip.eq51); App. D's reduction "
        "makes the histogram problem a sum of d indicator problems (corrected eq. (57), "
        "lip.appD_eq55_57)",
    )


def check_ldp_mimo() -> Verdict:
    probs = mimo_grid(LIPMimo, "ldp") + mimo_grid(LIPHistogram, "ldp")
    return closed_grid(
        probs,
        lambda p: False,
        None,
        region_kind=None,
        note="sum (values 0..d-1) and histogram utilities; on this grid the channel is optimal only "
        "for larger eps (sum: mostly eps >= 2, histogram: mostly eps >= 1); at small eps the "
        "certified optimum uses 2-3 outputs (threshold / subset patterns)",
    )


def check_thm4() -> Verdict:
    insts, devs = [], []
    for prob in mimo_grid(LIPMimo, "lip") + mimo_grid(LIPHistogram, "lip"):
        opt = certified(prob)
        k = basic_outputs(prob, opt.Q)
        insts.append(instance_of(prob, objective=prob.objective, outputs_needed=k))
        devs.append(float(abs(k - prob.prior.size)))
    flags = [cf.mimo_lip_region(p.prior, p.eps) for p in mimo_grid(LIPMimo, "lip")] * 2
    return grid_verdict(
        insts,
        devs,
        flags,
        "min_m P_m >= 1/(1+e^eps) (there the LIP polytope is a simplex with d vertices)",
        0.5,
        note="deviation = d - outputs of a basic optimal solution; more than d outputs never help "
        "(LP vertices, lip.appC_more), but fewer than d can be optimal: outside the region a "
        "basic optimum with fewer than d outputs persists under random prior perturbations "
        "(lip.thm4_fewer), so the region is sufficient, not the boundary",
        region_kind="sufficient",
    )


def _outputs_needed(prob):
    return basic_outputs(prob, certified(prob).Q)


def check_thm4_fewer():
    """f* = d is not necessary outside the region: priors where a basic optimum needs < d outputs, robust under
    perturbation (a full-dimensional set)."""
    rng = np.random.default_rng(4)
    insts, robust = [], 0
    for d in (3, 4):
        for eps in (0.5, 1.0):
            for _ in range(6):
                P = rng.dirichlet(np.ones(d))
                if cf.mimo_lip_region(P, eps):
                    continue
                prob = LIPMimo(prior=P, eps=eps)
                k = _outputs_needed(prob)
                if 0 < k < d:
                    ks = []
                    for _ in range(5):
                        Pp = (P + 1e-3 * rng.normal(size=d)).clip(1e-4)
                        ks.append(_outputs_needed(LIPMimo(prior=Pp / Pp.sum(), eps=eps)))
                    is_rob = all(0 < x < d for x in ks)
                    robust += is_rob
                    insts.append(
                        {
                            "d": d,
                            "eps": eps,
                            "prior": np.round(P, 4).tolist(),
                            "outputs_needed": k,
                            "perturbed_outputs": ks,
                            "robust": is_rob,
                        }
                    )
    if not insts:
        return Verdict("holds", 1, 0.0, note="no prior with fewer outputs found")
    return Verdict(
        "holds-in-region",
        len(insts),
        float(len(insts)),
        insts[0],
        "min_m P_m >= 1/(1+e^eps) is SUFFICIENT (LIP polytope a simplex); not the boundary",
        f"{len(insts)} priors outside the region where a basic optimum needs fewer than d outputs; "
        f"{robust} of them keep < d outputs under 5 random 1e-3 perturbations of the prior "
        "(fewer outputs optimal on a full-dimensional set of priors)",
    )


def check_appC_more():
    """'d < f ... equivalent to the case d = f': more than d outputs never help (basic LP solutions)."""
    devs, insts = [], []
    rng = np.random.default_rng(5)
    for d in (2, 3, 4, 5):
        for eps in (0.5, 1.0, 3.0):
            P = rng.dirichlet(np.ones(d))
            for prob in (LIPMimo(prior=P, eps=eps), LIPHistogram(prior=P, eps=eps)):
                k = _outputs_needed(prob)
                devs.append(max(0, k - d) if k >= 0 else 1)
                insts.append({"d": d, "eps": eps, "outputs": k})
    return Verdict.from_deviations(devs, 0.5, insts)


def check_eq55_57():
    rng = np.random.default_rng(55)
    dpr, dco, insts = [], [], []
    for _ in range(60):
        d = int(rng.integers(2, 6))
        P = rng.dirichlet(np.ones(d))
        Q = rng.dirichlet(np.ones(d), size=d)
        lam = P @ Q
        direct = sum(float(np.sum((P[k] * Q[k]) ** 2 / lam) - P[k] ** 2) for k in range(d))
        eq55 = sum(P[k] ** 2 * np.sum(Q[k] * (Q[k] / lam - 1)) for k in range(d))
        eq57 = sum(P[k] ** 2 * np.sum(Q[k] * (Q[k] / lam[k] - 1)) for k in range(d))
        # (56) with a = e_k summed over k equals (55)
        eq56 = sum(
            sum(
                np.outer((np.eye(d)[k] * P), (np.eye(d)[k] * P))[m, n] * np.sum(Q[m] * (Q[n] / lam - 1))
                for m in range(d)
                for n in range(d)
            )
            for k in range(d)
        )
        dco.append(max(abs(eq55 - direct), abs(eq56 - direct)))
        dpr.append(max(abs(eq57 - direct), dco[-1]))
        insts.append({"d": d, "prior": P.tolist(), "Q": Q.tolist()})
    return _printed_vs_corrected(
        dpr,
        dco,
        insts,
        1e-10,
        "in (57) the denominator is lambda_j (output index), not lambda_k; with it, the "
        "histogram term equals the MIMO term (56) summed over the d indicator utilities "
        "a = e_k -- a sum of d problems, so 'their optimal solutions are identical' needs "
        "Theorem 3's region (see lip.thm5)",
    )
