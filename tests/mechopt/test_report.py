"""The privacy report against closed forms (k-RR) and brute force; report files written atomically."""

from __future__ import annotations

import base64
import json
import math

import numpy as np
import pytest

from mechopt.errors import ParamError, ProblemError
from mechopt.model.info import mutual_information
from mechopt.notions import LIP
from mechopt.results.report import hockey_stick_profile, maximal_leakage, privacy_report
from mechopt.results.report_files import write_report


def grr(d: int, eps: float) -> np.ndarray:
    e = math.exp(eps)
    Q = np.full((d, d), 1.0 / (e + d - 1))
    np.fill_diagonal(Q, e / (e + d - 1))
    return Q


def brute_delta(Q: np.ndarray, eps: float) -> float:
    c = math.exp(eps)
    return max(np.maximum(Q[x] - c * Q[xp], 0).sum() for x in range(len(Q)) for xp in range(len(Q)) if x != xp)


@pytest.mark.parametrize("d,eps", [(2, 0.5), (5, 1.0), (16, 2.0), (64, 0.1)])
def test_grr_closed_forms(d, eps):
    Q = grr(d, eps)
    e = math.exp(eps)
    grid = np.linspace(0, 1.5 * eps, 13)
    rep = privacy_report(Q, eps=grid)
    assert rep["prior_source"] == "uniform (none given)"
    assert rep["notions"]["ldp"]["eps"] == pytest.approx(eps, rel=1e-12)
    assert rep["maximal_leakage"] == pytest.approx(math.log(d * e / (e + d - 1)), rel=1e-12)
    assert rep["bayes"]["attacker_success"] == pytest.approx(e / (e + d - 1), rel=1e-12)
    assert rep["bayes"]["prior_vulnerability"] == pytest.approx(1 / d)
    # uniform prior: min-entropy leakage equals maximal leakage
    assert rep["bayes"]["min_entropy_leakage"] == pytest.approx(rep["maximal_leakage"], rel=1e-12)
    assert rep["mutual_information"] == pytest.approx(mutual_information(np.full(d, 1 / d), Q), rel=1e-12)
    assert rep["notions"]["mip"]["eps"] == pytest.approx(rep["mutual_information"], rel=1e-12)
    assert rep["notions"]["lip"]["eps"] == pytest.approx(LIP(0).audit(Q, np.full(d, 1 / d)).eps, rel=1e-12)
    closed = np.maximum(0.0, (e - np.exp(grid)) / (e + d - 1))  # δ(ε') of k-RR
    assert np.allclose(rep["hockey_stick"]["delta"], closed, atol=1e-13, rtol=0)


def test_profile_matches_per_pair_brute_force():
    rng = np.random.default_rng(7)
    Q = rng.dirichlet(np.full(6, 0.7), size=9)
    Q[2, 3] = 0.0
    Q[2] /= Q[2].sum()  # a zero next to positive entries: ε-LDP infinite, δ > 0 for every ε
    grid = [0.0, 0.3, 1.0, 2.5, 6.0]
    got = hockey_stick_profile(Q, grid)
    assert np.allclose(got, [brute_delta(Q, e) for e in grid], atol=1e-13)
    assert np.all(np.diff(got) <= 0) and got[-1] > 0
    rep = privacy_report(Q, prior=rng.dirichlet(np.ones(9)))
    assert rep["notions"]["ldp"]["eps"] is None and rep["prior_source"] == "given"
    assert max(rep["hockey_stick"]["eps"]) == 10.0


def test_leakage_orderings_with_a_prior():
    rng = np.random.default_rng(3)
    Q = rng.dirichlet(np.ones(5), size=4)
    P = np.array([0.1, 0.2, 0.3, 0.4])
    rep = privacy_report(Q, prior=P)
    b = rep["bayes"]
    # min-entropy leakage ≤ maximal leakage ≤ ε-LDP; success rate is at least the blind guess
    assert b["min_entropy_leakage"] <= rep["maximal_leakage"] + 1e-12 <= rep["notions"]["ldp"]["eps"] + 1e-12
    assert b["attacker_success"] >= b["prior_vulnerability"] == 0.4
    # a prior with a zero drops that row from the maximal leakage
    assert maximal_leakage(np.array([[1.0, 0.0], [0.0, 1.0]]), [1.0, 0.0]) == 0.0


def test_bad_eps_grid():
    with pytest.raises(ProblemError, match="finite numbers >= 0"):
        hockey_stick_profile(np.eye(2), [-1.0])


@pytest.mark.parametrize("suffix", [".json", ".html", ".png"])
def test_report_files(tmp_path, suffix):
    Q = grr(4, 1.0)
    rep = privacy_report(Q)
    path = write_report(rep, tmp_path / f"r{suffix}", Q=Q)
    data = path.read_bytes()
    if suffix == ".json":
        assert json.loads(data)["maximal_leakage"] == pytest.approx(rep["maximal_leakage"])
    elif suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        text = data.decode()
        b64 = text.split("data:image/png;base64,")[1].split('"')[0]
        assert base64.b64decode(b64)[:8] == b"\x89PNG\r\n\x1a\n" and "attacker success rate" in text
    assert [p.name for p in tmp_path.iterdir()] == [f"r{suffix}"]


def test_report_failure_leaves_nothing(tmp_path, monkeypatch):
    import mechopt.results.report_files as rf

    rep = privacy_report(grr(3, 1.0))

    def boom(*a, **k):
        raise RuntimeError("render failed")

    monkeypatch.setattr(rf, "report_html", boom)
    with pytest.raises(RuntimeError):
        write_report(rep, tmp_path / "r.html")
    with pytest.raises(ParamError, match=r"\.json, \.html or \.png"):
        write_report(rep, tmp_path / "r.txt")
    assert list(tmp_path.iterdir()) == []
