"""The documentation builds warning-free (slow: runs the gallery, the claims and the CLI examples).

Run with ``python -m pytest -q -m slow tests/test_docs_build.py``; CI builds the docs with
``python -m sphinx -W --keep-going -b html docs docs/_build/html`` instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
GENERATED = ("_build", "_generated", "auto_examples", "gen_modules", "sg_execution_times.rst", "generated")


@pytest.mark.slow
def test_docs_build_warning_free(tmp_path: Path) -> None:
    for mod in ("sphinx", "furo", "numpydoc", "sphinx_gallery"):
        pytest.importorskip(mod)
    src = tmp_path / "docs"
    shutil.copytree(DOCS, src, ignore=shutil.ignore_patterns(*GENERATED, "__pycache__"))
    (tmp_path / "benchmarks").mkdir()  # performance.md includes ../benchmarks/RESULTS.md
    shutil.copy(ROOT / "benchmarks" / "RESULTS.md", tmp_path / "benchmarks" / "RESULTS.md")
    (tmp_path / "mechopt").mkdir()  # howto/certificates.rst offers ../../mechopt/certcheck.py for download
    shutil.copy(ROOT / "mechopt" / "certcheck.py", tmp_path / "mechopt" / "certcheck.py")
    out = tmp_path / "html"
    env = {**os.environ, "MECHOPT_REPO_ROOT": str(ROOT), "MPLBACKEND": "Agg"}
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-b", "html", str(src), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1800,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-6000:]
    for page in (
        "index",
        "getting_started",
        "concepts",
        "verdicts",
        "performance",
        "api/model",
        "api/solvers",
        "papers/lip",
        "papers/kss",
        "papers/fisher",
        "papers/gauss",
        "teaching/column_lp",
        "teaching/fisher_convex",
        "teaching/extending",
        "api/cli",
        "auto_examples/plot_ldp_extreme_rays",
        "auto_examples/plot_fisher_grid",
        "auto_examples/plot_custom_notion",
        "auto_examples/plot_design_your_prior",
        "auto_examples/plot_symmetry_ksubset",
        "auto_examples/plot_lip_posterior_box",
        "auto_examples/plot_gauss_tradeoff",
        "auto_examples/plot_csv_to_estimate",
        "howto/dask_sweeps",
        "building_docs",
        "api/generated/mechopt.solvers.exact.solver",
    ):
        assert (out / f"{page}.html").exists(), page
    # the gallery ran: its figures are on the pages
    images = {p.name for p in (out / "_images").glob("sphx_glr_plot_*_001.png")}
    assert {"sphx_glr_plot_ldp_extreme_rays_001.png", "sphx_glr_plot_fisher_grid_001.png"} <= images
    verdicts = (out / "verdicts.html").read_text(encoding="utf-8")
    assert "No claims registered yet" in verdicts or "worst deviation" in verdicts
    # the papers' figures are reproduced (quick mode) and shown on their pages
    import importlib.util

    for paper in ("lip", "kss", "fisher", "gauss"):
        if importlib.util.find_spec(f"mechopt.figures.{paper}") is not None:
            page = (out / "papers" / f"{paper}.html").read_text(encoding="utf-8")
            assert "<img" in page and "Reproduction failed" not in page, paper
    api = (out / "api" / "generated" / "mechopt.api.html").read_text(encoding="utf-8")
    assert "solve(" in api
    cli = (out / "api" / "cli.html").read_text(encoding="utf-8")
    assert all(f">{sub}<" in cli for sub in ("compare", "design", "verify", "audit", "reproduce", "sweep"))
    gauss = (out / "auto_examples" / "plot_gauss_tradeoff.html").read_text(encoding="utf-8")
    assert "certified optimum" in gauss and "locally optimal" in gauss
    # a rebuild with nothing changed takes the claims, figures and commands from the results cache
    cache = tmp_path / ".mechopt-cache"
    assert any(cache.glob("verdicts-*/value.json")) and any(cache.glob("figure-*/files/*.png"))
