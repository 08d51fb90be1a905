"""Quick variants of the Fisher-paper reproductions write a PNG and their data."""
from __future__ import annotations

import pytest

from mechopt import registry
from mechopt.figures.fisher import FIGURES


@pytest.mark.parametrize("fid", sorted(FIGURES))
def test_quick_figure(fid: str, tmp_path) -> None:
    assert fid in registry.figures()
    out = FIGURES[fid].run(tmp_path, quick=True)
    assert out.id == fid
    assert any(p.suffix == ".png" and p.stat().st_size > 1000 for p in out.files)
    assert any(p.suffix in (".csv", ".json") for p in out.files)
    if fid == "fisher-convergence":
        assert all(abs(v - 2) < 0.1 for v in out.data["orders"].values())
    if fid == "fisher-fig2":
        assert out.data["prop3"]["crb_gain"] == 2.0 and not out.notes
