"""Unit tests of the documentation's build-time extension (docs/_ext/mechopt_docs.py)."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

pytest.importorskip("sphinx")
pytest.importorskip("docutils")

_PATH = Path(__file__).resolve().parents[1] / "docs" / "_ext" / "mechopt_docs.py"


@pytest.fixture(scope="module")
def ext():
    spec = importlib.util.spec_from_file_location("mechopt_docs_under_test", _PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tidy_docstring_escapes_bars_and_makes_programs_literal(ext) -> None:
    lines = ["The program", "", "    minimise  f", "    s.t.      g(x) ≥ 0,", "              |x| ≤ 1",
             "", "It bounds |Σ P − 1| but not ``|a|`` nor :math:`|b|`.", ">>> 1 | 2", "3"]
    ext.tidy_docstring(lines)
    assert lines[0] == "The program ::"                      # the indented block is now literal
    assert lines[4] == "              |x| ≤ 1"                # untouched inside the literal block
    assert lines[6] == r"It bounds \|Σ P − 1\| but not ``|a|`` nor :math:`|b|`."
    assert lines[7] == ">>> 1 | 2"                            # doctest lines untouched


def test_tidy_docstring_leaves_numpydoc_sections_alone(ext) -> None:
    lines = ["Parameters", "----------", "x : int", "    The value.", "", "    More about it.",
             "", "Examples", "--------", ">>> x = 1", "", "::", "", "    code", ""]
    before = list(lines)
    ext.tidy_docstring(lines)
    assert lines == before


def test_escape_and_numbers(ext) -> None:
    assert ext.esc("a*b_c|d") == r"a\*b\_c\|d"
    assert ext.esc("- starts like a list").startswith("\\-")
    assert ext.fmt_num(None) == "—" and ext.fmt_num(float("inf")) == "∞" and ext.fmt_num(1.23456e-9) == "1.23e-09"


def test_theme_of_groups_every_planned_module(ext) -> None:
    assert ext.theme_of("mechopt.notions.ldp") == "notions"
    assert ext.theme_of("mechopt.solvers.exact") == "solvers"
    assert ext.theme_of("mechopt.problems.lip_closed") == "problems"
    assert ext.theme_of("mechopt.claims.lip") == "verification"
    assert ext.theme_of("mechopt.simulate") == "simulation"
    assert ext.theme_of("mechopt.cli.design") == "cli"
    assert ext.theme_of("mechopt.channel") == "model"
    assert all(ext.theme_of(m) in ext.THEMES for m in ext.PLANNED)


def test_verdict_table_without_and_with_claims(ext, monkeypatch) -> None:
    from mechopt import registry
    from mechopt.jobs.verify import Claim, Verdict

    monkeypatch.setattr(ext, "_VERDICTS", {})
    monkeypatch.setattr(registry, "claims", lambda paper=None: [])
    assert "No claims registered yet" in ext.verdict_rst(None)

    def boom() -> Verdict:
        raise ZeroDivisionError("bad check")

    claims = [Claim("demo.thm1", "demo", "1 + 1 = 2", "integers", lambda: Verdict.from_deviations([0.0], 1e-9)),
              Claim("demo.thm2", "demo", "x | y", "reals",
                    lambda: Verdict.from_deviations([0.5], 1e-9, instances=[{"x": 1}])),
              Claim("demo.thm3", "demo", "crashes", "none", boom)]
    monkeypatch.setattr(ext, "_VERDICTS", {})
    monkeypatch.setattr(registry, "claims", lambda paper=None: claims)
    text = ext.verdict_rst(None)
    assert "3 claims: 1 error, 1 fails, 1 holds." in text
    assert "``demo.thm2``" in text and r"x \| y" in text and '``{"deviation": 0.5, "x": 1}``' in text
    assert "ZeroDivisionError" in text
    assert "No claims registered yet for the other paper" in ext.verdict_rst("other")


def test_verdicts_from_a_saved_verify_report(ext, monkeypatch, tmp_path) -> None:
    report = {"claims": [{"id": "lip.thm3", "paper": "lip", "statement": "Theorem 3", "domain": "d = 3",
                          "verdict": "holds-in-region", "checked": 28, "worst_deviation": 1.01,
                          "counterexample": {"eps": 0.5}, "region": "min P >= 1/(1+e^eps)", "note": "",
                          "time_s": 1.2}]}
    path = tmp_path / "verify.json"
    path.write_text(__import__("json").dumps(report), encoding="utf-8")
    monkeypatch.setattr(ext, "_VERDICTS", {})
    monkeypatch.setenv("MECHOPT_DOCS_VERDICTS", str(path))
    text = ext.verdict_rst(None)
    assert "1 claims: 1 holds-in-region." in text and "◐ holds in region" in text
    assert "holds for: min P >= 1/(1+e^eps)" in text and "verify.json" in text
    assert "No claims registered yet for the kss paper" in ext.verdict_rst("kss")


def test_promote_headings_outside_code_fences(ext) -> None:
    md = ["## exact", "text", "```", "## not a heading", "```", "### sub", "#no"]
    assert ext._promote_headings(md) == ["# exact", "text", "```", "## not a heading", "```", "## sub", "#no"]


def test_cli_help_lists_every_subcommand_or_says_it_is_missing(ext) -> None:
    text = ext.cli_help_rst()
    if ext.cli_available():
        for sub in ("compare", "design", "verify", "audit", "reproduce", "sweep", "bench"):
            assert f"``mechopt {sub}``" in text
    else:
        assert "not part of this build" in text


def test_findings_list_only_the_claims_that_do_not_hold(ext, monkeypatch) -> None:
    rows = [{"id": "p.a", "paper": "p", "statement": "A", "verdict": "holds"},
            {"id": "p.b", "paper": "p", "statement": "B", "verdict": "fails",
             "counterexample": {"eps": 0.5, "prior": [0.1, 0.9]}},
            {"id": "p.c", "paper": "p", "statement": "C", "verdict": "holds-in-region", "region": "eps < 1"}]
    monkeypatch.setattr(ext, "_VERDICTS", {"skipped": False, "rows": rows, "time_s": 0.0,
                                           "load_error": None, "source": None})
    text = ext.findings_rst("p")
    assert "p.a" not in text and "``p.b`` — **fails**: B." in text and '``{"eps": 0.5}``' in text
    assert "Holds for eps < 1." in text
    assert ext.findings_rst("other") == ""


def test_summary_counts_per_paper(ext, monkeypatch) -> None:
    rows = [{"id": "lip.a", "paper": "lip", "verdict": "holds"}, {"id": "lip.b", "paper": "lip", "verdict": "fails"},
            {"id": "kss.a", "paper": "kss", "verdict": "holds-in-region"}, {"id": "kss.b", "paper": "kss", "verdict": "error"}]
    monkeypatch.setattr(ext, "_VERDICTS", {"skipped": False, "rows": rows, "time_s": 0.0,
                                           "load_error": None, "source": None})
    text = ext.summary_rst()
    import re

    cells = re.findall(r"^ {3}[* ] - (.*)$", text, flags=re.M)
    table = [cells[i:i + 6] for i in range(0, len(cells), 6)]
    assert table[0] == ["paper", "claims", "holds", "holds in region", "fails", "other"]
    assert ["2", "1", "0", "1", "0"] == next(r[1:] for r in table if "lip" in r[0])
    assert ["2", "0", "1", "0", "1"] == next(r[1:] for r in table if "kss" in r[0])
    monkeypatch.setattr(ext, "_VERDICTS", {"skipped": False, "rows": [], "time_s": 0.0, "load_error": None,
                                           "source": None})
    assert "No claims registered yet" in ext.summary_rst()


def test_unknown_numpydoc_sections_are_kept(ext) -> None:
    lines = ["Summary.", "", "Options", "-------", "method : str", "    How.", "", "Examples", "--------", ">>> 1", "1"]
    ext.unknown_sections(lines)
    assert lines[2:7] == [".. rubric:: Options", "", "- ``method`` : str", "  How.", ""] and lines[7] == "Examples"
    later = ["Summary.", "", "Parameters", "----------", "x : int", "", "Options", "-------", "n : int",
             "    Count.", "", "Program", "-------", "max f"]
    ext.unknown_sections(later)
    assert later[6:8] == ["Other Parameters", "----------------"]
    assert later[11:15] == ["Notes", "-----", ".. rubric:: Program", ""]   # free text: kept under Notes
    assert later[15] == "max f"
