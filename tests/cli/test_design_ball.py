"""``mechopt design`` over a prior ball beyond 10 symbols (``--prior-counts``, ``--prior-ball``, ``--problem
robust-ball``): certified, its ``--certificate`` file verified by ``mechopt check``; utilities it cannot certify
refused in one line (exit 2)."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

COUNTS = "300,220,180,120,90,40,30,20,10,6,3,1,0,0"  # 14 symbols
CENTER = ",".join(["0.0625"] * 16)
BASE = ["design", "--notion", "pml", "--eps", "1"]


def test_counts_design_writes_a_certificate_that_mechopt_check_verifies(cli, tmp_path):
    cert = tmp_path / "c.json"
    r = cli(*BASE, "--utility", "mae", "--prior-counts", COUNTS, "--delta", "1e-3", "--json", "--certificate", cert)
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "optimal" and doc["privacy"]["violation"] <= 1e-9
    c = json.loads(cert.read_text())
    assert c["problem"]["kind"] == "robust-ball" and c["problem"]["ball"]["counts"][0] == "300"
    got = cli("check", cert, "--json")
    assert got.code == 0, got.out + got.err
    out = json.loads(got.out)
    assert out["verdict"] == "verified" and out["inputs"] == 14 and out["samples"] == 1020
    assert out["value"] == pytest.approx(doc["value"], rel=1e-12)
    c["claim"]["value"] = str(Fraction(c["claim"]["value"]) * Fraction(101, 100))  # a raised value: rejected
    cert.write_text(json.dumps(c))
    bad = cli("check", cert)
    assert bad.code == 1 and bad.out.startswith("rejected:") and "not the claimed" in bad.out


def test_the_catalog_problem_id_is_the_flag_design(cli):
    a = cli(*BASE, "--utility", "mae", "--prior-counts", COUNTS, "--delta", "1e-3", "--json")
    b = cli("design", "--problem", "robust-ball", "--set", f"prior_counts={COUNTS}", "--set", "delta=1e-3",
            "--set", "notion=pml", "--set", "eps=1", "--json")  # fmt: skip
    assert a.code == b.code == 0, b.err
    assert b.json()["value"] == pytest.approx(a.json()["value"], rel=1e-12)


@pytest.mark.parametrize(
    "args, words",
    [
        (["--utility", "mi", "--prior", CENTER, "--prior-ball", "0.05:linf"], "mi over a prior ball on 16 symbols"),
        (["--utility", "mi", "--prior-counts", COUNTS, "--delta", "1e-3", "--bound", "hoeffding"], "only a TV ball's"),
        (["--utility", "mi", "--prior-counts", "5,1", "--delta", "1e-3"], "holding a point mass says nothing"),
        (["--utility", "mse", "--prior-counts", COUNTS, "--delta", "1e-3"], "may be interior"),
        (["--utility", "histogram", "--prior", CENTER, "--prior-ball", "0.05:tv"], "may be interior"),
        (["--utility", "mse", "--prior", CENTER, "--prior-ball", "0.05:tv", "--hull"], "needs the ball's vertices"),
        (["--utility", "mae", "--prior", CENTER, "--prior-ball", "0.05:tv", "--hull"], "--hull goes with"),
        (["--utility", "mae", "--prior", CENTER, "--prior-ball", "0.05:l2"], "ball kind"),
        (["--utility", "mae", "--prior", CENTER, "--prior-ball=-1:tv"], "radius"),
    ],
)
def test_what_a_ball_cannot_certify_exits_2_in_one_line(cli, args, words):
    r = cli(*BASE, *args)
    assert r.code == 2 and words in r.err and "Traceback" not in r.err, r.err
    assert len([ln for ln in r.err.splitlines() if ln.startswith("mechopt: error")]) == 1


def test_mi_over_a_tv_ball_is_designed_by_vertex_generation(cli):
    """mi over a TV ball goes to the ball by its inequalities at any d (vertex generation), certified; LDP too."""
    for notion in ("pml", "ldp"):
        r = cli("design", "--notion", notion, "--eps", "1", "--utility", "mi", "--prior-counts", "120,80,40,20",
                "--delta", "1e-3", "--json")  # fmt: skip
        assert r.code == 0, r.err
        doc = r.json()
        assert doc["status"] == "optimal" and doc["solver"] == "robust-rays" and doc["privacy"]["violation"] <= 1e-9
        assert "worst information over all 15 vertices of the ball" in doc["message"]


def test_mi_over_a_tv_ball_with_a_certificate_file_keeps_vertex_generation(cli, tmp_path):
    """Vertex generation writes a prior-ball certificate file (the generated priors and the ray LP's duals), which
    mechopt check verifies exactly (the bound over the rays of their cone up to d = 10); one value either way."""
    cert, args = tmp_path / "c.json", [*BASE, "--utility", "mi", "--prior-counts", "120,80,40,20", "--delta", "1e-3"]
    a = cli(*args, "--json", "--certificate", cert)
    b = cli(*args, "--json")
    assert a.code == b.code == 0, a.err + b.err
    assert "worst information over all" in a.json()["message"] and "worst information over all" in b.json()["message"]
    assert a.json()["value"] == pytest.approx(b.json()["value"], rel=1e-9)
    assert json.loads(cert.read_text())["problem"]["kind"] == "robust-ball"
    assert cli("check", cert).out.startswith("verified")


def test_mi_over_a_ball_above_10_symbols_goes_on_to_the_design_with_a_certificate(cli, monkeypatch, tmp_path):
    """Vertex generation writes a certificate file at any d (its bound checked to d = 10, partial above): the flag is
    not refused before the design (it was while that route wrote no file)."""
    import mechopt.api

    def no_solve(*a, **k):
        raise AssertionError("reached the solve")

    monkeypatch.setattr(mechopt.api, "solve", no_solve)
    r = cli("design", "--notion", "ldp", "--eps", "0.5", "--utility", "mi", "--prior", "uniform:11", "--prior-ball",
            "0.02:tv", "--certificate", tmp_path / "c.json")  # fmt: skip
    assert "reached the solve" in r.err, r.err


SET21 = ",".join(["0.05"] * 20 + ["0"]) + ";" + ",".join(["0.04"] * 20 + ["0.2"])  # 21 symbols


@pytest.mark.parametrize(
    "args, words",
    [
        (["--notion", "ldp", "--eps", "1", "--utility", "mae", "--prior-set", SET21],
         "checks at most 20"),
    ],
)  # fmt: skip
def test_a_certificate_that_cannot_be_written_is_refused_before_the_design(cli, one_line_error, monkeypatch, tmp_path,
                                                                          args, words):  # fmt: skip
    import mechopt.api

    def no_solve(*a, **k):
        raise AssertionError("solved before refusing --certificate")

    monkeypatch.setattr(mechopt.api, "solve", no_solve)
    r = cli("design", *args, "--certificate", tmp_path / "c.json")
    one_line_error(r)
    assert words in r.err and "drop --certificate" in r.err
    assert not (tmp_path / "c.json").exists()
