"""The bench runner: discovery, row normalisation, crash isolation, markdown page."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechopt.errors import ParamError
from mechopt.jobs.bench import discover, find_bench_dir, machine_info, normalise_row, run_bench, to_markdown

BENCH = """
def fast(quick):
    return [{"group": "demo", "case": "sum", "ours": "a", "ours_s": 0.5, "reference": "b",
             "reference_s": 1.5, "repeats": 3, "notes": "n=" + ("10" if quick else "1000")}]

def crash(quick):
    raise RuntimeError("kaput")

def wrong(quick):
    return 3

CASES = [fast, crash, wrong]
"""


@pytest.fixture
def bench_dir(tmp_path):
    (tmp_path / "bench_demo.py").write_text(BENCH)
    (tmp_path / "bench_broken.py").write_text("CASES = 1\n")
    (tmp_path / "bench_dict.py").write_text("CASES = {'one': lambda quick: [{'group': 'd', 'case': 'one'}]}\n")
    (tmp_path / "helper.py").write_text("raise SystemExit('not a bench module')\n")
    return tmp_path


def test_discover_and_run(bench_dir):
    assert [p.name for p in discover(bench_dir)] == ["bench_broken.py", "bench_demo.py", "bench_dict.py"]
    doc = run_bench(bench_dir, quick=True)
    rows = doc["rows"]
    broken = [r for r in rows if r["module"] == "bench_broken"]
    assert len(broken) == 1 and "must define CASES" in broken[0]["error"]
    demo = [r for r in rows if r["module"] == "bench_demo"]
    fast, crash, wrong = demo
    assert fast["ratio"] == pytest.approx(3.0) and fast["notes"] == "n=10" and fast.get("error") is None
    assert "kaput" in crash["error"] and crash["case"] == "crash"
    assert "not a list of dicts" in wrong["error"]
    assert doc["quick"] is True and doc["machine"]["nproc"] >= 1
    assert [r["case"] for r in rows if r["module"] == "bench_dict"] == ["one"]


def test_markdown_page(bench_dir):
    doc = run_bench(bench_dir, select="demo", command="mechopt bench --select demo")
    md = to_markdown(doc)
    assert md.startswith("# mechopt benchmark results")
    assert "- commit: `" in md and "cores" in md and "Python" in md and "`mechopt bench --select demo`" in md
    assert "## demo" in md and "| sum | a | 0.5 | b | 1.5 | 3× | 3 | n=1000 |" in md


def test_cli_bench_writes_out_and_json(capsys, bench_dir, tmp_path):
    import json

    from mechopt.cli import main

    out = tmp_path / "R.md"
    assert main(["bench", "--dir", str(bench_dir), "--select", "demo", "--out", str(out), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["out"] == str(out) and out.read_text().startswith("# mechopt benchmark results")
    assert {"group", "case", "ours", "ours_s", "reference", "reference_s", "ratio", "repeats", "notes"} <= set(
        doc["rows"][0]
    )


def test_normalise_and_errors(tmp_path):
    row = normalise_row({"group": "g", "case": "c"}, "m")
    assert row["ratio"] is None and row["notes"] == ""
    with pytest.raises(ParamError, match="no benchmarks folder"):
        find_bench_dir(tmp_path / "none")
    with pytest.raises(ParamError, match="no benchmark module matched"):
        run_bench(tmp_path, select="zzz")
    assert set(machine_info()) >= {"nproc", "cpu", "python", "commit"}


def test_checkout_benchmarks_are_found():
    found = [p.name for p in discover()]
    assert "bench_sweep.py" in found
    assert Path(find_bench_dir()).name == "benchmarks"


def test_bench_sweep_module_exposes_cases():
    from mechopt.jobs.bench import load_cases

    path = [p for p in discover() if p.name == "bench_sweep.py"][0]
    assert [c.__name__ for c in load_cases(path)] == ["workers", "builtin_spec", "per_user"]


def test_every_checkout_benchmark_module_loads():
    """`mechopt bench` must not turn a standalone script into an error row (it did for bench_structured)."""
    from mechopt.jobs.bench import load_cases

    for path in discover():
        assert isinstance(load_cases(path), list), path.name
