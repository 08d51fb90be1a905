"""``mechopt report``: --json is card_json, --html writes the page, bad input is one line and exit 2."""

from __future__ import annotations

import numpy as np

from mechopt import Mechanism
from mechopt.deploy.card import card_json


def _saved(tmp_path) -> str:
    path = tmp_path / "m.json"
    Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "yes"], prior=[0.3, 0.7], claim=("ldp", 1.1)).save(path)
    return str(path)


def test_json_and_html(tmp_path, cli) -> None:
    mech = _saved(tmp_path)
    out = tmp_path / "card.html"
    run = cli("report", mech, "--html", out, "--json")
    assert run.code == 0 and run.err == ""
    doc = run.json()
    assert doc == card_json(Mechanism.load(mech))
    assert doc["sections"]["privacy"]["prior"] == [0.3, 0.7] and doc["sections"]["privacy"]["prior_source"] == (
        "the design prior"
    )
    assert np.isclose(doc["sections"]["privacy"]["notions"]["ldp"]["eps"], np.log(3))
    assert out.read_text().startswith("<!DOCTYPE html>")


def test_html_alone_says_where_the_card_went(tmp_path, cli) -> None:
    """``mechopt report mech.json --html card.html`` (docs/howto/deploy) printed nothing at all on success."""
    out = tmp_path / "card.html"
    run = cli("report", _saved(tmp_path), "--html", out)
    assert run.code == 0 and run.err == "" and out.read_text().startswith("<!DOCTYPE html>")
    assert (
        run.out.startswith("report card of Mechanism(2 inputs x 2 outputs")
        and f"written to {out} (6 sections)" in run.out
    )


def test_prior_overrides_the_file(tmp_path, cli) -> None:
    run = cli("report", _saved(tmp_path), "--json", "--prior", "0.5,0.5")
    assert run.code == 0
    assert run.json()["sections"]["privacy"]["prior_source"] == "given"


def test_bad_input_is_one_line(tmp_path, cli, one_line_error) -> None:
    mech = _saved(tmp_path)
    one_line_error(cli("report", mech))  # neither --html nor --json
    one_line_error(cli("report", tmp_path / "missing.json", "--json"))
    one_line_error(cli("report", mech, "--html", tmp_path))  # a folder
    one_line_error(cli("report", mech, "--json", "--prior", "0.2,0.3,0.5"))  # 3 symbols for 2 inputs
    before = (tmp_path / "m.json").read_bytes()
    one_line_error(cli("report", mech, "--html", mech))  # would replace its own input
    assert (tmp_path / "m.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.json"]


def test_a_broken_claim_writes_the_card_and_exits_1(tmp_path, cli) -> None:
    path = tmp_path / "broken.json"
    Mechanism([[0.75, 0.25], [0.25, 0.75]], claim=("ldp", 1.0)).save(path)
    out = tmp_path / "card.html"
    run = cli("report", path, "--html", out, "--json")
    assert run.code == 1 and run.err.startswith(
        "CLAIM BROKEN: the mechanism claims ldp ε = 1, but its Q needs ε = 1.09861"
    )
    assert run.json()["sections"]["certificate"]["audit"] == {
        "notion": "ldp",
        "claimed": 1.0,
        "audited": run.json()["sections"]["privacy"]["notions"]["ldp"]["eps"],
        "holds": False,
        "prior": "uniform (none given)",
    }
    assert "FAILS" in out.read_text()


def test_a_lip_claim_is_checked_under_the_design_prior_even_with_another_prior(tmp_path, cli) -> None:
    path = tmp_path / "lip.json"
    Q = [[0.75, 0.25], [0.25, 0.75]]
    lip = Mechanism(Q, prior=[0.5, 0.5]).audit("lip")["notions"]["lip"]["eps"]
    Mechanism(Q, prior=[0.5, 0.5], claim=("lip", lip)).save(path)
    run = cli("report", path, "--json", "--prior", "0.05,0.95")
    assert run.code == 0, run.err
    cert = run.json()["sections"]["certificate"]["audit"]
    assert cert["prior"] == "the design prior" and cert["holds"] is True and cert["audited"] == lip


def test_uses_sets_the_composition_curves(tmp_path, cli, one_line_error) -> None:
    """k-fold RR with ε₀ = log 3: δ(0) after 2 uses is TV(Bin) = 1/2; δ at k·ε₀ is 0 (the grid's last point)."""
    run = cli("report", _saved(tmp_path), "--json", "--uses", "2,3")
    comp = run.json()["sections"]["composition"]
    assert comp["uses"] == [2, 3] and comp["delta"][0][0] == 0.5
    assert all(row[-1] <= 1e-15 for row in comp["delta"])
    assert all(a >= b for row in comp["delta"] for a, b in zip(row, row[1:]))  # δ(ε) does not increase
    for bad in ("0", "1,x", "", "2.5"):
        one_line_error(cli("report", _saved(tmp_path), "--json", "--uses", bad))
        one_line_error(cli("report", _saved(tmp_path), "--json", "--users", bad))


def test_users_sets_the_shuffling_bounds(tmp_path, cli) -> None:
    """The card's shuffled ε are :func:`central_guarantee`'s, named by their bound, decreasing in n, below ε₀."""
    from mechopt.deploy.shuffle import central_guarantee

    mech = _saved(tmp_path)
    shuf = cli("report", mech, "--json", "--users", "1000,1e5").json()["sections"]["shuffle"]
    assert shuf["users"] == [1000, 100000] and shuf["bound"] == "variation-ratio" and shuf["upper_bound"]
    assert shuf["eps"] == [central_guarantee(Mechanism.load(mech), n, 1e-6).eps for n in (1000, 100000)]
    assert np.log(3) > shuf["eps"][0] > shuf["eps"][1] > 0


def test_large_mechanism_leaves_composition_to_account() -> None:
    from mechopt.deploy.card_parts import Card
    from mechopt.deploy.card_use import COMPOSITION_MAX_D, composition_section

    d = COMPOSITION_MAX_D + 1
    s = composition_section(Card(Mechanism(np.full((d, 2), 0.5))))
    assert "mechopt account" in s.data["skipped"] and "mechopt account" in s.html
