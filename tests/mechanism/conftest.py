"""Fixtures of the mechanism tests: the CLI run in-process (as in tests/cli)."""

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
