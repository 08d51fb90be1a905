"""Euclidean geo-indistinguishability certified through the full essential-pairs LP (issue 29, goal 2 experiment).

One HiGHS interior-point solve of the whole LP (n² variables, a row per essential pair and output, the n row
sums), then the certificate of :mod:`mechopt.solvers.lp.colgen`: for *any* row prices u,
Σ_x u_x + Σ_y min(0, β_y) is a lower bound, with β_y the exact pricing bound of
:class:`mechopt.solvers.lp.cones.MetricCone` (weak duality, no trust in HiGHS's accuracy). With u = the LP's
row-sum duals the bound meets the LP value. Not wired into the ``lp`` solver yet (see RESULTS_geo.md).

Run ``python benchmarks/geo_full_lp_certificate.py 10x10 0.1``.
"""

from __future__ import annotations

import os
import sys
import time

import highspy
import numpy as np
import scipy.sparse as sp

from mechopt.problems.geo import GeoDesign
from mechopt.solvers.lp.cones import MetricCone, essential_pairs


def full_lp(C: np.ndarray, D: np.ndarray, eps: float, pairs: np.ndarray) -> tuple[str, float, np.ndarray]:
    """min Σ C Q s.t. rows sum to 1, Q[x, y] ≤ e^{ε d} Q[x', y] on ``pairs`` both ways (HiGHS IPM): value, u."""
    n, m = C.shape
    a, b = np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]])
    k = a.size
    r = np.arange(k * m)
    Y, X1, X2 = np.repeat(np.arange(m), k), np.tile(a, m), np.tile(b, m)
    gain = np.tile(np.exp(eps * D[a, b]), m)
    vals = np.concatenate([-np.ones(k * m), gain, np.ones(n * m)])
    rows = np.concatenate([r, r, k * m + np.repeat(np.arange(n), m)])
    cols = np.concatenate([X1 * m + Y, X2 * m + Y, np.arange(n * m)])
    A = sp.csc_matrix((vals, (rows, cols)), shape=(k * m + n, n * m))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("solver", "ipm")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n * m, k * m + n
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = C.ravel(), np.zeros(n * m), np.full(n * m, np.inf)
    lp.row_lower_ = np.concatenate([np.zeros(k * m), np.ones(n)])
    lp.row_upper_ = np.concatenate([np.full(k * m, np.inf), np.ones(n)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    h.passModel(lp)
    h.run()
    u = np.asarray(h.getSolution().row_dual, float)[k * m :]
    return str(h.getModelStatus()), float(h.getInfo().objective_function_value), u


def proven_bound(C: np.ndarray, D: np.ndarray, eps: float, pairs: np.ndarray, u: np.ndarray) -> float:
    """Σ u + Σ_y min(0, β_y) with β_y a proven lower bound of min (C_y − u)·q over admissible q ≤ 1."""
    cone = MetricCone(D, eps, start=pairs, complete=True)
    bound = float(u.sum())
    for y in range(C.shape[1]):
        c = C[:, y] - u
        if c.min() < 0:
            bound += min(0.0, cone.price(y, c, 0.0)[2])
    return bound


def main() -> None:
    shape, eps = sys.argv[1], float(sys.argv[2])
    prob = GeoDesign.from_params(coords=f"grid:{shape}", eps=eps)
    D = prob.places.distances()
    C = prob.prior[:, None] * prob.utility.L
    pairs = essential_pairs(D, np.array(np.triu_indices(D.shape[0], 1)).T)
    t0 = time.perf_counter()
    status, value, u = full_lp(C, D, eps, pairs)
    t1 = time.perf_counter()
    bound = proven_bound(C, D, eps, pairs, u)
    gap = (value - bound) / max(abs(value), abs(bound))
    print(
        f"euclid {shape} eps={eps:g}: {len(pairs)} essential pairs, LP {status} value {value:.12g} in {t1 - t0:.1f} s; "
        f"proven bound {bound:.12g} (rel. gap {gap:.1e}) in {time.perf_counter() - t1:.1f} s; "
        f"load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
