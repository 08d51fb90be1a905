"""``mechopt design --notion pml`` and ``--notion alip --eps-upper U --eps-lower L``; ``verify --paper pml``."""

from __future__ import annotations

BASE = ["design", "--utility", "mi", "--prior", "0.1,0.2,0.3,0.4", "--json"]


def test_design_pml_and_alip(cli):
    r = cli(*BASE, "--notion", "pml", "--eps", "1")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "optimal" and doc["privacy"]["notion"] == "pml" and doc["privacy"]["violation"] <= 1e-12
    a = cli(*BASE, "--notion", "alip", "--eps-upper", "1", "--eps-lower", "0.5")
    assert a.code == 0, a.err
    alip = a.json()
    assert alip["status"] == "optimal" and alip["privacy"]["notion"] == "alip"
    assert alip["value"] < doc["value"]  # a lower bound on the density only removes channels


def test_design_bad_levels_exit_2_without_traceback(cli):
    r = cli(*BASE, "--notion", "alip", "--eps", "1")
    assert r.code == 2 and "--eps-lower" in r.err and "Traceback" not in r.err
    r = cli(*BASE, "--notion", "lip", "--eps", "1", "--eps-lower", "0.5")
    assert r.code == 2 and "alip" in r.err
    r = cli(*BASE, "--notion", "alip", "--eps", "1", "--eps-lower", "-2")
    assert r.code == 2 and "Traceback" not in r.err


def test_verify_pml_paper(cli):
    r = cli("verify", "--paper", "pml", "--claim", "pml.binary", "--json")
    assert r.code == 0, r.err
    (claim,) = r.json()["claims"]
    assert claim["id"] == "pml.binary" and claim["verdict"] == "holds" and claim["worst_deviation"] <= 1e-12


def test_design_out_then_audit_checks_the_pml_claim(cli, tmp_path):
    out = tmp_path / "m.json"
    assert cli(*BASE[:-1], "--notion", "pml", "--eps", "1", "--out", out).code == 0
    r = cli("audit", out, "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["claim"]["notion"] == "pml" and doc["claim"]["holds"] is True
    assert abs(doc["notions"]["pml"]["eps"] - 1.0) <= 1e-12 and doc["notions"]["lip"]["eps"] is None  # zeros in Q
    assert cli("audit", out, "--eps", "0.9", "--notion", "pml").code == 1
