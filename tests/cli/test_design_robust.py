"""``mechopt design --prior-set / --prior-ball / --prior-free``: robust and minimax designs; bad input exit 2."""

from __future__ import annotations

import json

import pytest

BASE = ["design", "--utility", "mae", "--json"]


def test_prior_set_and_single_vertex_match_the_ordinary_design(cli):
    r = cli(*BASE, "--prior-set", "0.1,0.2,0.3,0.4", "--notion", "lip", "--eps", "0.7")
    assert r.code == 0, r.err
    doc = r.json()
    o = cli(*BASE, "--prior", "0.1,0.2,0.3,0.4", "--notion", "lip", "--eps", "0.7")
    assert o.code == 0, o.err
    assert doc["status"] == o.json()["status"] == "optimal"
    assert doc["value"] == pytest.approx(o.json()["value"], rel=1e-9)


def test_prior_set_file_ball_and_prior_free(cli, tmp_path):
    f = tmp_path / "set.json"
    f.write_text(json.dumps([[0.2, 0.8], [0.5, 0.5]]))
    for args in (
        ["--prior-set", str(f), "--notion", "pml", "--eps", "1"],
        ["--prior", "0.5,0.3,0.2", "--prior-ball", "0.1:tv", "--notion", "lip", "--eps", "1"],
        ["--prior-free", "5", "--notion", "ldp", "--eps", "1"],
    ):
        r = cli(*BASE, *args)
        assert r.code == 0, r.err
        doc = r.json()
        assert doc["status"] == "optimal" and doc["privacy"]["violation"] <= 1e-9


@pytest.mark.parametrize(
    "args, words",
    [
        (["--prior-set", "0.2,0.9;0.5,0.5", "--notion", "pml"], "sums to"),
        (["--prior-set", "0.2,0.8;0.3,0.3,0.4", "--notion", "pml"], "different lengths"),
        (["--prior", "0.5,0.5", "--prior-ball", "0.1", "--notion", "lip"], "R:KIND"),
        (["--prior-ball", "0.1:tv", "--notion", "lip"], "--prior"),
        (["--prior-free", "x", "--notion", "ldp"], "number of symbols"),
        (["--prior-free", "3", "--prior", "0.5,0.5", "--notion", "ldp"], "does not go with"),
        (["--prior-free", "3", "--notion", "mip"], "notion"),
        # were status optimal, worst-case mse 0 (the point masses' error) for a Q whose worst case is 0.956
        (["--prior-free", "3", "--notion", "pml", "--utility", "mse"], "needs --hull"),
        (["--prior-free", "3", "--notion", "ldp", "--utility", "histogram"], "needs --hull"),
        # was "optimal, worst-case mi 0": every channel has no information at a point mass
        (["--prior-free", "3", "--notion", "pml", "--utility", "mi"], "says nothing"),
        (["--prior-set", "1,0,0;0.2,0.3,0.5", "--notion", "pml", "--utility", "mi"], "says nothing"),  # any point mass
        (["--prior-set", "1;1", "--notion", "alip", "--eps-lower", "1"], "at least 2 input symbols"),  # was accepted
        # was refused only after the solve
        (
            ["--prior-free", "3", "--notion", "ldp", "--utility", "histogram", "--hull", "--certificate", "c.json"],
            "--certificate with --hull",
        ),
    ],
)
def test_bad_prior_sets_exit_2_with_one_line(cli, args, words):
    r = cli(*BASE, *args, "--eps", "1")
    assert r.code == 2 and words in r.err and "Traceback" not in r.err


def test_saved_ldp_minimax_design_passes_the_file_audit(cli, tmp_path):
    out = tmp_path / "m.json"
    assert (
        cli("design", "--utility", "mae", "--prior-free", "4", "--notion", "ldp", "--eps", "1", "--out", out).code == 0
    )
    r = cli("audit", out)
    assert r.code == 0, r.err


@pytest.mark.parametrize("utility", ["mi", "mse", "histogram"])
def test_prior_set_with_a_gain_utility_is_certified_by_robust_rays(cli, utility):
    r = cli("design", "--utility", utility, "--json", "--prior-set", "0.2,0.3,0.5;0.5,0.3,0.2", "--notion", "pml",
            "--eps", "1")  # fmt: skip
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["solver"] == "robust-rays" and doc["status"] == "optimal" and doc["privacy"]["violation"] <= 1e-9
    assert doc["certificate"]["gap"] <= 1e-7


def test_prior_set_with_an_unsupported_utility_exits_2(cli):
    r = cli("design", "--utility", "freq-var", "--prior-set", "0.2,0.8;0.5,0.5", "--notion", "ldp", "--eps", "1")
    assert r.code == 2 and "robust design takes" in r.err and "Traceback" not in r.err


def test_hull_flag_takes_the_worst_case_over_the_hull(cli):
    r = cli(
        "design", "--utility", "histogram", "--json", "--prior-free", "3", "--notion", "ldp", "--eps", "1", "--hull"
    )
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "optimal" and doc["value"] > 0.1  # the vertices alone (point masses) would give 0
    bad = cli("design", "--utility", "histogram", "--prior", "0.5,0.5", "--notion", "ldp", "--eps", "1", "--hull")
    assert bad.code == 2 and "--hull goes with a prior set" in bad.err


def test_hull_flag_with_mi_says_it_changes_nothing(cli):
    args = ["design", "--utility", "mi", "--json", "--prior-set", "0.2,0.3,0.5;0.4,0.3,0.3", "--notion", "ldp"]
    plain, hull = cli(*args, "--eps", "1"), cli(*args, "--eps", "1", "--hull")
    assert plain.code == hull.code == 0, hull.err
    assert "--hull changes nothing for mi" in hull.err and "--hull" not in plain.err
    assert hull.json()["value"] == pytest.approx(plain.json()["value"], rel=1e-9)


def test_robust_ldp_mse_at_eps_20_is_unit_free(cli, tmp_path):
    """3 priors on 8 symbols at ε = 20, values × 1e-9 / × 1 / × 1e9: the same certified answer rescaled (MSE 2.3e-7 of
    E[ã²] = 8.5; the score E[ã²] − Σ gains left gap 8.6e-6 and optimal_inaccurate at every scale)."""
    import numpy as np

    f = tmp_path / "set.json"
    f.write_text(json.dumps(np.random.default_rng(7).dirichlet(np.ones(8), size=3).tolist()))
    docs = {}
    for scale in (1e-9, 1.0, 1e9):
        values = ",".join(repr(float(v) * scale) for v in range(8))
        r = cli("design", "--prior-set", str(f), "--notion", "ldp", "--eps", "20", "--utility", "mse", "--values",
                values, "--solver", "robust-rays", "--json")  # fmt: skip
        assert r.code == 0, r.err
        docs[scale] = r.json()
    for scale, doc in docs.items():
        assert doc["status"] == "optimal" and doc["certificate"]["gap"] <= 1e-9
        assert doc["value"] / scale**2 == pytest.approx(docs[1.0]["value"], rel=1e-9)
        assert doc["certificate"]["bound"] / scale**2 == pytest.approx(docs[1.0]["certificate"]["bound"], rel=1e-9)
    assert docs[1.0]["value"] == pytest.approx(2.2631927739e-07, rel=1e-9)
