"""``mechopt design --utility mae | freq-var`` end to end, the advertised utilities, and policy-graph warnings."""

from __future__ import annotations

import re

import numpy as np
import pytest

from mechopt.notions import LDP, LIP, GraphLDP
from mechopt.utilities import MAE, UTILITIES, FrequencyVariance

BASE = ["design", "--prior", "0.2,0.3,0.5", "--eps", "1"]


def test_mae_designs_end_to_end_with_a_proof(cli):
    run = cli(*BASE, "--notion", "lip", "--utility", "mae", "--values", "0,1,3", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert (doc["status"], doc["solver"], doc["proof"], doc["sense"]) == ("optimal", "lp", "certificate", "min")
    Q, P = np.array(doc["mechanism"]["Q"]), np.array([0.2, 0.3, 0.5])
    assert doc["value"] == pytest.approx(MAE([0, 1, 3]).value(Q, P), rel=1e-12)
    assert LIP(1.0).audit(Q, P).eps <= 1.0
    assert doc["certificate"]["gap"] <= 1e-7
    assert 0.0 < doc["value"] < MAE([0, 1, 3]).value(np.tile(P, (3, 1)), P)  # beats the constant channel


def test_mae_output_estimates_set_the_outputs(cli):
    run = cli(*BASE, "--notion", "ldp", "--utility", "mae", "--values", "0,1,2", "--outputs", "0.5,1.5", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    Q = np.array(doc["mechanism"]["Q"])
    assert Q.shape == (3, 2)
    assert doc["value"] == pytest.approx(MAE([0, 1, 2], [0.5, 1.5]).value(Q, np.array([0.2, 0.3, 0.5])))
    assert doc["extras"]["output_estimates"] == [0.5, 1.5]  # what output y stands for


def test_freq_var_designs_end_to_end_locally(cli):
    run = cli(*BASE, "--notion", "ldp", "--utility", "freq-var", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert (doc["status"], doc["solver"], doc["certificate"], doc["proof"]) == ("locally_optimal", "sqp", None, None)
    Q, P = np.array(doc["mechanism"]["Q"]), np.array([0.2, 0.3, 0.5])
    assert doc["value"] == pytest.approx(FrequencyVariance().value(Q, P), rel=1e-9)
    assert LDP(1.0).audit(Q).eps <= 1.0
    text = cli(*BASE, "--notion", "ldp", "--utility", "freq-var")
    assert text.code == 0 and "locally_optimal" in text.out and "no certificate" in text.out


def _utility_help(text: str) -> str:
    block = text.split("\n  --utility UTILITY", 1)[1].split("\n  --", 1)[0]
    return " ".join(block.split())


def test_help_and_errors_name_the_same_utilities(cli, one_line_error):
    helprun = cli("design", "--help")
    assert helprun.code == 0
    helptext = _utility_help(helprun.out)
    names = helptext.split(" (", 1)[0].split(", ")
    assert names == list(UTILITIES), helptext
    for name in UTILITIES:  # each with the solver that designs it
        assert re.search(rf"{re.escape(name)}(, [\w-]+)*: (exact|lp|conic|sqp)", helptext), name
    run = cli(*BASE, "--notion", "ldp", "--utility", "l1")
    one_line_error(run)
    known = run.err.split("known:", 1)[1].strip().split(", ")
    assert sorted(known) == sorted(UTILITIES)


def test_a_solver_that_cannot_design_it_names_the_one_that_can(cli, one_line_error):
    run = cli(*BASE, "--notion", "ldp", "--utility", "mae", "--solver", "exact")
    one_line_error(run)
    assert "solvers that can: lp, conic" in run.err and "install" not in run.err
    run = cli(*BASE, "--notion", "ldp", "--utility", "freq-var", "--solver", "conic")
    one_line_error(run)
    assert "solvers that can: sqp" in run.err and "install" not in run.err


def test_outputs_with_another_utility_is_a_one_line_error(cli, one_line_error):
    run = cli(*BASE, "--notion", "ldp", "--utility", "mse", "--outputs", "0.5")
    one_line_error(run)
    assert "belong to utility mae" in run.err


@pytest.mark.parametrize("utility", ["mi", "mae"])
def test_an_input_without_an_edge_is_warned_about_and_named_in_the_result(cli, tmp_path, utility):
    graph = tmp_path / "g.edgelist"
    graph.write_text("0 1\n1 2\n")  # input 3 has no edge
    run = cli(
        "design",
        "--notion",
        "graph-ldp",
        "--graph",
        graph,
        "--utility",
        utility,
        "--prior",
        "uniform:4",
        "--eps",
        "1",
        "--json",
    )
    assert run.code == 0, run.err
    assert run.err.strip().splitlines() == [
        "mechopt: warning: policy graph: inputs [3] have no edge, so graph-LDP does not protect them"
    ]
    doc = run.json()
    assert "inputs [3] have no edge in the policy graph: graph-LDP does not protect them" in doc["message"]
    Q = np.array(doc["mechanism"]["Q"])
    # the design uses the freedom: input 3 is (almost) always told apart from the others
    assert Q[3, 3] > 0.999 and Q[:3, 3].max() < 1e-6
    import networkx as nx

    G = nx.Graph([(0, 1), (1, 2)])
    G.add_node(3)
    with pytest.warns(UserWarning, match="no edge"):
        assert GraphLDP(1.0, G).audit(Q).eps <= 1.0 + 1e-7


# -- designs on places: --coords ----------------------------------------------------------------------
def test_coords_design_end_to_end(cli, tmp_path):
    counts = tmp_path / "counts.txt"
    counts.write_text(" ".join(str(1 + i % 4) for i in range(16)))
    run = cli("design", "--coords", "grid:4x4", "--notion", "metric-ldp", "--utility", "loss", "--eps", "0.5",
              "--prior", f"counts:{counts}", "--json")  # fmt: skip
    assert run.code == 0, run.err
    doc = run.json()
    assert (doc["status"], doc["solver"], doc["proof"]) == ("optimal", "lp", "certificate")
    assert doc["privacy"]["notion"] == "metric-ldp" and doc["privacy"]["violation"] <= 1e-7
    assert doc["extras"]["relative_gap"] <= 1e-7 and np.array(doc["mechanism"]["Q"]).shape == (16, 16)


def test_haversine_coords_file(cli, tmp_path):
    f = tmp_path / "places.csv"
    f.write_text("48.850,2.350\n48.855,2.355\n48.860,2.350\n48.851,2.360\n")
    run = cli("design", "--coords", str(f), "--norm", "haversine", "--notion", "metric-ldp", "--utility", "loss",
              "--eps", "2", "--json")  # fmt: skip
    assert run.code == 0, run.err
    doc = run.json()
    assert doc["status"] == "optimal" and doc["unit"] == "km"


@pytest.mark.parametrize(
    "extra,needle",
    [
        (["--values", "1,2"], "do not apply to a design on places"),
        (["--utility", "mae"], "uses --utility loss"),
        (["--notion", "mip"], "does not apply to places"),
        (["--coords", "grid:0x3"], "at least 2 points"),
    ],
)
def test_coords_refuses_what_does_not_apply(cli, one_line_error, extra, needle):
    args = {"--coords": "grid:3x3", "--notion": "metric-ldp", "--utility": "loss", "--eps": "1"}
    for k, v in zip(extra[::2], extra[1::2]):
        args[k] = v
    run = cli("design", *[t for kv in args.items() for t in kv])
    one_line_error(run)
    assert run.code == 2 and needle in run.err


def test_norm_without_coords_is_refused(cli, one_line_error):
    run = cli(*BASE, "--notion", "ldp", "--utility", "mae", "--norm", "haversine")
    one_line_error(run)
    assert "--norm" in run.err
