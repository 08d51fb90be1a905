"""Certified design at scale (issue 16): structured exact pricing versus today's pricing, in one run.

Rows: ``ours`` is ``mechopt.solve(prob, solver="exact", method="colgen")`` with the
default (structured) pricing: the knapsack branch and bound for ε-LDP mutual
information, the parametric sweep for ε-LIP MSE of a sum, the separable branch and
bound for ε-LIP histogram MSE; a warm-started HiGHS master; several columns per
round. ``old`` is the same column generation with today's pricing
(``pricing="milp"``: the tangent-cut MILP for LDP-MI; ``pricing="enumerate"``
for LIP-MSE: all vertices stored) and a fresh master each round, under a time
limit; for LIP histogram it is the chord branch and bound that priced every d
before the meet in the middle; for equal-value priors (``uniform``, ``Gclass``:
G classes of equal prior value, ``Gequal``: G classes of mass 1/G) ``ours`` is the default exact solver (orbit LP,
≤ d outputs);
(since w16e: ``old`` for equal-value priors is the orbit column generation with
the MILP-node orbit pricing, ``ours`` the lattice pricing; the dense-Q change it
measured before is merged); ``naive`` the full LP over every ray with HiGHS's *default* tolerances, where it
fits. ``ratio`` = old_s / ours_s. Priors: Dirichlet(1) and Zipf(1.1) in a random
order (arbitrary, non-symmetric), seed fixed per row. The gap is the certificate's
relative gap (target ≤ 1e-8).

Run ``python benchmarks/bench_structured.py FAMILY D EPS PRIOR [--old] [--naive] [--repeats N]``
(FAMILY in ldp-mi, lip-mse, lip-histogram, lip-mi; PRIOR in dirichlet, zipf, uniform, Gclass, Gequal); one markdown row.
``--stabilise ALPHA`` (experiment, w16f): ``ours`` with exact LIP pricing every round (no early
stop) and Wentges dual smoothing ALPHA in column generation.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from scipy.optimize import linprog

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact import colgen as _colgen
from mechopt.solvers.exact.rays import ldp_rays, lip_vertices

NAIVE_MAX_D = 20  # the full LP over 2^d − 1 LDP patterns beyond this does not fit in memory


def prior(kind: str, d: int, seed: int = 0) -> np.ndarray:
    """dirichlet, zipf, uniform, ``Gclass``: G classes of equal prior value (random sizes and masses), or
    ``Gequal``: G classes of equal total mass 1/G (random sizes, so different per-symbol values)."""
    rng = np.random.default_rng(seed + d)
    if kind == "uniform":
        return np.full(d, 1.0 / d)
    if kind.endswith("class") or kind.endswith("equal"):
        g = int(kind[:-5])
        sizes = np.diff(np.r_[0, np.sort(rng.choice(np.arange(1, d), g - 1, replace=False)), d])
        mass = rng.dirichlet(np.ones(g)) if kind.endswith("class") else np.full(g, 1.0 / g)
        return rng.permutation(np.repeat(mass / sizes, sizes))
    if kind == "zipf":
        P = rng.permutation(1.0 / np.arange(1, d + 1) ** 1.1)
    else:
        P = rng.dirichlet(np.ones(d))
    return P / P.sum()


def problem(family: str, P: np.ndarray, eps: float) -> ChannelDesign:
    notion, utility = {
        "ldp-mi": ("ldp", "mi"),
        "lip-mse": ("lip", "mse"),
        "lip-histogram": ("lip", "histogram"),
        "lip-mi": ("lip", "mi"),
    }[family]
    return ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=eps)


def naive(prob: ChannelDesign) -> tuple[float, float]:
    """Full LP over every ray, HiGHS defaults: (value in problem units, seconds)."""
    cp = prob.column_program()
    t = time.perf_counter()
    R = ldp_rays(cp.prior, cp.notion.eps) if cp.notion.name == "ldp" else lip_vertices(cp.prior, cp.notion.eps)
    res = linprog(-cp.gain(R), A_eq=R, b_eq=cp.prior, bounds=(0, None), method="highs")
    return cp.value_of(-res.fun), time.perf_counter() - t


def old_symmetric(prob: ChannelDesign, limit: float):
    """Equal-value priors before w16e: the same orbit LP and column generation, orbit pricing by MILP nodes only."""
    from mechopt.solvers.exact.orbits import pricing as _orbit_price

    keep = _orbit_price.PRICING
    _orbit_price.PRICING = "milp"
    try:
        return mechopt.solve(prob, solver="exact", time_limit=limit)
    finally:
        _orbit_price.PRICING = keep


def old_lip_separable(prob: ChannelDesign, limit: float):
    """LIP histogram before issue 16: the chord branch and bound at every d."""
    from mechopt.solvers.exact import columns as _exact_columns
    from mechopt.solvers.exact.pricing import lip as _lip_pricing

    keep = _lip_pricing.MITM_MAX_D
    _lip_pricing.MITM_MAX_D = _exact_columns.MITM_MAX_D = 0
    try:
        return mechopt.solve(prob, solver="exact", method="colgen", time_limit=limit)
    finally:
        _lip_pricing.MITM_MAX_D = _exact_columns.MITM_MAX_D = keep


def old(prob: ChannelDesign, family: str, limit: float, symmetric: bool = False):
    if symmetric:
        return old_symmetric(prob, limit)
    if family == "lip-histogram":
        return old_lip_separable(prob, limit)
    pricing = "milp" if family == "ldp-mi" else "enumerate"
    orig = _colgen.column_generation

    def fresh(*a, **k):  # today's master: re-solved from scratch each round
        return orig(*a, **{**k, "warm": False})

    _colgen.column_generation = fresh
    import mechopt.solvers.exact.methods as M

    M.column_generation = fresh
    try:
        return mechopt.solve(prob, solver="exact", method="colgen", pricing=pricing, enum_max_d=1, time_limit=limit)
    finally:
        _colgen.column_generation = orig
        M.column_generation = orig


def stabilised(alpha: float):
    """A context for w16f's experiment: exact LIP pricing every round (no early stop) and Wentges
    smoothing α in column generation; restores both on exit."""
    import contextlib
    import functools

    from mechopt.solvers.exact import methods as _exact_methods
    from mechopt.solvers.exact.pricing import lip as _lip_pricing

    @contextlib.contextmanager
    def ctx():
        orig_cg, orig_init = _exact_methods.column_generation, _lip_pricing.LIPSeparablePricer.__init__

        def init(self, *a, **k):
            orig_init(self, *a, **{**k, "early": False})

        _exact_methods.column_generation = functools.partial(orig_cg, smoothing=alpha)
        _lip_pricing.LIPSeparablePricer.__init__ = init
        try:
            yield
        finally:
            _exact_methods.column_generation, _lip_pricing.LIPSeparablePricer.__init__ = orig_cg, orig_init

    return ctx()


# A standalone script (run it with python; see the module docstring): `mechopt bench` runs no case of it.
CASES: list = []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("family")
    ap.add_argument("d", type=int)
    ap.add_argument("eps", type=float)
    ap.add_argument("prior")
    ap.add_argument("--old", action="store_true")
    ap.add_argument("--naive", action="store_true")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--limit", type=float, default=600.0)
    ap.add_argument("--old-limit", type=float, default=120.0)
    ap.add_argument(
        "--stabilise",
        type=float,
        default=None,
        metavar="ALPHA",
        help="experiment (w16f): exact LIP pricing every round and Wentges smoothing ALPHA",
    )
    a = ap.parse_args()
    P = prior(a.prior, a.d)
    prob = problem(a.family, P, a.eps)
    times, r = [], None
    symmetric = a.prior == "uniform" or a.prior.endswith("class") or a.prior.endswith("equal")
    method = {} if symmetric else {"method": "colgen"}  # equal values: the exact solver picks the orbit LP
    for _ in range(a.repeats):
        t = time.perf_counter()
        if a.stabilise is not None:
            with stabilised(a.stabilise):
                r = mechopt.solve(prob, solver="exact", time_limit=a.limit, **method)
        else:
            r = mechopt.solve(prob, solver="exact", time_limit=a.limit, **method)
        times.append(time.perf_counter() - t)
    ours = statistics.median(times)
    gap = r.certificate.gap if r.certificate else None
    cells = [
        f"{a.family} d={a.d} {a.prior} eps={a.eps:g}",
        r.status.value,
        f"{r.value:.12g}" if r.value is not None else "–",
        "–" if gap is None else f"{gap:.2g}",
        f"{ours:.3g}",
        str(r.iterations),
        str(r.extras.get("columns", r.extras.get("outputs"))),
    ]
    note = []
    if a.old:
        t = time.perf_counter()
        ro = old(prob, a.family, a.old_limit, symmetric)
        ot = time.perf_counter() - t
        same = ro.value is not None and r.value is not None and abs(ro.value - r.value) <= 1e-9
        cells += [
            f"{ot:.3g}{'' if ro.status.value == 'optimal' else ' (' + ro.status.value + ')'}",
            f"{ot / ours:.3g}×",
        ]
        note.append(f"old {ro.extras.get('pricing')}: value {ro.value!r}, same within 1e-9: {same}")
    else:
        cells += ["–", "–"]
    if a.naive and a.family == "ldp-mi" and a.d > NAIVE_MAX_D:
        cells += [f"does not fit (2^{a.d} rays)", "–"]
    elif a.naive:
        v, nt = naive(prob)
        sign = 1 if r.sense == "max" else -1
        cells += [f"{nt:.3g}", f"{nt / ours:.3g}×"]
        note.append(
            f"naive default-tolerance LP value is {sign * (r.value - v):.2g} "
            f"{'below' if sign * (r.value - v) > 0 else 'above'} the certified optimum"
        )
    else:
        cells += ["–", "–"]
    cells.append(f"{a.repeats} run(s), median; " + "; ".join(note))
    print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
