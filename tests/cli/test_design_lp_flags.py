"""``mechopt design --spanner DELTA`` and ``--lp-method``: options of the lp solver, typed one-line errors."""

from __future__ import annotations

import json

import pytest

GEO = ("design", "--coords", "grid:4x4", "--notion", "metric-ldp", "--utility", "loss", "--eps", "0.5")


def test_spanner_design_is_feasible_and_says_so(cli):
    run = cli(*GEO, "--spanner", "1.5", "--json")
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["status"] == "feasible" and doc["solver"] == "lp"
    info = doc["extras"]["spanner"]
    assert info["dilation"] == 1.5 and info["eps_guarantee"] == pytest.approx(0.5 / 1.5)
    assert "1.5-spanner" in doc["message"] and "not proven optimal at eps=0.5" in doc["message"]


def test_lp_method_full_certifies_and_names_its_method(cli):
    run = cli(*GEO, "--lp-method", "full", "--json")
    assert run.code == 0, run.err
    doc = json.loads(run.out)
    assert doc["status"] == "optimal" and doc["extras"]["method"].startswith("full")
    assert doc["extras"]["relative_gap"] <= 1e-7


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--spanner", "1"), "finite number > 1"),
        (("--spanner", "abc"), "finite number > 1"),
        (("--spanner", "inf"), "finite number > 1"),
        (("--lp-method", "fast"), "one of auto, colgen, full"),
        (("--spanner", "1.5", "--solver", "conic"), "option of the lp solver"),
    ],
)
def test_bad_lp_flags_are_one_line_errors(cli, one_line_error, extra, words):
    run = cli(*GEO, *extra)
    one_line_error(run)
    assert words in run.err


def test_spanner_off_metric_ldp_is_a_one_line_error(cli, one_line_error):
    run = cli("design", "--coords", "grid:3x3", "--notion", "graph-ldp", "--utility", "loss", "--eps", "0.5",
              "--spanner", "1.5")  # fmt: skip
    one_line_error(run)
    assert "metric-ldp" in run.err
