"""``mechopt design --compare-baselines`` and the comparison layer (mechopt.programs.oracle_compare)."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.oracles import GRR, OUE, KSubset
from mechopt.programs.frequency import freq_var
from mechopt.programs.oracle_compare import compare_baselines, frequency_rows, oracle_variance

PRIOR12 = "0.3,0.18,0.12,0.09,0.07,0.06,0.05,0.04,0.03,0.03,0.02,0.01"


@pytest.mark.parametrize("make", [lambda: GRR(5, 0.7), lambda: KSubset(6, 1.0, 2), lambda: KSubset(5, 2.0, 1)])
def test_oracle_closed_form_is_the_linear_estimators_variance(make) -> None:
    """For GRR and k-subsets the remapping estimator is the least-squares one: V equals freq_var(Q)."""
    orc = make()
    P = np.random.default_rng(orc.d).dirichlet(np.ones(orc.d))
    assert oracle_variance(orc, P) == pytest.approx(freq_var(orc.matrix(), P), rel=1e-10)


def test_oue_closed_form_matches_monte_carlo() -> None:
    oue, P = OUE(4, 1.0), np.array([0.4, 0.3, 0.2, 0.1])
    rng = np.random.default_rng(5)
    x = rng.choice(4, size=200_000, p=P)
    bits = np.unpackbits(oue.randomize(x, rng), axis=1, count=4).astype(float)
    err = (bits - oue.h) / (oue.g - oue.h) - np.eye(4)[x] + np.eye(4)[x] - P  # per-user θ̂ − P
    total = (err**2).sum(axis=1)
    assert abs(total.mean() - oracle_variance(oue, P)) < 4 * total.std() / np.sqrt(total.size)


def test_a_confounding_design_gets_the_em_error_not_a_variance() -> None:
    rows = frequency_rows(np.array([[0.7, 0.3], [0.7, 0.3], [0.2, 0.8]]), np.array([0.5, 0.3, 0.2]), 1.0)
    assert rows[0]["freq_variance"] is None and rows[0]["em_limit_sq_error"] > 1e-4  # {0, 1} cannot be split
    assert "confounded {0, 1}" in rows[0]["estimator"]
    ks = min(range(1, 3), key=lambda k: oracle_variance(KSubset(3, 1.0, k), [0.5, 0.3, 0.2]))
    assert rows[3]["mechanism"] == f"k-subset (k={ks})"


def test_cli_table_and_json(cli) -> None:
    run = cli("design", "--notion", "ldp", "--utility", "mi", "--prior", PRIOR12, "--eps", "1", "--compare-baselines")
    assert run.code == 0
    assert "best frequency variance: k-subset (k=3)" in run.out
    # the confounding design's EM number is a bias that no n removes, not a variance to divide by n
    assert "EM bias² " in run.out and "an EM bias² does not shrink with n" in run.out
    doc = cli("design", "--notion", "ldp", "--utility", "mi", "--prior", PRIOR12, "--eps", "1", "--compare-baselines",
              "--json").json()["baselines"]  # fmt: skip
    names = [r["mechanism"] for r in doc["rows"]]
    assert names == ["designed", "GRR", "OUE", "k-subset (k=3)"]
    assert doc["best_objective"] == "designed"  # the certified MI optimum beats every baseline on MI
    assert all(doc["rows"][0]["objective"] >= r["objective"] - 1e-9 for r in doc["rows"][1:])
    grr = next(r for r in doc["rows"] if r["mechanism"] == "GRR")
    P = np.array([float(v) for v in PRIOR12.split(",")])
    assert grr["freq_variance"] == pytest.approx(oracle_variance(GRR(12, 1.0), P))


@pytest.mark.parametrize(
    ("notion", "says"), [("pml", "which implies no LDP level"), ("lip", "which implies 1-LDP only")]
)
def test_a_design_under_a_weaker_notion_is_not_called_best_without_saying_so(notion, says) -> None:
    # an eps-PML (or eps-LIP) design against eps-LDP baselines: "best: designed" compared unlike guarantees
    from mechopt.problems.design import ChannelDesign

    prob = ChannelDesign.from_params(prior="0.5,0.3,0.2", notion=notion, utility="mi", eps=0.5)
    doc = compare_baselines(prob, np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]]))
    assert says in doc["note"] and "unlike guarantees" in doc["note"]


def test_a_baseline_that_beats_the_design_is_said_with_why_and_what_to_deploy() -> None:
    """On 6 symbols at ε = 1, freq-var's sqp returns GRR (6 outputs); the 2-subset (15 outputs) has less variance.

    The table said only "best freq-var: k-subset (k=2)"; the note says the design was confined to 6 outputs and
    how to save the better mechanism. Here the design is GRR itself, so the comparison is the closed forms'."""
    from mechopt.cli.design_report import baselines_table
    from mechopt.problems.design import ChannelDesign

    prior = [0.45, 0.2, 0.12, 0.1, 0.08, 0.05]
    prob = ChannelDesign.from_params(prior=prior, notion="ldp", utility="freq-var", eps=1.0)
    cmp = compare_baselines(prob, GRR(6, 1.0).mechanism().Q)
    assert cmp["best_objective"] == "k-subset (k=2)"
    assert oracle_variance(KSubset(6, 1.0, 2), np.array(prior)) < oracle_variance(GRR(6, 1.0), np.array(prior))
    text = baselines_table(cmp)
    assert "note: k-subset (k=2) beats the design on its own objective (freq-var " in text
    assert "it has 15 outputs, the design 6: the design searched 6-output mechanisms only" in text
    assert "KSubset(d, eps, k).mechanism(inputs=...).save(FILE)" in text
    mi = ChannelDesign.from_params(prior=prior, notion="ldp", utility="mi", eps=1.0)
    best = compare_baselines(mi, mechopt.solve(mi, solver="exact").Q)  # certified: no baseline beats it on MI
    assert best["best_objective"] == "designed" and "beats the design" not in baselines_table(best)
