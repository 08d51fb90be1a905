"""Re-running a k-subset-paper counterexample from the data stored in it (``Claim.recheck``).

Each function returns the deviation of the statement *as printed* at the counterexample's data
alone; :data:`RECHECKS` maps claim ids to ``(function, tol)``.

Examples
--------
>>> appE_formula({"d": 3, "k": 1, "eps": 0.5}) > 1e-9      # h(1-h) d where (d-1) h(1-h) belongs
True
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from mechopt.claims.kss.appendix import f_of_k, hit_rates
from mechopt.claims.kss.reference import ldp_mi_optimum
from mechopt.figures.kss.table1 import PAPER_TABLE1
from mechopt.oracles.ksubset import KSubset, ksubset_outputs
from mechopt.problems.kss import formulas as F

__all__ = ["RECHECKS"]

Data = dict[str, Any]
_COLS = ("d", "eps", "BRR", "MRR", "kstar", "ksharp", "l1BRR", "l1MRR", "l1kstar", "l1ksharp", "k_star", "k_sharp")


def _row(d: int, eps: float) -> dict[str, Any]:
    return next(dict(zip(_COLS, r)) for r in PAPER_TABLE1 if r[0] == d and math.isclose(r[1], eps))


def sec3_1_expmech(ce: Data) -> float:
    """max |exp(u(z))-normalised - Q_k-subset| (the printed exponential mechanism)."""
    d, k, eps = int(ce["d"]), int(ce["k"]), float(ce["eps"])
    Q = KSubset(d, eps, k).matrix()
    inz = np.array([[x in z for z in ksubset_outputs(d, k)] for x in range(d)])
    pr = np.exp(-(k - inz.astype(float)))
    return float(np.abs(pr / pr.sum(axis=1, keepdims=True) - Q).max())


def appD_derivative(ce: Data) -> float:
    """|printed f'(k) - finite difference| / max(1, |f'(k)|)."""
    d, eps, k = int(ce["d"]), float(ce["eps"]), float(ce["k"])
    E, h = math.exp(eps), 1e-6 * d
    fd = (f_of_k(d, k + h, eps) - f_of_k(d, k - h, eps)) / (2 * h)
    pr = (d - 1) ** 2 * ((d - k) ** 2 - E**2 * k**2) / ((E - 1) ** 2 * (d - k) * k)
    return abs(pr - fd) / max(1.0, abs(fd))


def sec2_3_I1(ce: Data) -> float:
    """|printed I_1 (stray k in the first log) - I(X;Z) of MRR|."""
    d, eps, k = int(ce["d"]), float(ce["eps"]), int(ce["k"])
    E = math.exp(eps)
    pr = (E * math.log(d * E / (E + d - k)) + (d - 1) * math.log(d / (E + d - 1))) / (E + d - 1)
    return abs(pr - F.mi_mrr(d, eps))


def appE_formula(ce: Data) -> float:
    """Relative gap of App. E's (g(1-g) + h(1-h) d)/(g-h)^2 to the l2 error of Sec. 3.3."""
    d, k, eps = int(ce["d"]), int(ce["k"]), float(ce["eps"])
    g, h = hit_rates(d, k, eps)
    ref = F.l2_ksubset(d, k, eps)
    return abs((g * (1 - g) + h * (1 - h) * d) / (g - h) ** 2 - ref) / ref


def open_prior(ce: Data) -> float:
    """Certified max I(X;Z) at the stored prior minus the uniform-prior bound of Theorem 2.1."""
    P = np.asarray(ce["prior"], dtype=float)
    return ldp_mi_optimum(P / P.sum(), float(ce["eps"]))[0] - F.mi_optimal(int(ce["d"]), float(ce["eps"]))


def sec5_any(ce: Data) -> float:
    """Table 1 entry of the k-subset mechanism minus the competitor's (the text says it is never worse)."""
    r, pre = _row(int(ce["d"]), float(ce["eps"])), "l1" if ce["metric"] == "l1" else ""
    return float(r[pre + ce["mechanism"]] - r[pre + ce["beaten_by"]])


def sec5_reduction(ce: Data) -> float:
    """max(|mean l2 reduction - 20|, |mean l1 reduction - 10|) in percentage points, from Table 1 (eps reading,
    k#-SS against the better of BRR and MRR)."""
    sel = [dict(zip(_COLS, r)) for r in PAPER_TABLE1 if math.log(2) <= r[1] <= math.log(r[0] - 1)]
    red = {
        pre: 100 * float(np.mean([1 - r[pre + "ksharp"] / min(r[pre + "BRR"], r[pre + "MRR"]) for r in sel]))
        for pre in ("", "l1")
    }
    return max(abs(red[""] - 20), abs(red["l1"] - 10))


def sec5_kstar_ksharp(ce: Data) -> float:
    """l2(k*-SS)/l2(k#-SS) - 1 in the stored Table-1 row ('minor' = at most 0.10)."""
    r = _row(int(ce["table_worst"]["d"]), float(ce["table_worst"]["eps"]))
    return float(r["kstar"] / r["ksharp"] - 1)


RECHECKS: dict[str, tuple[Callable[[Data], float], float]] = {
    "kss.sec3_1_expmech": (sec3_1_expmech, 1e-12),
    "kss.appD_derivative": (appD_derivative, 1e-5),
    "kss.sec2_3_I1": (sec2_3_I1, 1e-12),
    "kss.appE_formula": (appE_formula, 1e-9),
    "kss.open_prior": (open_prior, 1e-9),
    "kss.sec5_any": (sec5_any, 0.0),
    "kss.sec5_reduction": (sec5_reduction, 5.0),
    "kss.sec5_kstar_ksharp": (sec5_kstar_ksharp, 0.10),
}
