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
def test_from_csv_to_estimate_recipe_runs(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)  # the recipe changes directory; restore it afterwards
    res = doctest.testfile(
        str(HOWTO / "from_csv_to_estimate.rst"),
        module_relative=False,
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
    )
    assert res.attempted >= 20 and res.failed == 0, res
