"""``mechopt sweep`` on the command line: JSON contract, resume, plot."""
from __future__ import annotations

import json

SPEC = '''
problem = "design"
solvers = ["sqp"]
[fixed]
notion = "lip"
utility = "histogram"
[grid]
prior = ["0.2,0.3,0.5", "uniform:3"]
eps = [0.5, 1.0]
[options.sqp]
n_starts = 2
'''


def test_cli_sweep_json_and_plot(cli, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    run = cli("sweep", spec, "--out", tmp_path / "o.jsonl", "--plot", tmp_path / "p.png", "--json")
    assert run.code == 0, run.err
    doc = run.json()
    assert len(doc["lines"]) == 4 and doc["plot"].endswith("p.png")
    assert {"key", "problem", "solver", "point", "params", "status", "value", "violation", "certificate",
            "time_s"} <= set(doc["lines"][0])
    again = cli("sweep", spec, "--out", tmp_path / "o.jsonl", "--resume", "--json").json()
    assert [ln["key"] for ln in again["lines"]] == [ln["key"] for ln in doc["lines"]]
    assert json.loads((tmp_path / "o.jsonl").read_text().splitlines()[0])["key"] == doc["lines"][0]["key"]
