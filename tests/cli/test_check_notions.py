"""``mechopt design --certificate`` then ``mechopt check`` for pml, alip and robust (prior-set) designs."""

from __future__ import annotations

import json

import pytest

MI = ["--utility", "mi", "--prior", "0.1,0.2,0.3,0.4", "--eps", "1"]
MAE = ["--utility", "mae", "--eps", "0.8"]


@pytest.mark.parametrize(
    "args",
    [
        ["--notion", "pml", *MI],
        ["--notion", "alip", "--eps-lower", "0.5", *MI],
        ["--notion", "pml", *MAE, "--prior-counts", "40,25,20,15", "--delta", "1e-3"],
        ["--notion", "lip", *MAE, "--prior-set", "0.2,0.3,0.5;0.5,0.3,0.2"],
        ["--notion", "alip", "--eps-lower", "0.5", *MAE, "--prior", "0.3,0.3,0.4", "--prior-ball", "0.1:tv"],
        ["--notion", "ldp", *MAE, "--prior-free", "4"],
    ],
)
def test_round_trip_and_a_forged_q_is_rejected(cli, tmp_path, args):
    cert = tmp_path / "cert.json"
    run = cli("design", *args, "--certificate", cert, "--json")
    assert run.code == 0, run.err
    assert run.json()["status"] == "optimal"
    report = cli("check", cert, "--json")
    assert report.code == 0, report.out
    assert report.json()["verdict"] == "verified" and report.json()["gap"] <= 1e-9
    doc = json.loads(cert.read_text())
    doc["mechanism"]["Q"][1][0] = "1/3"
    cert.write_text(json.dumps(doc))
    run = cli("check", cert)
    assert run.code == 1 and run.out.startswith("rejected: ") and "row 1 of Q" in run.out, run.out


def test_a_design_without_evidence_is_one_error_line_naming_what_to_use(cli, one_line_error, tmp_path):
    cert = tmp_path / "cert.json"
    run = cli(
        "design", "--notion", "pml", "--utility", "mae", "--prior", "0.2,0.3,0.5", "--eps", "1", "--certificate", cert
    )
    one_line_error(run)
    assert "robust-lp" in run.err and "--prior-set" in run.err and not cert.exists()


def test_no_certificate_for_a_mechanism_that_failed_its_audit(cli, tmp_path, monkeypatch):
    """A design whose mechanism fails its audit exits 1 and writes no certificate (one was written before)."""
    import mechopt.api as api
    from mechopt.results.result import Status

    real = api.solve
    monkeypatch.setattr(api, "solve", lambda *a, **k: real(*a, **k).replace(status=Status.INFEASIBLE_POINT))
    cert = tmp_path / "c.json"
    r = cli("design", "--notion", "ldp", "--utility", "mi", "--prior", "0.2,0.8", "--eps", "1", "--certificate", cert)
    assert r.code == 1 and "no certificate written" in r.err and not cert.exists(), r.err


@pytest.mark.parametrize(
    ("utility", "scope"), [("mse", "listed priors only (not their hull"), ("mi", "listed priors and their hull")]
)
def test_a_prior_set_verdict_says_what_it_covers(cli, tmp_path, utility, scope):
    cert = tmp_path / "cert.json"
    sets = ["--prior-set", "0.2,0.3,0.5;0.5,0.3,0.2", "--notion", "pml", "--eps", "1"]
    assert cli("design", "--utility", utility, *sets, "--certificate", cert).code == 0
    run = cli("check", cert)  # mse is concave in the prior: an interior prior may be worse than both vertices
    assert run.code == 0 and f"the worst case over the 2 {scope}" in run.out, run.out


def test_an_alip_rejection_names_the_lower_level_and_a_missing_key_is_named(cli, tmp_path):
    cert = tmp_path / "cert.json"
    assert cli("design", "--notion", "alip", "--eps-lower", "0.5", *MI, "--certificate", cert).code == 0
    doc = json.loads(cert.read_text())
    doc["problem"]["notion"]["eps_lower"] = "1/4"
    cert.write_text(json.dumps(doc))
    run = cli("check", cert)
    assert run.code == 1 and "(lower side) at eps_lower 0.25" in run.out, run.out
    del doc["problem"]["notion"]["eps_lower"]
    cert.write_text(json.dumps(doc))
    run = cli("check", cert)
    assert run.code == 2 and "no 'eps_lower' key" in run.out + run.err and "KeyError" not in run.out + run.err


def test_a_tiny_prior_entry_is_verified_and_its_information_is_never_negative(cli, tmp_path):
    cert = tmp_path / "cert.json"  # 1e-100 is below the checker's 50-digit arithmetic: it resolves mi to 1e-40
    args = ["--notion", "pml", "--utility", "mi", "--prior", "1e-100,1", "--eps", "1"]
    assert cli("design", *args, "--certificate", cert).code == 0
    run = cli("check", cert, "--json")
    assert run.code == 0, run.out
    assert run.json()["verdict"] == "verified" and 0 <= run.json()["value"] <= 1e-40
