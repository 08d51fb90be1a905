"""k-subset paper (Wang et al.), claims section by section: Sec. 2.3.1 (I_1, the beta >= 2 threshold),
the Sec. 3.1 exponential-mechanism remark, Algorithms 1 and 2 (Sec. 3.1-3.2), App. D (f'(k), convexity,
stationary point), App. E (eq. (13) and its last step), Sec. 4, and Sec. 5 with Table 1 (k columns, summary
claims, per-cell z-test with stated power).

This module is their registry (where each statement is printed, as printed, and how it is checked); the
checks live in :mod:`~mechopt.claims.kss.text`, :mod:`~mechopt.claims.kss.algorithms`,
:mod:`~mechopt.claims.kss.appendix` and :mod:`~mechopt.claims.kss.section5`.

Examples
--------
>>> next(c for c in CLAIMS if c.id == "kss.appD_derivative").run().verdict
'holds-after-correction'
"""

from __future__ import annotations

from mechopt.claims._spec import spec as Spec
from mechopt.claims.kss.algorithms import check_alg1, check_appC, check_remap
from mechopt.claims.kss.appendix import (
    check_appD_convex,
    check_appD_derivative,
    check_appD_stationary,
    check_appE_C,
    check_appE_formula,
)
from mechopt.claims.kss.section5 import (
    check_sec5_any,
    check_sec5_kstar_ksharp,
    check_sec5_reduction,
    check_table1_cells,
    check_table1_k,
    table1_cell_z,
)
from mechopt.claims.kss.text import check_binary_exact, check_expmech, check_sec23_I1, check_sec23_threshold
from mechopt.claims.kss.util import PAPER

__all__ = ["CLAIMS"]


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
    Spec(
        "kss.alg1_channel",
        PAPER,
        "Sec. 3.1, Algorithm 1 and eq. (5)",
        "Algorithm 1 is an efficient private randomizer equivalent to Definition 2.1 (the channel Q^k of eq. (5))",
        "k-subset mechanism, 1 <= k <= d - 1",
        "Algorithm 1's output law enumerated branch by branch vs eq. (5), mechopt's matrix vs eq. (5), and "
        "mechopt's sampler (20 000 reports per input, seeded) by a pooled chi-square test; d in {3,4,5}, every k, "
        "eps in {0.5, 2}",
        check_alg1,
        "theorem",
    ),
    Spec(
        "kss.remap_regression",
        PAPER,
        "Sec. 3.2, Algorithm 2 and eq. (9)",
        "the regression estimate (QQ^T)^-1 Q [f(z)] is unbiased; Algorithm 2's remapping estimate (f(X_j) - n h_k)/"
        "(n (g_k - h_k)) is unbiased (eq. (9))",
        "k-subset mechanism; f(z) subset counts of n reports",
        "both estimators on random subset counts (d in {3..6}, every k, eps in {0.3, 1, 3}): equal to 1e-9; eq. (9) "
        "against Q^T theta",
        check_remap,
        "theorem",
    ),
    Spec(
        "kss.appC_derivative",
        PAPER,
        "App. C",
        "I'(k) = (eps e^eps d - (e^eps - 1)(k e^eps + d - k))/(k e^eps + d - k)^2; beta = (eps e^eps - e^eps + 1) d/"
        "(e^eps - 1)^2 is the only extrema point in (0, d); I'(k) >= 0 on (0, beta), <= 0 on (beta, d)",
        "I_k of eq. (4) for real k in (0, d)",
        "Richardson-extrapolated central differences of I_k on 60 k per (d, eps), d in {2,3,10,50,400}, "
        "eps in {0.1,0.5,1,3,6}; sign of I' on each side of beta",
        check_appC,
        "proof-step",
    ),
]
