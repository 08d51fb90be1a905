"""Helpers for the CLI tests: run ``mechopt.cli.main`` in-process and capture its streams."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest

from mechopt.cli import main


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """``cli(*argv)`` → Run(code, out, err)."""

    def run(*argv: str) -> Run:
        code = main([str(a) for a in argv])
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run


def assert_one_line_error(run: Run) -> None:
    """Exit 2, exactly one stderr line ``mechopt: error: ...``, no traceback, nothing on stdout."""
    assert run.code == 2, (run.code, run.err)
    lines = run.err.strip().splitlines()
    assert len(lines) == 1, run.err
    assert lines[0].startswith("mechopt: error: ")
    assert "Traceback" not in run.err
    assert run.out == ""


@pytest.fixture
def one_line_error():
    """The assertion of a one-line usage/data error (exit 2, no traceback)."""
    return assert_one_line_error
