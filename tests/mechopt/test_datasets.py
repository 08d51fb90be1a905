"""Loaders for the paper's dataset formats, on small generated files."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.errors import ProblemError
from mechopt.io.datasets import (
    gowalla_histogram,
    kosarak_survey,
    load_gowalla,
    load_kosarak,
    synthetic_gowalla,
    synthetic_kosarak,
)


def test_kosarak_roundtrip(tmp_path):
    f = tmp_path / "k.dat"
    f.write_text("1 2 3\n3 3\n7\n")
    counts = load_kosarak(f)
    assert counts.tolist() == [0, 1, 1, 3, 0, 0, 0, 1]
    x, p1 = kosarak_survey(counts, threshold=2)
    assert x.tolist() == [0, 0, 1, 0] and p1 == 0.25
    synthetic_kosarak(tmp_path / "s.dat", n_streams=100, n_pages=30, rng=3)
    assert load_kosarak(tmp_path / "s.dat").sum() >= 100


def test_gowalla_last_checkin_and_prior(tmp_path):
    f = tmp_path / "g.txt"
    f.write_text(
        "0\t2010-10-19T23:55:27Z\t30.0\t-97.0\t1\n"
        "0\t2010-10-18T22:17:43Z\t10.0\t-120.0\t2\n"
        "1\t2010-10-17T23:42:03Z\t10.0\t-120.0\t2\n"
    )
    d = load_gowalla(f)
    last, prior = gowalla_histogram(d, grid=2)
    assert last.tolist() == [3, 0]  # user 0's latest is the north-east corner; user 1 has one
    assert prior.tolist() == [1.0, 0.0, 0.0, 0.0]
    synthetic_gowalla(tmp_path / "s.txt", n_users=20, rng=1)
    last, prior = gowalla_histogram(load_gowalla(tmp_path / "s.txt"))
    assert last.size == 20 and prior.size == 36 * 36 and np.isclose(prior.sum(), 1)


def test_bad_files(tmp_path):
    with pytest.raises(ProblemError):
        load_kosarak(tmp_path / "missing")
    (tmp_path / "b.dat").write_text("1 x\n")
    with pytest.raises(ProblemError, match="line 1"):
        load_kosarak(tmp_path / "b.dat")
    (tmp_path / "b.txt").write_text("0\t2010\t1\n")
    with pytest.raises(ProblemError, match="5 tab-separated"):
        load_gowalla(tmp_path / "b.txt")
