"""``mechopt design --prior-counts ... --delta`` and ``mechopt sample-size``: (ε, δ)-PML from samples."""

from __future__ import annotations

import json

import numpy as np
import pytest

from mechopt.notions import PML
from mechopt.problems.robust import EmpiricalPrior, empirical_radius

BASE = ["design", "--notion", "pml", "--utility", "mae", "--eps", "1", "--json"]


@pytest.mark.parametrize("bound", [None, "hoeffding"])
def test_design_from_counts_is_certified_and_private_over_the_set(cli, bound):
    extra = [] if bound is None else ["--bound", bound]
    r = cli(*BASE, "--prior-counts", "120,80,40", "--delta", "1e-3", *extra)
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["status"] == "optimal" and doc["privacy"]["violation"] <= 1e-9
    assert f"empirical:{bound or 'weissman'}:n=240:delta=0.001" in doc["message"]
    assert any("with probability >= 1 - 0.001 over the 240 samples" in n for n in doc["notes"]), doc["notes"]
    assert "mechopt: note: (eps, delta) guarantee: a channel private at every prior of the set is pml" in r.err
    Q = np.array(doc["mechanism"]["Q"])
    S = EmpiricalPrior.from_counts([120, 80, 40], 1e-3, bound or "weissman").prior_set()
    assert max(PML(1.0).audit(Q, P).eps for P in S.vertices) <= 1 + 1e-9


def test_more_samples_never_cost_utility(cli):
    vals = []
    for scale in (1, 10, 100):
        r = cli(*BASE, "--prior-counts", f"{12 * scale},{8 * scale},{4 * scale}", "--delta", "0.01")
        assert r.code == 0, r.err
        vals.append(r.json()["value"])
    assert vals[0] >= vals[1] - 1e-9 and vals[1] >= vals[2] - 1e-9 and vals[0] > vals[2]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--prior-counts", "120,-80,40", "--delta", "1e-3"], "whole numbers >= 0"),
        (["--prior-counts", "120,abc", "--delta", "1e-3"], "not numbers"),
        (["--prior-counts", "120,80,40", "--delta", "1.5"], "delta must be in (0, 1)"),
        (["--prior-counts", "120,80,40", "--delta", "0"], "delta must be in (0, 1)"),
        (["--prior-counts", "120,80,40"], "needs --delta"),
        (["--prior-counts", "120,80,40", "--delta", "0.1", "--bound", "chernoff"], "not known"),
        (["--prior-set", "0.5,0.5", "--delta", "0.1"], "--delta does not go with --prior-set"),
        (["--prior", "0.5,0.5", "--delta", "0.1"], "--delta and --bound go with --prior-counts"),
        (["--prior-counts", "1,2", "--delta", "0.1", "--prior", "0.5,0.5"], "--prior does not go"),
    ],
)
def test_bad_counts_or_delta_exit_2_with_one_line(cli, one_line_error, args, words):
    r = cli(*BASE, *args)
    one_line_error(r)
    assert words in r.err


def test_sample_size_prints_n_and_inverts_the_radius(cli):
    r = cli("sample-size", "--symbols", "4", "--delta", "1e-3", "--radius", "0.05", "--json")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["norm"] == "L1" and doc["bound"] == "weissman"
    n = doc["samples"]
    assert empirical_radius(n, 4, 1e-3) <= 0.05 < empirical_radius(n - 1, 4, 1e-3)
    back = cli("sample-size", "--symbols", "4", "--delta", "1e-3", "--samples", str(n), "--bound", "weissman")
    assert back.code == 0 and back.out.startswith(f"samples {n}: L1 distance <= 0.0499982")


@pytest.mark.parametrize(
    "args",
    [
        ["--symbols", "4", "--delta", "2", "--radius", "0.1"],
        ["--symbols", "0", "--delta", "0.1", "--radius", "0.1"],
        ["--symbols", "4", "--delta", "0.1", "--radius", "-0.1"],
        ["--symbols", "4", "--delta", "0.1", "--samples", "2.5"],
        ["--symbols", "4", "--delta", "0.1", "--radius", "0.1", "--bound", "x"],
    ],
)
def test_sample_size_bad_input_exits_2(cli, one_line_error, args):
    one_line_error(cli("sample-size", *args))


def test_audit_checks_a_robust_claim_at_every_vertex_of_the_files_prior_set(cli, tmp_path):
    out = tmp_path / "m.json"
    r = cli("design", "--notion", "pml", "--utility", "mae", "--eps", "0.8", "--prior-counts", "40,25,20,15",
            "--delta", "1e-3", "--out", out)  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(out.read_text())
    assert len(doc["mechanism"]["prior_set"]) == 18
    a = cli("audit", out, "--json")
    assert a.code == 0, a.err
    claim = a.json()["claim"]
    assert claim["holds"] and claim["prior_set"] == 18
    assert claim["eps_audited"] == pytest.approx(0.8, abs=1e-9)
    # a vertex moved outside the design's set: the same Q leaks more there, and the claim breaks
    doc["mechanism"]["prior_set"][0] = [0.001, 0.001, 0.001, 0.997]
    out.write_text(json.dumps(doc))
    a = cli("audit", out)
    assert a.code == 1 and "CLAIM BROKEN: the file claims pml (at each of the file's 18 prior-set vertices)" in a.out, (
        a.out
    )
    doc["mechanism"]["prior_set"][0] = [0.5, 0.5]
    out.write_text(json.dumps(doc))
    assert cli("audit", out).code == 2  # a vertex of the wrong length is bad input


def test_beyond_ten_symbols_mae_is_designed_over_the_ball_by_its_inequalities(cli, one_line_error):
    counts = ",".join(str(50 * (16 - i)) for i in range(16))
    r = cli(*BASE, "--prior-counts", counts, "--delta", "1e-3")
    assert r.code == 0, r.err
    doc = r.json()
    assert doc["solver"] == "robust-lp" and doc["status"] == "optimal" and doc["privacy"]["violation"] <= 1e-9
    assert "tv ball of radius" in doc["message"] and "by its inequalities" in doc["message"]
    E = EmpiricalPrior.from_counts(counts, 1e-3)
    assert doc["mechanism"]["prior_ball"]["radius"] == pytest.approx(E.radius / 2, rel=1e-15)
    Q, rng = np.array(doc["mechanism"]["Q"]), np.random.default_rng(5)
    for _ in range(200):  # random priors of the ball: (1 − t)·p̂ + t·R has TV t·TV(R, p̂) ≤ t = the radius
        P = (1 - E.radius / 2) * E.p_hat + E.radius / 2 * rng.dirichlet(np.ones(16) * 0.2)
        assert PML(1.0).audit(Q, P).eps <= 1 + 1e-9
    r = cli("design", "--notion", "pml", "--utility", "mi", "--eps", "1", "--prior-counts", counts, "--delta", "0.1",
            "--bound", "hoeffding")  # fmt: skip
    one_line_error(r)
    assert "mi over a prior ball on 16 symbols is not certified" in r.err and "--utility mae" in r.err


def test_audit_of_a_point_mass_vertex_checks_every_row_of_the_set(cli, tmp_path):
    """A prior-free (simplex) design's vertices are point masses: the hull's priors put mass on every row, so a
    vertex with P(x) = 0 still constrains row x (the audit said eps = 0 there and passed a leaking Q)."""
    out = tmp_path / "m.json"
    r = cli("design", "--notion", "pml", "--utility", "mae", "--eps", "1", "--prior-free", "3", "--out", out)
    assert r.code == 0, r.err
    assert cli("audit", out).code == 0
    doc = json.loads(out.read_text())
    doc["mechanism"]["Q"] = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]  # pml over the simplex: log(0.7/0.1)
    out.write_text(json.dumps(doc))
    a = cli("audit", out, "--json")
    assert a.code == 1 and a.json()["claim"]["eps_audited"] == pytest.approx(np.log(7.0), rel=1e-12), a.err


def test_audit_checks_a_ball_designs_claim_over_its_ball(cli, tmp_path):
    """Beyond 10 symbols the set is a ball by its inequalities: the audit takes each output's worst prior of it."""
    out = tmp_path / "m.json"
    counts = ",".join(str(50 * (16 - i)) for i in range(16))
    r = cli("design", "--notion", "pml", "--utility", "mae", "--eps", "1", "--prior-counts", counts, "--delta", "1e-3",
            "--out", out)  # fmt: skip
    assert r.code == 0, r.err
    a = cli("audit", out, "--json")
    assert a.code == 0, a.err
    assert a.json()["claim"]["holds"] and a.json()["claim"]["eps_audited"] == pytest.approx(1.0, abs=1e-9)
    assert "over the file's prior ball" in a.err
    doc = json.loads(out.read_text())
    doc["mechanism"]["prior_ball"]["radius"] *= 1.5  # a larger ball: the same Q leaks more at its edge
    out.write_text(json.dumps(doc))
    assert cli("audit", out).code == 1
    doc["mechanism"]["prior_ball"] = {"center": [1.0], "radius": 0.1, "kind": "tv"}
    out.write_text(json.dumps(doc))
    bad = cli("audit", out)
    assert bad.code == 2 and "prior_ball" in bad.err and "Traceback" not in bad.err
