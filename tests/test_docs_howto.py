"""The how-to pages' recipes run: their ``>>>`` examples are doctested here (cheap: in-process workers)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

HOWTO = Path(__file__).resolve().parents[1] / "docs" / "howto"


@pytest.mark.timeout(300)
def test_dask_sweeps_recipe_runs() -> None:
    pytest.importorskip("distributed")
    res = doctest.testfile(
        str(HOWTO / "dask_sweeps.rst"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert res.attempted >= 10 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_certified_at_scale_recipe_runs() -> None:
    res = doctest.testfile(
        str(HOWTO / "certified_at_scale.rst"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert res.attempted >= 12 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_certificates_recipe_runs() -> None:
    res = doctest.testfile(
        str(HOWTO / "certificates.rst"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert res.attempted >= 15 and res.failed == 0, res
