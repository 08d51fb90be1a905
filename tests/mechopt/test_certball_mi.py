"""Mutual information over a TV ball (vertex generation) writes a ``robust-ball`` certificate that
:mod:`mechopt.certball` re-proves exactly: privacy over the whole ball, the value over every vertex of the ball
(closed form, exact), the bound over the extreme rays of the witness priors' cone; above ``rays_max_d`` only a
``partial`` report (exit 3, never "verified"). Perturbed files (dual, channel, value, ε, a witness prior) are
rejected; the warm-started vertex generation gives the cold one's answer."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import certball
from mechopt.cli import main
from mechopt.problems.robust import BallDesign, BallSet, EmpiricalPrior


def _counts(d: int) -> str:
    return ",".join(str(50 * (d - i)) for i in range(d))


def _q(x) -> str:
    return str(Fraction(x))


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, dict]:
    out = {}
    runs = {"pml-5": (5, "pml", "auto"), "lip-4": (4, "lip", "auto"), "pml-5-ball": (5, "pml", "always")}
    for name, (d, notion, exact) in runs.items():
        prob = BallDesign.from_params(notion=notion, eps=1.0, utility="mi", prior_counts=_counts(d), delta=1e-3)
        r = mechopt.solve(prob, solver="robust-rays", ball_exact=exact)
        assert r.status.value == "optimal", r.message
        path = tmp_path_factory.mktemp(name) / "c.json"
        r.save_certificate(str(path))
        out[name] = json.loads(path.read_text())
    return out


def _run(doc: dict, path, **kw) -> tuple[int, dict]:
    path.write_text(json.dumps(doc))
    return certball.run(str(path), **kw)


@pytest.mark.parametrize("name", ["pml-5", "lip-4", "pml-5-ball"])
def test_the_ball_mi_certificate_verifies(name, files, tmp_path):
    doc = files[name]
    assert doc["problem"]["kind"] == "robust-ball" and doc["problem"]["utility"] == {"name": "mi"}
    assert "mu" not in doc["dual"] and "loss" not in doc["problem"] and doc["problem"]["sense"] == "max"
    assert "not in this file" in doc["dual"]["proof"]  # what the file proves and what a checker must redo
    code, out = _run(doc, tmp_path / "c.json")
    assert code == 0 and out["verdict"] == "verified", out
    d = len(doc["mechanism"]["Q"])
    ball = EmpiricalPrior.from_counts(_counts(d), 1e-3).ball()
    assert out["gap"] <= 1e-7 and out["inputs"] == d and out["vertices"] == len(ball.all_vertices())
    assert out["rays"] > 0 and out["priors"] == len(doc["dual"]["priors"]) < out["vertices"] or d <= 4


def _mutate(doc: dict, how: str) -> dict:
    d = json.loads(json.dumps(doc))
    pr, dual, claim = d["problem"], d["dual"], d["claim"]
    if how == "nu lowered":  # the bound it would claim falls with it
        dual["nu"][0] = _q(Fraction(dual["nu"][0]) - Fraction(1, 100))
        claim["bound"] = _q(Fraction(claim["bound"]) - Fraction(1, 100))
    elif how == "bound lowered":
        claim["bound"] = _q(Fraction(claim["bound"]) * Fraction(999, 1000))
    elif how == "value raised":
        claim["value"] = _q(Fraction(claim["value"]) * Fraction(1001, 1000))
    elif how == "eps lowered":
        pr["notion"]["eps"] = _q(Fraction(pr["notion"]["eps"]) * Fraction(99, 100))
    elif how == "weights on one prior":  # λ moved: the bound the rays prove rises above the claim
        dual["weights"] = ["1"] + ["0"] * (len(dual["weights"]) - 1)
    elif how == "radius raised":
        pr["ball"]["radius"] = _q(Fraction(pr["ball"]["radius"]) * Fraction(3, 2))
    elif how == "Q moved":  # mass moved between outputs of one row
        row = d["mechanism"]["Q"][0]
        j = max(range(len(row)), key=lambda k: Fraction(row[k]))
        row[j] = _q(Fraction(row[j]) - Fraction(1, 50))
        row[(j + 1) % len(row)] = _q(Fraction(row[(j + 1) % len(row)]) + Fraction(1, 50))
    elif how == "witness prior outside":  # a point mass, far outside: moved onto the ball, it proves less
        w = [Fraction(t) for t in dual["weights"]]
        j = max(range(len(w)), key=lambda k: w[k])
        dual["priors"][j] = ["1"] + ["0"] * (len(dual["priors"][j]) - 1)
    return d


MUTATIONS = ["nu lowered", "bound lowered", "value raised", "eps lowered", "weights on one prior", "radius raised",
             "Q moved", "witness prior outside"]  # fmt: skip


@pytest.mark.parametrize("how", MUTATIONS)
def test_a_perturbed_ball_mi_certificate_is_rejected(how, files, tmp_path):
    code, out = _run(_mutate(files["pml-5"], how), tmp_path / "m.json")
    assert code == 1 and out["verdict"] == "rejected" and out["reason"], (how, out)


def test_a_bound_over_the_balls_own_cone_is_checked_over_its_rays(files, tmp_path):
    """With the ball in the pricer (``ball_exact``) the file says ``"cone": "ball"`` and its priors are only the
    information priors: certball proves the bound over the rays of the ball's own privacy cone (rows at every vertex
    of the ball); a perturbed file is rejected and an unknown cone word is a bad file."""
    doc = files["pml-5-ball"]
    assert doc["dual"]["cone"] == "ball" and "ball's own privacy cone" in doc["dual"]["proof"]
    assert len(doc["dual"]["priors"]) < len(files["pml-5"]["dual"]["priors"])  # no privacy prior generated
    for how in ("nu lowered", "bound lowered", "value raised", "eps lowered"):
        assert _run(_mutate(doc, how), tmp_path / "m.json")[0] == 1, how
    bad = json.loads(json.dumps(doc))
    bad["dual"]["cone"] = "hull"
    code, out = _run(bad, tmp_path / "m.json")
    assert code == 2 and "dual.cone" in out["reason"]
    code, out = _run(doc, tmp_path / "c.json", rays_max_d=4)
    assert code == 3 and "ball's privacy cone" in out["reason"]


def test_above_rays_max_d_the_report_is_partial_never_verified(files, tmp_path, capsys):
    """The bound is not checked above ``rays_max_d``: exit 3, verdict ``partial``, the reason says what was and was
    not verified; a forged dual is not caught then (that is what partial means), a forged value still is."""
    code, out = _run(files["pml-5"], tmp_path / "c.json", rays_max_d=4)
    assert code == 3 and out["verdict"] == "partial" and out["bound_verified"] is False, out
    assert "NOT verified" in out["reason"] and "value" in out["reason"] and "rays" not in out
    assert _run(_mutate(files["pml-5"], "weights on one prior"), tmp_path / "m.json", rays_max_d=4)[0] == 3
    assert _run(_mutate(files["pml-5"], "nu lowered"), tmp_path / "m.json", rays_max_d=4)[0] == 1  # bound < value
    assert _run(_mutate(files["pml-5"], "value raised"), tmp_path / "m.json", rays_max_d=4)[0] == 1
    assert _run(_mutate(files["pml-5"], "eps lowered"), tmp_path / "m.json", rays_max_d=4)[0] == 1
    (tmp_path / "c.json").write_text(json.dumps(files["pml-5"]))
    assert certball.main([str(tmp_path / "c.json"), "--rays-max-d", "4"]) == 3
    assert capsys.readouterr().out.startswith("partial: ")
    assert main(["check", str(tmp_path / "c.json")]) == 0  # mechopt check: the default rays_max_d (10) covers d = 5
    assert capsys.readouterr().out.startswith("verified: ")


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.floats(1e-4, 0.6), st.booleans(), st.integers(0, 2**31 - 1))
def test_the_checkers_vertices_are_the_solvers(d, r, zero, seed):
    """certball's exact enumeration of the TV ball's vertices holds the same points as BallSet.all_vertices."""
    rng = np.random.default_rng(seed)
    c = rng.dirichlet(np.ones(d))
    if zero:
        c[rng.integers(d)] = 0.0
        c = c / c.sum()
    B = BallSet(c, r, "tv")
    ctr, rad = [Fraction(float(v)) for v in B.center], Fraction(B.radius)
    ctr = [v / sum(ctr) for v in ctr]
    got = certball.vertices({"c": ctr, "r": rad})
    mine = np.unique(np.array([[float(p) for p in P] for P in got]), axis=0)
    theirs = B.all_vertices()
    assert np.abs(mine[:, None, :] - theirs[None, :, :]).max(axis=2).min(axis=1).max() <= 1e-12
    assert np.abs(theirs[:, None, :] - mine[None, :, :]).max(axis=2).min(axis=1).max() <= 1e-12
    assert all(min(P) >= 0 and sum(P) == 1 and sum(abs(p - v) for p, v in zip(P, ctr)) <= 2 * rad for P in got)


@pytest.mark.parametrize("d, notion", [(5, "pml"), (4, "lip")])
def test_the_warm_start_gives_the_cold_answer(d, notion):
    """Carrying each round's columns and cut points (``ball_warm``, the default) changes the path, not the answer."""
    prob = BallDesign.from_params(notion=notion, eps=1.0, utility="mi", prior_counts=_counts(d), delta=1e-3)
    warm, cold = (mechopt.solve(prob, solver="robust-rays", ball_warm=w) for w in (True, False))
    assert warm.status.value == cold.status.value == "optimal"
    assert warm.value == pytest.approx(cold.value, rel=1e-9) and prob.audit_channel(warm.Q).violation <= 1e-9


@pytest.mark.parametrize("bad", [1, "yes", None])
def test_a_bad_ball_warm_is_a_param_error(bad):
    from mechopt.errors import ParamError

    prob = BallDesign.from_params(notion="pml", eps=1.0, utility="mi", prior_counts="120,80,40,20", delta=1e-3)
    with pytest.raises(ParamError, match="ball_warm"):
        mechopt.solve(prob, solver="robust-rays", ball_warm=bad)
