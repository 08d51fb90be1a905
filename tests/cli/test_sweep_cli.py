"""``mechopt sweep`` on the command line: JSON contract, resume, plot."""

from __future__ import annotations

import json


def test_cli_sweep_json_and_plot(cli, tmp_path, sweep_spec):
    spec = sweep_spec(["0.2,0.3,0.5", "uniform:3"], [0.5, 1.0], n_starts=2)
    run = cli("sweep", spec, "--out", tmp_path / "o.jsonl", "--plot", tmp_path / "p.png", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert len(doc["lines"]) == 4 and doc["plot"].endswith("p.png")
    assert {
        "key",
        "problem",
        "solver",
        "point",
        "params",
        "status",
        "value",
        "violation",
        "certificate",
        "time_s",
    } <= set(doc["lines"][0])
    again = cli("sweep", spec, "--out", tmp_path / "o.jsonl", "--resume", "--json").json()
    assert [ln["key"] for ln in again["lines"]] == [ln["key"] for ln in doc["lines"]]
    assert json.loads((tmp_path / "o.jsonl").read_text().splitlines()[1])["key"] == doc["lines"][0]["key"]


def test_cli_sweep_summary_counts_statuses(cli, tmp_path):
    spec = tmp_path / "two.toml"
    spec.write_text(
        'problem = "design"\nsolvers = ["exact", "sqp"]\n[fixed]\nnotion = "lip"\nutility = "mse"\n'
        'values = "0,1,2"\nprior = "0.1,0.2,0.7"\n[grid]\neps = [0.5, 1.0]\n[options.sqp]\nn_starts = 2\n'
    )
    run = cli("sweep", spec)
    assert run.code == 0, run.err
    assert "4 points: 2 optimal (certified: certificate), 2 locally_optimal (no certificate)" in run.out
    header = run.out.splitlines()[0].split()
    assert header[-3:] == ["status", "proof", "time_s"]
