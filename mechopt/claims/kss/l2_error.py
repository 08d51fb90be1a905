"""k-subset paper, Section 3.3: the hit rates and l2 error of eq. (9), the optimal subset size (Theorem 3.1)
and the lower bound over symmetric power-set mechanisms (Theorem 3.2); the claims are registered in
:mod:`mechopt.claims.kss.theorems`.

Examples
--------
>>> check_thm3_1().verdict
'holds'
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.claims.kss.util import record
from mechopt.jobs.verify import Verdict
from mechopt.oracles.bits import BRR
from mechopt.oracles.frequency import KSubset, ksubset_outputs
from mechopt.problems.kss import formulas as F
from mechopt.problems.kss.l2 import EstimationL2

__all__ = ["check_eq9", "check_thm3_1", "check_thm3_2"]


def check_eq9() -> Verdict:
    """Hit rates g_k, h_k read off the channel and the ℓ2 formula vs the least-squares estimator's error."""
    devs, inst = [], []
    for d in (3, 4, 6, 8):
        for k in range(1, d):
            for eps in (0.5, 2.0):
                ks = KSubset(d, eps, k)
                Z = ksubset_outputs(d, k)
                Q = ks.matrix()
                g = Q[0, np.any(Z == 0, axis=1)].sum()
                h = Q[0, np.any(Z == 1, axis=1)].sum()
                theta = np.random.default_rng(d * 10 + k).dirichlet(np.ones(d))
                err = EstimationL2(1000).value(Q, theta)
                record(
                    devs,
                    inst,
                    {"d": d, "k": k, "eps": eps},
                    {
                        "g_k": abs(g - ks.g),
                        "h_k": abs(h - ks.h),
                        "l2 per user": abs(err - F.l2_ksubset(d, k, eps, 1000)) * 1000,
                    },
                )
    return Verdict.from_deviations(devs, tol=1e-9, instances=inst)


def check_thm3_1() -> Verdict:
    devs, inst = [], []
    for d in (2, 3, 4, 6, 8, 16, 32, 64, 128, 256, 1000):
        for eps in (0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0):
            best = min(F.l2_ksubset(d, k, eps) for k in range(1, d))
            claimed = F.l2_optimal(d, eps)
            devs.append((claimed - best) / best)
            inst.append({"d": d, "eps": eps, "k_sharp": F.k_sharp(d, eps), "claimed": claimed, "best": best})
    return Verdict.from_deviations(devs, tol=1e-12, instances=inst, size=lambda i: (i["d"], i["eps"]))


def check_thm3_2() -> Verdict:
    rng = np.random.default_rng(32)
    devs, inst = [], []
    for d in (2, 3, 4, 8, 16, 64, 256):
        for eps in (0.1, 0.5, 1.0, 2.0, 4.0):
            bound = F.l2_optimal(d, eps)
            cands = []
            if d <= 256:
                cands.append(("BRR", F.l2_pure(d, *_brr_gh(d, eps))))
            cands.append(("MRR", F.l2_ksubset(d, 1, eps)))
            for _ in range(20):
                w = rng.dirichlet(np.full(d + 1, 0.3))
                ek = eps * rng.uniform(0.2, 1.0, size=d + 1)
                g = F.l2_hybrid(d, w, ek)
                if math.isfinite(g):
                    cands.append(("hybrid", g))
            for name, val in cands:
                devs.append(max(0.0, (bound - val) / bound))
                inst.append({"d": d, "eps": eps, "mechanism": name, "error": val, "bound": bound})
    return Verdict.from_deviations(devs, tol=1e-12, instances=inst)


def _brr_gh(d: int, eps: float) -> tuple[float, float]:
    o = BRR(d, eps)
    return o.g, o.h
