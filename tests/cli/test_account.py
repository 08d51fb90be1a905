"""``mechopt account``: δ after K uses (text and --json), the worst pair by label, and one-line errors (exit 2)."""

from __future__ import annotations

import importlib.util
import json
import math

import numpy as np
import pytest

from mechopt import Mechanism
from mechopt.deploy import compose

from .conftest import assert_one_line_error


@pytest.fixture
def mech_file(tmp_path):
    path = tmp_path / "m.json"
    Q = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]])
    Mechanism(Q, inputs=["low", "mid", "high"]).save(str(path))
    return path


def test_json_round_trip_matches_compose(cli, mech_file) -> None:
    run = cli("account", mech_file, "--uses", "4", "--eps", "1.5", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    m = Mechanism.load(str(mech_file))
    c = compose(m, uses=4, eps=1.5)
    assert doc["mode"] == "uses" and doc["uses"] == 4 and doc["eps"] == 1.5
    assert doc["delta"] == c.delta[0, 0] and doc["method"] == "exact"
    assert doc["worst_pair"] == list(c.worst[0][0]) and set(doc["worst_pair"]) <= {"low", "mid", "high"}
    assert doc["eps_ldp"] == pytest.approx(math.log(7), rel=1e-12)
    assert json.loads(json.dumps(doc)) == doc


def test_text_names_pair_and_method(cli, mech_file) -> None:
    run = cli("account", mech_file, "--uses", "2", "--eps", "0.5")
    assert run.code == 0 and run.err == ""
    assert "after 2 uses" in run.out and "method: exact" in run.out
    x, x2 = compose(Mechanism.load(str(mech_file)), uses=2, eps=0.5).worst[0][0]
    assert f"worst input pair: {x!r} vs {x2!r}" in run.out and {x, x2} == {"low", "high"}


def test_accountant_method_and_zero_delta_past_k_eps0(cli, mech_file) -> None:
    doc = cli("account", mech_file, "--uses", "3", "--eps", "1", "--method", "accountant", "--json").json()
    assert doc["method"] == "dp_accounting pessimistic" and doc["discretization"] == 1e-4
    assert doc["delta"] >= compose(Mechanism.load(str(mech_file)), uses=3, eps=1.0).delta[0, 0]
    zero = cli("account", mech_file, "--uses", "3", "--eps", str(3 * math.log(7) + 0.01), "--json").json()
    assert zero["delta"] == 0.0 and zero["worst_pair"] is None


@pytest.mark.parametrize(
    "argv",
    [
        ["--uses", "0", "--eps", "1"],
        ["--uses", "-2", "--eps", "1"],
        ["--uses", "3", "--eps", "nan"],
        ["--uses", "3", "--eps", "-1"],
        ["--uses", "3"],
        ["--uses", "3", "--eps", "1", "--delta", "1e-6"],
        ["--uses", "3", "--users", "10", "--eps", "1"],
        ["--eps", "1"],
        ["--uses", "3", "--eps", "1", "--method", "fast"],
        ["--uses", "3000", "--eps", "1", "--method", "exact"],
        ["--users", "1000", "--delta", "2"],
    ],
)
def test_bad_input_exits_2_with_one_line(cli, mech_file, argv) -> None:
    assert_one_line_error(cli("account", mech_file, *argv))


def test_bad_mechanism_files_exit_2(cli, tmp_path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"Q": [[0.5, 0.7], [0.5, 0.5]]}))
    assert_one_line_error(cli("account", bad, "--uses", "2", "--eps", "1"))
    assert_one_line_error(cli("account", tmp_path / "missing.json", "--uses", "2", "--eps", "1"))


@pytest.mark.skipif(importlib.util.find_spec("mechopt.deploy.shuffle") is not None, reason="shuffle is in this build")
def test_users_mode_says_it_is_not_in_this_build(cli, mech_file) -> None:
    run = cli("account", mech_file, "--users", "1000", "--delta", "1e-6")
    assert_one_line_error(run)
    assert "not available in this build" in run.err


def test_accounts_a_designed_mechanism_file(cli, tmp_path) -> None:
    out = tmp_path / "design.json"
    run = cli("design", "--notion", "ldp", "--utility", "mi", "--prior", "0.5,0.3,0.2", "--eps", "1", "--out", out)
    assert run.code == 0, run.err
    doc = cli("account", out, "--uses", "5", "--eps", "5", "--json").json()
    # the float design is 1-LDP within the privacy tolerance; its exact ε₀ may exceed 1 by an ulp (δ ~ 1e-17)
    assert doc["delta"] < 1e-15 and abs(doc["eps_ldp"] - 1) < 1e-9
    doc = cli("account", out, "--uses", "5", "--eps", repr(5 * doc["eps_ldp"]), "--json").json()
    assert doc["delta"] == 0.0 and doc["worst_pair"] is None
    doc = cli("account", out, "--uses", "5", "--eps", "2", "--json").json()
    assert 0 < doc["delta"] < 1 and doc["method"] == "exact"
