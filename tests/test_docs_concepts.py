"""The Concepts page's examples run (``>>>`` lines of docs/concepts.rst, doctested)."""

from __future__ import annotations

import doctest
from pathlib import Path

CONCEPTS = Path(__file__).resolve().parents[1] / "docs" / "concepts.rst"


def test_concepts_examples_run() -> None:
    res = doctest.testfile(
        str(CONCEPTS), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert res.attempted >= 15 and res.failed == 0, res
