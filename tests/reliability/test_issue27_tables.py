"""Issue 27, tables and progress (newcomer defects 2, 3, 7, 8).

main at 279f854: at 80 columns ``compare`` printed the gap ``2.4e-16`` as ``2.4e-1`` over ``6`` and the
value ``0.11799287`` in two pieces; piped, ``verify`` lines were padded to ~430 columns; the compare
table had no sense column and verify's ``worst dev`` no legend; a long ``design`` printed nothing.
"""

from __future__ import annotations

import io
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

import mechopt
from mechopt import registry
from mechopt.cli import main
from mechopt.cli._common import fmt, table
from mechopt.cli.tables import PIPE_TEXT
from mechopt.jobs.verify import Claim, Verdict
from mechopt.runtime.progress import StatusLine

numbers = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.integers(-(10**12), 10**12),
    st.sampled_from([2.4e-16, 0.11799287, -3.0e-300, 1.7976931348623157e308]),
)
words = st.text(alphabet="abcdefghij_.-", min_size=1, max_size=18)
prose = st.lists(words, min_size=1, max_size=12).map(" ".join)


@given(
    st.lists(st.tuples(words, numbers, prose, numbers), min_size=1, max_size=6),
    st.sampled_from([None, 12, 20, 40, 80, 120]),
)
def test_no_number_is_ever_split(rows, width):
    """Every number cell appears whole on one line, at any width and with any text beside it."""
    text = table(["id", "value", "statement", "gap"], [list(r) for r in rows], width=width)
    tokens = set(re.split(r"[ ;\n]+", text))
    for r in rows:
        for cell in (r[1], r[3]):
            assert fmt(cell) in tokens, (fmt(cell), text)


@given(st.lists(st.tuples(words, prose, prose, numbers), min_size=1, max_size=6))
def test_a_pipe_gets_one_line_per_row_unpadded(rows):
    text = table(["id", "region", "statement", "n"], [list(r) for r in rows])
    lines = text.splitlines()
    assert len(lines) == len(rows) + 2 and all(ln == ln.rstrip() for ln in lines)
    for line, r in zip(lines[2:], rows):
        assert line.startswith(r[0]) and fmt(r[3]) in line.split()
        assert len(line) <= len(lines[1])  # the rule is the table's width: nothing padded past it
    assert len(lines[1]) <= max(len(r[0]) for r in rows) + PIPE_TEXT * 2 + 3 * 3 + max(len(fmt(r[3])) for r in rows) + 8


def test_compare_at_80_columns_keeps_numbers_whole(monkeypatch, capsys):
    """main: `2.4e-1` / `6` and `0.117` / `99287` (newcomer defect 2, the Getting Started page)."""
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["compare", "--problem", "kss-mi", "--solver", "exact"]) == 0
    out = capsys.readouterr().out
    rows = main_rows = [ln for ln in out.splitlines() if ln.startswith("kss-mi")]
    assert main_rows and all(len(ln) <= 80 for ln in out.split("\n\n")[0].splitlines())
    for ln in rows:
        value = ln.split()[2]
        assert re.fullmatch(r"-?[0-9.]+(e[-+][0-9]+)?", value), ln  # a whole number, not a piece
    assert "sense" in out.splitlines()[0] and " max " in rows[0]
    assert "value: the objective in its unit, minimised (sense min" in out
    assert "violation: nats of eps" in out


def test_compare_piped_keeps_one_unpadded_line_per_row(monkeypatch, capsys):
    """Through a pipe every row stays one line for grep and awk, its fields split by spaces, none padded."""
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["compare", "--problem", "kss-mi", "--solver", "exact"]) == 0
    table_lines = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert all(ln.startswith("kss-mi") and ln == ln.rstrip() for ln in table_lines[2:])
    assert len(table_lines[1]) == max(len(ln) for ln in table_lines)  # the rule is exactly the widest row


def _claims(paper=None):
    long = "the optimal mechanism under local information privacy is the binary staircase " * 4
    return [
        Claim("lip.long", "lip", long, "eps", lambda: Verdict("holds-in-region", 3, 0.5, region="eps <= 1 " * 30)),
        Claim("lip.short", "lip", "0 <= 1", "-", lambda: Verdict.from_deviations([0.0], 1e-9)),
    ]


def test_verify_piped_is_not_padded_and_has_a_legend(monkeypatch, capsys):
    """main: verify rows padded to ~430 columns through a pipe (region 200 + statement 400)."""
    monkeypatch.setattr(registry, "claims", _claims)
    monkeypatch.delenv("COLUMNS", raising=False)
    assert main(["verify"]) == 0
    out = capsys.readouterr().out
    short = next(ln for ln in out.splitlines() if ln.startswith("lip.short"))
    assert short.endswith("0 <= 1") and len(short) < 60 + 60 + 40  # region cut at 60, not padded to 200
    assert "worst dev: the largest deviation found, in each claim's own unit" in out


def test_status_line_draws_rounds_in_place_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self):
            return True

    buf = Tty()
    clock = iter(range(100))
    line = StatusLine("design", stream=buf, delay=0, interval=0.01, clock=lambda: float(next(clock)))
    assert line.enabled  # a terminal: on by default
    with line:
        line.update({"method": "column generation", "round": 7, "columns": 40, "value": 0.5, "gap": 1e-3})
    text = buf.getvalue()
    assert "\r" in text and text.endswith("\n") and "round 7, 40 columns, value 0.5, gap 0.001" in text


def test_status_line_is_off_on_a_pipe_and_silent_when_quick():
    assert not StatusLine("design", stream=io.StringIO()).enabled
    buf = io.StringIO()
    with StatusLine("design", stream=buf, enabled=True, delay=60):  # ends before its delay: nothing drawn
        pass
    assert buf.getvalue() == ""


def test_design_progress_reports_column_generation(capsys):
    """main: `design --progress` was an unknown flag, and a 217 s design printed nothing."""
    argv = ["design", "--notion", "ldp", "--utility", "mi", "--eps", "1", "--solver", "exact"]
    prior = ",".join(repr(p) for p in _zipf(14))
    assert main(argv + ["--prior", prior, "--opt", "method=colgen", "--progress", "--json"]) == 0
    cap = capsys.readouterr()
    doc = json.loads(cap.out)  # --json keeps stdout one document
    last = cap.err.strip().splitlines()[-1]
    assert last.startswith("design: column generation, round ") and "columns" in last and "gap" in last
    assert doc["status"] == "optimal"
    assert main(argv + ["--prior", prior, "--opt", "method=colgen"]) == 0  # default on a pipe: nothing
    assert "design:" not in capsys.readouterr().err


def _zipf(d: int) -> list[float]:
    w = [1.0 / (i + 1) ** 1.1 for i in range(d)]
    return [x / sum(w) for x in w[:-1]] + [1.0 - sum(x / sum(w) for x in w[:-1])]


def test_default_progress_is_on_for_a_terminal_without_json(monkeypatch):
    from argparse import Namespace

    from mechopt.cli.design.command import PROGRESS_DELAY, _status_line

    class Tty(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr("sys.stderr", Tty())
    on = _status_line(Namespace(progress=None, json=False))
    assert on.enabled and on.delay == PROGRESS_DELAY > 0
    assert not _status_line(Namespace(progress=None, json=True)).enabled
    assert not _status_line(Namespace(progress=False, json=False)).enabled
    assert _status_line(Namespace(progress=True, json=True)).delay == 0


def test_progress_callback_reports_rounds_in_the_problems_units():
    seen: list[dict] = []
    res = mechopt.design(
        prior=_zipf(14), notion="ldp", utility="mse", eps=1.0, solver="exact", method="colgen", progress=seen.append
    )
    assert res.status.value == "optimal" and len(seen) >= 2
    assert [s["round"] for s in seen] == list(range(1, len(seen) + 1))
    assert all(s["value"] > 0 for s in seen)  # an MSE, not the LP's gain
    assert seen[-1]["value"] == pytest.approx(res.value, rel=1e-9)
    assert seen[-1]["bound"] == pytest.approx(res.certificate.bound, rel=1e-9) and seen[-1]["gap"] <= 1e-7
