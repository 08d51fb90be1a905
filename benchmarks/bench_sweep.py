"""Sweeps (issue 10, item 7): 1 vs 2 local workers, and per-user local-prior designs vs N.

Both cases run through :func:`mechopt.sweep`, i.e. they measure the sweep
machinery users run (task dispatch, solving, auditing, JSON lines), not a
hand-tuned loop.

* ``workers``: the same small design sweep (LIP histogram MSE on 3 symbols,
  a grid of priors × ε, SQP) with ``jobs=1`` (in-process) and ``jobs=2``
  (loky processes, worker start-up included). ratio = time(1) / time(2).
* ``builtin_spec``: the built-in spec ``lip-tradeoff`` (36 points) with its
  solver ``exact`` against ``--solver sqp`` (20 starts, the solver default).
  ratio = time(sqp) / time(exact); notes: statuses and the largest distance.
* ``per_user``: N users, each with a local binary prior p_i ~ U(0.05, 0.95)
  (seeded), each getting its own ε-LIP histogram design (ε = 1) with the
  fastest applicable solver (the closed form when a paper registers one,
  with single-start SQP for the users where the closed form's audit fails,
  else single-start SQP throughout), on 2 local workers. Reported: wall time, users per
  second, and the time per user relative to the smallest N (1.0 = linear).
"""

from __future__ import annotations

import time

import numpy as np

from mechopt.jobs.sweep.run import SweepSpec, sweep

QUICK_N = (50, 200)
FULL_N = (1_000, 10_000, 100_000)
CASE_BUDGET_S = 240.0  # a size whose projected time (at the last measured rate) exceeds this is skipped


def _same(a, b):
    """Same lines except ``time_s``, values equal as floats (solves run with single-threaded BLAS)."""
    strip = lambda lines: sorted(
        ({k: v for k, v in ln.items() if k != "time_s"} for ln in lines), key=lambda ln: ln["key"]
    )
    return strip(a) == strip(b)


def workers(quick: bool) -> list[dict]:
    from joblib.externals.loky import get_reusable_executor

    priors = ["0.2,0.3,0.5", "0.1,0.3,0.6", "uniform:3", "0.05,0.15,0.8"]
    eps = [0.5, 2.0] if quick else [0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0]
    spec = SweepSpec(
        problem="design",
        solvers=("sqp",),
        grid={"prior": priors, "eps": eps},
        fixed={"notion": "lip", "utility": "histogram"},
        options={"sqp": {"n_starts": 5 if quick else 20}},
    )
    get_reusable_executor().shutdown(wait=True)  # cold start: no warm loky workers
    sweep(SweepSpec(**{**spec.__dict__, "grid": {"prior": priors[:1], "eps": eps[:1]}}), jobs=1)  # warm this process
    from mechopt.jobs.bench import median_time

    t0 = time.perf_counter()
    one = sweep(spec, jobs=1)
    t1_cold = time.perf_counter() - t0
    t0 = time.perf_counter()
    two = sweep(spec, jobs=2)
    t2_cold = time.perf_counter() - t0
    t1 = median_time(lambda: sweep(spec, jobs=1), 3)
    t2 = median_time(lambda: sweep(spec, jobs=2), 3)
    same = "yes" if _same(one, two) else "NO"
    rows = []
    for label, a, b, rep in (
        ("cold: worker start-up and imports included", t1_cold, t2_cold, 1),
        ("warm workers", t1, t2, 3),
    ):
        rows.append(
            {
                "group": "sweeps",
                "case": f"1 vs 2 local workers, {len(one)} SQP design points ({label})",
                "ours": "jobs=2 (joblib/loky)",
                "ours_s": b,
                "reference": "jobs=1 (in-process)",
                "reference_s": a,
                "ratio": a / b,
                "repeats": rep,
                "notes": f"identical lines to jobs=1: {same}",
            }
        )
    return rows


def _solver_for_binary_lip() -> str:
    from mechopt import registry
    from mechopt.problems.design import ChannelDesign

    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="histogram", eps=1.0)
    names = registry.solvers_for(prob)
    return "closed-form" if "closed-form" in names else "sqp"


def per_user(quick: bool) -> list[dict]:
    solver = _solver_for_binary_lip()
    rng = np.random.default_rng(0)
    rows, base, last_rate = [], None, None
    for n in QUICK_N if quick else FULL_N:
        if last_rate is not None and n * last_rate > CASE_BUDGET_S:
            rows.append(
                {
                    "group": "sweeps",
                    "case": f"per-user local-prior LIP designs, N={n}",
                    "ours": solver,
                    "ours_s": None,
                    "reference": None,
                    "reference_s": None,
                    "ratio": None,
                    "repeats": 0,
                    "notes": f"not run: about {n * last_rate:.0f} s at the rate measured for the previous N "
                    f"(over this case's {CASE_BUDGET_S:.0f} s budget; the rows above show how the per-user time "
                    "scales)",
                }
            )
            continue
        ps = np.round(rng.uniform(0.05, 0.95, size=n), 6)
        priors = [f"{p:.6f},{1 - p:.6f}" for p in ps]
        fixed = {"notion": "lip", "utility": "histogram", "eps": 1.0}
        spec = SweepSpec(
            problem="design",
            solvers=(solver,),
            grid={"prior": list(dict.fromkeys(priors))},
            fixed=fixed,
            options={"sqp": {"n_starts": 1}},
        )
        t0 = time.perf_counter()
        lines = sweep(spec, jobs=2)
        redo = [ln["point"]["prior"] for ln in lines if ln["status"] != "optimal"]
        if redo and solver != "sqp":  # a closed form outside its theorem's region: design those users by SQP
            fixed_lines = {
                ln["point"]["prior"]: ln
                for ln in sweep(
                    SweepSpec(
                        problem="design",
                        solvers=("sqp",),
                        grid={"prior": redo},
                        fixed=fixed,
                        options={"sqp": {"n_starts": 1}},
                    ),
                    jobs=2,
                )
            }
            lines = [fixed_lines.get(ln["point"]["prior"], ln) for ln in lines]
        dt = time.perf_counter() - t0
        ok = sum(ln["status"] == "optimal" for ln in lines)  # proven (closed form in its region)
        local = sum(ln["status"] == "locally_optimal" for ln in lines)  # the SQP fallback: audited, no proof
        per = dt / len(lines)
        base = per if base is None else base
        last_rate = per
        rows.append(
            {
                "group": "sweeps",
                "case": f"per-user local-prior LIP designs, N={len(lines)}",
                "ours": f"{solver}{' + sqp fallback' if solver != 'sqp' else ''}, 2 workers",
                "ours_s": dt,
                "reference": None,
                "reference_s": None,
                "ratio": None,
                "repeats": 1,
                "notes": f"{len(lines) / dt:.0f} users/s; per-user time x{per / base:.2f} of the smallest N; "
                f"{ok}/{len(lines)} proven optimal, {local} locally optimal"
                + (
                    f"; {len(redo)} users outside the closed form's region re-designed by SQP"
                    if redo and solver != "sqp"
                    else ""
                ),
            }
        )
    return rows


def builtin_spec(quick: bool) -> list[dict]:
    from mechopt.jobs.bench import timed
    from mechopt.jobs.sweep.run import load_spec
    from mechopt.jobs.sweep.spec import with_solvers

    spec = load_spec("lip-tradeoff")
    if quick:
        spec = SweepSpec(**{**spec.__dict__, "grid": {"prior": spec.grid["prior"][:1], "eps": spec.grid["eps"][:4]}})
    local, _ = with_solvers(spec, ["sqp"])
    t_exact, exact = timed(lambda: sweep(spec), 1 if quick else 3)
    t_sqp, sqp = timed(lambda: sweep(local), 1)
    by = {tuple(sorted(ln["point"].items())): ln["value"] for ln in exact}
    worst = max(abs(ln["value"] - by[tuple(sorted(ln["point"].items()))]) for ln in sqp)
    statuses = lambda lines: "/".join(sorted({ln["status"] for ln in lines}))
    return [
        {
            "group": "sweeps",
            "case": f"built-in spec lip-tradeoff, {len(exact)} points: exact vs --solver sqp",
            "ours": "exact (the spec's solver)",
            "ours_s": t_exact,
            "reference": "sqp, 20 starts",
            "reference_s": t_sqp,
            "ratio": t_sqp / t_exact,
            "repeats": 1 if quick else 3,
            "notes": f"exact: {statuses(exact)} at every point; sqp: {statuses(sqp)}, at most {worst:.1e} from exact",
        }
    ]


CASES = [workers, builtin_spec, per_user]
