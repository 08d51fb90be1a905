"""LIP paper benchmark: Fig. 8 at N = 50 000 users with local priors, 10 000 Monte-Carlo runs per point.

Case ``fig8``: the four localized models of Fig. 8 (eps-Opt-LIP, eps/2-Opt-LIP,
eps-Opt-LDP, and Theorem 2's closed form), eps = 0.5, 1, ..., 5, each point a
Proposition-2 aggregate of per-user optima simulated by :func:`mechopt.oracles.simulate.simulate`
(users sharing a prior are sampled through multinomial counts, cost independent of N).
Target: under 60 s in total.

``ours`` is the worst |MC − analytic| / se over all points (a z-score; ~N(0,1) when
the engine is right), ``ours_s`` the wall time. The reference is the plain per-user
vectorised sampler :func:`mechopt.oracles.simulate.simulate_users` (cost ∝ N × runs), timed
on ``REF_RUNS`` runs of one point and extrapolated linearly to the same work;
``ratio`` = reference_s / ours_s (speed-up).
"""

from __future__ import annotations

import time

import numpy as np

from mechopt.figures.lip.figures import fig8_point, fig8_priors
from mechopt.oracles.simulate import mmse_table, simulate_users
from mechopt.problems.lip import closed as cf

N = 50_000
RUNS = 10_000
REF_RUNS = 40


def _reference_time(p1s: np.ndarray, eps: float, runs: int, seed: int) -> tuple[float, float]:
    Qs = np.stack([cf.binary_ldp_channel(eps)] * p1s.size)
    pri = np.column_stack([1 - p1s, p1s])
    G = np.stack([mmse_table(Qs[0], p, [0.0, 1.0]) for p in pri])
    F = np.tile([0.0, 1.0], (p1s.size, 1))
    t0 = time.perf_counter()
    mc = simulate_users(Qs, pri, F, G, runs=runs, rng=seed)
    elapsed = time.perf_counter() - t0
    exact = sum(cf.binary_ldp_mse(p, eps) for p in p1s)
    return elapsed, abs(mc.mse - exact) / mc.se


def fig8(quick: bool) -> list[dict]:
    runs = 1_000 if quick else RUNS
    eps_grid = [0.5, 2.5, 5.0] if quick else [round(0.5 * k, 1) for k in range(1, 11)]
    p1s = fig8_priors(N)
    rng = np.random.default_rng(8)
    t0 = time.perf_counter()
    rows = []
    for eps in eps_grid:
        rows += fig8_point(p1s, eps, runs, rng, cip=False)
    ours_s = time.perf_counter() - t0
    z = max(abs(r["mc"] - r["analytic_exact"]) / r["mc_se"] for r in rows)
    ref_runs = 10 if quick else REF_RUNS
    t_ref, z_ref = _reference_time(p1s, 1.0, ref_runs, seed=9)
    reference_s = t_ref * (runs / ref_runs) * len(rows)
    return [
        {
            "group": "lip",
            "case": f"fig8 N={N} runs={runs} points={len(rows)}",
            "ours": z,
            "ours_s": ours_s,
            "reference": z_ref,
            "reference_s": reference_s,
            "ratio": reference_s / ours_s,
            "repeats": 1,
            "notes": f"ours: count-aggregated MC (100 prior levels); reference: per-user sampler timed on "
            f"{ref_runs} runs and extrapolated x{runs / ref_runs * len(rows):.0f}; ours/reference = worst "
            "|MC-analytic|/se",
        }
    ]


CASES = [fig8]

if __name__ == "__main__":
    import json
    import sys

    for case in CASES:
        print(json.dumps(case("--quick" in sys.argv), indent=1))
