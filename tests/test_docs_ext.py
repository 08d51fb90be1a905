"""Unit tests of the documentation's build-time extension (docs/_ext/mechopt_docs.py)."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("docutils")

ROOT = Path(__file__).resolve().parents[1]
EXT_DIR = ROOT / "docs" / "_ext"


@pytest.fixture(scope="module")
def ext():
    """The extension package, its submodules reachable as attributes."""
    sys.path.insert(0, str(EXT_DIR))
    try:
        pkg = importlib.import_module("mechopt_docs")
        for sub in ("cache", "common", "docstrings", "figures", "run", "verdicts"):
            importlib.import_module(f"mechopt_docs.{sub}")
        return pkg
    finally:
        sys.path.remove(str(EXT_DIR))


def _no_switches(monkeypatch) -> None:
    for name in (
        "MECHOPT_DOCS_FAST",
        "MECHOPT_DOCS_REFRESH",
        "MECHOPT_DOCS_VERIFY",
        "MECHOPT_DOCS_VERDICTS",
        "MECHOPT_DOCS_FIGURES",
        "MECHOPT_DOCS_RUN",
        "MECHOPT_DOCS_CACHE",
    ):
        monkeypatch.delenv(name, raising=False)


def test_tidy_docstring_escapes_bars_and_makes_programs_literal(ext) -> None:
    lines = [
        "The program",
        "",
        "    minimise  f",
        "    s.t.      g(x) ≥ 0,",
        "              |x| ≤ 1",
        "",
        "It bounds |Σ P − 1| but not ``|a|`` nor :math:`|b|`.",
        ">>> 1 | 2",
        "3",
    ]
    ext.docstrings.tidy_docstring(lines)
    assert lines[0] == "The program ::"  # the indented block is now literal
    assert lines[4] == "              |x| ≤ 1"  # untouched inside the literal block
    assert lines[6] == r"It bounds \|Σ P − 1\| but not ``|a|`` nor :math:`|b|`."
    assert lines[7] == ">>> 1 | 2"  # doctest lines untouched


def test_tidy_docstring_leaves_numpydoc_sections_alone(ext) -> None:
    lines = [
        "Parameters",
        "----------",
        "x : int",
        "    The value.",
        "",
        "    More about it.",
        "",
        "Examples",
        "--------",
        ">>> x = 1",
        "",
        "::",
        "",
        "    code",
        "",
    ]
    before = list(lines)
    ext.docstrings.tidy_docstring(lines)
    assert lines == before


def test_escape_and_numbers(ext) -> None:
    assert ext.common.esc("a*b_c|d") == r"a\*b\_c\|d"
    assert ext.common.esc("- starts like a list").startswith("\\-")
    assert (
        ext.common.fmt_num(None) == "—"
        and ext.common.fmt_num(float("inf")) == "∞"
        and ext.common.fmt_num(1.23456e-9) == "1.23e-09"
    )


def _reports(ext, monkeypatch, store=None):
    monkeypatch.setattr(ext.verdicts, "_VERDICTS", {})
    return ext.verdicts.claim_reports(store)


def test_verdict_table_without_and_with_claims(ext, monkeypatch) -> None:
    from mechopt import registry
    from mechopt.jobs.verify import Claim, Verdict

    _no_switches(monkeypatch)
    monkeypatch.setattr(registry, "claims", lambda paper=None: [])
    assert "No claims registered yet" in ext.verdicts.verdict_rst(_reports(ext, monkeypatch), None)

    def boom() -> Verdict:
        raise ZeroDivisionError("bad check")

    claims = [
        Claim("demo.thm1", "demo", "1 + 1 = 2", "integers", lambda: Verdict.from_deviations([0.0], 1e-9)),
        Claim(
            "demo.thm2", "demo", "x | y", "reals", lambda: Verdict.from_deviations([0.5], 1e-9, instances=[{"x": 1}])
        ),
        Claim("demo.thm3", "demo", "crashes", "none", boom),
    ]
    monkeypatch.setattr(registry, "claims", lambda paper=None: claims)
    data = _reports(ext, monkeypatch)
    text = ext.verdicts.verdict_rst(data, None)
    assert "3 claims: 1 error, 1 fails, 1 holds." in text
    assert "``demo.thm2``" in text and r"x \| y" in text and '``{"deviation": 0.5, "x": 1}``' in text
    assert "ZeroDivisionError" in text
    assert "No claims registered yet for the other paper" in ext.verdicts.verdict_rst(data, "other")


def test_verdicts_from_a_saved_verify_report(ext, monkeypatch, tmp_path) -> None:
    report = {
        "claims": [
            {
                "id": "lip.thm3",
                "paper": "lip",
                "statement": "Theorem 3",
                "domain": "d = 3",
                "verdict": "holds-in-region",
                "checked": 28,
                "worst_deviation": 1.01,
                "counterexample": {"eps": 0.5},
                "region": "min P >= 1/(1+e^eps)",
                "note": "",
                "time_s": 1.2,
            }
        ]
    }
    path = tmp_path / "verify.json"
    path.write_text(__import__("json").dumps(report), encoding="utf-8")
    _no_switches(monkeypatch)
    monkeypatch.setenv("MECHOPT_DOCS_VERDICTS", str(path))
    data = _reports(ext, monkeypatch)
    text = ext.verdicts.verdict_rst(data, None)
    assert "1 claims: 1 holds-in-region." in text and "◐ holds in region" in text
    assert "holds for: min P >= 1/(1+e^eps)" in text and "verify.json" in text
    assert "No claims registered yet for the kss paper" in ext.verdicts.verdict_rst(data, "kss")


def test_findings_list_only_the_claims_that_do_not_hold(ext, monkeypatch) -> None:
    rows = [
        {"id": "p.a", "paper": "p", "statement": "A", "verdict": "holds"},
        {
            "id": "p.b",
            "paper": "p",
            "statement": "B",
            "verdict": "fails",
            "counterexample": {"eps": 0.5, "prior": [0.1, 0.9]},
        },
        {"id": "p.c", "paper": "p", "statement": "C", "verdict": "holds-in-region", "region": "eps < 1"},
    ]
    data = {"skipped": False, "rows": rows, "time_s": 0.0, "load_error": None, "source": None}
    text = ext.verdicts.findings_rst(data, "p")
    assert "p.a" not in text and "``p.b`` — **fails**: B." in text and '``{"eps": 0.5}``' in text
    assert "Holds for eps < 1." in text
    assert ext.verdicts.findings_rst(data, "other") == ""


def test_summary_counts_per_paper(ext, monkeypatch) -> None:
    rows = [
        {"id": "lip.a", "paper": "lip", "verdict": "holds"},
        {"id": "lip.b", "paper": "lip", "verdict": "fails"},
        {"id": "kss.a", "paper": "kss", "verdict": "holds-in-region"},
        {"id": "kss.b", "paper": "kss", "verdict": "error"},
    ]
    text = ext.verdicts.summary_rst({"skipped": False, "rows": rows, "time_s": 0.0, "load_error": None, "source": None})
    import re

    cells = re.findall(r"^ {3}[* ] - (.*)$", text, flags=re.M)
    table = [cells[i : i + 8] for i in range(0, len(cells), 8)]  # every verdict of mechopt.jobs.verify.VERDICTS
    assert table[0] == [
        "paper",
        "claims",
        "holds",
        "fails",
        "holds in region",
        "holds after correction",
        "not checkable",
        "other",
    ]
    assert ["2", "1", "1", "0", "0", "0", "0"] == next(r[1:] for r in table if "lip" in r[0])
    assert ["2", "0", "0", "1", "0", "0", "1"] == next(r[1:] for r in table if "kss" in r[0])
    empty = {"skipped": False, "rows": [], "time_s": 0.0, "load_error": None, "source": None}
    assert "No claims registered yet" in ext.verdicts.summary_rst(empty)


def test_cache_key_depends_on_version_code_and_arguments(ext, tmp_path, monkeypatch) -> None:
    _no_switches(monkeypatch)
    cache = ext.cache
    a = cache.ResultsCache(tmp_path, version_key="1.0:code-a")
    a.put("figure", {"figure": "lip.fig3"}, {"images": []})
    assert a.get("figure", {"figure": "lip.fig3"}) == {"images": []}
    assert a.get("figure", {"figure": "lip.fig4"}) is None  # other arguments
    assert cache.ResultsCache(tmp_path, version_key="1.0:code-b").get("figure", {"figure": "lip.fig3"}) is None
    assert cache.ResultsCache(tmp_path, version_key="1.1:code-a").get("figure", {"figure": "lip.fig3"}) is None
    monkeypatch.setenv("MECHOPT_DOCS_REFRESH", "1")
    assert a.get("figure", {"figure": "lip.fig3"}) is None  # forced refresh


def test_code_hash_changes_with_any_source_file(ext, tmp_path) -> None:
    for sub in ("mechopt", "problems", "solvers"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "m.py").write_text("x = 1\n")
    ext.cache._CODE_HASH.clear()
    before = ext.cache.code_hash(tmp_path)
    (tmp_path / "solvers" / "m.py").write_text("x = 2\n")
    ext.cache._CODE_HASH.clear()
    assert ext.cache.code_hash(tmp_path) != before
    ext.cache._CODE_HASH.clear()


def test_claims_run_once_then_come_from_the_cache(ext, tmp_path, monkeypatch) -> None:
    _no_switches(monkeypatch)
    calls = []

    def fake_run():
        calls.append(1)
        return [{"id": "p.a", "paper": "p", "statement": "A", "verdict": "holds", "time_s": 2.0}], None

    monkeypatch.setattr(ext.verdicts, "run_all_claims", fake_run)
    store = ext.cache.ResultsCache(tmp_path, version_key="v:c")
    first = _reports(ext, monkeypatch, store)
    second = _reports(ext, monkeypatch, store)  # a new build: the memo is empty again
    assert len(calls) == 1 and second["rows"] == first["rows"] and second["cached"] and not first["cached"]
    assert "cached result of an earlier build" in ext.verdicts.verdict_rst(second, None)
    _reports(ext, monkeypatch, ext.cache.ResultsCache(tmp_path, version_key="v:changed-code"))
    assert len(calls) == 2  # a code change re-runs the claims
    monkeypatch.setenv("MECHOPT_DOCS_FAST", "1")
    fast = _reports(ext, monkeypatch, store)
    assert fast["skipped"] and "MECHOPT_DOCS_FAST=1" in ext.verdicts.verdict_rst(fast, None) and len(calls) == 2


def test_figure_reproduction_is_cached_with_its_images(ext, tmp_path, monkeypatch) -> None:
    _no_switches(monkeypatch)
    calls = []

    class Fig:
        title = "demo"

        def run(self, out, quick):
            calls.append(quick)
            (Path(out) / "fig.png").write_bytes(b"\x89PNG demo")
            return SimpleNamespace(files=[Path(out) / "fig.png", Path(out) / "data.json"], notes=["a note"])

    store = ext.cache.ResultsCache(tmp_path / "cache", version_key="v:c")
    value, cached = ext.figures.cached_reproduction(store, "demo.fig1", Fig(), tmp_path / "a")
    assert not cached and value["images"] == ["fig.png"] and value["notes"] == ["a note"]
    again, cached = ext.figures.cached_reproduction(store, "demo.fig1", Fig(), tmp_path / "b")
    assert cached and calls == [True] and (tmp_path / "b" / "fig.png").read_bytes() == b"\x89PNG demo"


# -- robustness: import errors fail the build -------------------------------------------------------
def test_bad_module_names_fail_a_warning_free_build(tmp_path) -> None:
    """autosummary of a missing module and a source listing of a missing object are warnings under -W,
    not a rubric on the page."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(
        "import sys\n"
        f"sys.path.insert(0, {str(EXT_DIR)!r})\n"
        "extensions = ['sphinx.ext.autodoc', 'sphinx.ext.autosummary', 'mechopt_docs']\n"
        "autosummary_generate = True\n"
    )
    (src / "index.rst").write_text(
        "Test\n====\n\n.. autosummary::\n   :toctree: generated\n\n   mechopt.no_such_module\n\n"
        ".. literalinclude:: conf.py\n   :pyobject: no_such_function\n"
    )
    env = {**os.environ, "MECHOPT_DOCS_FAST": "1", "MECHOPT_DOCS_CACHE": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(src), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode != 0
    assert "mechopt.no_such_module" in proc.stderr and "no_such_function" in proc.stderr
    assert "failed to import" in proc.stderr.lower()


def test_every_public_module_is_in_the_api_reference() -> None:
    """The API pages list modules for autosummary; a recursive entry covers its submodules."""
    import pkgutil

    import mechopt

    entries: list[tuple[str, bool]] = []
    for page in (ROOT / "docs" / "api").glob("*.rst"):
        for block in re.findall(r"^\.\. autosummary::\n((?:   .*\n|\n)+)", page.read_text(encoding="utf-8"), re.M):
            recursive = ":recursive:" in block
            entries += [
                (ln.strip(), recursive) for ln in block.splitlines() if ln.strip() and not ln.strip().startswith(":")
            ]
    names = {"mechopt"} | {i.name for i in pkgutil.walk_packages(mechopt.__path__, "mechopt.")}
    for sub in ("mechopt.solvers", "mechopt.problems"):
        pkg = importlib.import_module(sub)
        names |= {sub} | {i.name for i in pkgutil.walk_packages(pkg.__path__, sub + ".")}
    public = {n for n in names if not any(p.startswith("_") for p in n.split("."))}
    missing = [m for m in sorted(public) if not any(m == e or (rec and m.startswith(e + ".")) for e, rec in entries)]
    assert not missing, f"add these modules to a page of docs/api/: {missing}"
