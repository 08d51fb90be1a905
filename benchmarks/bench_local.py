"""Local solvers against the certified optimum (issue 10, item 3): time and gap.

For non-convex channel designs (ε-LDP mutual information, ε-LIP histogram and
MMSE, arbitrary priors) this times the exact solver (a certified global
optimum) and multi-start SQP in the same run, and reports SQP's relative gap
to the certified value. ``ratio`` is sqp_s / exact_s (> 1: exact is faster).

Run ``python benchmarks/bench_local.py`` for a table, or ``mechopt bench``.
"""

from __future__ import annotations

import sys

import numpy as np

import mechopt
from mechopt.jobs.bench import median_time
from mechopt.problems.design import ChannelDesign

INSTANCES = [  # (label, notion, utility, d, eps)
    ("ldp-mi", "ldp", "mi", 4, 1.0),
    ("ldp-mi", "ldp", "mi", 6, 2.0),
    ("lip-histogram", "lip", "histogram", 4, 0.5),
    ("lip-histogram", "lip", "histogram", 6, 1.0),
    ("lip-mse", "lip", "mse", 5, 1.0),
]


def _problem(notion: str, utility: str, d: int, eps: float, seed: int) -> ChannelDesign:
    prior = np.random.default_rng(seed).dirichlet(np.ones(d))
    return ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=eps)


def local_vs_exact(quick: bool) -> list[dict]:
    """SQP (20 starts; 5 in quick mode) vs exact on arbitrary-prior instances."""
    rows = []
    starts = 5 if quick else 20
    repeats = 1 if quick else 3
    for label, notion, utility, d, eps in INSTANCES[:2] if quick else INSTANCES:
        prob = _problem(notion, utility, d, eps, seed=d)
        exact = mechopt.solve(prob, solver="exact")
        sqp = mechopt.solve(prob, solver="sqp", n_starts=starts)
        t_exact = median_time(lambda: mechopt.solve(prob, solver="exact"), repeats)
        t_sqp = median_time(lambda: mechopt.solve(prob, solver="sqp", n_starts=starts), repeats)
        gap = abs(exact.value - sqp.value) / max(1.0, abs(exact.value))
        worse = sqp.better_than(exact.value) is False and gap > 1e-9
        rows.append(
            {
                "group": "local solvers",
                "case": f"{label} d={d} eps={eps:g}",
                "ours": "exact",
                "ours_s": t_exact,
                "reference": f"sqp x{starts}",
                "reference_s": t_sqp,
                "ratio": t_sqp / t_exact,
                "repeats": repeats,
                "notes": f"exact {exact.value:.10g} (gap {exact.certificate.gap:.1e}); sqp {sqp.value:.10g}, "
                f"rel. gap {gap:.2e}{' (sqp worse)' if worse else ''}",
            }
        )
    return rows


CASES = [local_vs_exact]


def main(argv: list[str]) -> None:
    for row in local_vs_exact("--quick" in argv):
        print(
            f"{row['case']:<28} exact {row['ours_s']:.3f}s  {row['reference']} {row['reference_s']:.3f}s  "
            f"{row['notes']}"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
