"""``--solver NAME`` on a spec: the options of another solver are dropped with a note, not an error.

Before: ``mechopt design --spec S.toml --solver exact`` on a spec written for
``sqp`` failed with "unknown option(s) ['n_starts'] for solver 'exact'", and
``mechopt sweep`` had no ``--solver``.
"""

from __future__ import annotations

import pytest

from mechopt.errors import SolverNotFound
from mechopt.jobs.sweep.spec import SweepSpec, with_solvers
from mechopt.registry import dropped_note, split_options

DESIGN_SPEC = """
problem = "design"
solver = "sqp"
[params]
prior = "uniform:4"
notion = "lip"
utility = "histogram"
eps = 1.0
[options]
n_starts = 3
method = "SLSQP"
seed = 2
gap_tol = 1e-9
"""

SWEEP_SPEC = """
problem = "design"
solvers = ["sqp"]
[fixed]
notion = "lip"
utility = "histogram"
prior = "uniform:4"
[grid]
eps = [0.5, 1.0]
[options.sqp]
n_starts = 3
seed = 4
"""


@pytest.fixture
def design_spec(tmp_path):
    path = tmp_path / "d.toml"
    path.write_text(DESIGN_SPEC)
    return path


@pytest.fixture
def sweep_file(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(SWEEP_SPEC)
    return path


def test_design_spec_with_another_solver_drops_its_options_and_says_so(cli, design_spec) -> None:
    run = cli("design", "--spec", design_spec, "--solver", "exact", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert doc["solver"] == "exact" and doc["status"] == "optimal" and doc["certificate"]["gap"] <= 1e-9
    note = f"--solver exact: dropped options method, n_starts of {design_spec} (for sqp, not exact)"
    assert doc["notes"] == [note] and note in doc["message"]
    assert run.err.strip().splitlines() == [f"mechopt: note: {note}"]


def test_design_spec_without_override_keeps_its_solver_and_options(cli, design_spec) -> None:
    run = cli("design", "--spec", design_spec, "--json")
    assert run.code == 0 and run.err == ""
    doc = run.json()
    extras = doc["extras"]  # the spec's 3 random starts, after sqp's baselines
    assert doc["solver"] == "sqp" and doc["notes"] == [] and extras["starts"] == 3 + len(extras["baselines"])


def test_explicit_opt_for_another_solver_is_still_an_error(cli, design_spec, one_line_error) -> None:
    run = cli("design", "--spec", design_spec, "--solver", "exact", "--opt", "n_starts=2")
    one_line_error(run)
    assert "n_starts" in run.err


def test_sweep_solver_override_keeps_shared_options(cli, sweep_file) -> None:
    run = cli("sweep", sweep_file, "--solver", "exact", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    note = f"--solver exact: dropped option n_starts of [options.sqp] in {sweep_file} (for sqp, not exact)"
    assert doc["notes"] == [note] and run.err.strip() == f"mechopt: note: {note}"
    assert [(ln["solver"], ln["options"], ln["status"]) for ln in doc["lines"]] == [
        ("exact", {"seed": 4}, "optimal")
    ] * 2


def test_sweep_unknown_solver_is_one_line(cli, sweep_file, one_line_error) -> None:
    run = cli("sweep", sweep_file, "--solver", "nope")
    one_line_error(run)
    assert "unknown solver 'nope'" in run.err


def test_split_options_rules() -> None:
    # a key only another solver takes is dropped; shared and tolerance keys stay; unknown keys stay (typos surface)
    kept, dropped = split_options(
        "exact", {"n_starts": 8, "seed": 1, "verbose": True, "time_limit": 5, "privacy_tol": 1e-8, "n_startz": 1}
    )
    assert kept == {"seed": 1, "verbose": True, "time_limit": 5, "privacy_tol": 1e-8, "n_startz": 1}
    assert dropped == {"n_starts": ["sqp"]}
    # options written for sqp: its 'method' goes too, although exact has a 'method' of its own
    assert split_options("exact", {"method": "SLSQP", "maxiter": 9}, written_for="sqp") == (
        {},
        {"method": ["sqp"], "maxiter": ["sqp"]},
    )
    assert split_options("sqp", {"method": "SLSQP"}, written_for="sqp") == ({"method": "SLSQP"}, {})
    assert dropped_note("exact", {}) == ""
    with pytest.raises(SolverNotFound):
        split_options("nope", {})


def test_with_solvers_keeps_each_solvers_own_table() -> None:
    spec = SweepSpec(
        problem="design",
        solvers=("sqp",),
        grid={"eps": [1.0]},
        source="s.toml",
        options={"sqp": {"n_starts": 4, "seed": 3}, "exact": {"method": "enumerate", "seed": 9}},
    )
    new, notes = with_solvers(spec, ["exact", "sqp"])
    assert new.solvers == ("exact", "sqp") and notes == []
    assert new.options == {"exact": {"method": "enumerate", "seed": 9}, "sqp": {"n_starts": 4, "seed": 3}}
    only, notes = with_solvers(spec, ["exact"])
    assert only.options == {"exact": {"method": "enumerate", "seed": 9}} and len(notes) == 1
