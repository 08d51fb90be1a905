"""Interrupted work (issue 11, part 6): killed at any point, resumed without losing or duplicating results.

Sweeps append flushed + fsynced JSON lines; a resume drops an unfinished last
line and runs only the missing points. Tested by cutting a finished file at
every line boundary (± 1 byte) and at sampled offsets inside lines, by crashing
the writer after k points for every k, and by SIGKILLing a real ``mechopt
sweep`` twice in a row. Reproductions stage each figure's files and publish
them with ``os.replace``: a crash inside a figure, between two renames, or a
SIGKILL while a file is being written leaves every output complete or as it
was, never half-written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import mechopt.jobs.reproduce as reproduce_mod
import mechopt.jobs.sweep.run as sweep_mod
from mechopt.figures import Figure, FigureOutput
from mechopt.jobs.reproduce import STAGING_PREFIX, reproduce
from mechopt.jobs.sweep.run import SweepSpec, read_lines, sweep

SPEC = SweepSpec(
    problem="design",
    solvers=("exact", "closed-form"),
    grid={"prior": ["0.2,0.3,0.5", "0.1,0.2,0.7"], "eps": [0.5, 1.0, 2.0]},
    fixed={"notion": "lip", "utility": "histogram"},
)
N_LINES = 12


def _strip(lines):
    return {ln["key"]: {k: v for k, v in ln.items() if k != "time_s"} for ln in lines}


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("full") / "full.jsonl"
    lines = sweep(SPEC, out)
    assert len(lines) == N_LINES and len({ln["key"] for ln in lines}) == N_LINES
    return lines, out.read_bytes()


def _check_resumed(path: Path, full_lines) -> None:
    """The file holds every point exactly once, and the results equal an uninterrupted run."""
    on_disk = read_lines(path)
    keys = [ln["key"] for ln in on_disk]
    assert len(keys) == len(set(keys)) == N_LINES, "lost or duplicated points"
    assert _strip(on_disk) == _strip(full_lines)
    assert path.read_bytes().endswith(b"\n")


def _cut_points(blob: bytes, rng: np.random.Generator) -> list[int]:
    ends = [i + 1 for i, b in enumerate(blob) if b == ord("\n")]
    cuts = {0, len(blob)}
    for e in ends:
        cuts |= {e - 1, e, min(e + 1, len(blob))}
    cuts |= set(rng.integers(0, len(blob), 24).tolist())  # inside lines
    return sorted(cuts)


def test_resume_after_a_cut_at_any_byte_offset(tmp_path, full) -> None:
    """A kill leaves a prefix of the file (append + flush + fsync): resume from every kind of prefix."""
    full_lines, blob = full
    cuts = _cut_points(blob, np.random.default_rng(11))
    assert len(cuts) >= 3 * N_LINES
    for cut in cuts:
        path = tmp_path / f"cut{cut}.jsonl"
        path.write_bytes(blob[:cut])
        sweep(SPEC, path, resume=True)
        _check_resumed(path, full_lines)


@pytest.mark.parametrize("k", range(0, N_LINES + 1, 3))
def test_crash_after_k_points_then_resume(tmp_path, monkeypatch, full, k) -> None:
    """The process dies (an exception escapes) right after k points were written."""
    full_lines, _ = full
    path = tmp_path / "crash.jsonl"
    real, count = sweep_mod.run_point, {"n": 0}

    def dying(task):
        if count["n"] == k:
            raise KeyboardInterrupt("killed")
        count["n"] += 1
        return real(task)

    monkeypatch.setattr(sweep_mod, "run_point", dying)
    if k < N_LINES:
        with pytest.raises(KeyboardInterrupt):
            sweep(SPEC, path)
    else:
        sweep(SPEC, path)
    assert len(read_lines(path)) == k
    monkeypatch.setattr(sweep_mod, "run_point", real)
    sweep(SPEC, path, resume=True)
    _check_resumed(path, full_lines)


def test_crash_while_writing_a_line_then_resume(tmp_path, monkeypatch, full) -> None:
    """The writer dies half-way through a line (a partial write reaches the file)."""
    full_lines, _ = full
    path = tmp_path / "partial.jsonl"
    real_dumps, count = json.dumps, {"n": 0}

    class HalfWrite(Exception):
        pass

    def dumps(obj, *a, **k):
        text = real_dumps(obj, *a, **k)
        if k.get("allow_nan") is not False:  # not the line writer (keys are hashed through dumps too)
            return text
        count["n"] += 1
        if count["n"] == 5:
            with path.open("a") as fh:
                fh.write(text[: len(text) // 2])
            raise HalfWrite
        return text

    monkeypatch.setattr(sweep_mod.json, "dumps", dumps)
    with pytest.raises(HalfWrite):
        sweep(SPEC, path)
    monkeypatch.setattr(sweep_mod.json, "dumps", real_dumps)
    assert len(read_lines(path)) == 4 and not path.read_bytes().endswith(b"\n")
    sweep(SPEC, path, resume=True)
    _check_resumed(path, full_lines)


def _run_until(args: list[str], path: Path, lines: int, timeout: float = 120.0) -> None:
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t_end = time.time() + timeout
        while time.time() < t_end and proc.poll() is None:
            if path.exists() and path.read_bytes().count(b"\n") >= lines:
                break
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        proc.wait(timeout=30)


def test_sigkill_twice_then_resume(tmp_path) -> None:
    """A real ``mechopt sweep`` killed after ≥ 1 line, resumed and killed again, then finished."""
    spec = tmp_path / "spec.toml"
    spec.write_text(
        'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\nutility = "histogram"\n'
        '[grid]\nprior = ["0.2,0.3,0.5", "0.1,0.2,0.7"]\neps = [0.25, 0.5, 1.0, 2.0]\n'
        "[options.sqp]\nn_starts = 30\n"
    )
    out = tmp_path / "k.jsonl"
    cmd = [sys.executable, "-m", "mechopt.cli", "sweep", str(spec), "--out", str(out)]
    _run_until(cmd, out, 1)
    first = len(read_lines(out))
    _run_until(cmd + ["--resume"], out, first + 2)
    second = len(read_lines(out))
    assert 1 <= first <= second
    resumed = sweep(spec, out, resume=True)
    reference = sweep(spec, tmp_path / "ref.jsonl")
    keys = [ln["key"] for ln in read_lines(out)]
    assert len(keys) == len(set(keys)) == 8
    assert {ln["key"] for ln in resumed} == {ln["key"] for ln in reference}
    ref = {ln["key"]: ln for ln in reference}
    for ln in read_lines(out):
        assert ln["status"] == ref[ln["key"]]["status"]
        assert ln["value"] == pytest.approx(ref[ln["key"]]["value"], rel=1e-9)


# -- reproductions ---------------------------------------------------------------------------


def _figure(fail_in_run: bool = False, tag: str = "new") -> dict[str, Figure]:
    def run(out_dir: Path, quick: bool = False) -> FigureOutput:
        out_dir = Path(out_dir)
        files = []
        for name, body in (
            ("demo.json", json.dumps({"tag": tag, "x": list(range(50))})),
            ("demo.csv", "x,y\n" + "".join(f"{i},{tag}\n" for i in range(50))),
            ("sub/demo.png", tag * 100),
        ):
            p = out_dir / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if fail_in_run and name == "demo.csv":
                p.write_text(body[: len(body) // 3])  # half-written, then the figure dies
                raise RuntimeError("figure crashed mid-write")
            p.write_text(body)
            files.append(p)
        return FigureOutput(id="demo.fig", files=files, data={"csv": str(out_dir / "demo.csv")})

    return {"demo.fig": Figure(id="demo.fig", title="demo", run=run, paper="demo")}


def _contents(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.rglob("*")) if p.is_file()}


def test_reproduce_publishes_into_out_and_reports_final_paths(tmp_path) -> None:
    rep = reproduce(["demo.fig"], tmp_path, figures=_figure())
    assert rep[0]["status"] == "ok"
    assert sorted(Path(f).relative_to(tmp_path).as_posix() for f in rep[0]["files"]) == [
        "demo.csv",
        "demo.json",
        "sub/demo.png",
    ]
    assert rep[0]["data"]["csv"] == str(tmp_path / "demo.csv")
    assert all(Path(f).exists() for f in rep[0]["files"])
    assert not list(tmp_path.glob(f"{STAGING_PREFIX}*"))


def test_reproduce_crash_inside_a_figure_leaves_old_outputs_untouched(tmp_path) -> None:
    reproduce(["demo.fig"], tmp_path, figures=_figure(tag="old"))
    before = _contents(tmp_path)
    rep = reproduce(["demo.fig"], tmp_path, figures=_figure(fail_in_run=True))
    assert rep[0]["status"] == "error" and "mid-write" in rep[0]["error"]
    assert _contents(tmp_path) == before  # no half-written CSV, nothing new
    assert not list(tmp_path.glob(f"{STAGING_PREFIX}*"))


def test_reproduce_crash_between_renames_leaves_each_file_whole(tmp_path, monkeypatch) -> None:
    reproduce(["demo.fig"], tmp_path, figures=_figure(tag="old"))
    old = _contents(tmp_path)
    real, calls = os.replace, {"n": 0}

    def flaky(src, dst):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt("killed between two renames")
        return real(src, dst)

    monkeypatch.setattr(reproduce_mod.os, "replace", flaky)
    with pytest.raises(KeyboardInterrupt):
        reproduce(["demo.fig"], tmp_path, figures=_figure(tag="new"))
    monkeypatch.setattr(reproduce_mod.os, "replace", real)
    new_full = _figure(tag="new")
    now = _contents(tmp_path)
    for name, text in now.items():  # every file is one whole version
        assert text == old[name] or text == _render(new_full, name), name
    assert sum(now[n] != old[n] for n in now) == 1  # the one rename that happened
    reproduce(["demo.fig"], tmp_path, figures=new_full)  # a re-run completes everything
    assert all(v == _render(new_full, k) for k, v in _contents(tmp_path).items())
    assert not list(tmp_path.glob(f"{STAGING_PREFIX}*"))


def _render(figs: dict[str, Figure], name: str) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        figs["demo.fig"].run(Path(d))
        return (Path(d) / name).read_text()


def test_reproduce_sigkill_while_a_file_is_written(tmp_path) -> None:
    """SIGKILL in the middle of a figure's (slow) write: no partial file in --out; the next run cleans up."""
    flag = tmp_path / "writing"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from mechopt.figures import Figure, FigureOutput
        from mechopt.jobs.reproduce import reproduce
        def run(out_dir, quick=False):
            p = Path(out_dir) / "big.csv"
            with p.open("w") as fh:
                fh.write("x\\n0\\n"); fh.flush()
                Path({str(flag)!r}).write_text("1")
                time.sleep(60)
                fh.write("1\\n")
            return FigureOutput(id="slow", files=[p], data=None)
        slow = Figure(id="slow", title="t", run=run, paper="x")
        reproduce(["slow"], {str(tmp_path / "out")!r}, figures={{"slow": slow}})
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        t_end = time.time() + 60
        while not flag.exists() and time.time() < t_end and proc.poll() is None:
            time.sleep(0.02)
        assert flag.exists(), "the figure never started writing"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    out = tmp_path / "out"
    assert not (out / "big.csv").exists()  # only inside the hidden staging folder
    assert list(out.glob(f"{STAGING_PREFIX}*"))
    reproduce(["demo.fig"], out, figures=_figure())
    assert not list(out.glob(f"{STAGING_PREFIX}*"))  # stale staging removed by the next run
    assert (out / "demo.csv").exists()
