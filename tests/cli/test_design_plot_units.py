"""``mechopt design``: ``--plot FILE``, one mechanism layout on stdout and in ``--out``, units in the report."""

from __future__ import annotations

import json

import matplotlib
import numpy as np
import pytest

import mechopt

MI = ["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.2,0.3,0.5", "--eps", "1", "--solver", "exact"]


@pytest.fixture
def user_backend():
    """The user picked a backend (svg here); restored afterwards so other tests are not affected."""
    old = matplotlib.get_backend()
    matplotlib.use("svg")
    yield "svg"
    matplotlib.use(old)


def test_plot_writes_a_png_and_leaves_the_backend_alone(cli, tmp_path, user_backend):
    png = tmp_path / "q.png"
    run = cli(*MI, "--plot", png)
    assert run.code == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert matplotlib.get_backend() == user_backend
    assert not list(tmp_path.glob(".*"))


def test_plot_without_a_channel_is_one_line_error(cli, tmp_path, one_line_error):
    """uniform:1000 with mi under a 1 MB budget: the exact optimum is proven (a structured plan) but Q is not
    materialised, so there is nothing to draw (uniform:40 now returns a 40 x 40 Q, issue 16)."""
    png = tmp_path / "q.png"
    run = cli(
        "design",
        "--notion",
        "ldp",
        "--utility",
        "mi",
        "--prior",
        "uniform:1000",
        "--eps",
        "1",
        "--solver",
        "exact",
        "--opt",
        "max_memory=1000000",
        "--plot",
        png,
    )
    one_line_error(run)
    assert "no channel matrix" in run.err and "max_memory" in run.err
    assert not png.exists()


def test_plot_into_missing_folder_refused_before_solving(cli, tmp_path, one_line_error):
    run = cli(*MI, "--plot", tmp_path / "nope" / "q.png")
    one_line_error(run)
    assert "--plot" in run.err and "does not exist" in run.err


def test_json_and_out_carry_the_same_mechanism(cli, tmp_path):
    out = tmp_path / "m.json"
    doc = cli(*MI, "--json", "--out", out).json()
    saved = json.loads(out.read_text())
    prov = saved.pop("provenance")  # the file records which mechopt wrote it, and when
    assert set(prov) == {"mechopt", "date", "source"} and prov["mechopt"] == mechopt.__version__
    assert saved == doc  # the file is otherwise the --json document
    mech = doc["mechanism"]
    assert set(mech) == {"Q", "inputs", "outputs", "prior"} and mech["prior"] == pytest.approx([0.2, 0.3, 0.5])
    assert np.allclose(np.sum(mech["Q"], axis=1), 1.0)
    assert doc["unit"] == "nats" and doc["objective"] == "mi"
    assert doc["value"] <= np.log(3) + 1e-12  # a mutual information in nats is at most ln d


def test_text_report_prints_units(cli):
    out = cli(*MI).out
    value_line = next(ln for ln in out.splitlines() if ln.startswith("value"))
    bound_line = next(ln for ln in out.splitlines() if ln.startswith("certificate"))
    assert " nats  (mi, maximised)" in value_line and "nats" in bound_line
    mse = cli(
        "design",
        "--notion",
        "ldp",
        "--utility",
        "mse",
        "--prior",
        "0.5,0.5",
        "--eps",
        "1",
        "--values",
        "0,10",
        "--solver",
        "exact",
    ).out
    assert "squared units of the values  (mse, minimised)" in mse
