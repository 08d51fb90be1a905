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


def _edit(path, out, **privacy):
    import json

    doc = json.loads(path.read_text())
    doc["privacy"].update(privacy)
    doc["privacy"] = {k: v for k, v in doc["privacy"].items() if v is not None}
    out.write_text(json.dumps(doc))
    return out


def test_design_out_then_audit_checks_both_levels_of_an_alip_claim(cli, tmp_path):
    out = tmp_path / "a.json"
    assert cli(*BASE[:-1], "--notion", "alip", "--eps", "1", "--eps-lower", "0.5", "--out", out).code == 0
    r = cli("audit", out, "--json")
    assert r.code == 0, r.err
    claim = r.json()["claim"]
    assert claim["holds"] is True and claim["eps_lower"] == 0.5
    assert claim["eps_audited"] <= 1 + 1e-9  # the MI optimum is tight on the lower side:
    assert abs(claim["eps_lower_audited"] - 0.5) <= 1e-9
    low = cli("audit", _edit(out, tmp_path / "low.json", eps_lower=0.3))  # the lower side is what breaks
    assert low.code == 1 and "CLAIM BROKEN: the file claims alip eps = 1, eps_lower = 0.3" in low.out, low.out
    up = cli("audit", _edit(out, tmp_path / "up.json", eps=claim["eps_audited"] - 0.01))
    assert up.code == 1 and "CLAIM BROKEN" in up.out
    old = cli("audit", _edit(out, tmp_path / "old.json", eps_lower=None))  # a file from before eps_lower was stored
    assert old.code == 0 and "claim not checked" in old.out and "no eps_lower" in old.out
    bad = cli("audit", _edit(out, tmp_path / "pml.json", notion="pml"))
    assert bad.code == 2 and "belongs to notion alip" in bad.err and "Traceback" not in bad.err


def test_audit_checks_an_alip_prior_set_claim_at_every_vertex(cli, tmp_path):
    out = tmp_path / "s.json"
    sets = ["--prior-set", "0.2,0.3,0.5;0.5,0.3,0.2"]
    r = cli("design", "--utility", "mi", *sets, "--notion", "alip", "--eps", "1", "--eps-lower", "0.5", "--out", out)
    assert r.code == 0, r.err
    assert cli("audit", out).code == 0
    broken = cli("audit", _edit(out, tmp_path / "s2.json", eps_lower=0.2))
    assert broken.code == 1 and "at each of the file's 2 prior-set vertices" in broken.out


def test_audit_refuses_an_alip_lower_level_without_its_upper_level(cli, tmp_path):
    # "eps" removed, "eps_lower" kept: the claim was dropped unread ("claim" null, exit 0), now named and refused
    out = tmp_path / "a.json"
    assert cli(*BASE[:-1], "--notion", "alip", "--eps", "1", "--eps-lower", "0.5", "--out", out).code == 0
    r = cli("audit", _edit(out, tmp_path / "noeps.json", eps=None, eps_lower=0.1))
    assert r.code == 2 and "eps_lower = 0.1 but no eps" in r.err and "Traceback" not in r.err, (r.out, r.err)
