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

import numpy as np
from bench_geo import lp_model

from mechopt.problems.geo import GeoDesign
from mechopt.solvers.lp.cones import MetricCone, essential_pairs


def full_lp(C: np.ndarray, D: np.ndarray, eps: float, pairs: np.ndarray) -> tuple[str, float, np.ndarray]:
    """min Σ C Q s.t. rows sum to 1, Q[x, y] ≤ e^{ε d} Q[x', y] on ``pairs`` both ways (HiGHS IPM): value, u."""
    h = lp_model(C, D, eps, pairs, solver="ipm")
    h.run()
    u = np.asarray(h.getSolution().row_dual, float)[-C.shape[0] :]
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
