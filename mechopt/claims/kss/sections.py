"""k-subset paper (Wang et al.), claims section by section: Sec. 2.3.1 (I_1, the beta >= 2 threshold),
the Sec. 3.1 exponential-mechanism remark, App. D (f'(k), convexity, stationary point), App. E (eq. (13) and
its last step), Sec. 4, and Sec. 5 with Table 1 (k columns, summary claims, per-cell z-test with stated power).

Examples
--------
>>> next(c for c in CLAIMS if c.id == "kss.appD_derivative").run().verdict
'holds-after-correction'
"""

from __future__ import annotations

import itertools
import math

import numpy as np
from scipy.optimize import minimize_scalar

from mechopt.claims._spec import corrected
from mechopt.claims._spec import spec as Spec
from mechopt.figures.kss.table1 import PAPER_TABLE1, cell_test, holm, simulate_row
from mechopt.jobs.verify import Verdict
from mechopt.oracles.ksubset import KSubset, ksubset_outputs
from mechopt.problems.kss import formulas as F

PAPER = "kss"

__all__ = ["CLAIMS"]


def _gh(d, k, eps):
    E = math.exp(eps)
    return k * E / (k * E + d - k), (k * E * (k - 1) + (d - k) * k) / ((k * E + d - k) * (d - 1))


def _f(d, k, eps):
    g, h = _gh(d, k, eps)
    return (g * (1 - g) + (d - 1) * h * (1 - h)) / (g - h) ** 2


def check_expmech():
    """Sec. 3.1: 'equivalent to exponential mechanism on Z with u(z) = -sum_{a in z}[a != x], Q(z|x) ∝ exp(u(z))'."""
    dpr, dco, insts = [], [], []
    for d, eps in itertools.product((3, 4, 6), (0.5, 1.0, 2.0)):
        for k in range(1, d):
            Q = KSubset(d, eps, k).matrix()
            Z = ksubset_outputs(d, k)  # rows: subsets (index arrays)
            inz = np.array([[x in z for z in Z] for x in range(d)])
            u = -(k - inz.astype(float))  # -#{a in z : a != x}
            pr = np.exp(u)
            pr /= pr.sum(axis=1, keepdims=True)
            co = np.exp(eps * u)
            co /= co.sum(axis=1, keepdims=True)
            dpr.append(float(np.abs(pr - Q).max()))
            dco.append(float(np.abs(co - Q).max()))
            insts.append({"d": d, "k": k, "eps": eps})
    bad = [{**i, "printed_deviation": x} for i, x in zip(insts, dpr) if x > 1e-12]
    v = Verdict.from_deviations(dco, 1e-12, insts)
    if v.verdict != "holds":
        return v
    return corrected(
        Verdict("holds", len(insts), max(dpr), bad[0] if bad else None),
        "Q(z|x) ∝ exp(eps * u(z)) over the size-k subsets z (exp(u(z)) is the eps = 1 case; over the "
        "whole power set it is not the k-subset mechanism); no factor 1/2 is needed because the "
        "normaliser does not depend on x",
    )


def check_appD_derivative():
    dpr, dco, insts = [], [], []
    for d, eps in itertools.product((4, 10, 64, 256), (0.1, 0.5, 1.0, 2.0, 4.0)):
        E = math.exp(eps)
        for k in np.linspace(0.05 * d, 0.95 * d, 9):
            h = 1e-6 * d
            fd = (_f(d, k + h, eps) - _f(d, k - h, eps)) / (2 * h)
            pr = (d - 1) ** 2 * ((d - k) ** 2 - E**2 * k**2) / ((E - 1) ** 2 * (d - k) * k)
            co = (d - 1) ** 2 * (E**2 * k**2 - (d - k) ** 2) / ((E - 1) ** 2 * (d - k) ** 2 * k**2)
            s = max(1.0, abs(fd))
            dpr.append(abs(pr - fd) / s)
            dco.append(abs(co - fd) / s)
            insts.append({"d": d, "eps": eps, "k": round(float(k), 3), "finite_diff": fd, "printed": pr})
    i = int(np.argmax(dpr))
    v = Verdict.from_deviations(dco, 1e-5, insts)
    if v.verdict != "holds":
        return v
    return corrected(
        Verdict("holds", len(insts), max(dpr), {**insts[i], "deviation": dpr[i]}),
        "f'(k) = (d-1)^2 (e^{2eps} k^2 - (d-k)^2) / ((e^eps - 1)^2 (d-k)^2 k^2) (per user, n = 1): the "
        "printed form has the opposite sign and (d-k)k for (d-k)^2 k^2; the root k = d/(1+e^eps) and the "
        "conclusion are unchanged",
    )


def check_appD_convex():
    """'for any eps > 0, k in (0, d), we have f''(k) >= 0'."""
    devs, insts = [], []
    for d, eps in itertools.product((3, 4, 10, 64, 256), (0.01, 0.1, 0.5, 1.0, 2.0, 5.0, 8.0)):
        ks = np.linspace(0.02 * d, 0.98 * d, 400)
        fk = np.array([_f(d, k, eps) for k in ks])
        second = fk[:-2] - 2 * fk[1:-1] + fk[2:]
        rel = float(np.max(np.maximum(0, -second)) / np.max(np.abs(fk)))
        devs.append(rel)
        insts.append(
            {
                "d": d,
                "eps": eps,
                "min_second_difference": float(second.min()),
                "k_at_min": float(ks[1 + int(np.argmin(second))]),
            }
        )
    return Verdict.from_deviations(devs, 1e-9, insts, size=lambda i: (i["d"], i["eps"]))


def check_appD_stationary():
    devs, insts = [], []
    for d, eps in itertools.product((4, 10, 64, 256, 1000), (0.1, 0.5, 1.0, 2.0, 4.0)):
        r = minimize_scalar(
            lambda k: _f(d, k, eps), bounds=(1e-6 * d, d * (1 - 1e-6)), method="bounded", options={"xatol": 1e-10 * d}
        )
        devs.append(abs(r.x - d / (1 + math.exp(eps))) / d)
        insts.append({"d": d, "eps": eps, "argmin": r.x, "d/(1+e^eps)": d / (1 + math.exp(eps))})
    return Verdict.from_deviations(devs, 1e-6, insts)


def check_sec23_I1():
    """Sec. 2.3.1: printed I_1 = [e^eps log(d e^eps/(e^eps + d - k)) + (d-1) log(d/(e^eps + d - 1))]/(e^eps + d - 1)."""
    dpr, dco, insts = [], [], []
    for d, eps in itertools.product((2, 3, 8, 64), (0.1, 1.0, 3.0)):
        E = math.exp(eps)
        ref = F.mi_mrr(d, eps)
        co = (E * math.log(d * E / (E + d - 1)) + (d - 1) * math.log(d / (E + d - 1))) / (E + d - 1)
        worst, wk = 0.0, None
        for k in range(2, d):  # the printed stray k, read as any k != 1
            pr = (E * math.log(d * E / (E + d - k)) + (d - 1) * math.log(d / (E + d - 1))) / (E + d - 1)
            if abs(pr - ref) > worst:
                worst, wk = abs(pr - ref), k
        dpr.append(worst)
        dco.append(abs(co - ref))
        insts.append({"d": d, "eps": eps, "k": wk, "I1": ref})
    i = int(np.argmax(dpr))
    v = Verdict.from_deviations(dco, 1e-12, insts)
    if v.verdict == "holds":
        v = Verdict("holds", v.checked, max(dpr), {**insts[i], "printed_deviation": dpr[i]})
    return corrected(
        v,
        "I_1 = [e^eps log(d e^eps/(e^eps + d - 1)) + (d-1) log(d/(e^eps + d - 1))]/(e^eps + d - 1) "
        "(the stray k in the first log is 1)",
        note=f"printed form (k != 1) off by up to {max(dpr):.3g} nats",
    )


def check_sec23_threshold():
    """'Q^m is MI optimal only when I_1 >= I_2, while when (e^eps-1)^2/(eps e^eps - e^eps + 1) <= d/2, Q^m is unable
    to fully capture mutual information'."""
    insts, extra = [], []
    devs = []
    for d in range(2, 65):
        for eps in np.linspace(0.05, 8, 160):
            cond = (math.exp(eps) - 1) ** 2 / (eps * math.exp(eps) - math.exp(eps) + 1) <= d / 2
            subopt = F.mi_optimal(d, eps) > F.mi_mrr(d, eps) + 1e-12
            devs.append(1.0 if (cond and not subopt) else 0.0)
            if subopt and not cond:
                extra.append({"d": d, "eps": round(float(eps), 3)})
    v = Verdict.from_deviations(devs, 0.5, [{}] * len(devs))
    if v.verdict != "holds":
        return v
    return Verdict(
        "holds-in-region" if extra else "holds",
        len(devs),
        0.0,
        extra[0] if extra else None,
        "beta >= 2 is SUFFICIENT for MRR's suboptimality, not the boundary (exact: I_2 > I_1)" if extra else None,
        f"{len(extra)} grid points (d <= 64) where MRR is already suboptimal with beta < 2",
    )


def check_appE_formula():
    """App. E: 'E|theta_hat - theta|^2 = (g(1-g) + h(1-h) d)/(g-h)^2' vs Sec. 3.3 (g(1-g) + (d-1) h(1-h))/(n(g-h)^2)."""
    dpr, dco, insts = [], [], []
    for d, eps in itertools.product((3, 8, 64), (0.5, 2.0)):
        for k in (1, max(1, d // 3)):
            g, h = _gh(d, k, eps)
            ref = F.l2_ksubset(d, k, eps)
            dpr.append(abs((g * (1 - g) + h * (1 - h) * d) / (g - h) ** 2 - ref) / ref)
            dco.append(abs((g * (1 - g) + h * (1 - h) * (d - 1)) / (g - h) ** 2 - ref) / ref)
            insts.append({"d": d, "k": k, "eps": eps})
    # the mediant chain of (13) (holds for any coefficient c > 0 in place of d)
    rng = np.random.default_rng(13)
    chain = 0.0
    for _ in range(2000):
        g, h, g2, h2, p = rng.uniform(0, 1, 5)
        c = rng.uniform(1, 100)
        if abs(g - h) < 1e-3 or abs(g2 - h2) < 1e-3 or abs(p * (g - h) + (1 - p) * (g2 - h2)) < 1e-3:
            continue
        fn = lambda a, b: (a * (1 - a) + c * b * (1 - b)) / (a - b) ** 2
        chain = max(chain, min(fn(g, h), fn(g2, h2)) - fn(p * g + (1 - p) * g2, p * h + (1 - p) * h2))
    v = Verdict.from_deviations([x + max(0.0, chain) for x in dco], 1e-9, insts)
    i = int(np.argmax(dpr))
    if v.verdict != "holds":
        return v
    return corrected(
        Verdict("holds", len(insts), max(dpr), {**insts[i], "printed_rel_dev": dpr[i]}),
        "(g(1-g) + (d-1) h(1-h)) / (n (g-h)^2) as in Sec. 3.3; the inequality f(mixture) >= min f of (13) "
        "holds for any positive coefficient, so the argument is unaffected",
        note=f"mediant chain of (13): worst violation {chain:.2e} on 2000 random points",
    )


def check_appE_C():
    """App. E: ``1 <= C_|Z| <= e^eps``: ' ... produces f(g'_k, h'_k) >= f(g_k, h_k)' with g'_k = k C/(k e^eps + d - k),
    h'_k = (k C (k-1) + (d-k) k)/((k e^eps + d - k)(d-1))."""
    devs, insts = [], []
    for d, eps in itertools.product((3, 8, 64), (0.5, 1.0, 3.0)):
        E = math.exp(eps)
        for k in range(1, d):
            g, h = _gh(d, k, eps)
            base = (g * (1 - g) + (d - 1) * h * (1 - h)) / (g - h) ** 2
            for C in np.linspace(1.0 + 1e-6, E, 12):
                gp = k * C / (k * E + d - k)
                hp = (k * C * (k - 1) + (d - k) * k) / ((k * E + d - k) * (d - 1))
                if abs(gp - hp) < 1e-12:
                    continue
                fp = (gp * (1 - gp) + (d - 1) * hp * (1 - hp)) / (gp - hp) ** 2
                devs.append(max(0.0, base - fp) / base)
                insts.append({"d": d, "k": k, "eps": eps, "C": round(float(C), 4), "f_prime": fp, "f": base})
    v = Verdict.from_deviations(devs, 1e-9, insts, size=lambda i: (i["d"], i["eps"]))
    return Verdict(
        v.verdict,
        v.checked,
        v.worst_deviation,
        v.counterexample,
        None,
        "as printed g'_k, h'_k keep the normaliser k e^eps + d - k of C = e^eps (they are not a mechanism's "
        "hit rates for C < e^eps); the check takes the formulas literally",
    )


def check_binary_exact():
    devs = []
    for eps in np.linspace(0.01, 10, 100):
        E = math.exp(eps)
        devs.append(abs(F.mi_ksubset(2, 1, eps) - (eps * E / (E + 1) - math.log((E + 1) / 2))))
        devs.append(max(0.0, F.mi_ksubset(2, 1, eps) - eps**2 / 8))
    return Verdict.from_deviations(devs, 1e-12)


# ------------------------------------------------------------------------------ Section 5 / Table 1
def _rows():
    return [
        dict(
            zip(
                (
                    "d",
                    "eps",
                    "BRR",
                    "MRR",
                    "kstar",
                    "ksharp",
                    "l1BRR",
                    "l1MRR",
                    "l1kstar",
                    "l1ksharp",
                    "k_star",
                    "k_sharp",
                ),
                r,
            )
        )
        for r in PAPER_TABLE1
    ]


def check_table1_k():
    devs, insts = [], []
    for r in _rows():
        ks, kh = F.k_star(r["d"], r["eps"]), F.k_sharp(r["d"], r["eps"])
        devs.append(float(ks != r["k_star"]) + float(kh != r["k_sharp"]))
        insts.append({"d": r["d"], "eps": r["eps"], "printed": (r["k_star"], r["k_sharp"]), "formula": (ks, kh)})
    return Verdict.from_deviations(devs, 0.5, insts, size=lambda i: (i["d"], i["eps"]))


def check_sec5_any():
    """'k-subset mechanism outperforms BRR and MRR for arbitrary domain size d and privacy level eps'."""
    table_bad, insts = [], []
    for r in _rows():
        for m in ("kstar", "ksharp"):
            for other in ("BRR", "MRR"):
                for pre in ("", "l1"):
                    if r[pre + m] > r[pre + other]:
                        table_bad.append(
                            {
                                "d": r["d"],
                                "eps": r["eps"],
                                "metric": "l1" if pre else "l2",
                                "mechanism": m,
                                "beaten_by": other,
                                "ss": r[pre + m],
                                "other": r[pre + other],
                            }
                        )
    theory_bad = []
    for d in (2, 3, 4, 6, 8, 16, 32, 64, 128, 256):
        for eps in (0.01, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0):
            mrr = F.l2_ksubset(d, 1, eps)
            brr = F.l2_pure(d, *F.g_h(d, 1, eps)) if False else None
            for name, k in (("k*", F.k_star(d, eps)), ("k#", F.k_sharp(d, eps))):
                if 1 <= k <= d - 1 and F.l2_ksubset(d, k, eps) > mrr * (1 + 1e-12):
                    theory_bad.append(
                        {"d": d, "eps": eps, "mechanism": name, "k": k, "l2_ss": F.l2_ksubset(d, k, eps), "l2_mrr": mrr}
                    )
    ksharp_bad = [t for t in theory_bad if t["mechanism"] == "k#"]
    note = (
        f"Table 1 itself: {len(table_bad)} (cell, competitor) pairs where the k-subset entry is worse "
        f"({sum(1 for t in table_bad if t['mechanism'] == 'ksharp')} for k#-SS); theory (unprojected l2 per user, "
        f"Sec. 3.3): k*-SS worse than MRR at {len([t for t in theory_bad if t['mechanism'] == 'k*'])} of 80 (d, eps), "
        f"k#-SS at {len(ksharp_bad)} (Theorem 3.1 includes k = 1)"
    )
    return Verdict(
        "fails" if table_bad else "holds",
        164 + 160,
        float(len(table_bad)),
        table_bad[0] if table_bad else None,
        None,
        note + "; it holds only for k#-SS in unprojected theory (Theorems 3.1-3.2)",
    )


def check_sec5_reduction():
    """'in intermediate privacy region (log 2 <= eps <= log(d-1) or 1 < k# <= d/3 in the table), there are averagely
    about 20% l2-error reduction and 10% l1-error reduction'."""
    out = {}
    for region in ("eps", "k#"):
        sel = [
            r
            for r in _rows()
            if (
                (math.log(2) <= r["eps"] <= math.log(r["d"] - 1))
                if region == "eps"
                else (1 < r["k_sharp"] <= r["d"] / 3)
            )
        ]
        for base in ("best", "BRR", "MRR"):
            for pre in ("", "l1"):
                red = []
                for r in sel:
                    ref = min(r[pre + "BRR"], r[pre + "MRR"]) if base == "best" else r[pre + base]
                    red.append(1 - r[pre + "ksharp"] / ref)
                out[f"{region}|vs {base}|{'l1' if pre else 'l2'}"] = (len(sel), round(100 * float(np.mean(red)), 1))
    l2, l1 = out["eps|vs best|l2"][1], out["eps|vs best|l1"][1]
    ok = abs(l2 - 20) <= 5 and abs(l1 - 10) <= 5
    return Verdict(
        "holds" if ok else "fails",
        len(out),
        max(abs(l2 - 20), abs(l1 - 10)),
        out,
        None,
        "mean % reduction of k#-SS against the better of BRR/MRR (and each), per region reading; tolerance "
        "+-5 percentage points on 'about 20%' / 'about 10%'",
    )


def check_sec5_kstar_ksharp():
    """'k#-SS achieves slightly better performance than k*-SS, but the differences are pretty minor' (and
    'k* and k# differ only slightly')."""
    tbl = [(r["d"], r["eps"], r["kstar"] / r["ksharp"], r["k_star"], r["k_sharp"]) for r in _rows()]
    worse = sum(1 for t in tbl if t[2] < 1)
    worst = max(tbl, key=lambda t: t[2])
    theory = []
    for d in (8, 16, 64, 256, 1024):
        for eps in (0.5, 1.0, 2.0, 3.0, 5.0):
            ks, kh = F.k_star(d, eps), F.k_sharp(d, eps)
            theory.append((d, eps, F.l2_ksubset(d, ks, eps) / F.l2_ksubset(d, kh, eps), ks, kh))
    tw = max(theory, key=lambda t: t[2])
    minor = worst[2] <= 1.10
    return Verdict(
        "holds" if minor else "fails",
        len(tbl) + len(theory),
        worst[2] - 1,
        {
            "table_worst": {
                "d": worst[0],
                "eps": worst[1],
                "ratio_kstar_over_ksharp": round(worst[2], 3),
                "k*": worst[3],
                "k#": worst[4],
            },
            "theory_worst": {"d": tw[0], "eps": tw[1], "ratio": round(tw[2], 3), "k*": tw[3], "k#": tw[4]},
        },
        None,
        "'minor' read as ratio l2(k*-SS)/l2(k#-SS) <= 1.10 everywhere; "
        f"Table 1: k*-SS better than k#-SS in {worse} of {len(tbl)} l2 cells; the differences are minor at "
        "small eps and large (up to ~2x) at eps >= 3, where k* and k# differ by a factor 2-10",
    )


TABLE1_ROWS = 4  # rows d <= 4 of Table 1 (the whole table belongs to ``mechopt reproduce kss-table1``)


def _table1_cells(d: int, eps: float) -> list[dict]:
    """The 8 cells of one Table-1 row (4 mechanisms x l2, l1), each with its per-cell test."""
    out = []
    for row in simulate_row(d, eps, reps=100, n=10_000, seed=0):
        for m in ("l2", "l1"):
            t = cell_test(row[f"{m}_paper"], row[m], row[f"{m}_se"])
            out.append(
                {
                    "d": d,
                    "eps": eps,
                    "mechanism": row["mechanism"],
                    "metric": m,
                    "paper": row[f"{m}_paper"],
                    "ours": round(row[m], 6),
                    "z": round(t["z"], 2),
                    "p": t["p"],
                    "mdd_80pct_rel": round(t["mdd_rel"], 3),
                    "reproduces": t["reproduces"],
                }
            )
    return out


def table1_cell_z(ce: dict) -> float:
    """|z| of the counterexample's cell, re-simulated from its (d, eps) alone (seed 0, n = 10 000, 100 runs)."""
    cells = _table1_cells(int(ce["d"]), float(ce["eps"]))
    return abs(next(c["z"] for c in cells if c["mechanism"] == ce["mechanism"] and c["metric"] == ce["metric"]))


def check_table1_cells():
    """Per-cell two-sided z-test (alpha = 0.01) with its power stated, and Holm over the family."""
    insts = [c for r in [x for x in PAPER_TABLE1 if x[0] <= 4][:TABLE1_ROWS] for c in _table1_cells(r[0], r[1])]
    fails = [c for c in insts if not c["reproduces"]]
    holm_rej = holm([c["p"] for c in insts])
    mdd = [c["mdd_80pct_rel"] for c in insts]
    not_repr = ", ".join(f"d={c['d']} eps={c['eps']} {c['mechanism']} {c['metric']}" for c in fails)
    note = (
        f"{len(fails)} of {len(insts)} cells do not reproduce at alpha = 0.01 per cell (|z| > 2.576, "
        f"se = sqrt(2) x ours): {not_repr or 'none'}; Holm over the {len(insts)} cells (family alpha = 0.01): "
        f"{sum(holm_rej)} do not reproduce; generator of theta unknown (normalised uniforms)"
    )
    power = (
        f"per cell, a relative difference of {100 * min(mdd):.0f}-{100 * max(mdd):.0f}% (median "
        f"{100 * float(np.median(mdd)):.0f}%) is detected with 80% probability at alpha = 0.01"
    )
    worst = max(fails, key=lambda c: abs(c["z"])) if fails else None
    return Verdict(
        "fails" if fails else "holds", len(insts), max(abs(c["z"]) for c in insts), worst, None, note, power=power
    )


CLAIMS = [
    Spec(
        "kss.sec3_1_expmech",
        PAPER,
        "Sec. 3.1 (after Algorithm 1)",
        "The randomizer is also equivalent to exponential mechanism on Z with utility function u(z) = -sum_{a in z}"
        "[a != x], and Q(z|x) ∝ exp(u(z))",
        "uniform or any prior (channel identity)",
        "compare normalised exp(u) and exp(eps u) over size-k subsets with KSubset.matrix()",
        check_expmech,
        "remark",
    ),
    Spec(
        "kss.appD_derivative",
        PAPER,
        "App. D",
        "f'(k) = (d-1)^2((d-k)^2 - e^{2eps} k^2)/((e^eps-1)^2 (d-k) k)",
        "k real in (0, d), n = 1",
        "central finite differences of f(k), 180 points",
        check_appD_derivative,
        "proof-step",
    ),
    Spec(
        "kss.appD_convex",
        PAPER,
        "App. D",
        "for any eps > 0, k in (0, d), we have f''(k) >= 0",
        "k real",
        "second differences on 400-point grids, 35 (d, eps)",
        check_appD_convex,
        "proof-step",
    ),
    Spec(
        "kss.appD_stationary",
        PAPER,
        "App. D",
        "f'(k) = 0 ... hence k = d/(1+e^eps) [minimises f(k)]",
        "k real",
        "bounded scalar minimisation, 25 (d, eps)",
        check_appD_stationary,
        "proof-step",
    ),
    Spec(
        "kss.sec2_3_I1",
        PAPER,
        "Sec. 2.3.1",
        "I_1 = [e^eps log(d e^eps/(e^eps + d - k)) + (d-1) log(d/(e^eps + d - 1))]/(e^eps + d - 1)",
        "uniform prior",
        "vs mutual information of MRR",
        check_sec23_I1,
        "proof-step",
    ),
    Spec(
        "kss.sec2_3_threshold",
        PAPER,
        "Sec. 2.3.1",
        "when (e^eps-1)^2/(eps e^eps - e^eps + 1) <= d/2, the mechanism Q^m is unable to fully capture mutual "
        "information",
        "uniform prior",
        "grid d = 2..64 x 160 eps: condition => I* > I_1, and the converse",
        check_sec23_threshold,
    ),
    Spec(
        "kss.appE_formula",
        PAPER,
        "App. E, eq. (13)",
        "E|theta_hat - theta|^2 = (g(1-g) + h(1-h) d)/(g-h)^2 ... f(pg + (1-p)g', ph + (1-p)h') >= min{f(g,h), "
        "f(g',h')}",
        "symmetric power-set mechanisms, remapping estimator",
        "vs Sec. 3.3's formula; mediant chain on 2000 random points",
        check_appE_formula,
        "proof-step",
    ),
    Spec(
        "kss.appE_C",
        PAPER,
        "App. E (last step)",
        "1.0 <= C_|Z| <= e^eps, which produces f(g'_k, h'_k) >= f(g_k, h_k)",
        "printed g'_k, h'_k",
        "12 values of C per (d, k, eps)",
        check_appE_C,
        "proof-step",
    ),
    Spec(
        "kss.sec4_binary",
        PAPER,
        "Sec. 4 (Related work)",
        "exact bound I_1 = eps e^eps/(e^eps+1) - log((e^eps+1)/2), which implies I(Z; X_b) <= eps^2/8",
        "uniform bit",
        "vs I_1(d = 2), 100 eps in (0, 10]",
        check_binary_exact,
    ),
    Spec(
        "kss.table1_k",
        PAPER,
        "Table 1 (k*, k# columns)",
        "k* and k# columns of Table 1",
        "Theorem 2.1 / 3.1 formulas",
        "F.k_star, F.k_sharp vs printed, 41 rows",
        check_table1_k,
        "table",
    ),
    Spec(
        "kss.sec5_any",
        PAPER,
        "Sec. 5",
        "k-subset mechanism outperforms BRR and MRR for arbitrary domain size d and privacy level eps, which echoes "
        "theoretical results in Theorem 3.2",
        "Table 1 as printed; unprojected l2 theory",
        "count cells where a k-subset entry is worse; theory l2 of k*, k# vs MRR",
        check_sec5_any,
        "table",
    ),
    Spec(
        "kss.sec5_reduction",
        PAPER,
        "Sec. 5",
        "in intermediate privacy region (log 2 <= eps <= log(d-1) or 1 < k# <= d/3 in the table), there are averagely "
        "about 20% l2-error reduction and 10% l1-error reduction",
        "Table 1 as printed",
        "mean reduction of k#-SS vs best/each baseline, both region readings",
        check_sec5_reduction,
        "table",
    ),
    Spec(
        "kss.sec5_kstar_ksharp",
        PAPER,
        "Sec. 5",
        "The l2-norm optimal mechanism k#-SS achieves slightly better performance than the mutual information "
        "optimal mechanism k*-SS, but the differences are pretty minor",
        "Table 1 and unprojected l2 theory",
        "ratio l2(k*-SS)/l2(k#-SS)",
        check_sec5_kstar_ksharp,
        "table",
    ),
    Spec(
        "kss.table1_cells",
        PAPER,
        "Table 1 (rows d = 2, 4, first 4)",
        "Table 1 cell values (mean of 100 runs)",
        "n = 10 000, 100 reps, projection on the simplex, theta from normalised uniforms",
        "z = (paper - ours)/(sqrt(2) se_ours), reproduces iff |z| <= 2.576; power stated",
        check_table1_cells,
        "table",
        recheck=table1_cell_z,
        tol=2.576,
    ),
]
