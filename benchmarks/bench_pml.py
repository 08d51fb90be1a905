"""ε-PML and ALIP benchmark: certified designs at d = 64 (arbitrary prior) against naive LPs at d = 16, in one run.

Rows (``ours``: ``mechopt.solve``; ``reference``: a naive LP solved by scipy's HiGHS):

- ``<notion>-mae d=16`` and ``d=64``: expected absolute error (a utility linear in Q), solver ``lp``
  (column generation with fractional-knapsack pricing and a proven bound). Reference: the full LP
  with all d × d entries of Q as variables and the 2d² (PML: d²) privacy rows, at d = 16; the
  d = 16 row compares like with like, the d = 64 row reports the naive d = 16 time beside ours and,
  in its notes, the full LP at d = 64 as well. For a linear utility at these sizes the full LP
  (4096 variables at d = 64) is the faster method: the ``lp`` solver's column generation pays off
  at thousands of inputs (geo designs), not here.
- ``<notion>-mse d=64``: MSE of the identity (a convex gain), solver ``exact`` (column generation
  with the exact parametric-sweep pricing over the vertices of the posterior box). Reference: the
  naive LP over every vertex of the box (all enumerated) at d = 16, one HiGHS call.
- ``<notion>-mi d=64`` and ``<notion>-histogram d=64`` (pml, and alip at ε_u = 1, ε_l = 0.5): mutual
  information and histogram MSE, solver ``exact`` (above d = 36: column generation started at the
  chord duals, the proven Lagrangian bound and a core-face meet-in-the-middle search on the box
  l ≤ p ≤ h, :mod:`mechopt.solvers.exact.pricing.pml`). Reference: the naive LP over every vertex of
  the box at d = 16, one HiGHS call; the notes give the d = 16 exact value against it.
- ``robust-<utility> d=16/32/64``: designs over a set of 3 Dirichlet(1) priors under ε-LDP, the worst
  vertex optimised: ``mae`` by ``robust-lp`` (one LP), ``mi`` and ``mse`` by ``robust-rays`` (column
  generation over LDP patterns; exact subset-sum pricing to d = 20, above it the tangent-cut MILP for
  mi and a heuristic for mse, whose rows then say "no certificate"), each under a time limit.
  ``robust-<utility> d=12``: robust-rays against the naive LP over all 4095 patterns (one HiGHS call).
  ``robust-mi d=32 trees vs branch``: the default meet-in-the-middle tree pricer (to d = 40) against
  ``mi_pricer="branch"`` (search + branch and bound), same time limit, in one run.

- ``ball-mae d=8/16/32/64``: (ε, δ)-PML from counts (Dirichlet(1) prior, 200·d samples, δ = 1e-3, Weissman TV
  ball held by its inequalities, ``robust-lp``): the design, then its certificate file (the witness of
  :mod:`mechopt.solvers.robust.witness`, found on save) and the exact check (:mod:`mechopt.certball`), timed in
  the notes. Reference at d = 8: the vertex form over every Qhull vertex of the same ball.

- ``lip-<utility> d=48/64 ε=0.5/1/2``: ε-LIP (the ALIP box with ε_l = ε_u = ε) with histogram MSE and
  mutual information, Dirichlet(1) prior (seed d), solver ``exact`` under a 60 s time limit: above d = 36
  the ALIP box pricer. No reference column: the before rows are this case run under main's interpreter.

- ``tails``: the high-ε tails at d = 64, PML MI ε = 2 and ALIP MI (ε_u, ε_l) = (2, 1), under a 300 s limit
  (``--quick``: 120 s); ALIP is certified by the flip-set search (:mod:`mechopt.solvers.exact.pricing.flips`).

Run ``python benchmarks/bench_pml.py [--quick] [mae|mse|separable|robust|ball|lip|tails]`` for a table.
"""

from __future__ import annotations

import math
import os
import sys
import time

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact.lp import solve_master
from mechopt.solvers.exact.rays import box_vertices

EPS, EPS_LOWER = 1.0, 0.5
NOTIONS = (("pml", {}), ("alip", {"eps_lower": EPS_LOWER}))


def _prior(d: int) -> np.ndarray:
    return np.random.default_rng(d).dirichlet(np.ones(d))


def full_lp(prob: ChannelDesign) -> float:
    """min Σ C ∘ Q over all d × d entries of Q (HiGHS): rows stochastic, e^{−ε_l} λ_y ≤ Q[x, y] ≤ e^{ε_u} λ_y."""
    P = prob.prior
    C = np.asarray(prob.utility.linear_cost(P), float)
    n, m = C.shape
    lo, hi = prob.notion.factors()
    Lam = sp.kron(sp.csr_matrix(np.tile(P, (n, 1))), sp.identity(m))
    eye = sp.identity(n * m)
    A = sp.vstack([eye - hi * Lam] + ([lo * Lam - eye] if lo > 0 else []))
    Aeq = sp.kron(sp.identity(n), np.ones((1, m)))
    r = linprog(C.ravel(), A_ub=A, b_ub=np.zeros(A.shape[0]), A_eq=Aeq, b_eq=np.ones(n), method="highs")
    return float(r.fun) if r.status == 0 else math.nan


def vertex_lp(prob: ChannelDesign) -> float:
    """One HiGHS LP over every vertex of the posterior box, in the problem's units."""
    cp = prob.column_program()
    R = box_vertices(cp.prior, *cp.notion.deviations(cp.prior))
    return cp.value_of(solve_master(R, cp.gain(R), cp.prior).value)


def _clock(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _row(case, ours, t, ref, t_ref, notes):
    return {"group": "pml", "case": case, "ours": ours, "ours_s": t, "reference": ref, "reference_s": t_ref,
            "ratio": t_ref / t if t > 0 else math.inf, "repeats": 1, "notes": notes}  # fmt: skip


def _design(notion, kw, utility, d):
    return ChannelDesign.from_params(prior=_prior(d), notion=notion, utility=utility, eps=EPS, **kw)


def _references(utility: str, naive):
    """(notion, levels, the d = 16 design, its naive value, the naive time) for each notion."""
    for notion, kw in NOTIONS:
        small = _design(notion, kw, utility, 16)
        yield (notion, kw, small, *_clock(lambda: naive(small)))


def mae(quick: bool) -> list[dict]:
    """Linear utility: lp solver at d = 16 and 64 against the full d × d LP at d = 16."""
    big = 32 if quick else 64
    rows = []
    for notion, kw, small, ref, t_ref in _references("mae", full_lp):
        for d in (16, big):
            prob = _design(notion, kw, "mae", d)
            r, t = _clock(lambda: mechopt.solve(prob, solver="lp"))
            if d == 16:
                same = f"; |Δvalue| vs the full LP {abs(r.value - ref):.1g}"
            else:  # the full LP at the same size too: the honest comparison for a linear utility
                ref_big, t_big = _clock(lambda: full_lp(prob))
                same = f"; full LP at d={d}: {t_big:.3g} s, |Δvalue| {abs(r.value - ref_big):.1g}"
            rows.append(_row(f"{notion}-mae d={d}", f"lp ({r.status.value}, gap {r.certificate.gap:.1g})", t,
                             "full LP over Q, d=16", t_ref,
                             f"value {r.value:.12g}; full LP d=16 value {ref:.12g}{same}; "
                             f"ε_u={EPS}" + (f", ε_l={EPS_LOWER}" if kw else "")))  # fmt: skip
    return rows


def _exact_row(notion, kw, utility, big, small, ref, t_ref, extra=""):
    """The row of ``exact`` at d = ``big`` against the vertex LP at d = 16 (``small``, its value and time)."""
    r16 = mechopt.solve(small, solver="exact")
    prob = _design(notion, kw, utility, big)
    r, t = _clock(lambda: mechopt.solve(prob, solver="exact"))
    return _row(f"{notion}-{utility} d={big}", f"exact ({r.extras.get('method')}, {r.status.value}, "
                f"gap {r.certificate.gap:.1g})", t, "vertex LP, d=16", t_ref,
                f"value {r.value:.12g}; d=16: exact {r16.value:.12g} vs vertex LP {ref:.12g} "
                f"(|Δ| {abs(r16.value - ref):.1g})" + (f"; {r.extras.get('pricing')}" if extra else ""))  # fmt: skip


def mse(quick: bool) -> list[dict]:
    """Convex gain: exact column generation at d = 64 against the full vertex LP at d = 16."""
    big = 32 if quick else 64
    return [_exact_row(notion, kw, "mse", big, small, ref, t_ref) for notion, kw, small, ref, t_ref in
            _references("mse", vertex_lp)]  # fmt: skip


def separable(quick: bool) -> list[dict]:
    """ε-PML and ALIP with mutual information and histogram MSE: exact at d = 64 against the vertex LP at d = 16."""
    big = 40 if quick else 64
    rows = []
    for notion, kw in NOTIONS[:1] if quick else NOTIONS:  # quick: pml only (ALIP (1, 0.5) at d = 40: ~220 s)
        for utility in ("histogram",) if quick else ("mi", "histogram"):  # MI d = 64: ~2-3 min
            small = _design(notion, kw, utility, 16)
            ref, t_ref = _clock(lambda: vertex_lp(small))
            rows.append(_exact_row(notion, kw, utility, big, small, ref, t_ref, extra="pricing"))
    return rows


def _robust(d: int, utility: str, **opts):
    """One robust LDP design over 3 Dirichlet(1) priors on d symbols (seed d): (result, seconds)."""
    from mechopt.problems.robust import RobustDesign

    V = np.random.default_rng(d).dirichlet(np.ones(d), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility=utility, eps=EPS)
    return _clock(lambda: mechopt.solve(prob, **opts))


def pattern_lp(d: int, utility: str) -> float:
    """The naive robust LP: every one of the 2^d − 1 LDP patterns a column, one HiGHS call, gains from numpy."""
    V = np.random.default_rng(d).dirichlet(np.ones(d), size=3)
    Z = ((np.arange(2**d - 1)[:, None] >> np.arange(d)) & 1).astype(float)
    S = 1.0 + math.expm1(EPS) * Z.T
    a = np.arange(d) - (d - 1) / 2
    F = []
    for P in V:
        C, t = P[:, None] * S, P @ S
        F.append(np.sum(C * np.log(S / t), axis=0) if utility == "mi" else (a @ C) ** 2 / t)
    F = np.array(F)
    c = np.zeros(3) if utility == "mi" else -(V @ a**2)
    N = F.shape[1]
    r = linprog(np.r_[np.zeros(N), -1.0], A_ub=np.c_[-F, np.ones(3)], b_ub=c, A_eq=np.c_[S, np.zeros(d)],
                b_eq=np.ones(d), bounds=[(0, None)] * N + [(None, None)], method="highs")  # fmt: skip
    return (-r.fun if utility == "mi" else r.fun) if r.status == 0 else math.nan


def robust(quick: bool) -> list[dict]:
    """Prior-set designs (3 priors, LDP): linear (robust-lp), mi and mse (robust-rays) at d = 16, 32, 64;
    the naive all-pattern LP at d = 12 beside robust-rays at d = 12."""
    rows = []
    limit = 30.0 if quick else 120.0
    for utility in ("mi", "mse"):
        ref, t_ref = _clock(lambda: pattern_lp(12, utility))
        r, t = _robust(12, utility, solver="robust-rays")
        rows.append(_row(f"robust-{utility} d=12", f"robust-rays ({r.status.value}, gap {_gap(r)})", t,
                         "all 4095 patterns, one LP", t_ref,
                         f"value {r.value:.12g} vs naive {ref:.12g} (|Δ| {abs(r.value - ref):.1g}); "
                         f"3 priors, ε={EPS}"))  # fmt: skip
    r, t = _robust(32, "mi", solver="robust-rays", time_limit=limit)  # the trees (default to d = 40)
    b, t_b = _robust(32, "mi", solver="robust-rays", time_limit=limit, mi_pricer="branch")
    rows.append(_row("robust-mi d=32 trees vs branch", f"robust-rays ({r.status.value}, gap {_gap(r)})", t,
                     f"mi_pricer=branch ({b.status.value}, gap {_gap(b)})", t_b,
                     f"value {r.value:.12g} vs {b.value:.12g}; 3 priors, ε={EPS}, time limit {limit:g} s; "
                     f"load {os.getloadavg()[0]:.2f}"))  # fmt: skip
    r, t = _robust(32, "mse", solver="robust-rays", time_limit=limit)  # the ratio branch and bound
    b, t_b = _robust(32, "mse", solver="robust-rays", time_limit=limit, mse_pricer="milp")
    rows.append(_row("robust-mse d=32 ratios vs milp", f"robust-rays ({r.status.value}, gap {_gap(r)})", t,
                     f"mse_pricer=milp ({b.status.value}, gap {_gap(b)})", t_b,
                     f"value {r.value:.12g} vs {b.value:.12g}; 3 priors, ε={EPS}, time limit {limit:g} s; "
                     f"load {os.getloadavg()[0]:.2f}"))  # fmt: skip
    for d in (16, 32) if quick else (16, 32, 64):
        for utility, solver in (("mae", "robust-lp"), ("mi", "robust-rays"), ("mse", "robust-rays")):
            r, t = _robust(d, utility, solver=solver, time_limit=limit)
            pricing = r.extras.get("pricing", "one LP")
            rows.append(_row(f"robust-{utility} d={d}", f"{solver} ({r.status.value}, gap {_gap(r)})", t, "–",
                             math.nan, f"value {r.value:.12g}; pricing {pricing}; 3 priors, ε={EPS}, "
                             f"time limit {limit:g} s"))  # fmt: skip
    return rows


def lip(quick: bool):
    """ε-LIP histogram and MI above d = 36 under a time limit (main's interpreter: the before rows); yields rows."""
    limit = 30.0 if quick else 60.0
    for d in (48,) if quick else (48, 64):
        for utility in ("histogram", "mi"):
            for eps in (0.5, 1.0, 2.0):
                prob = ChannelDesign.from_params(prior=_prior(d), notion="lip", utility=utility, eps=eps)
                r, t = _clock(lambda: mechopt.solve(prob, solver="exact", time_limit=limit))
                value = "none" if r.value is None else f"{r.value:.12g}"
                yield _row(f"lip-{utility} d={d} ε={eps:g}", f"exact ({r.status.value}, gap {_gap(r)})", t, "–",
                           math.nan, f"value {value}; {r.extras.get('pricing')}; time limit {limit:g} s; "
                           f"load {os.getloadavg()[0]:.2f}")  # fmt: skip


def ball(quick: bool) -> list[dict]:
    """(ε, δ)-PML mae from counts over the TV ball by its inequalities: design, certificate file, exact check."""
    import os
    import tempfile

    from mechopt import certball
    from mechopt.problems.robust import BallDesign, EmpiricalPrior, RobustDesign

    rows = []
    for d in (8, 16, 32) if quick else (8, 16, 32, 64):
        rng = np.random.default_rng(d)
        E = EmpiricalPrior.from_counts(rng.multinomial(200 * d, rng.dirichlet(np.ones(d))), 1e-3)
        r, t = _clock(lambda: mechopt.solve(BallDesign.from_params(prior_set=E, notion="pml", eps=EPS)))
        path = os.path.join(tempfile.mkdtemp(), "ball.json")
        _, t_file = _clock(lambda: r.save_certificate(path))
        (code, out), t_check = _clock(lambda: certball.run(path))
        ev = r.certificate.evidence.build()
        notes = (f"value {r.value:.12g}; file {t_file:.2f} s (witness: {len(ev.priors)} priors, {ev.rounds} rounds), "
                 f"certball {t_check:.2f} s ({out['verdict']}, gap {out.get('gap', math.nan):.1g})")  # fmt: skip
        ref, t_ref = "–", math.nan
        if d == 8:
            vert = RobustDesign.from_params(prior_set=E, notion="pml", utility="mae", eps=EPS)
            v, t_ref = _clock(lambda: mechopt.solve(vert, solver="robust-lp"))
            ref = f"vertex form, {len(vert.prior_set.vertices)} Qhull vertices"
            notes += f"; vertex form {v.value:.12g} (|Δ| {abs(v.value - r.value):.1g})"
        rows.append(_row(f"ball-mae d={d}", f"robust-lp ({r.status.value}, gap {_gap(r)})", t, ref, t_ref, notes))
        assert code == 0, out
    return rows


def tails(quick: bool):
    """The high-ε tails at d = 64 (issue 30 item 5): PML MI ε = 2 and ALIP MI (2, 1) under a time limit; yields rows."""
    import os

    limit = 120.0 if quick else 300.0
    for notion, eps, kw in (("alip", 2.0, {"eps_lower": 1.0}), ("pml", 2.0, {})):
        prob = ChannelDesign.from_params(prior=_prior(64), notion=notion, utility="mi", eps=eps, **kw)
        r, t = _clock(lambda: mechopt.solve(prob, solver="exact", time_limit=limit))
        value = "none" if r.value is None else f"{r.value:.12g}"
        case = f"{notion}-mi d=64 ε={eps:g}" + (" ε_l=1" if kw else "")
        yield _row(case, f"exact ({r.status.value}, gap {_gap(r)})", t, "–", math.nan,
                   f"value {value}; time limit {limit:g} s; load {os.getloadavg()[0]:.2f}")  # fmt: skip


def _gap(r) -> str:
    return "none (no certificate)" if r.certificate is None else f"{r.certificate.gap:.1g}"


CASES = [mae, mse, separable, robust, ball, lip, tails]


def main(argv: list[str]) -> None:
    quick = "--quick" in argv
    mechopt.solve(_design("pml", {}, "mi", 3), solver="exact")  # imports paid before the clocks
    only = [c for c in CASES if c.__name__ in argv]  # e.g. ``robust``: one case
    for case in only or CASES:
        for row in case(quick):
            print(f"{row['case']:16s} {row['ours_s']:8.3f} {row['reference_s']:8.3f} {row['ratio']:8.2f}  "
                  f"{row['ours']}; {row['notes']}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1:])
