"""Location privacy at real sizes (issue 29): the ``lp`` solver against plain HiGHS LPs, in one run.

Shapes: ``line`` (n points, unit steps, metric-LDP with d = |x − x'|), ``grid`` (an r × c grid
with n = r·c, graph-LDP on the four neighbours, i.e. metric-LDP for the grid's path metric) and
``euclid`` (the same grid with Euclidean geo-indistinguishability: every pair constrained by
e^{ε‖x − x'‖}). Uniform prior, loss = Euclidean distance between the true and the reported point.

``ours`` is ``mechopt.solve(prob, solver="lp")`` (certified: status, value, relative gap).
``adjacent`` is the issue's 40-line LP: all n² variables in one HiGHS model with the
neighbour pairs only (exact for ``line`` and ``grid``, a relaxation for ``euclid``);
``all-pairs`` the same with every pair (run where it is small enough: n ≤ ``--all-pairs-max``).
Each reference has a time limit; a reference that hits it is reported as such.

Run ``python benchmarks/bench_geo.py [--shapes line grid euclid] [--sizes 40 100 400 1000] [--eps 0.1]
[--limit 600]`` for the markdown table; ``mechopt bench`` runs ``CASES`` (small sizes).
"""

from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np

import mechopt
from mechopt.problems.geo import GeoDesign
from mechopt.solvers.lp.full import pair_lp

GRIDS = {40: (5, 8), 100: (10, 10), 400: (20, 20), 1000: (25, 40)}


def problem(shape: str, n: int, eps: float) -> GeoDesign:
    if shape == "line":
        return GeoDesign.from_params(coords=f"line:{n}", eps=eps)
    r, c = GRIDS[n]
    notion = "graph-ldp" if shape == "grid" else "metric-ldp"
    return GeoDesign.from_params(coords=f"grid:{r}x{c}", eps=eps, notion=notion)


def lp_model(C: np.ndarray, D: np.ndarray, eps: float, pairs: np.ndarray, limit: float | None = None,
             solver: str | None = None):  # fmt: skip
    """One HiGHS model of min Σ C Q s.t. rows sum to 1 (the last n rows), Q[x,y] ≤ e^{ε d} Q[x',y] on ``pairs``."""
    return pair_lp(C, D, eps, pairs, limit=limit, solver=solver)


def plain_lp(prob: GeoDesign, pairs: np.ndarray, limit: float) -> tuple[str, float | None, float]:
    """min Σ P L Q s.t. rows sum to 1, Q[x,y] ≤ e^{ε d} Q[x',y] on ``pairs`` (both ways): one HiGHS model."""
    import highspy

    t0 = time.perf_counter()
    C = prob.prior[:, None] * prob.utility.L
    h = lp_model(C, prob.places.distances(), prob.notion.eps, pairs, limit)
    h.run()
    ok = h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    val = h.getInfo().objective_function_value if ok else None
    return ("optimal" if ok else str(h.getModelStatus()).split(".")[-1]), val, time.perf_counter() - t0


def neighbour_pairs(prob: GeoDesign) -> np.ndarray:
    D = prob.places.distances()
    iu = np.array(np.triu_indices(D.shape[0], 1)).T
    return iu[np.isclose(D[iu[:, 0], iu[:, 1]], prob.places.spacing)]


def all_pairs(prob: GeoDesign) -> np.ndarray:
    return np.array(np.triu_indices(prob.places.n, 1)).T


def ours(prob: GeoDesign, **opts) -> tuple[mechopt.Result, float]:
    t0, c0 = time.perf_counter(), time.process_time()
    r = mechopt.solve(prob, solver="lp", **opts)
    r.extras["cpu_s"] = time.process_time() - c0  # the machine is shared: CPU seconds beside the wall clock
    return r, time.perf_counter() - t0


def row(shape: str, n: int, eps: float, limit: float, all_max: int) -> str:
    prob = problem(shape, n, eps)
    r, s = ours(prob)
    gap = f"{r.extras['relative_gap']:.1e}"
    cells = [f"{shape} n={n} eps={eps:g}", r.status.value, f"{r.value:.10g}", gap, f"{s:.3g} ({r.extras['cpu_s']:.3g})"]
    for name, pairs, on in (("adjacent", neighbour_pairs, True), ("all-pairs", all_pairs, n <= all_max)):
        if not on:
            cells += ["–", "–"]
            continue
        st, val, t = plain_lp(prob, pairs(prob), limit)
        same = "" if val is None else f" (Δ {abs(val - r.value) / max(abs(val), 1e-300):.0e})"
        ratio = f"{t / s:.3g}x" if val is not None else "–"
        cells += [f"{st} {t:.3g} s" if val is None else f"{val:.10g}{same}", ratio]
    cells.append(f"{r.extras['rounds']}/{r.extras['pricing_lps']}/{r.extras['pair_rows']}")
    cells.append(f"{os.getloadavg()[0]:.1f}")
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| case | lp status | lp value | rel. gap | lp s (CPU s) | adjacent LP (value, Δ) | adj/lp | all-pairs LP | all/lp "
    "| rounds/pricing LPs/pair rows | load |\n|---|---|---|---|---|---|---|---|---|---|---|"
)


def _case(shape: str, n: int, eps: float):
    def case(quick: bool) -> list[dict]:
        prob = problem(shape, n, eps)
        r, s = ours(prob)
        st, val, t = plain_lp(prob, neighbour_pairs(prob), 120.0)
        gap = "" if val is None else f", |Δ value| {abs(val - r.value):.1e}"
        return [
            {
                "group": "geo",
                "case": f"{shape} n={n} eps={eps:g}",
                "ours": f"lp ({r.status.value}, gap {r.extras['relative_gap']:.1e})",
                "ours_s": s,
                "reference": f"adjacent-pairs HiGHS LP ({st}{gap})",
                "reference_s": t,
                "repeats": 1,
                "notes": "ratio = reference / lp; one run each (shared machine)",
            }
        ]

    return case


CASES = [_case("line", 40, 0.1), _case("grid", 40, 0.1), _case("grid", 100, 0.5)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shapes", nargs="+", default=["line", "grid", "euclid"], choices=["line", "grid", "euclid"])
    ap.add_argument("--sizes", nargs="+", type=int, default=[40, 100, 400, 1000])
    ap.add_argument("--eps", type=float, default=0.1)
    ap.add_argument("--limit", type=float, default=600.0, help="time limit of each reference LP (s)")
    ap.add_argument("--all-pairs-max", type=int, default=40)
    a = ap.parse_args()
    ours(problem("line", 5, 1.0))  # warm-up: imports and HiGHS load outside the timings
    print(HEADER, flush=True)
    for shape in a.shapes:
        for n in a.sizes:
            if shape != "line" and n not in GRIDS:
                continue
            print(row(shape, n, a.eps, a.limit, a.all_pairs_max), flush=True)
    if not math.isfinite(a.eps):
        raise SystemExit(2)


if __name__ == "__main__":
    main()
