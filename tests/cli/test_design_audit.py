"""``mechopt design`` and ``mechopt audit``: JSON contract, round trip, graph inputs."""

from __future__ import annotations

import json

import networkx as nx
import numpy as np
import pytest

from mechopt.notions import LDP, LIP, MIP, GraphLDP
from mechopt.utilities import HistogramMSE

DESIGN = [
    "design",
    "--notion",
    "lip",
    "--utility",
    "histogram",
    "--prior",
    "0.3,0.7",
    "--eps",
    "1",
    "--solver",
    "sqp",
    "--opt",
    "n_starts=4",
]


def test_design_json_contract(cli):
    run = cli(*DESIGN, "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert {"status", "value", "objective", "sense", "mechanism", "privacy", "certificate", "solver", "time_s"} <= set(
        doc
    )
    assert set(doc["privacy"]) == {"notion", "eps", "violation", "eps_audited"}
    assert doc["status"] == "locally_optimal" and doc["sense"] == "min" and doc["solver"] == "sqp"
    assert doc["certificate"] is None and doc["proof"] is None  # SQP is a local method: no bound, no proof
    Q = np.array(doc["mechanism"]["Q"])
    P = np.array([0.3, 0.7])
    assert np.allclose(Q.sum(axis=1), 1.0)
    # the reported value is the histogram MSE of the printed mechanism, and it is private
    assert doc["value"] == pytest.approx(HistogramMSE().value(Q, P), rel=1e-9)
    assert LIP(1.0).audit(Q, P).eps <= 1.0 + 1e-7
    assert doc["privacy"]["eps_audited"] <= 1.0 + 1e-7
    # privacy costs utility: strictly worse than no privacy (MSE 0), better than a constant channel
    assert 0.0 < doc["value"] < HistogramMSE().value(np.full((2, 2), 0.5), P)


def test_design_human_output_has_mechanism_and_certificate(cli):
    run = cli(*DESIGN)
    assert run.code == 0
    assert "certificate  none" in run.out and "x=0" in run.out and "x=1" in run.out
    assert "nan" not in run.out.lower()


def test_design_reports_the_proof_of_optimal(cli):
    exact = [a if a != "sqp" else "exact" for a in DESIGN[:-2]]
    doc = cli(*exact, "--json").json()
    assert doc["status"] == "optimal" and doc["proof"] == "certificate" and doc["certificate"]["gap"] <= 1e-9
    run = cli(*exact)
    assert run.code == 0 and "status       optimal (proof: certificate, gap " in run.out
    local = cli(*DESIGN)
    assert "status       locally_optimal: best local optimum of" in local.out


def test_design_closed_form_outside_its_region_is_not_an_answer(cli):
    base = ["design", "--problem", "lip-binary", "--set", "eps=1", "--solver", "closed-form"]
    inside = cli(*base, "--set", "p1=0.4", "--json")
    doc = inside.json()
    assert inside.code == 0 and doc["status"] == "optimal" and doc["proof"] == "theorem"
    assert doc["extras"]["claim"] == "lip.thm2"
    outside = cli(*base, "--set", "p1=0.1")
    assert outside.code == 1 and "status       infeasible_point" in outside.out and "not proven here" in outside.out


def test_help_lists_the_status_vocabulary(cli):
    from mechopt.results.result import PROOFS, Status

    for argv in (["--help"], ["design", "--help"]):
        run = cli(*argv)
        assert run.code == 0
        assert all(f"  {s.value} " in run.out for s in Status) and all(f"  {p} " in run.out for p in PROOFS)


def test_problem_set_equals_flags(cli):
    a = cli(*DESIGN, "--json").json()
    b = cli(
        "design",
        "--problem",
        "design",
        "--set",
        "prior=0.3,0.7",
        "--set",
        "notion=lip",
        "--set",
        "utility=histogram",
        "--set",
        "eps=1",
        "--solver",
        "sqp",
        "--opt",
        "n_starts=4",
        "--json",
    ).json()
    assert a["value"] == pytest.approx(b["value"], rel=1e-12)


def test_spec_file(cli, tmp_path):
    spec = tmp_path / "d.toml"
    spec.write_text(
        'problem = "design"\nsolver = "sqp"\n[params]\nprior = "uniform:3"\nnotion = "ldp"\n'
        'utility = "mi"\neps = 1.0\n[options]\nn_starts = 3\n'
    )
    doc = cli("design", "--spec", spec, "--json").json()
    Q = np.array(doc["mechanism"]["Q"])
    assert doc["sense"] == "max" and doc["objective"] == "mi"
    assert LDP(1.0).audit(Q).eps <= 1.0 + 1e-7
    assert 0.0 < doc["value"] <= np.log(3)


@pytest.mark.parametrize("fmt", ["edgelist", "graphml", "json"])
def test_graph_file_formats(cli, tmp_path, fmt):
    G = nx.path_graph(3)
    path = tmp_path / f"g.{fmt}"
    if fmt == "edgelist":
        path.write_text("# a path\n0 1\n1 2 1.0\n")
    elif fmt == "graphml":
        nx.write_graphml(G, path)
    else:
        path.write_text(json.dumps(nx.node_link_data(G, edges="edges")))
    doc = cli(
        "design",
        "--notion",
        "graph-ldp",
        "--utility",
        "mse",
        "--prior",
        "uniform:3",
        "--eps",
        "1",
        "--graph",
        path,
        "--solver",
        "sqp",
        "--opt",
        "n_starts=3",
        "--json",
    ).json()
    Q = np.array(doc["mechanism"]["Q"])
    assert GraphLDP(1.0, G).audit(Q).eps <= 1.0 + 1e-7
    # only neighbours are constrained: the end points may be further apart than e^eps
    assert doc["privacy"]["notion"] == "graph-ldp"


def test_out_audit_round_trip(cli, tmp_path):
    out = tmp_path / "mech.json"
    d = cli(*DESIGN, "--json", "--out", out).json()
    saved = json.loads(out.read_text())
    # one layout: the file carries the same mechanism object as the --json document
    assert saved["mechanism"] == d["mechanism"] and set(d["mechanism"]) == {"Q", "inputs", "outputs", "prior"}
    assert saved["privacy"] == d["privacy"] and saved["privacy"]["notion"] == "lip" and saved["privacy"]["eps"] == 1.0
    assert saved["mechanism"]["prior"] == pytest.approx([0.3, 0.7])
    assert saved["unit"] == d["unit"] == "unitless (squared probability)"  # histogram MSE of indicators
    run = cli("audit", out, "--prior", "0.3,0.7", "--json")
    assert run.code == 0
    doc = run.json()
    assert set(doc["notions"]) == {"ldp", "lip", "mip", "pml"}
    Q, P = np.array(saved["mechanism"]["Q"]), np.array([0.3, 0.7])
    assert doc["notions"]["lip"]["eps"] == pytest.approx(d["privacy"]["eps_audited"], abs=1e-9)
    assert doc["notions"]["ldp"]["eps"] == pytest.approx(LDP(1).audit(Q).eps, rel=1e-12)
    assert doc["notions"]["mip"]["eps"] == pytest.approx(MIP(1).audit(Q, P).eps, rel=1e-12)
    assert not list(tmp_path.glob(".*"))  # the writer leaves no temporary


def test_audit_infinite_is_null_and_prior_from_file(cli, tmp_path):
    path = tmp_path / "id.json"
    path.write_text(json.dumps({"Q": [[1, 0], [0, 1]], "prior": [0.5, 0.5]}))
    doc = cli("audit", path, "--json").json()
    assert doc["notions"]["ldp"]["eps"] is None and doc["notions"]["lip"]["eps"] is None
    assert doc["notions"]["mip"]["eps"] == pytest.approx(np.log(2))
    human = cli("audit", path)
    assert "inf" in human.out and "nan" not in human.out.lower()


def test_audit_without_prior_gives_ldp_only(cli, tmp_path):
    path = tmp_path / "krr.json"
    path.write_text(json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]]}))
    doc = cli("audit", path, "--json").json()
    assert set(doc["notions"]) == {"ldp"} and doc["notions"]["ldp"]["eps"] == pytest.approx(np.log(3))


def test_version(cli):
    run = cli("--version")
    assert run.code == 0 and run.out.startswith("mechopt ")


def test_builtin_design_spec_metric_privacy(cli):
    doc = cli("design", "--spec", "design-metric", "--json").json()
    Q = np.array(doc["mechanism"]["Q"])
    G = nx.path_graph(5)
    assert GraphLDP(1.0, G, metric=True).audit(Q).eps <= 1.0 + 1e-7
    assert doc["privacy"]["notion"] == "metric-ldp"
    # the spec names the certified solver: a proven optimum, not a local one
    assert doc["solver"] == "exact" and doc["status"] == "optimal" and doc["certificate"]["gap"] <= 1e-9


def test_design_list_problems(cli):
    doc = cli("design", "--list", "--json").json()
    ids = {p["id"]: p for p in doc["problems"]}
    assert "design" in ids and {"prior", "notion", "utility", "eps"} <= set(ids["design"]["params"])


def test_a_missing_graph_file_says_what_file_to_give(cli, one_line_error, tmp_path, monkeypatch):
    """The Getting Started variation ``--graph edges.txt`` run as shown: one line that says what an edge list is."""
    monkeypatch.chdir(tmp_path)
    run = cli("design", "--notion", "graph-ldp", "--graph", "edges.txt", "--utility", "mi", "--prior", "uniform:4",
              "--eps", "1")  # fmt: skip
    one_line_error(run)
    assert "'edges.txt' does not exist" in run.err and "'u v' pair" in run.err and ".graphml" in run.err
    (tmp_path / "edges.txt").write_text("0 1\n1 2\n")  # the file the message shows how to make
    assert cli("design", "--notion", "graph-ldp", "--graph", "edges.txt", "--utility", "mi", "--prior", "uniform:4",
               "--eps", "1").code == 0  # fmt: skip
