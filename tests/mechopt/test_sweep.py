"""Sweeps: deterministic keys, resume after SIGKILL, joblib and Dask give the jobs=1 results."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from mechopt.errors import ParamError, ProblemError, SolverNotFound
from mechopt.io.catalog import CatalogError
from mechopt.jobs.sweep.run import (
    load_spec,
    parse_spec,
    plot_sweep,
    read_lines,
    series_legend,
    sweep,
    sweep_figure,
    tasks,
)

PRIORS, EPS = ["0.2,0.3,0.5", "0.1,0.3,0.6", "uniform:3"], [0.25, 0.5, 1.0, 2.0]


@pytest.fixture
def make_spec(sweep_spec):
    """``make_spec(n_starts=3, write=True)``: this module's 12-point sweep (shared ``sweep_spec`` fixture)."""
    return lambda n_starts=3, write=True: sweep_spec(PRIORS, EPS, n_starts, write=write)


def _same(a, b):
    """Same lines as a set: every field equal except time_s; values to 1e-9 (BLAS may differ in workers)."""
    strip = lambda ln: {k: v for k, v in ln.items() if k not in ("time_s", "value", "violation", "eps_audited")}
    ka, kb = {ln["key"]: ln for ln in a}, {ln["key"]: ln for ln in b}
    assert set(ka) == set(kb) and len(ka) == len(a) == len(b)
    for k in ka:
        assert strip(ka[k]) == strip(kb[k])
        assert ka[k]["value"] == pytest.approx(kb[k]["value"], rel=1e-9)
        assert ka[k]["eps_audited"] == pytest.approx(kb[k]["eps_audited"], abs=1e-9)


def test_tasks_keys_are_deterministic_and_distinct(make_spec):
    spec = load_spec(make_spec())
    t1, t2 = tasks(spec), tasks(load_spec(make_spec()))
    assert [t["key"] for t in t1] == [t["key"] for t in t2]
    assert len({t["key"] for t in t1}) == 12
    # the time limit does not change a key (a resumed run may use another), an option does
    spec_tl = parse_spec(make_spec(3, write=False) + "\n", source="x")
    assert tasks(spec_tl)[0]["key"] == t1[0]["key"]
    assert tasks(parse_spec(make_spec(4, write=False)))[0]["key"] != t1[0]["key"]


def test_sweep_values_are_audited_and_monotone_in_eps(tmp_path, make_spec):
    lines = sweep(make_spec(), tmp_path / "out.jsonl")
    # sqp is a local method: audited private, a local optimum, never "optimal" (no proof)
    assert len(lines) == 12 and all(ln["status"] == "locally_optimal" and ln["proof"] is None for ln in lines)
    assert all(ln["violation"] <= 1e-7 and ln["eps_audited"] <= ln["point"]["eps"] + 1e-7 for ln in lines)
    for prior in ("0.2,0.3,0.5", "uniform:3"):  # more ε, less histogram MSE
        vals = [ln["value"] for ln in lines if ln["point"]["prior"] == prior]
        assert all(a >= b - 1e-9 for a, b in zip(vals, vals[1:])) and vals[0] > vals[-1]
    on_disk = read_lines(tmp_path / "out.jsonl")
    assert [ln["key"] for ln in on_disk] == [ln["key"] for ln in lines]
    fig = plot_sweep(lines, tmp_path / "curve.png")
    assert (tmp_path / "curve.png").stat().st_size > 1000 and fig.axes[0].get_legend() is not None
    assert fig.axes[0].get_ylabel() == "histogram (unitless (squared probability); minimised)"
    labels = sweep_figure(lines).axes[0].get_legend_handles_labels()[1]
    assert len(labels) == 3 and all(lab.endswith("— locally optimal") for lab in labels)


def test_refuses_to_overwrite_and_resume_tolerates_truncated_line(tmp_path, make_spec):
    spec, out = make_spec(), tmp_path / "out.jsonl"
    full = sweep(spec, out)
    with pytest.raises(ParamError, match="--resume"):
        sweep(spec, out)
    kept = out.read_text().splitlines()[:5]  # the header and 4 points
    out.write_text("\n".join(kept) + "\n" + '{"key": "abc", "val')  # killed mid-write
    resumed = sweep(spec, out, resume=True)
    _same(resumed, full)
    assert len(out.read_text().splitlines()) == 13  # truncated line removed, 8 appended
    out.write_text("\n".join(kept[:2]) + "\ngarbage\n" + "\n".join(kept[2:]) + "\n")
    with pytest.raises(ProblemError, match="line 3"):
        sweep(spec, out, resume=True)


def test_sigkill_half_way_then_resume_gives_the_same_lines(tmp_path, make_spec):
    spec = make_spec(n_starts=40)
    out = tmp_path / "killed.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mechopt.cli", "sweep", str(spec), "--out", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            if out.exists() and out.read_text().count("\n") >= 4:  # the header and 3 points
                break
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    done = read_lines(out)
    assert 3 <= len(done) < 12, "the run should have been killed half-way"
    resumed = sweep(spec, out, resume=True)
    reference = sweep(spec, tmp_path / "full.jsonl")
    _same(resumed, reference)
    _same(read_lines(out), reference)


def test_dask_local_cluster_matches_jobs_1(tmp_path, make_spec):
    distributed = pytest.importorskip("distributed")
    spec = make_spec()
    ref = sweep(spec)
    with distributed.LocalCluster(
        processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None
    ) as cluster:
        by_address = sweep(spec, tmp_path / "dask.jsonl", scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:
            by_client = sweep(spec, scheduler=client)
    _same(by_address, ref)
    _same(by_client, ref)
    _same(read_lines(tmp_path / "dask.jsonl"), ref)


def test_joblib_two_jobs_match_jobs_1(tmp_path, make_spec):
    spec = make_spec()
    _same(sweep(spec, jobs=2), sweep(spec))


@pytest.mark.parametrize(
    "text,match",
    [
        ('problem = "design"\nsolvers = ["sqp"]\n', "'grid'"),
        ('problem = "nope"\nsolvers = ["sqp"]\n[grid]\neps = [1]\n', "unknown problem id"),
        ('problem = "design"\nsolvers = []\n[grid]\neps = [1]\n', "'solvers'"),
        ('problem = "design"\nsolvers = ["sqp"]\n[grid]\neps = []\n', "grid.eps"),
        ('problem = "design"\nsolvers = ["sqp"]\n[grid]\neps = { linspace = [1, 2] }\n', "linspace"),
        ('problem = "design"\nsolvers = ["sqp"]\nbogus = 1\n[grid]\neps = [1]\n', "bogus"),
        ('problem = "design"\nsolvers = ["sqp"]\n[fixed]\neps = 1\n[grid]\neps = [1]\n', "both"),
        ('problem = "design"\nsolvers = ["sqp"]\n[grid]\neps = [1]\n[plot]\nx = "d"\n', "plot.x"),
    ],
)
def test_bad_specs_name_the_field(text, match):
    with pytest.raises(CatalogError, match=match):
        parse_spec(text, source="s.toml")


def test_unknown_solver_in_spec():
    with pytest.raises(SolverNotFound):
        parse_spec('problem = "design"\nsolvers = ["nope"]\n[grid]\neps = [1]\n')


def test_linspace_axis_and_point_errors_are_lines():
    spec = parse_spec(
        'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "ldp"\nutility = "mi"\n'
        '[grid]\neps = { linspace = [0.5, 1.5, 3] }\nprior = ["0.5,0.5", "0.5,0.7"]\n'
        "[options.sqp]\nn_starts = 1\n"
    )
    assert spec.grid["eps"] == [0.5, 1.0, 1.5]
    lines = sweep(spec)
    bad = [ln for ln in lines if ln["point"]["prior"] == "0.5,0.7"]
    assert len(bad) == 3 and all(ln["status"] == "solver_error" and "sums to" in ln["message"] for ln in bad)
    assert all(ln["status"] == "locally_optimal" for ln in lines if ln not in bad)


def test_legend_says_certified_for_exact_and_locally_optimal_for_sqp():
    spec = parse_spec(
        'problem = "design"\nsolvers = ["exact", "sqp"]\n[fixed]\nnotion = "lip"\nutility = "mse"\n'
        'values = "0,1,2"\nprior = "0.1,0.2,0.7"\n[grid]\neps = [0.5, 1.0, 2.0]\n'
        "[options.sqp]\nn_starts = 2\n"
    )
    lines = sweep(spec)
    exact = [ln for ln in lines if ln["solver"] == "exact"]
    assert all(
        ln["status"] == "optimal" and ln["proof"] == "certificate" and ln["certificate"]["gap"] <= 1e-9 for ln in exact
    )
    assert all(ln["status"] == "locally_optimal" for ln in lines if ln["solver"] == "sqp")
    labels = sweep_figure(lines).axes[0].get_legend_handles_labels()[1]
    assert labels == ["exact — certified optimum", "sqp — locally optimal"]
    assert series_legend(lines) == dict(zip(("exact", "sqp"), labels))


def test_closed_form_outside_its_region_is_marked_not_private():
    # Theorem 2's binary channel is eps-LIP only for max(P1, 1 - P1) <= e^eps / (1 + e^eps): eps >= ln 9 at P1 = 0.1
    spec = parse_spec(
        'problem = "lip-binary"\nsolvers = ["closed-form", "exact"]\n[fixed]\np1 = 0.1\n[grid]\neps = [0.5, 1.0, 3.0]\n'
    )
    lines = sweep(spec)
    cf = {ln["point"]["eps"]: ln for ln in lines if ln["solver"] == "closed-form"}
    assert [cf[e]["status"] for e in (0.5, 1.0)] == ["infeasible_point"] * 2 and cf[3.0]["violation"] <= 1e-7
    assert cf[3.0]["status"] in ("optimal", "feasible")  # optimal only with a proof (theorem, in its region)
    ax = sweep_figure(lines).axes[0]
    handles, labels = ax.get_legend_handles_labels()
    assert labels[0].startswith("closed-form — ") and labels[0].endswith("; 2 of 3 not private")
    assert labels[1] == "exact — certified optimum"
    assert labels[2] == "not private (audit failed)"
    assert sorted(handles[2].get_xdata()) == [0.5, 1.0]  # the red crosses sit at the failing eps
    assert sorted(handles[0].get_xdata()) == [3.0]  # and are not joined into the curve


def test_builtin_specs_parse_and_ldp_never_beats_lip():
    from mechopt.io.catalog import spec_files

    names = [p.stem for p in spec_files()]
    assert {"lip-tradeoff", "ldp-vs-lip"} <= set(names)
    for name in ("lip-tradeoff", "ldp-vs-lip"):
        assert load_spec(name).problem == "design"
    lines = sweep("ldp-vs-lip")
    by = {(ln["point"]["notion"], ln["point"]["eps"]): ln["value"] for ln in lines}
    # ε-LDP implies ε-LIP (LIP paper, Theorem 1): the LIP optimum is never worse
    for eps in {e for _, e in by}:
        assert by[("lip", eps)] <= by[("ldp", eps)] + 1e-6
    assert by[("lip", 3.0)] < by[("ldp", 3.0)] - 0.05


@pytest.mark.slow
def test_dask_process_cluster_matches_jobs_1(tmp_path, make_spec):
    distributed = pytest.importorskip("distributed")
    spec = make_spec()
    with distributed.LocalCluster(processes=True, n_workers=1, threads_per_worker=1, dashboard_address=None) as cluster:
        _same(sweep(spec, scheduler=cluster.scheduler_address), sweep(spec))
