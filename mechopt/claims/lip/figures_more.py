"""LIP paper, figure statements added by the referee (issue 26): Fig. 2's ordering with valid mechanisms (Sec. I,
Example 1), Fig. 7's "the advantage of LIP grows with the domain size" up to d = 20 (Sec. I, Sec. V-B2) and
Fig. 8 at N = 500 and 50 000 (Sec. V-A4); registered in :mod:`mechopt.claims.lip.figures`.

Per-user optima of binary users are summed (Proposition 2: the N-user MSE is the sum of the local ones); for
N = 50 000 the sums use the certified closed forms (binary LIP: two-point split on the clipped posterior bounds;
LDP: eq. (24), Proposition 4), each checked against the exact solver on a seeded subsample.

Examples
--------
>>> import numpy as np
>>> round(float(lip_mse(np.array([0.4]), 1.0)[0]), 4)
0.1441
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from scipy.optimize import brentq

from mechopt.claims.lip.checks import certified
from mechopt.claims.lip.util import EPS5, ldp_opt, lip_opt
from mechopt.jobs.verify import Verdict
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.cip import CIPBinomial
from mechopt.problems.lip.problems import LIPHistogram

__all__ = [
    "lip_mse",
    "ldp_mse",
    "check_fig2_order",
    "check_fig7_growth_d",
    "check_fig8_large",
    "check_cip_gap",
    "FIG7_EPS",
]

FIG2_EPS = (0.5, 1.0, 2.0, 3.0, 4.0)
FIG7_D = (2, 3, 5, 10, 20)
FIG7_EPS = (0.5, 1.0, 2.0, 2.5, 3.0, 3.5, 4.0, 6.0, 8.0)
FIG8_N = (500, 50_000)


def lip_mse(P: np.ndarray, eps: float) -> np.ndarray:
    """Certified binary eps-LIP optimum per user (vectorised :func:`mechopt.problems.lip.closed.binary_lip_optimum`)."""
    e = np.exp(eps)
    lo, hi = np.maximum(P / e, 1 - e * (1 - P)), np.minimum(e * P, 1 - (1 - P) / e)
    return np.where(hi > lo, P * (1 - P) - (hi - P) * (P - lo), P * (1 - P))


def ldp_mse(P: np.ndarray, eps: float) -> np.ndarray:
    """Binary eps-LDP optimum with the MMSE estimator per user, eq. (24) (vectorised)."""
    e, v = np.exp(eps), P * (1 - P)
    return v - (v * (1 - e)) ** 2 / ((1 - P + P * e) * (e - P * e + P))


def check_fig2_order() -> Verdict:
    """Fig. 2 (Example 1, N = 100, P1 = 0.1): 'considering prior in the perturbation mechanism significantly reduces
    the error', E_LIP < E_Opt-LDP < E_LDP, judged with valid mechanisms: the certified eps-LIP and eps-LDP (prior-aware
    MMSE estimator) optima against context-free RR with its unbiased estimator (eq. (42))."""
    devs, rows = [], []
    for eps in FIG2_EPS:
        lip, opt, cf_ldp = 100 * lip_opt(0.1, eps), 100 * ldp_opt(0.1, eps), cf.context_free_mse(100, eps)
        devs.append(max(0.0, lip - opt, opt - cf_ldp))
        rows.append({"eps": eps, "lip": round(lip, 2), "opt_ldp": round(opt, 2), "ldp_eq42": round(cf_ldp, 2)})
    v = Verdict.from_deviations(devs, 1e-9, rows)
    at1 = next(r for r in rows if r["eps"] == 1.0)
    note = (
        f"{v.verdict} on the {len(rows)} eps values checked (N = 100, P1 = 0.1): at eps = 1, "
        f"{at1['opt_ldp']:.2f} (Opt-LDP) and {at1['lip']:.2f} (LIP) vs {at1['ldp_eq42']:.2f} (context-free LDP); "
        "the printed curves are not these (lip.ex1: the printed E_LDP, E_Opt-LDP and E_LIP formulas are wrong "
        "or invalid)"
    )
    return replace(v, counterexample=v.counterexample or rows[1], note=note)


def _fig7_rows() -> list[dict]:
    rows = []
    for eps in FIG7_EPS:
        r = []
        for d in FIG7_D:
            P = np.full(d, 1 / d)
            lip = certified(LIPHistogram(prior=P, eps=eps)).value
            r.append(certified(LIPHistogram(prior=P, eps=eps, kind="ldp")).value / lip)
        rows.append({"eps": eps, "d": list(FIG7_D), "ratio": [round(x, 4) for x in r]})
    return rows


def check_fig7_growth_d() -> Verdict:
    """Sec. I / Sec. V-B2 on Fig. 7 (histogram, d = 20): 'when the domain size increases, the advantage of the LIP is
    enhanced' -- E*_LDP/E*_LIP (certified, uniform prior) increasing along d = 2, 3, 5, 10, 20."""
    rows = _fig7_rows()
    for r in rows:
        r["deviation"] = max(0.0, max(a - b for a, b in zip(r["ratio"], r["ratio"][1:])))
    good = [r["eps"] for r in rows if r["deviation"] == 0.0]
    bad = [r for r in rows if r["deviation"] > 0.0]
    worst = max(r["deviation"] for r in rows)
    desc = "; ".join(f"eps {r['eps']:g}: {', '.join(f'{x:.3g}' for x in r['ratio'])}" for r in rows)
    note = f"E*_LDP/E*_LIP at d = 2, 3, 5, 10, 20 (histogram, uniform prior: Fig. 7 states none; certified): {desc}"
    if not bad:
        return Verdict("holds", len(rows), worst, note=f"holds on the {len(rows)} eps values checked; " + note)
    if not good or max(r["eps"] for r in bad) > min(good):
        return Verdict("fails", len(rows), worst, bad[0], note=note)
    region = (
        f"eps >= {min(good):g} (the {len(good)} checked eps values >= {min(good):g}; fails at every checked eps <= "
    )
    region += f"{max(r['eps'] for r in bad):g})"
    note = "as printed (any eps) it fails: at small eps the advantage shrinks with d; " + note
    return Verdict("holds-in-region", len(rows), worst, bad[0], region, note, region_kind="empirical")


def check_fig8_large() -> Verdict:
    """Sec. V-A4 on Fig. 8 at N = 500 and 50 000 (local priors ~ U[0, 1]): 'eps-Opt-LIP always provides higher
    utility than eps-Opt-LDP under any eps', 'eps-Opt-LDP is almost sandwiched between eps/2-Opt-LIP and
    eps-Opt-LIP' and (by contrast with N = 5) no cross-over of eps/2-Opt-LIP and eps-Opt-LDP."""
    devs, rows, sub = [], [], 0.0
    for n in FIG8_N:
        P = np.random.default_rng(n).uniform(0, 1, n)
        for p in P[:8]:  # the closed forms are the certified optima (seeded subsample)
            for eps in (1.0, 4.0):
                sub = max(sub, abs(lip_mse(np.array([p]), eps)[0] - lip_opt(p, eps)))
                sub = max(sub, abs(ldp_mse(np.array([p]), eps)[0] - ldp_opt(p, eps)))
        for eps in EPS5:
            lip, ldp, half = (
                float(np.sqrt(f(P, e).mean())) for f, e in ((lip_mse, eps), (ldp_mse, eps), (lip_mse, eps / 2))
            )
            devs.append(max(0.0, lip - ldp, ldp - half, sub - 1e-9))
            rows.append(
                {"N": n, "eps": float(eps), "lip": round(lip, 4), "ldp": round(ldp, 4), "lip_half": round(half, 4)}
            )
    v = Verdict.from_deviations(devs, 1e-12, rows)
    note = (
        f"{v.verdict} on the {len(rows)} (N, eps) instances checked (sqrt of the mean per-user MSE, expected values, "
        f"eps = 1..5): eps-LIP < eps-LDP < eps/2-LIP everywhere (exactly sandwiched), so no cross-over; closed forms "
        f"vs certified optima on 2 x 8 users x 2 eps: max difference {sub:.1e}"
    )
    return replace(v, counterexample=v.counterexample or rows[0], note=note)


CIP_FACTOR = 2.0  # 'not large': CIP's sqrt-MSE within this factor of LIP's (Fig. 8's measure)


def check_cip_gap() -> Verdict:
    """Sec. I (contributions) and Fig. 8: 'When compared with CIP, it always leads to a better utility-privacy
    tradeoff than LIP ... However, the utility gap is not large' -- read as: CIP's sqrt-MSE is within a factor 2 of
    the sum of the local eps-LIP optima's (local priors ~ U[0.05, 0.95], seeded), N in {2, 3, 4, 5}."""
    rng = np.random.default_rng(26)
    rows, flags = [], []
    for n in (2, 3, 4, 5):
        p = rng.uniform(0.05, 0.95, n)
        for eps in (0.5, 1.0, 2.0, 3.0):
            cip = certified(CIPBinomial(p=p, eps=eps)).value
            loc = float(sum(lip_opt(x, eps) for x in p))
            rows.append({"N": n, "eps": eps, "cip": cip, "sum_local_lip": loc, "sqrt_ratio": (loc / cip) ** 0.5})
            flags.append(cip <= loc)
    if not all(flags):
        bad = rows[flags.index(False)]
        return Verdict("fails", len(rows), bad["cip"] - bad["sum_local_lip"], bad, note="CIP above LIP somewhere")
    devs = [max(0.0, r["sqrt_ratio"] - CIP_FACTOR) for r in rows]
    ok_n = sorted({r["N"] for r in rows} - {r["N"] for r, d in zip(rows, devs) if d > 0})
    worst = max(rows, key=lambda r: r["sqrt_ratio"])
    note = (
        f"CIP <= LIP at all {len(rows)} instances; LIP's sqrt-MSE over CIP's grows with N: "
        + "; ".join(
            f"N = {n}: up to {max(r['sqrt_ratio'] for r in rows if r['N'] == n):.2f}"
            for n in sorted({r["N"] for r in rows})
        )
        + f"; 'not large' read as within a factor {CIP_FACTOR:g}"
    )
    v = Verdict.from_deviations(devs, 0.0, rows, size=lambda r: (r["N"], r["eps"]))
    if v.verdict == "holds" or not ok_n or max(ok_n) >= min(r["N"] for r, d in zip(rows, devs) if d > 0):
        return replace(v, counterexample=v.counterexample or worst, note=note)
    region = f"N <= {max(ok_n)} (the checked N = {', '.join(map(str, ok_n))}; fails at every checked N above)"
    return Verdict(
        "holds-in-region", v.checked, v.worst_deviation, v.counterexample, region, note, region_kind="empirical"
    )


FIG9B_EPS = (0.5, 1.0, 2.0, 3.0, 4.0, 4.5, 5.0, 6.0, 8.0, 10.0)


def _hist_advantage(d: int, eps: float) -> float:
    P = np.full(d, 1 / d)
    return certified(LIPHistogram(prior=P, eps=eps, kind="ldp")).value / certified(LIPHistogram(prior=P, eps=eps)).value


def check_fig9b_vs_fig7() -> Verdict:
    """Sec. V-B2: 'comparing with the theoretical results from Fig. 7, the advantage of LIP is even more clear in Fig.
    9(b) ... the effective domain size |D| = 83, which is much larger than 20 ... when domain size is large, the
    advantage of LIP is enhanced' -- E*_LDP/E*_LIP (histogram, uniform prior, certified) at d = 83 vs d = 20."""
    rows = []
    for eps in FIG9B_EPS:
        a20, a83 = _hist_advantage(20, eps), _hist_advantage(83, eps)
        rows.append(
            {"eps": eps, "ratio_d20": round(a20, 4), "ratio_d83": round(a83, 4), "deviation": max(0.0, a20 - a83)}
        )
    bad = [r for r in rows if r["deviation"] > 0]
    good = [r for r in rows if r["deviation"] == 0]
    desc = "; ".join(f"eps {r['eps']:g}: {r['ratio_d83']:.3g} vs {r['ratio_d20']:.3g}" for r in rows)
    note = f"E*_LDP/E*_LIP at d = 83 vs d = 20 (uniform prior: the Gowalla prior is not given; certified): {desc}"
    v = Verdict.from_deviations([r["deviation"] for r in rows], 0.0, rows, size=lambda r: r["eps"])
    if not bad or not good or max(r["eps"] for r in bad) > min(r["eps"] for r in good):
        return replace(v, note=note)
    lo, hi = max(r["eps"] for r in bad), min(r["eps"] for r in good)
    t = float(brentq(lambda e: _hist_advantage(83, e) - _hist_advantage(20, e), lo, hi, xtol=1e-4))
    region = f"eps > {t:.3f} (sign change by root-finding between the checked eps {lo:g} and {hi:g})"
    note = f"as printed (any eps) it fails: below eps* = {t:.4f} the advantage at d = 83 is the smaller; " + note
    return Verdict("holds-in-region", len(rows), v.worst_deviation, bad[0], region, note, region_kind="exact boundary")
