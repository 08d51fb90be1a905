"""``mechopt account MECH --users N --delta D [--bound B] [--json]``: the shuffled central ε, with the bound used."""

from __future__ import annotations

import json
import math

import pytest

from mechopt import Mechanism
from mechopt.deploy.shuffle import central_guarantee
from mechopt.oracles import GRR


@pytest.fixture
def grr_file(tmp_path):
    path = tmp_path / "grr.json"
    Mechanism(GRR(d=8, eps=2.0)).save(path)
    return path


def test_json_reports_the_bound_and_matches_the_python_api(cli, grr_file):
    doc = cli("account", grr_file, "--users", "1e5", "--delta", "1e-7", "--json").json()
    g = central_guarantee(GRR(d=8, eps=2.0), 10**5, 1e-7)
    assert doc["bound"] == "variation-ratio" and doc["upper_bound"] is True and doc["n"] == 100000
    assert doc["eps"] == pytest.approx(g.eps, rel=1e-12) and doc["eps"] < 2.0
    assert doc["params"]["beta"] == pytest.approx((math.e**2 - 1) / (math.e**2 + 7), rel=1e-12)


def test_text_says_which_bound_and_never_the_eps(cli, grr_file):
    run = cli("account", grr_file, "--users", "10000", "--delta", "1e-6", "--bound", "clone")
    assert run.code == 0
    assert "by the clone bound" in run.out and "upper bound" in run.out and "Hiding Among the Clones" in run.out


def test_infinite_eps0_prints_null_not_nan(cli, tmp_path):
    path = tmp_path / "m.json"
    Mechanism([[1.0, 0.0], [0.5, 0.5]]).save(path)
    doc = cli("account", path, "--users", "100", "--delta", "1e-6", "--json").json()
    assert doc["eps"] is None and "not eps0-LDP" in doc["note"]
    assert "NaN" not in json.dumps(doc)


@pytest.mark.parametrize(
    "args",
    [
        ["--users", "0", "--delta", "1e-6"],
        ["--users", "1.5", "--delta", "1e-6"],
        ["--users", "many", "--delta", "1e-6"],
        ["--users", "100", "--delta", "0"],
        ["--users", "100", "--delta", "1"],
        ["--users", "100"],
        ["--delta", "1e-6"],
        ["--users", "100", "--delta", "1e-6", "--bound", "blanket"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli, grr_file, one_line_error, args):
    one_line_error(cli("account", grr_file, *args))


def test_missing_mechanism_file_is_one_line(cli, tmp_path, one_line_error):
    one_line_error(cli("account", tmp_path / "none.json", "--users", "100", "--delta", "1e-6"))
