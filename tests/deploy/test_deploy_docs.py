"""The deployment how-to (docs/howto/deploy.rst) runs: its ``>>>`` examples are doctested."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[2] / "docs" / "howto" / "deploy.rst"


@pytest.mark.timeout(300)
def test_deploy_howto_runs() -> None:
    res = doctest.testfile(
        str(PAGE), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert res.attempted >= 10 and res.failed == 0, res
