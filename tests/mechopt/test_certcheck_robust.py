"""Certificates of pml/alip designs and of robust (prior-set) designs: verified, and forgeries rejected.

A robust certificate carries the prior set's vertices, the loss, Q and the robust LP's duals (weights on the
vertices, ν, and per output multipliers of the rows of the cone of columns private at every vertex); the checker
re-proves the lower bound 1ᵀν from them (:func:`mechopt.certcheck.check_robust`). Mutations: a raised ν with
the bound it would claim, weights moved to one vertex, a tampered or negative multiplier, a perturbed Q, a false
value, a smaller claimed ε or ε_l, a loss that is not |values − outputs|. A robust-rays certificate (mi, mse,
histogram) carries the weights and ν only: the checker enumerates the rays of the cone itself
(:func:`mechopt.certcheck.check_rays`); mutations: a moved ν coordinate, weights on one vertex, a bound past the
value, a column of Q moved, a smaller ε, bad shapes.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import mechopt
from mechopt import certcheck
from mechopt.errors import CertificateError
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import EmpiricalPrior, PriorSet, RobustDesign
from tests.mechopt.test_certcheck import _check

ROBUST = {
    "pml-empirical": dict(prior_set=EmpiricalPrior.from_counts("40,25,20,15", 1e-3).prior_set(), notion="pml", eps=0.8),
    "pml-linf-ball": dict(prior_set=PriorSet.ball([0.3, 0.3, 0.4], 0.1, "linf"), notion="pml", eps=0.3),
    "lip-two": dict(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="lip", eps=0.8),
    "alip-two": dict(
        prior_set="0.2,0.3,0.5;0.5,0.3,0.2",
        notion="alip",
        eps=0.8,
        eps_lower=0.5,
        values="0.1,0.7,2.3",
        outputs="0.3,1.9",
    ),  # fmt: skip
    "ldp-free": dict(prior_set=PriorSet.simplex(4), notion="ldp", eps=0.8),
    "pml-simplex": dict(prior_set=PriorSet.simplex(3), notion="pml", eps=0.5),
}


def _write_robust(name: str, path: Path) -> dict:
    prob = RobustDesign.from_params(utility="mae", **ROBUST[name])
    res = mechopt.solve(prob, solver="robust-lp")
    assert res.status.value == "optimal"
    res.save_certificate(str(path))
    return json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(ROBUST))
def test_robust_certificates_verify(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    assert doc["problem"]["kind"] == "robust" and doc["dual"]["weights"]
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert out["gap"] <= 1e-9 and out["vertices"] == len(doc["problem"]["prior_set"])


@pytest.mark.parametrize("name", sorted(ROBUST))
def test_a_lowered_nu_with_the_bound_it_would_prove_is_rejected(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    nu = [Fraction(v) for v in doc["dual"]["nu"]]
    delta = Fraction(1, 1000)
    nu[0] += delta  # 1ᵀν rises by δ: a higher claimed lower bound the rays do not support
    doc["dual"]["nu"] = [str(v) for v in nu]
    doc["claim"]["bound"] = str(Fraction(doc["claim"]["bound"]) + delta)
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


@pytest.mark.parametrize("name", ["pml-empirical", "lip-two", "alip-two"])
def test_weights_moved_to_one_vertex_no_longer_prove_the_bound(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    w = [Fraction(v) for v in doc["dual"]["weights"]]
    k = min(range(len(w)), key=w.__getitem__)  # the vertex that mattered least
    doc["dual"]["weights"] = [str(Fraction(i == k)) for i in range(len(w))]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


@pytest.mark.parametrize("name", sorted(ROBUST))
def test_robust_false_value_and_perturbed_q_are_rejected(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    forged = json.loads(json.dumps(doc))
    forged["claim"]["value"] = str(Fraction(doc["claim"]["value"]) * (1 - Fraction(1, 10**6)))
    code, out = _check(forged, tmp_path / "v.json")
    assert code == 1 and "the value of Q is" in out["reason"], out
    doc["mechanism"]["Q"][0][0] = str(Fraction(doc["mechanism"]["Q"][0][0]) + Fraction(1, 10**6))
    code, out = _check(doc, tmp_path / "q.json")
    assert code == 1 and "not a probability vector" in out["reason"], out


@pytest.mark.parametrize("name", ["pml-empirical", "lip-two", "alip-two", "ldp-free", "pml-linf-ball"])
def test_a_smaller_claimed_eps_is_not_private(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    notion = doc["problem"]["notion"]
    for key in ("eps", "eps_lower")[: len(notion) - 1]:  # both levels of alip: one of them binds
        notion[key] = str(Fraction(notion[key]) * Fraction(9, 10))
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and out["reason"].startswith("not private: output "), out


def test_a_tampered_loss_is_not_the_utility_and_exits_2(tmp_path):
    doc = _write_robust("alip-two", tmp_path / "c.json")
    doc["problem"]["loss"][0][0] = "1/7"
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 2 and "the loss is not |value − output|" in out["reason"], out
    doc = _write_robust("lip-two", tmp_path / "c.json")
    doc["dual"]["weights"] = doc["dual"]["weights"][:1]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 2 and "one weight per vertex" in out["reason"], out


# -- single-prior pml and alip (the exact solver's column certificates) ---------------------------------------------


def _write_design(path: Path, **kw) -> dict:
    res = mechopt.solve(ChannelDesign.from_params(**kw), solver="exact")
    assert res.status.value == "optimal"
    res.save_certificate(str(path))
    return json.loads(path.read_text())


def test_pml_mass_moved_past_the_posterior_bound_is_rejected(tmp_path):
    doc = _write_design(tmp_path / "c.json", prior="0.1,0.2,0.3,0.4", notion="pml", utility="mi", eps=0.5)
    P = [Fraction(v) for v in doc["problem"]["prior"]]
    Q = [[Fraction(v) for v in row] for row in doc["mechanism"]["Q"]]
    lam = [sum(p * row[y] for p, row in zip(P, Q)) for y in range(len(Q[0]))]
    x, y = max(
        ((x, y) for x in range(len(Q)) for y in range(len(lam)) if lam[y]), key=lambda t: Q[t[0]][t[1]] / lam[t[1]]
    )
    other = next(j for j in range(len(lam)) if j != y and Q[x][j] > 0)
    step = Q[x][y] / 10**4
    Q[x][y], Q[x][other] = Q[x][y] + step, Q[x][other] - step
    doc["mechanism"]["Q"] = [[str(v) for v in row] for row in Q]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "not private" in out["reason"] and "upper side" in out["reason"], out


def test_alip_lower_level_is_checked(tmp_path):
    doc = _write_design(tmp_path / "c.json", prior="0.05,0.1,0.25,0.6", notion="alip", utility="mi", eps=1.2,
                        eps_lower=0.4)  # fmt: skip
    assert doc["problem"]["notion"]["eps_lower"] == str(Fraction(0.4))
    assert certcheck.run(str(tmp_path / "c.json"))[0] == 0
    doc["problem"]["notion"]["eps_lower"] = "3/10"
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "not private" in out["reason"] and "lower side" in out["reason"], out
    del doc["problem"]["notion"]["eps_lower"]
    assert _check(doc, tmp_path / "m.json")[0] == 2  # an alip file without its lower level is not a certificate


def test_a_result_without_dual_evidence_says_what_to_use_instead(tmp_path):
    res = mechopt.design(prior=[0.2, 0.3, 0.5], notion="pml", utility="mae", eps=1.0)
    with pytest.raises(CertificateError, match="robust-lp"):
        res.save_certificate(str(tmp_path / "c.json"))
    assert not (tmp_path / "c.json").exists()


@pytest.mark.parametrize("name", ["pml-empirical", "alip-two", "ldp-free"])
def test_tampered_cone_multipliers_are_rejected(name, tmp_path):
    doc = _write_robust(name, tmp_path / "c.json")
    mu = doc["dual"]["mu"]
    y, k = max(((y, k) for y in range(len(mu)) for k in range(len(mu[y]))), key=lambda t: Fraction(mu[t[0]][t[1]]))
    forged = json.loads(json.dumps(doc))
    forged["dual"]["mu"][y][k] = str(Fraction(mu[y][k]) + 1)  # a larger multiplier: the residual goes negative
    code, out = _check(forged, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out
    forged["dual"]["mu"][y][k] = "-1/1000"
    code, out = _check(forged, tmp_path / "m.json")
    assert code == 2 and "multipliers ≥ 0" in out["reason"], out
    forged["dual"]["mu"] = doc["dual"]["mu"][:-1]
    assert _check(forged, tmp_path / "m.json")[0] == 2


def test_a_zero_loss_design_has_a_certificate_too(tmp_path):
    prob = RobustDesign.from_params(prior_set="0.5,0.5;0.2,0.8", notion="pml", utility="mae", eps=1.0, values="1,1",
                                    outputs="1")  # fmt: skip
    res = mechopt.solve(prob, solver="robust-lp")
    assert res.status.value == "optimal" and res.value == 0.0
    res.save_certificate(str(tmp_path / "z.json"))
    code, out = certcheck.run(str(tmp_path / "z.json"))
    assert code == 0 and out["bound"] == out["value"] == 0.0, out


# -- robust-rays (mi, mse, histogram over a prior set): the rays of the cone re-enumerated by the checker -------------

RAYS = {
    "ldp-mi-two": dict(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0),
    "lip-mi-two": dict(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="lip", utility="mi", eps=1.0),
    "pml-mse-empirical": dict(
        prior_set=EmpiricalPrior.from_counts("40,25,20,15", 1e-3).prior_set(),
        notion="pml",
        utility="mse",
        eps=0.8,
        values="0,1,3,7",
    ),  # fmt: skip
    "alip-histogram-unused-row": dict(
        prior_set="0.2,0.3,0.5,0;0.5,0.3,0.2,0", notion="alip", utility="histogram", eps=1.0, eps_lower=0.5
    ),  # fmt: skip
    "ldp-mse-unused-row": dict(prior_set="0.6,0.4,0;0.1,0.9,0", notion="ldp", utility="mse", eps=0.7, values="1,2,9"),
}


def _write_rays(name: str, path: Path, scale: float = 1.0):
    kw = dict(RAYS[name])
    if scale != 1.0 and "values" in kw:
        kw["values"] = ",".join(str(float(v) * scale) for v in kw["values"].split(","))
    res = mechopt.solve(RobustDesign.from_params(**kw), solver="robust-rays")
    assert res.status.value == "optimal" and res.proof == "certificate", res.message
    res.save_certificate(str(path))
    return res, json.loads(path.read_text())


@pytest.mark.parametrize("name", sorted(RAYS))
def test_robust_rays_certificates_verify(name, tmp_path):
    res, doc = _write_rays(name, tmp_path / "c.json")
    assert doc["problem"]["kind"] == "robust" and "mu" not in doc["dual"] and "loss" not in doc["problem"]
    assert doc["problem"]["sense"] == res.sense and doc["problem"]["utility"]["name"] == res.objective.split()[-1]
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert out["gap"] <= 1e-7 and out["vertices"] == len(doc["problem"]["prior_set"]) and out["rays"] >= 3
    assert out["value"] == pytest.approx(res.value, rel=1e-9)  # max / min over the vertices, recomputed exactly
    # the checker's bound is its own (rays enumerated with W ≥ e^ε): at least as tight as the solver's claim
    sign = 1 if res.sense == "max" else -1
    assert sign * (out["bound"] - res.certificate.bound) <= 1e-9 * abs(res.certificate.bound)


def test_robust_rays_mse_certificate_is_unit_free(tmp_path):
    _, doc = _write_rays("pml-mse-empirical", tmp_path / "a.json")
    _, big = _write_rays("pml-mse-empirical", tmp_path / "b.json", scale=2.0**40)
    (ca, a), (cb, b) = certcheck.run(str(tmp_path / "a.json")), certcheck.run(str(tmp_path / "b.json"))
    assert ca == cb == 0 and b["value"] == pytest.approx(a["value"] * 2.0**80, rel=1e-9)
    assert b["bound"] == pytest.approx(a["bound"] * 2.0**80, rel=1e-9)


@pytest.mark.parametrize("name", sorted(RAYS))
@pytest.mark.parametrize("step", [Fraction(1, 100), Fraction(-1, 100)])
def test_robust_rays_perturbed_nu_does_not_prove_the_bound(name, step, tmp_path):
    """ν is a minimiser of the checker's bound (weak duality: any ν proves a bound ≥ the optimum, the claimed one
    being it to 1e-13); moving one coordinate by 1% of the claim moves the bound off the claim."""
    _, doc = _write_rays(name, tmp_path / "c.json")
    nu = [Fraction(v) for v in doc["dual"]["nu"]]
    x = max(range(len(nu)), key=lambda i: abs(nu[i]))
    nu[x] += step * abs(Fraction(doc["claim"]["bound"]))
    doc["dual"]["nu"] = [str(v) for v in nu]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


@pytest.mark.parametrize("name", ["ldp-mi-two", "lip-mi-two", "pml-mse-empirical", "alip-histogram-unused-row"])
def test_robust_rays_weights_moved_to_one_vertex_do_not_prove_the_bound(name, tmp_path):
    _, doc = _write_rays(name, tmp_path / "c.json")
    w = [Fraction(v) for v in doc["dual"]["weights"]]
    k = min(range(len(w)), key=w.__getitem__)
    doc["dual"]["weights"] = [str(Fraction(i == k)) for i in range(len(w))]
    code, out = _check(doc, tmp_path / "m.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out


@pytest.mark.parametrize("name", sorted(RAYS))
def test_robust_rays_tightened_claims_and_perturbed_columns_are_rejected(name, tmp_path):
    _, doc = _write_rays(name, tmp_path / "c.json")
    forged, value = json.loads(json.dumps(doc)), Fraction(doc["claim"]["value"])
    sign = 1 if doc["problem"]["sense"] == "max" else -1  # an upper bound below the value (a lower one above it)
    forged["claim"]["bound"] = str(value - sign * Fraction(1, 10**4) * abs(value))
    code, out = _check(forged, tmp_path / "b.json")
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out
    Q = [[Fraction(v) for v in row] for row in doc["mechanism"]["Q"]]
    x = max(range(len(Q)), key=lambda i: max(Q[i]))  # move mass between two outputs of one row: a new column pair
    y, z = max(range(len(Q[x])), key=Q[x].__getitem__), min(range(len(Q[x])), key=Q[x].__getitem__)
    Q[x][y], Q[x][z] = Q[x][y] - Q[x][y] / 1000, Q[x][z] + Q[x][y] / 1000
    doc["mechanism"]["Q"] = [[str(v) for v in row] for row in Q]
    code, out = _check(doc, tmp_path / "q.json")
    assert code == 1 and ("the value of Q is" in out["reason"] or "not private" in out["reason"]), out


def test_robust_rays_smaller_claimed_eps_and_bad_shapes(tmp_path):
    _, doc = _write_rays("lip-mi-two", tmp_path / "c.json")
    forged = json.loads(json.dumps(doc))
    forged["problem"]["notion"]["eps"] = str(Fraction(forged["problem"]["notion"]["eps"]) * Fraction(9, 10))
    code, out = _check(forged, tmp_path / "e.json")
    assert code == 1 and out["reason"].startswith("not private: output "), out
    forged = json.loads(json.dumps(doc))
    forged["problem"]["sense"] = "min"  # an mi is maximised
    assert _check(forged, tmp_path / "s.json")[0] == 2
    _, doc = _write_rays("pml-mse-empirical", tmp_path / "c.json")
    doc["problem"]["utility"]["values"] = doc["problem"]["utility"]["values"][:-1]
    code, out = _check(doc, tmp_path / "v.json")
    assert code == 2 and "one value per input" in out["reason"], out


def test_robust_rays_hull_result_says_why_it_has_no_file(tmp_path):
    prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="pml", utility="mse", eps=1.0,
                                    hull=True)  # fmt: skip
    res = mechopt.solve(prob, solver="robust-rays")
    with pytest.raises(CertificateError, match="--hull"):
        res.save_certificate(str(tmp_path / "c.json"))
    assert not (tmp_path / "c.json").exists()


LARGE_EPS_SET = "0.1,0.2,0.3,0.4;0.4,0.3,0.2,0.1;0.25,0.25,0.25,0.25"


@pytest.mark.parametrize("unit", [1.0, 1e-9, 1e9])
@pytest.mark.parametrize("notion,eps", [("ldp", 20), ("ldp", 25), ("ldp", 30), ("lip", 20), ("lip", 30)])
def test_robust_lp_mae_files_prove_their_claim_at_large_eps(notion, eps, unit, tmp_path):
    """The file's cone multipliers are the LP's own duals: at ε = 20 the MAE is 1e-8 of the loss's unit, and
    multipliers found by a second LP in that unit left residuals of its size (the file proved 0, claimed 1.03e-8)."""
    values = ",".join(repr(unit * i) for i in range(4))
    prob = RobustDesign.from_params(prior_set=LARGE_EPS_SET, notion=notion, utility="mae", eps=eps, values=values)
    res = mechopt.solve(prob, solver="robust-lp")
    res.save_certificate(str(tmp_path / "c.json"))
    doc = json.loads((tmp_path / "c.json").read_text())
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert Fraction(doc["claim"]["bound"]) == Fraction(res.certificate.bound)  # the result's bound, proven
    assert out["bound"] >= res.certificate.bound


def test_a_robust_lp_file_claims_only_what_its_duals_prove(tmp_path):
    """Multipliers that prove less than the result's bound (here none): the file claims what they prove, not
    optimal, and verifies (it claimed the result's bound and was rejected)."""
    from dataclasses import replace

    prob = RobustDesign.from_params(prior_set=LARGE_EPS_SET, notion="ldp", utility="mae", eps=1.0)
    res = mechopt.solve(prob, solver="robust-lp")
    ev, cert = res.certificate.evidence, res.certificate
    replace(ev, mu=0 * ev.mu).save(str(tmp_path / "c.json"), bound=cert.bound, gap=cert.gap, status="optimal")
    doc = json.loads((tmp_path / "c.json").read_text())
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert Fraction(doc["claim"]["bound"]) < Fraction(res.certificate.bound) * Fraction(1, 2)
    assert doc["claim"]["status"] == "optimal_inaccurate"
