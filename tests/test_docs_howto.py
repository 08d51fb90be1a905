"""The how-to pages' recipes run: their ``>>>`` examples are doctested here (cheap: in-process workers)."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest

HOWTO = Path(__file__).resolve().parents[1] / "docs" / "howto"


def _doctest_page(name: str) -> doctest.TestResults:
    return doctest.testfile(
        str(HOWTO / name), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )


@pytest.mark.timeout(300)
def test_dask_sweeps_recipe_runs() -> None:
    pytest.importorskip("distributed")
    res = _doctest_page("dask_sweeps.rst")
    assert res.attempted >= 10 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_certified_at_scale_recipe_runs() -> None:
    res = _doctest_page("certified_at_scale.rst")
    assert res.attempted >= 12 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_certificates_recipe_runs() -> None:
    res = _doctest_page("certificates.rst")
    assert res.attempted >= 15 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_design_to_data_recipe_runs() -> None:
    res = _doctest_page("design_to_data.rst")
    assert res.attempted >= 25 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_from_csv_to_estimate_recipe_runs(tmp_path, monkeypatch) -> None:
    pytest.importorskip("pandas")
    monkeypatch.chdir(tmp_path)  # the recipe changes directory; restore it afterwards
    res = _doctest_page("from_csv_to_estimate.rst")
    assert res.attempted >= 20 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_geo_indistinguishability_recipe_runs() -> None:
    pytest.importorskip("matplotlib")
    res = _doctest_page("geo_indistinguishability.rst")
    assert res.attempted >= 15 and res.failed == 0, res


@pytest.mark.timeout(300)
def test_deploy_recipe_runs() -> None:
    pytest.importorskip("matplotlib")
    res = _doctest_page("deploy.rst")
    assert res.attempted >= 50 and res.failed == 0, res


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("page", "least"), [("add_claims.rst", 12), ("dominance.rst", 15)])
def test_recipe_runs(page: str, least: int) -> None:
    """Pages whose recipes need nothing beyond the core: every example runs."""
    res = _doctest_page(page)
    assert res.attempted >= least and res.failed == 0, res
