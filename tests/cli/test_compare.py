"""``mechopt compare``: rows, certified optimum, flags, solver errors, JSON and plots."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import mechopt
from mechopt import registry
from mechopt.io.catalog import parse_catalog
from mechopt.jobs.compare import ROW_FIELDS, compare, flag_rows
from mechopt.model.solver import Solver
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Certificate, Result, Status
from mechopt.utilities import HistogramMSE

CATALOG = """
[[instance]]
problem = "design"
name = "binary lip"
params = { prior = "0.3,0.7", notion = "lip", utility = "histogram", eps = 1.0 }
options.sqp = { n_starts = 4 }

[[instance]]
problem = "design"
name = "ldp mi"
params = { prior = "uniform:2", notion = "ldp", utility = "mi", eps = 0.5 }
skip = ["fake-constant", "fake-leaky", "fake-crash", "fake-exact"]
options.sqp = { n_starts = 2 }
"""


class _Fake(Solver):
    def can_solve(self, problem: Any) -> bool:
        return isinstance(problem, ChannelDesign)

    def _channel_result(self, problem, Q, **kw) -> Result:
        return Result(
            status=Status.OPTIMAL,
            value=problem.evaluate(Q),
            sense=problem.sense,
            objective=problem.objective,
            mechanism=Q,
            **kw,
        )


class FakeExact(_Fake):
    """Best of many SQP starts, presented with a certificate (the role exact plays)."""

    name = "fake-exact"

    def _solve(self, problem, opts):
        r = mechopt.solve(problem, solver="sqp", n_starts=12)
        return self._channel_result(problem, r.Q, certificate=Certificate(bound=r.value, gap=0.0))


class FakeConstant(_Fake):
    """The constant channel: private for any ε, the worst utility."""

    name = "fake-constant"

    def _solve(self, problem, opts):
        d = problem.prior.size
        return self._channel_result(problem, np.full((d, d), 1.0 / d))


class FakeLeaky(_Fake):
    """The identity channel: perfect utility, not private."""

    name = "fake-leaky"

    def _solve(self, problem, opts):
        return self._channel_result(problem, np.eye(problem.prior.size))


class FakeCrash(_Fake):
    name = "fake-crash"

    def _solve(self, problem, opts):
        raise RuntimeError("backend exploded")


@pytest.fixture
def fakes(monkeypatch):
    for cls in (FakeExact, FakeConstant, FakeLeaky, FakeCrash):
        monkeypatch.setitem(registry._extra_solvers, cls.name, cls)
    return parse_catalog(CATALOG, source="test.toml")


ALL = ["sqp", "fake-exact", "fake-constant", "fake-leaky", "fake-crash"]


def test_rows_flags_and_certified_optimum(fakes):
    rows = compare(instances=fakes, solvers=ALL, time_limit=30)  # (papers may add closed forms: filtered)
    by = {(r["instance"], r["solver"]): r for r in rows}
    assert set(ROW_FIELDS) <= set(rows[0])
    assert {s for (i, s) in by if i == "binary lip"} == set(ALL)
    assert {s for (i, s) in by if i == "ldp mi"} == {"sqp"}  # skip honoured
    ex = by[("binary lip", "fake-exact")]
    assert ex["certified"] and ex["flag"] == "certified" and ex["gap"] == 0.0
    const = by[("binary lip", "fake-constant")]
    P = np.array([0.3, 0.7])
    assert const["value"] == pytest.approx(HistogramMSE().value(np.full((2, 2), 0.5), P))
    assert const["flag"] == "suboptimal" and const["deviation"] > 0 and not const["certified"]
    assert const["status"] == "feasible" and const["proof"] is None  # no proof: demoted from optimal
    assert const["reference"] == "fake-exact" and const["allowance"] == pytest.approx(1e-7)
    leak = by[("binary lip", "fake-leaky")]
    assert leak["flag"] == "infeasible" and leak["status"] == "infeasible_point" and leak["violation"] > 1
    crash = by[("binary lip", "fake-crash")]
    assert crash["status"] == "solver_error" and crash["flag"] == "error" and "exploded" in crash["message"]
    sqp = by[("binary lip", "sqp")]  # SQP finds the optimum here: not flagged, not certified
    assert sqp["flag"] == "" and not sqp["certified"] and sqp["status"] == "locally_optimal"
    assert sqp["value"] == pytest.approx(ex["value"], rel=1e-7)
    assert by[("ldp mi", "sqp")]["flag"] == ""  # nothing certified: nothing to compare


def _row(solver, value, status="optimal", gap=None, violation=0.0, sense="min", **extra):
    return {
        "problem": "p",
        "instance": "i",
        "solver": solver,
        "value": value,
        "violation": violation,
        "gap": gap,
        "status": status,
        "time_s": 0.0,
        "flag": "",
        "sense": sense,
        "message": "",
        "certified": False,
        **extra,
    }


@pytest.mark.parametrize("sense,worse,better", [("min", 1.1, 0.9), ("max", 0.9, 1.1)])
def test_flag_rows_in_the_problems_sense(sense, worse, better):
    rows = flag_rows(
        [
            _row("exact", 1.0, gap=0.0, sense=sense),
            _row("heur", worse, sense=sense),
            _row("bug", better, sense=sense),
            _row("tie", 1.0 + 1e-12, sense=sense),
            _row("none", None, status="infeasible", sense=sense),
        ]
    )
    flags = {r["solver"]: r["flag"] for r in rows}
    assert flags == {
        "exact": "certified",
        "heur": "suboptimal",
        "bug": "beats-certified",
        "tie": "",
        "none": "no-solution",
    }


def test_gap_above_tolerance_is_not_certified():
    rows = flag_rows([_row("loose", 1.0, gap=1e-3), _row("other", 1.0 + 1e-12)])
    assert [r["flag"] for r in rows] == ["", ""]


def test_without_certificate_rows_worse_than_the_best_private_value_are_flagged():
    rows = flag_rows(
        [
            _row("sqp", 1.0),
            _row("closed-form", 1.2),
            _row("leaky", 0.5, violation=0.3),
            _row("crash", None, status="solver_error"),
        ]
    )
    assert [r["flag"] for r in rows] == ["", "worse-than-best", "infeasible", "error"]
    assert rows[1]["deviation"] == pytest.approx(0.2)


def test_cli_compare_json_table_and_plot(cli, fakes, tmp_path):
    cat = tmp_path / "cat.toml"
    cat.write_text(CATALOG)
    run = cli(
        "compare",
        "--catalog",
        cat,
        "--solver",
        "fake-exact",
        "--solver",
        "fake-constant",
        "--solver",
        "sqp",
        "--json",
        "--plot",
        tmp_path / "plots",
    )
    assert run.code == 0, run.err
    doc = run.json()
    assert set(doc) >= {"rows"}
    assert all(set(ROW_FIELDS) <= set(r) for r in doc["rows"])
    assert {r["solver"] for r in doc["rows"]} == {"fake-exact", "fake-constant", "sqp"}
    assert (tmp_path / "plots" / "compare_design.png").stat().st_size > 1000
    human = cli(
        "compare", "--catalog", cat, "--solver", "fake-exact", "--solver", "fake-constant", "--problem", "design"
    )
    assert "*fake-exact" in human.out and "suboptimal" in human.out and "nan" not in human.out.lower()


def test_builtin_catalog_compare_runs_every_design_instance():
    rows = compare(problems=["design"], solvers=["sqp"], time_limit=20)
    from mechopt.io.catalog import builtin_catalog

    names = {i.name for i in builtin_catalog(["design"])}
    assert {r["instance"] for r in rows} == names and len(names) >= 5
    assert all(r["status"] == "locally_optimal" and r["violation"] <= 1e-7 for r in rows)  # a local method
    assert not any(r["certified"] for r in rows)


def test_budget_skips_rows_not_started(fakes):
    rows = compare(instances=fakes, solvers=["sqp", "fake-constant"], budget=1e-9)
    assert rows[0]["flag"] != "skipped"  # the first row always runs
    skipped = [r for r in rows if r["flag"] == "skipped"]
    assert skipped and all(r["status"] == "time_limit" and "budget" in r["message"] for r in skipped)


def test_discretisation_error_estimates_widen_the_tolerance():
    grid = {**_row("conic", 9.86955, gap=0.0), "error_estimate": 6e-5}
    cont = _row("closed-form", 9.8696044)
    far = _row("heur", 9.8700)
    flags = [r["flag"] for r in flag_rows([grid, cont, far])]
    assert flags == ["certified", "", "suboptimal"]
    assert [r["flag"] for r in flag_rows([{**grid, "error_estimate": None}, cont])] == [
        "certified",
        "suboptimal,claim-fails",
    ]
    # a discretisation that could not estimate its error (inf) judges nothing
    assert [r["flag"] for r in flag_rows([{**grid, "error_estimate": float("inf")}, cont, far])] == [
        "certified",
        "",
        "",
    ]


def test_progress_bar_goes_to_stderr_only(cli, fakes, tmp_path):
    cat = tmp_path / "cat.toml"
    cat.write_text(CATALOG)
    run = cli("compare", "--catalog", cat, "--solver", "fake-constant", "--json", "--progress")
    assert run.code == 0 and "compare:" in run.err and "1/1" in run.err and "1/1" not in run.out
    assert len(run.json()["rows"]) == 1


class FakeHang(_Fake):
    """Ignores its time limit."""

    name = "fake-hang"

    def _solve(self, problem, opts):
        import time

        time.sleep(60)


class FakeSegfault(_Fake):
    name = "fake-segfault"

    def _solve(self, problem, opts):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.skipif(not __import__("mechopt.jobs.compare").jobs.compare.can_isolate(), reason="needs fork")
def test_isolated_rows_survive_hangs_and_dead_processes(monkeypatch, fakes):
    import time

    monkeypatch.setitem(registry._extra_solvers, "fake-hang", FakeHang)
    monkeypatch.setitem(registry._extra_solvers, "fake-segfault", FakeSegfault)
    t0 = time.perf_counter()
    rows = compare(
        instances=fakes[:1], solvers=["fake-hang", "fake-segfault", "fake-constant"], time_limit=0.5, isolate=True
    )
    assert time.perf_counter() - t0 < 30
    by = {r["solver"]: r for r in rows}
    assert by["fake-hang"]["status"] == "time_limit" and "killed after" in by["fake-hang"]["message"]
    assert by["fake-segfault"]["status"] == "solver_error" and "died" in by["fake-segfault"]["message"]
    assert by["fake-constant"]["status"] == "feasible" and by["fake-constant"]["value"] is not None


def test_every_row_has_the_same_keys(fakes):
    rows = compare(instances=fakes, solvers=ALL, budget=1e-9)
    rows += compare(instances=fakes, solvers=ALL)
    assert len({tuple(sorted(r)) for r in rows}) == 1


class FakeClosedForm(FakeConstant):
    name = "closed-form"


def test_human_table_lists_closed_forms_that_are_not_optimal(monkeypatch, cli, fakes, tmp_path):
    monkeypatch.setitem(registry._extra_solvers, "closed-form", FakeClosedForm)
    cat = tmp_path / "cat.toml"
    cat.write_text(CATALOG)
    run = cli("compare", "--catalog", cat, "--solver", "fake-exact", "--solver", "closed-form", "--no-isolate")
    assert (
        "closed forms that fail their claim (counterexamples; mechopt verify --claim ID checks the claim):" in run.out
    )
    assert (
        "  design / binary lip [no verify claim linked]: worse than the certified optimum 0.25217791 "
        "(fake-exact) by 0.167822 (0.168 relative), beyond the error estimate 0 and the tolerance 1e-07" in run.out
    )
    assert "* certified = status optimal with a machine-checked proof" in run.out


def test_compare_list_instances(cli):
    doc = cli("compare", "--list", "--problem", "design", "--json").json()
    names = [i["instance"] for i in doc["instances"]]
    assert len(names) >= 5 and all(i["problem"] == "design" and i["source"] == "design.toml" for i in doc["instances"])
    assert "binary lip histogram eps=1" in names


def test_plot_marks_certified_rows_and_survives_an_instance_without_a_private_answer(tmp_path):
    from mechopt.jobs.compare import plot_compare

    rows = flag_rows([_row("exact", 1.0, gap=0.0, proof="certificate"), _row("heur", 1.2)])
    rows += flag_rows([{**_row("closed-form", 0.5, status="infeasible_point", violation=0.9), "instance": "j"}])
    figs = plot_compare(rows, tmp_path)
    png = tmp_path / "compare_p.png"
    assert list(figs) == ["p"] and len(figs["p"].axes) == 2 and png.stat().st_size > 1000
    assert [r["flag"] for r in rows] == ["certified", "suboptimal", "infeasible,claim-fails"]


def test_plot_compare_draws_into_the_callers_axes_and_keeps_the_backend(tmp_path):
    import matplotlib
    from matplotlib.figure import Figure

    from mechopt.jobs.compare import plot_compare

    rows = flag_rows([{**_row("exact", 1.0, gap=0.0, proof="certificate"), "unit": "nats"}, _row("heur", 1.2)])
    before = matplotlib.get_backend()
    matplotlib.use("pdf")  # the user's backend; plot_compare must leave it alone
    try:
        fig = Figure()
        top, bottom = fig.subplots(2, 1)
        out = plot_compare(rows, ax=(top, bottom))
        assert out == {"p": fig} and not list(tmp_path.iterdir())  # nothing written without out_dir
        assert "nats" in top.get_ylabel() and bottom.get_yscale() == "symlog"
        single = Figure().subplots()
        assert plot_compare(rows, ax=single)["p"] is single.figure and len(single.figure.axes) == 1
        assert matplotlib.get_backend() == "pdf"
    finally:
        matplotlib.use(before)
