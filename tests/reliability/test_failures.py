"""Solver failures (issue 11, part 3): each becomes the right status with a message, never a crash.

A backend that raises (HiGHS through scipy's linprog, cvxpy's solve, SLSQP through
scipy's minimize) is a :class:`SolverError` chained to the original exception;
Clarabel's "solved inaccurate", time limits and iteration limits are statuses.
``compare`` and ``sweep`` turn a failing solver into a row / line that says so,
and the other solvers' rows still come out.
"""

from __future__ import annotations

import json
import warnings

import cvxpy as cp
import numpy as np
import pytest

import mechopt
from mechopt.errors import SolverError
from mechopt.io.catalog import parse_catalog
from mechopt.jobs.compare import compare
from mechopt.jobs.sweep.run import SweepSpec, sweep
from mechopt.problems.design import ChannelDesign
from mechopt.registry import get_problem
from mechopt.results.result import Status

DESIGN = ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="mi", eps=1.0)


def fisher():
    return get_problem("fisher-interval").from_params(a="-1", b="1", n="200")


def gauss():
    return get_problem("gauss-dataset1").from_params(delta="0.3", gamma="0")


def _boom(*args, **kwargs):
    raise RuntimeError("injected backend crash")


# -- a backend that raises ------------------------------------------------------------------


@pytest.mark.parametrize(
    "target, solver, problem, opts",
    [
        ("mechopt.solvers.exact.lp.linprog", "exact", DESIGN, {}),
        (
            "mechopt.solvers.exact.pricing.base.milp",
            "exact",
            ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="mi", eps=1.0),
            {"method": "colgen", "enum_max_d": 2, "pricing": "milp"},
        ),
        ("mechopt.solvers._sqp_run.minimize", "sqp", DESIGN, {"n_starts": 2}),
        ("cvxpy.Problem.solve", "conic", None, {}),
    ],
)
def test_backend_crash_is_a_solver_error_with_its_cause(monkeypatch, target, solver, problem, opts) -> None:
    monkeypatch.setattr(target, _boom)
    prob = problem if problem is not None else fisher()
    with pytest.raises(SolverError, match=f"solver '{solver}' failed: RuntimeError: injected backend crash") as info:
        mechopt.solve(prob, solver=solver, **opts)
    assert isinstance(info.value.__cause__, RuntimeError)


def test_cvxpy_solver_error_is_wrapped(monkeypatch) -> None:
    def fail(self, *a, **k):
        raise cp.error.SolverError("Clarabel could not factor the KKT system")

    monkeypatch.setattr(cp.Problem, "solve", fail)
    with pytest.raises(SolverError, match="cvxpy/CLARABEL failed: Clarabel could not factor"):
        mechopt.solve(fisher(), solver="conic")


def test_highs_failure_status_is_numerical_error(monkeypatch) -> None:
    """HiGHS returning a failure in every scale and method: status numerical_error naming HiGHS, no value."""
    from scipy.optimize import OptimizeResult

    def unknown(*a, **k):
        return OptimizeResult(status=4, x=None, message="HiGHS Status 15: model_status is Unknown")

    monkeypatch.setattr("mechopt.solvers.exact.lp.linprog", unknown)
    r = mechopt.solve(DESIGN, solver="exact")
    assert r.status is Status.NUMERICAL_ERROR and r.value is None and r.mechanism is None
    assert "HiGHS" in r.message and "Unknown" in r.message


def test_highs_retries_in_the_other_scale(monkeypatch) -> None:
    """The first HiGHS call stalls (as it does at ε = 1e-6 on a skewed prior): the retry answers, certified."""
    import mechopt.solvers.exact.lp as lp

    real, calls = lp.linprog, []

    def flaky(*a, **k):
        calls.append(k.get("method"))
        if len(calls) == 1:
            from scipy.optimize import OptimizeResult

            return OptimizeResult(status=4, x=None, message="HiGHS Status 15: model_status is Unknown")
        return real(*a, **k)

    monkeypatch.setattr(lp, "linprog", flaky)
    r = mechopt.solve(DESIGN, solver="exact", method="enumerate")
    ref = mechopt.solve(DESIGN, solver="exact", method="enumerate")
    assert len(calls) >= 2 and r.status is Status.OPTIMAL and r.certificate.gap <= 1e-9
    assert abs(r.value - ref.value) <= 1e-9


def _garbage(field):
    import mechopt.solvers.exact.lp as lp

    real = lp.linprog

    def fake(*a, **k):
        res = real(*a, **k)
        if field == "x":
            res.x = np.full_like(res.x, np.nan)
        else:
            res.eqlin.marginals[:] = np.nan
        return res

    return fake


def test_highs_nan_weights_are_a_numerical_error(monkeypatch) -> None:
    """HiGHS says optimal but returns NaN weights: was SolverError 'no positive weight'; now numerical_error."""
    monkeypatch.setattr("mechopt.solvers.exact.lp.linprog", _garbage("x"))
    r = mechopt.solve(DESIGN, solver="exact", method="enumerate")
    assert r.status is Status.NUMERICAL_ERROR and r.value is None and "non-finite weights" in r.message


def test_highs_nan_duals_fall_back_to_the_basis_duals(monkeypatch) -> None:
    """NaN duals: was optimal_inaccurate 'no proven bound: pricing was not exact'; the basis duals
    (r_jᵀν = μ_j on the support) give a proven bound again."""
    monkeypatch.setattr("mechopt.solvers.exact.lp.linprog", _garbage("duals"))
    r = mechopt.solve(DESIGN, solver="exact", method="enumerate")
    assert r.status is Status.OPTIMAL and r.certificate.gap <= 1e-9


# -- Clarabel "solved inaccurate" -------------------------------------------------------------


def test_clarabel_inaccurate_is_optimal_inaccurate_without_certificate(monkeypatch) -> None:
    real = cp.Problem.solve

    def inaccurate(self, *a, **k):
        out = real(self, *a, **k)
        self._status = cp.OPTIMAL_INACCURATE  # what cvxpy reports for Clarabel's AlmostSolved
        return out

    monkeypatch.setattr(cp.Problem, "solve", inaccurate)
    r = mechopt.solve(fisher(), solver="conic")
    assert r.status is Status.OPTIMAL_INACCURATE
    assert r.certificate is None and "optimal_inaccurate" in r.message
    assert r.value is not None and np.isfinite(r.value)


# -- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "solver, problem, opts",
    [
        ("exact", DESIGN, {"method": "colgen"}),
        ("sqp", DESIGN, {"n_starts": 3}),
        ("conic", "fisher", {}),
        ("greedy", "gauss", {}),
        ("search", "gauss", {}),
        ("gd-penalty", "gauss", {}),
        ("anneal", "gauss", {}),
    ],
)
def test_tiny_time_limit_is_a_time_limit_status(solver, problem, opts) -> None:
    prob = {"fisher": fisher, "gauss": gauss}.get(problem, lambda: problem)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # cvxpy: "Solution may be inaccurate" at a user limit
        r = mechopt.solve(prob, solver=solver, time_limit=1e-9, **opts)
    assert r.status is Status.TIME_LIMIT, (r.status, r.message)
    assert r.message
    assert r.value is None or np.isfinite(r.value)


@pytest.mark.parametrize(
    "solver, problem, opts, words",
    [
        ("exact", DESIGN, {"method": "colgen", "max_iter": 1}, "iteration limit"),
        ("sqp", DESIGN, {"max_iter": 1, "n_starts": 2}, "max_iter=1"),
        ("sqp", DESIGN, {"max_iter": 1, "n_starts": 2, "method": "trust-constr"}, "max_iter=1"),
        ("sqp", "gauss", {"max_iter": 1, "n_starts": 2}, "max_iter=1"),  # no baselines: a capped start wins
        ("sqp", "gauss", {"max_iter": 1, "n_starts": 2, "method": "trust-constr"}, "max_iter=1"),
        ("conic", "fisher", {"backend_options": {"max_iter": 1}}, "max_iter=1"),
        ("greedy", "gauss", {"max_iter": 1}, "max_iter"),
        ("gd-penalty", "gauss", {"max_iter": 1}, "max_iter=1"),
    ],
)
def test_iteration_limit_one_is_an_iteration_limit_status(solver, problem, opts, words) -> None:
    """Before: sqp and gd-penalty called the point they stopped at ``optimal``; conic called it ``time_limit``."""
    prob = {"fisher": fisher, "gauss": gauss}.get(problem, lambda: problem)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = mechopt.solve(prob, solver=solver, **opts)
    if solver == "sqp" and not r.extras["best_from"].startswith("random start"):
        # sqp's baselines: one no capped start beat (feasible) or whose start converged at once (locally_optimal)
        assert r.status in (Status.FEASIBLE, Status.LOCALLY_OPTIMAL, Status.ITERATION_LIMIT), r.message
    else:
        assert r.status is Status.ITERATION_LIMIT, (r.status, r.message)
        assert words in r.message
    if r.value is not None:
        assert np.isfinite(r.value) and r.violation is not None  # a limit with a point is audited


def test_iteration_limited_point_is_not_better_than_the_certified_optimum() -> None:
    exact = mechopt.solve(DESIGN, solver="exact")
    capped = mechopt.solve(DESIGN, solver="sqp", max_iter=1, n_starts=2)
    assert capped.status is not Status.OPTIMAL and capped.certificate is None
    if capped.violation <= 1e-7:
        assert capped.value <= exact.certificate.bound + 1e-9


# -- compare and sweep carry on ----------------------------------------------------------------

CATALOG = """
[[instance]]
problem = "design"
name = "ldp-mi"
params = { prior = "0.1,0.2,0.3,0.4", notion = "ldp", utility = "mi", eps = 1.0 }
options.sqp = { n_starts = 2 }

[[instance]]
problem = "design"
name = "lip-hist"
params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
options.sqp = { n_starts = 2 }
"""


def _crash_sqp(monkeypatch) -> None:
    monkeypatch.setattr("mechopt.solvers._sqp_run.minimize", _boom)


def test_compare_reports_the_failing_solver_and_keeps_the_others(monkeypatch) -> None:
    _crash_sqp(monkeypatch)
    rows = compare(instances=parse_catalog(CATALOG), solvers=["exact", "sqp", "closed-form"])
    by = {(r["instance"], r["solver"]): r for r in rows}
    for inst in ("ldp-mi", "lip-hist"):
        bad = by[(inst, "sqp")]
        assert bad["status"] == "solver_error" and bad["flag"] == "error" and bad["value"] is None
        assert "injected backend crash" in bad["message"]
        good = by[(inst, "exact")]
        assert good["status"] == "optimal" and good["certified"] and good["flag"] == "certified"
    assert by[("lip-hist", "closed-form")]["value"] is not None


def test_compare_cli_table_and_json_show_the_failure(monkeypatch, tmp_path, capsys) -> None:
    from mechopt.cli import main

    _crash_sqp(monkeypatch)
    cat = tmp_path / "cat.toml"
    cat.write_text(CATALOG)
    assert main(["compare", "--catalog", str(cat), "--no-isolate"]) == 0
    out = capsys.readouterr().out
    assert "solver_error" in out and "injected backend crash" in out and "*exact" in out
    assert "NaN" not in out and "nan" not in out.split()
    assert main(["compare", "--catalog", str(cat), "--no-isolate", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    statuses = {(r["instance"], r["solver"]): r["status"] for r in doc["rows"]}
    assert statuses[("ldp-mi", "sqp")] == "solver_error" and statuses[("ldp-mi", "exact")] == "optimal"


def test_compare_isolated_row_that_kills_its_process_is_a_row(monkeypatch) -> None:
    """A backend that takes the interpreter down (os._exit) costs one row under isolation."""
    import os

    from mechopt.jobs.compare import can_isolate

    if not can_isolate():
        pytest.skip("needs fork")
    monkeypatch.setattr("mechopt.solvers._sqp_run.minimize", lambda *a, **k: os._exit(3))
    rows = compare(instances=parse_catalog(CATALOG)[:1], solvers=["exact", "sqp"], isolate=True, time_limit=5)
    by = {r["solver"]: r for r in rows}
    assert by["sqp"]["status"] == "solver_error" and "died" in by["sqp"]["message"]
    assert by["exact"]["status"] == "optimal"


def test_sweep_lines_show_the_failure_and_the_other_solvers_run(monkeypatch, tmp_path, capsys) -> None:
    _crash_sqp(monkeypatch)
    spec = SweepSpec(
        problem="design",
        solvers=("exact", "sqp"),
        grid={"eps": [0.5, 1.0]},
        fixed={"prior": "0.3,0.7", "notion": "lip", "utility": "histogram"},
        options={"sqp": {"n_starts": 2}},
    )
    out = tmp_path / "s.jsonl"
    lines = sweep(spec, out)
    assert [ln["solver"] for ln in lines] == ["exact", "sqp", "exact", "sqp"]
    for ln in lines:
        if ln["solver"] == "sqp":
            assert ln["status"] == "solver_error" and ln["value"] is None
            assert "injected backend crash" in ln["message"]
        else:
            assert ln["status"] == "optimal" and ln["certificate"]["gap"] <= 1e-9
    text = out.read_text()
    assert "NaN" not in text and len(text.splitlines()) == 5  # the spec header and 4 points


def test_sweep_cli_table_shows_the_failure(monkeypatch, tmp_path, capsys) -> None:
    from mechopt.cli import main

    _crash_sqp(monkeypatch)
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'problem = "design"\nsolvers = ["exact", "sqp"]\n[fixed]\nprior = "0.3,0.7"\nnotion = "lip"\n'
        'utility = "histogram"\n[grid]\neps = [0.5, 1.0]\n[options.sqp]\nn_starts = 2\n'
    )
    assert main(["sweep", str(spec), "--out", str(tmp_path / "o.jsonl")]) == 0
    out = capsys.readouterr().out
    table, summary = out.split("\n\n")
    assert table.count("solver_error") == 2 and table.count("optimal") == 2
    assert summary.startswith("4 points: 2 optimal (certified: certificate), 2 solver_error")
