"""Helpers for the CLI tests (the ``cli`` fixture itself is in tests/conftest.py, shared with tests/mechanism)."""

from __future__ import annotations

from typing import Any

import pytest


def assert_one_line_error(run: Any) -> None:
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
