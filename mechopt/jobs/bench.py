"""``mechopt bench``: run the benchmark suite of a source checkout and write its table.

Benchmarks live in ``benchmarks/bench_*.py`` next to the package (or in a
folder given with ``dir=``). Each module exposes ``CASES``, a list (or a
dict by name) of functions ``case(quick: bool) -> list[dict]``; each
returned row has

``group``, ``case``
    Where the row goes in the table, and what it measures.
``ours``, ``reference``
    What was timed on each side (method names; ``reference`` may be None).
``ours_s``, ``reference_s``
    Median wall times in seconds over ``repeats`` runs, in the same run.
``ratio``
    ``reference_s / ours_s`` unless the case states another convention in
    ``notes`` (> 1: ours is faster); filled in when a case leaves it out.
``repeats``, ``notes``
    Number of repeats; free text (sizes, gaps, throughput ...).

A case that raises becomes a row with ``error`` set; the others still run.

Examples
--------
>>> from mechopt.jobs.bench import normalise_row
>>> row = normalise_row({"group": "g", "case": "c", "ours_s": 0.5, "reference_s": 2.0}, "demo")
>>> row["ratio"], row["module"]
(4.0, 'demo')
"""

from __future__ import annotations

import importlib.util
import math
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from mechopt.errors import ParamError
from mechopt.runtime.progress import Progress

__all__ = [
    "find_bench_dir",
    "discover",
    "load_cases",
    "run_bench",
    "normalise_row",
    "to_markdown",
    "machine_info",
    "ROW_KEYS",
    "median_time",
    "timed",
]

ROW_KEYS = ("group", "case", "ours", "ours_s", "reference", "reference_s", "ratio", "repeats", "notes")


def timed(fn: Callable[[], Any], repeats: int = 3, *, best: bool = False) -> tuple[float, Any]:
    """(wall time of ``fn()`` over ``repeats`` calls, the last call's result): the benchmarks' one timer.

    The time is the median over the calls, or with ``best=True`` the minimum
    (best-of-n: the least disturbed run, for cases that document it).

    Examples
    --------
    >>> t, out = timed(lambda: sum(range(100)), repeats=3)
    >>> t >= 0.0, out
    (True, 4950)
    >>> timed(lambda: None, repeats=2, best=True)[0] >= 0.0
    True
    """
    times, out = [], None
    for _ in range(max(1, repeats)):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return (min(times) if best else statistics.median(times)), out


def median_time(fn: Callable[[], Any], repeats: int = 3) -> float:
    """Median wall time of ``fn()`` over ``repeats`` calls (a helper for cases; see :func:`timed`).

    Examples
    --------
    >>> median_time(lambda: sum(range(100)), repeats=3) >= 0.0
    True
    """
    return timed(fn, repeats)[0]


def find_bench_dir(directory: str | Path | None = None) -> Path:
    """``directory``, else ``benchmarks/`` of the source checkout holding this package, else ``./benchmarks``."""
    cands = (
        [Path(directory)]
        if directory is not None
        else [Path(__file__).resolve().parents[2] / "benchmarks", Path.cwd() / "benchmarks"]
    )
    for c in cands:
        if c.is_dir():
            return c
    raise ParamError(f"no benchmarks folder at {str(cands[0])!r}: run from a source checkout or pass --dir DIR")


def discover(directory: str | Path | None = None) -> list[Path]:
    """The ``bench_*.py`` files, sorted."""
    return sorted(find_bench_dir(directory).glob("bench_*.py"))


def load_cases(path: Path) -> list[Callable[[bool], list[dict[str, Any]]]]:
    """Import a benchmark module by path and return its ``CASES``."""
    name = f"mechopt_bench_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ParamError(f"cannot import benchmark {str(path)!r}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    folder = str(path.parent)
    added = folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        spec.loader.exec_module(mod)
    finally:
        if added:
            sys.path.remove(folder)
    cases = getattr(mod, "CASES", None)
    if isinstance(cases, dict):  # {name: case} is accepted too
        cases = list(cases.values())
    if not isinstance(cases, (list, tuple)) or not all(callable(c) for c in cases):
        raise ParamError(f"{path.name} must define CASES, a list of functions case(quick) -> list[dict]")
    return list(cases)


def normalise_row(row: dict[str, Any], module: str) -> dict[str, Any]:
    """Fill the missing keys of a case row, compute ``ratio`` when it is absent."""
    out = {k: row.get(k) for k in ROW_KEYS}
    out.update({k: v for k, v in row.items() if k not in out})
    out["module"] = module
    if out["ratio"] is None and out["ours_s"] and out["reference_s"]:
        out["ratio"] = float(out["reference_s"]) / float(out["ours_s"])
    out["notes"] = "" if out["notes"] is None else str(out["notes"])
    return out


def machine_info() -> dict[str, Any]:
    """nproc, CPU model, Python, platform, and the git commit of the checkout."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nproc = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "nproc": nproc,
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(terse=True),
        "commit": _commit(),
    }


def _commit() -> str | None:
    root = Path(__file__).resolve().parents[2]
    try:
        sha = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return sha + ("+dirty" if dirty else "")


def run_bench(
    directory: str | Path | None = None,
    *,
    quick: bool = False,
    select: str | None = None,
    progress: bool | None = False,
    command: str | None = None,
) -> dict[str, Any]:
    """Run every case (of modules whose name contains ``select``); the bench document."""
    files = [f for f in discover(directory) if select is None or select in f.stem]
    if not files:
        raise ParamError("no benchmark module matched" + (f" {select!r}" if select else ""))
    loaded = []
    for f in files:
        try:
            loaded.append((f, load_cases(f), None))
        except Exception as exc:  # a broken module is reported, the others run
            loaded.append((f, [], f"{type(exc).__name__}: {exc}"))
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    with Progress(sum(max(1, len(c)) for _, c, _ in loaded), "bench", enabled=progress) as bar:
        for f, cases, err in loaded:
            if err is not None:
                rows.append(
                    normalise_row({"group": f.stem, "case": "(import)", "notes": f"error: {err}", "error": err}, f.stem)
                )
                bar.advance(f.stem)
            for case in cases:
                rows += _run_case(case, f.stem, quick)
                bar.advance(f"{f.stem}.{getattr(case, '__name__', 'case')}")
    return {
        "rows": rows,
        "machine": machine_info(),
        "quick": quick,
        "wall_s": time.perf_counter() - t0,
        "command": command or ("mechopt bench" + (" --quick" if quick else "")),
    }


def _run_case(case: Callable[[bool], Any], module: str, quick: bool) -> list[dict[str, Any]]:
    name = getattr(case, "__name__", "case")
    t0 = time.perf_counter()
    try:
        got = case(quick)
        if not isinstance(got, list) or not all(isinstance(r, dict) for r in got):
            raise TypeError(f"{name} returned {type(got).__name__}, not a list of dicts")
    except Exception as exc:  # a crashing case is a reported row, not a crash of the suite
        msg = f"{type(exc).__name__}: {exc}"
        return [
            normalise_row(
                {
                    "group": module,
                    "case": name,
                    "notes": f"error: {msg}",
                    "error": msg,
                    "case_s": time.perf_counter() - t0,
                },
                module,
            )
        ]
    return [normalise_row({**r, "case_s": time.perf_counter() - t0}, module) for r in got]


def _cell(v: Any, unit: str = "") -> str:
    """One table cell; a missing or NaN number is "–" (never printed as ``nan``).

    >>> _cell(float("nan"), "×"), _cell(None), _cell(2.0, "×"), _cell(float("inf"), "×")
    ('–', '–', '2×', '∞')
    """
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "–"
    if isinstance(v, float):
        return "∞" if math.isinf(v) else f"{v:.3g}{unit}"
    return str(v).replace("|", "\\|").replace("\n", " ")


def to_markdown(doc: dict[str, Any]) -> str:
    """The markdown page: header (commit, machine, command) and one table per group."""
    m = doc["machine"]
    lines = [
        "# mechopt benchmark results",
        "",
        f"- commit: `{m.get('commit') or 'unknown'}`",
        f"- machine: {m.get('nproc')} cores, {m.get('cpu') or 'unknown CPU'}, Python {m.get('python')}, "
        f"{m.get('platform')}",
        f"- command: `{doc.get('command')}`"
        + (" (quick mode: smaller sizes, not the reference numbers)" if doc.get("quick") else ""),
        f"- date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; total {doc.get('wall_s', 0):.0f} s",
        "",
        "Times are medians over `repeats` runs on this machine, ours and the reference in the same run. "
        "`ratio` = reference time / our time (> 1: ours is faster) unless the notes say otherwise. "
        "The machine is shared: treat single timings as noisy, ratios as the result.",
        "",
    ]
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in doc["rows"]:
        groups.setdefault(str(r.get("group") or r.get("module")), []).append(r)
    for g, rows in groups.items():
        lines += [
            f"## {g}",
            "",
            "| case | ours | ours (s) | reference | reference (s) | ratio | repeats | notes |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            lines.append(
                "| "
                + " | ".join(
                    [
                        _cell(r.get("case")),
                        _cell(r.get("ours")),
                        _cell(r.get("ours_s")),
                        _cell(r.get("reference")),
                        _cell(r.get("reference_s")),
                        _cell(r.get("ratio"), "×"),
                        _cell(r.get("repeats")),
                        _cell(r.get("notes")),
                    ]
                )
                + " |"
            )
        lines.append("")
    return "\n".join(lines)
