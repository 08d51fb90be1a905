"""``mechopt design --certificate FILE`` and ``mechopt check FILE`` (issue 26: certificates anyone can check)."""

from __future__ import annotations

import json

DESIGN = ["design", "--notion", "lip", "--utility", "mse", "--prior", "0.1,0.2,0.7", "--values", "0,1,2", "--eps", "1"]


def test_design_writes_a_certificate_that_check_verifies(cli, tmp_path):
    cert = tmp_path / "cert.json"
    run = cli(*DESIGN, "--certificate", cert, "--json")
    assert run.code == 0 and json.loads(run.out)["status"] == "optimal"
    assert json.loads(cert.read_text())["format"] == "mechopt-certificate"
    run = cli("check", cert)
    assert run.code == 0 and run.out.startswith("verified: "), run.out
    report = cli("check", cert, "--json").json()
    assert report["verdict"] == "verified" and report["gap"] <= 1e-7 and report["inputs"] == 3


def test_check_exits_1_with_the_reason_for_a_forged_certificate(cli, tmp_path):
    cert = tmp_path / "cert.json"
    assert cli(*DESIGN, "--certificate", cert).code == 0
    doc = json.loads(cert.read_text())
    doc["mechanism"]["Q"][1][0] = "1/3"
    cert.write_text(json.dumps(doc))
    run = cli("check", cert)
    assert run.code == 1 and run.out.startswith("rejected: ") and "row 1 of Q" in run.out, run.out


def test_check_of_a_file_that_is_not_a_certificate_is_one_error_line(cli, one_line_error, tmp_path):
    bad = tmp_path / "mech.json"
    bad.write_text(json.dumps({"Q": [[1.0, 0.0], [0.0, 1.0]]}))
    one_line_error(cli("check", bad))
    one_line_error(cli("check", tmp_path / "missing.json"))


def test_design_refuses_a_certificate_the_solver_cannot_prove_by_rays(cli, one_line_error, tmp_path):
    cert = tmp_path / "cert.json"
    run = cli(
        "design", "--notion", "lip", "--utility", "mae", "--prior", "0.2,0.3,0.5", "--eps", "1", "--certificate", cert
    )
    one_line_error(run)
    assert "no dual evidence" in run.err and not cert.exists()


def test_certificate_and_out_must_be_different_files(cli, one_line_error, tmp_path):
    same = tmp_path / "x.json"
    one_line_error(cli(*DESIGN, "--out", same, "--certificate", same))


def test_design_refuses_a_certificate_above_the_checker_before_the_solve(cli, one_line_error, tmp_path, monkeypatch):
    """Hostile run: PML MI at d = 64 with --certificate solved for 11 s and then refused (the 20-input limit of
    the standalone checker is known from the prior)."""
    import mechopt.api

    def no_solve(*a, **k):
        raise AssertionError("solved before refusing --certificate")

    monkeypatch.setattr(mechopt.api, "solve", no_solve)
    cert = tmp_path / "cert.json"
    prior = ",".join(["0.04"] * 25)
    run = cli("design", "--notion", "pml", "--utility", "mi", "--prior", prior, "--eps", "1", "--certificate", cert)
    one_line_error(run)
    assert run.code == 2 and "25 inputs of positive mass" in run.err and not cert.exists(), run.err
