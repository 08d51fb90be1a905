"""Euclidean geo-indistinguishability certified through the full essential-pairs LP (issue 29, goal 2).

Runs the ``lp`` solver's full path (:mod:`mechopt.solvers.lp.full`): one HiGHS interior-point solve of the
whole LP (n² variables, a row per essential pair, direction and output, the n row sums), then the
column-generation certificate at the LP's row-sum duals u: Σ_x u_x + Σ_y min(0, β_y) with β_y the exact pricing
bound of :class:`mechopt.solvers.lp.cones.MetricCone` (weak duality, no trust in HiGHS's accuracy).

Run ``python benchmarks/geo_full_lp_certificate.py 10x10 0.1``.
"""

from __future__ import annotations

import os
import sys
import time

import mechopt
from mechopt.problems.geo import GeoDesign


def main() -> None:
    shape, eps = sys.argv[1], float(sys.argv[2])
    prob = GeoDesign.from_params(coords=f"grid:{shape}", eps=eps)
    t0 = time.perf_counter()
    r = mechopt.solve(prob, solver="lp", method="full")
    x = r.extras
    print(
        f"euclid {shape} eps={eps:g}: {x['essential_pairs']} essential pairs, {r.status.value}, value {r.value:.12g}, "
        f"bound {r.certificate.bound:.12g} (rel. gap {x['relative_gap']:.1e}); LP {x['lp_s']:.1f} s, bound "
        f"{x['bound_s']:.1f} s, total {time.perf_counter() - t0:.1f} s; load {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
