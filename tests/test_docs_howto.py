"""The how-to pages' recipes run: their ``>>>`` examples are doctested here (cheap: in-process workers)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

HOWTO = Path(__file__).resolve().parents[1] / "docs" / "howto"


def _run(page: str) -> doctest.TestResults:
    """Doctest one how-to page (ellipsis and whitespace-insensitive, as the docs are written)."""
    return doctest.testfile(
        str(HOWTO / page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )


@pytest.mark.timeout(300)
def test_dask_sweeps_recipe_runs() -> None:
    pytest.importorskip("distributed")
    res = _run("dask_sweeps.rst")
    assert res.attempted >= 10 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_certified_at_scale_recipe_runs() -> None:
    res = _run("certified_at_scale.rst")
    assert res.attempted >= 12 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_geo_indistinguishability_recipe_runs() -> None:
    pytest.importorskip("matplotlib")
    res = _run("geo_indistinguishability.rst")
    assert res.attempted >= 15 and res.failed == 0, res
