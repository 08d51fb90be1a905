"""Tables fitted to the terminal (rich) and progress bars drawn by tqdm."""

from __future__ import annotations

import io

import pytest

from mechopt import registry
from mechopt.cli._common import table
from mechopt.jobs.verify import Claim, Verdict
from mechopt.runtime import progress

LONG = (
    "for every prior on a finite alphabet and every eps in the closed interval from zero to the "
    "critical value the optimal mechanism under local information privacy is the binary "
    "staircase and its MMSE equals the closed form of Theorem 2 " * 3
)


def _claims(paper=None):
    return [
        Claim(
            "lip.long_statement",
            "lip",
            LONG,
            "eps in [0, 1] " * 20,
            lambda: Verdict.from_deviations(
                [0.0, 1.0], 1e-9, instances=[{"x": "a" * 300}, {"x": "b" * 300}], size=lambda i: 1
            ),
        ),
        Claim("lip.short", "lip", "0 ≤ 1", "-", lambda: Verdict.from_deviations([0.0], 1e-9)),
    ]


def test_verify_table_fits_columns(cli, monkeypatch):
    monkeypatch.setattr(registry, "claims", _claims)
    monkeypatch.setenv("COLUMNS", "100")
    run = cli("verify")
    assert run.code == 0
    lines = run.out.splitlines()
    assert max(len(ln) for ln in lines) <= 100, max(lines, key=len)
    # the statement is wrapped, not cut: every word of it is in the table
    body = " ".join(run.out.split())
    assert "closed form of Theorem 2" in body and "2 claims: 1 holds, 1 fails, 0 holds-in-region" in run.out
    # --json is untouched by the width
    doc = cli("verify", "--json").json()
    assert doc["claims"][0]["statement"] == LONG


def test_table_is_one_line_per_row_in_a_pipe(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    text = table(["id", "statement"], [["a", LONG], ["b", "[bold]x[/bold]"]])
    lines = text.splitlines()
    assert len(lines) == 4 and lines[0].split() == ["id", "statement"] and set(lines[1]) == {"-"}
    assert lines[3].split() == ["b", "[bold]x[/bold]"]  # cells are literal, never markup


@pytest.mark.parametrize("width", [20, 40, 100])
def test_table_width_is_respected(width):
    text = table(["id", "verdict", "statement"], [["lip.thm2", "holds", LONG]], width=width)
    assert max(len(ln) for ln in text.splitlines()) <= width
    # wrapped, or moved under the row as "statement: ...", never cut: every visible character is still there
    cells = ["id", "verdict", "statement", "lip.thm2", "holds", LONG]
    assert sum(c not in " -:\n" for c in text) == sum(len("".join(c.split())) for c in cells)
    if width >= 40:
        assert text.splitlines()[2].split()[:2] == ["lip.thm2", "holds"]


def test_progress_is_tqdm():
    buf = io.StringIO()
    with progress.Progress(3, "job", stream=buf, enabled=True) as bar:
        bar.advance("one")
        from tqdm import tqdm

        assert isinstance(bar._bar, tqdm)
        bar.advance("two", n=2)
    out = buf.getvalue()
    assert "job" in out and "3/3" in out and "two" in out and bar.done == 3


def test_progress_off_writes_nothing():
    buf = io.StringIO()
    with progress.Progress(2, "job", stream=buf) as bar:  # not a terminal: off by default
        bar.advance("x")
    assert buf.getvalue() == "" and bar.done == 1 and bar._bar is None
