"""Using a mechanism: randomize and estimate at n = 10⁷ reports against the numpy floor, in one process.

``randomize`` rows: :meth:`mechopt.Mechanism.randomize_indices` of n = 10⁷
inputs (quick: 10⁵) drawn uniformly, for a random channel Q (d × d, rows
Dirichlet(1): every output possible from every input, the hardest case for
the alias tables' cache) at d ∈ {16, 256, 1024} (quick: 16). The floor is what
any sampler must do: numpy drawing the n uniforms (``Generator.random``, PCG64)
and writing an int array of n (``(u * d).astype(intp)``: the uniform
categorical, the cheapest mechanism). ``ratio`` = ours_s / floor_s (a
slowdown; goal ≤ 3), each the best of ``repeats`` runs alternated in this
process after a warm-up call (on a shared machine, the least disturbed run).
The notes give the one-off alias-table build time, and the time with two
threads (same reports; the machine's other load shows in it).

``GRR`` row: the same sampler on GRR's d × d matrix (d = 256) against the
specialised :class:`mechopt.oracles.frequency.GRR` randomizer; ratio =
ours_s / reference_s.

``estimate`` rows: :meth:`mechopt.Mechanism.estimate` with ``ci=0.95`` from
the n reports (counting them with ``bincount`` included), per method, best of
``repeats``; the reference is ``numpy.bincount`` of the reports alone (the
pass every estimator needs); ratio = ours_s / reference_s.

Run ``python benchmarks/bench_mechanism.py [--quick]`` or ``mechopt bench``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mechopt import Mechanism
from mechopt.jobs.bench import timed
from mechopt.oracles.frequency import GRR


def _sizes(quick: bool) -> tuple[int, tuple[int, ...], int]:
    return (10**5, (16,), 2) if quick else (10**7, (16, 256, 1024), 5)


def _channel(d: int) -> np.ndarray:
    return np.random.default_rng(d).dirichlet(np.ones(d), size=d)


def _alternated(a: Any, b: Any, repeats: int) -> tuple[float, float]:
    """Best times of ``a()`` and ``b()`` after one warm-up call each, timed alternately (the least
    disturbed run of each on a shared machine; the load hits both alike)."""
    a(), b()
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(timed(a, 1)[0])
        tb.append(timed(b, 1)[0])
    return min(ta), min(tb)


def case_randomize(quick: bool = False) -> list[dict[str, Any]]:
    """Mechanism.randomize_indices on a random d × d Q vs numpy's n uniforms + an int array of n."""
    n, ds, repeats = _sizes(quick)
    rows = []
    for d in ds:
        m = Mechanism(_channel(d))
        x = np.random.default_rng(0).integers(0, d, n)
        t0 = time.perf_counter()
        m.randomize_indices(x[:1], 0)  # builds the alias tables once
        build = time.perf_counter() - t0

        def floor() -> np.ndarray:
            return (np.random.default_rng(1).random(n) * d).astype(np.intp)

        def ours() -> np.ndarray:
            return m.randomize_indices(x, 1)

        t_ours, t_floor = _alternated(ours, floor, repeats)
        t_two = timed(lambda: m.randomize_indices(x, 1, threads=2), repeats, best=True)[0]
        rows.append(
            {
                "group": "mechanism",
                "case": f"randomize d={d} n={n:.0e}",
                "ours": "Mechanism.randomize_indices (alias tables)",
                "ours_s": t_ours,
                "reference": "numpy floor: Generator.random(n) + int array of n",
                "reference_s": t_floor,
                "ratio": t_ours / t_floor,
                "repeats": repeats,
                "notes": f"ratio = ours/floor (slowdown; goal <= 3); {n / t_ours:,.0f} reports/s; alias tables "
                f"built in {build:.3f} s; threads=2: {t_two:.3f} s (same reports)",
            }
        )
    return rows


def case_grr(quick: bool = False) -> list[dict[str, Any]]:
    """The generic sampler on GRR's matrix vs mechopt's specialised GRR randomizer."""
    n, _, repeats = _sizes(quick)
    d = 16 if quick else 256
    grr = GRR(d, 1.0)
    m = Mechanism(grr)
    x = np.random.default_rng(0).integers(0, d, n)
    m.randomize_indices(x[:1], 0)
    t_ours, t_ref = _alternated(
        lambda: m.randomize_indices(x, 1), lambda: grr.randomize(x, np.random.default_rng(1)), repeats
    )
    return [
        {
            "group": "mechanism",
            "case": f"randomize GRR d={d} n={n:.0e} eps=1",
            "ours": "Mechanism(GRR).randomize_indices",
            "ours_s": t_ours,
            "reference": "mechopt.oracles GRR.randomize",
            "reference_s": t_ref,
            "ratio": t_ours / t_ref,
            "repeats": repeats,
            "notes": "ratio = ours/reference (slowdown): the generic alias sampler against the specialised one",
        }
    ]


def case_estimate(quick: bool = False) -> list[dict[str, Any]]:
    """Mechanism.estimate (count + estimator + 95% intervals) per method vs numpy.bincount of the reports."""
    n, ds, repeats = _sizes(quick)
    rows = []
    for d in ds:
        Q = _channel(d)
        m = Mechanism(Q, prior=np.full(d, 1.0 / d))
        theta = np.random.default_rng(2).dirichlet(np.full(d, 2.0))
        y = m.randomize_indices(np.random.default_rng(3).choice(d, size=n, p=theta), 4)
        m.estimate_counts(np.bincount(y, minlength=d))  # the linear operator is built once
        t_ref = timed(lambda: np.bincount(y, minlength=d), repeats, best=True)[0]
        for method in ("linear", "em", "posterior"):
            m.estimate(y[:1000], method=method, ci=0.95)  # warm-up (imports, cached operators)
            t, est = timed(lambda: m.estimate(y, method=method, ci=0.95), repeats, best=True)
            err = float(np.abs(est.frequencies - theta).max())
            rows.append(
                {
                    "group": "mechanism",
                    "case": f"estimate {method} d={d} n={n:.0e}",
                    "ours": f"Mechanism.estimate(method={method!r}, ci=0.95)",
                    "ours_s": t,
                    "reference": "numpy.bincount of the reports",
                    "reference_s": t_ref,
                    "ratio": t / t_ref,
                    "repeats": repeats,
                    "notes": f"ratio = ours/bincount; max |error| vs the sampled distribution {err:.2g}"
                    + (f"; {est.iterations} EM steps" if est.iterations else ""),
                }
            )
    return rows


CASES = [case_randomize, case_grr, case_estimate]

if __name__ == "__main__":  # pragma: no cover
    import json
    import sys

    quick = "--quick" in sys.argv
    for c in CASES:
        for r in c(quick):
            print(json.dumps(r), flush=True)
