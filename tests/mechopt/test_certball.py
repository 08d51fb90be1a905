"""Prior-ball certificates (``"kind": "robust-ball"``): written for ball designs, verified by the standalone
:mod:`mechopt.certball`, and rejected when perturbed (ε lowered, value raised, radius changed, counts changed, a
dual perturbed, a witness prior moved), or refused as a bad file (wrong kind, bad shapes)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

import mechopt
from mechopt import certball, certcheck
from mechopt.problems.robust import BallDesign

COUNTS = "300,220,180,120,90,40,30,20,0,0,0,0"  # 12 symbols, four never seen: beyond the vertex form's 10
CASES = {
    "pml-counts-tv": dict(prior_counts=COUNTS, delta=1e-3, notion="pml", eps=1.0),
    "lip-counts-linf": dict(prior_counts=COUNTS, delta=1e-2, bound="hoeffding", notion="lip", eps=1.5),
    "alip-ball": dict(
        prior_ball="0.04:tv", prior="0.3,0.25,0.2,0.1,0.1,0.05", notion="alip", eps=1.0, eps_lower=0.6
    ),  # fmt: skip
    "ldp-ball": dict(prior_ball="0.05:linf", prior="0.3,0.25,0.2,0.1,0.1,0.05", notion="ldp", eps=0.7),
}


@pytest.fixture(scope="module")
def docs(tmp_path_factory) -> dict[str, dict]:
    out = {}
    for name, kw in CASES.items():
        r = mechopt.solve(BallDesign.from_params(**kw), solver="robust-lp")
        assert r.status.value == "optimal", (name, r.message)
        path = tmp_path_factory.mktemp(name) / "c.json"
        r.save_certificate(str(path))
        out[name] = json.loads(path.read_text())
    return out


def _run(doc: dict, path: Path) -> tuple[int, dict]:
    path.write_text(json.dumps(doc))
    return certball.run(str(path))


def _q(x) -> str:
    return str(Fraction(x))


@pytest.mark.parametrize("name", sorted(CASES))
def test_ball_certificates_verify(name, docs, tmp_path):
    doc = docs[name]
    assert doc["problem"]["kind"] == "robust-ball" and doc["dual"]["priors"]
    code, out = _run(doc, tmp_path / "c.json")
    assert code == 0, out
    assert out["gap"] <= 1e-9 and out["inputs"] == len(doc["mechanism"]["Q"])
    if "counts" in doc["problem"]["ball"]:
        assert out["samples"] == sum(int(c) for c in doc["problem"]["ball"]["counts"])


def test_the_generic_checker_sends_ball_files_to_certball(docs, tmp_path):
    code, out = certcheck.run(str(tmp_path / "none.json"))
    assert code == 2
    (tmp_path / "c.json").write_text(json.dumps(docs["pml-counts-tv"]))
    assert certball.is_ball(str(tmp_path / "c.json")) and not certball.is_ball(str(tmp_path / "none.json"))


def _mutate(doc: dict, how: str) -> dict:
    d = json.loads(json.dumps(doc))
    pr, dual, claim = d["problem"], d["dual"], d["claim"]
    if how == "eps lowered":
        pr["notion"]["eps"] = _q(Fraction(pr["notion"]["eps"]) * Fraction(99, 100))
    elif how == "value raised":
        claim["value"] = _q(Fraction(claim["value"]) * Fraction(1001, 1000))
    elif how == "bound raised":
        claim["bound"] = _q(Fraction(claim["bound"]) * Fraction(1001, 1000))
    elif how == "radius lowered":
        pr["ball"]["radius"] = _q(Fraction(pr["ball"]["radius"]) * Fraction(9, 10))
    elif how == "radius raised":
        pr["ball"]["radius"] = _q(Fraction(pr["ball"]["radius"]) * Fraction(3, 2))
    elif how == "counts changed":
        pr["ball"]["counts"][0] = str(int(pr["ball"]["counts"][0]) * 2)
    elif how == "counts halved":  # same center, fewer samples: a larger radius is needed
        pr["ball"]["counts"] = [str(int(c) // 2) for c in pr["ball"]["counts"]]
    elif how == "delta lowered":
        pr["ball"]["delta"] = _q(Fraction(pr["ball"]["delta"]) / 1000)
    elif how == "nu raised":  # the bound it would claim rises with it
        dual["nu"][0] = _q(Fraction(dual["nu"][0]) + Fraction(1, 100))
        claim["bound"] = _q(Fraction(claim["bound"]) + Fraction(1, 100))
    elif how == "mu perturbed":
        y, k = next((y, k) for y, m in enumerate(dual["mu"]) for k, t in enumerate(m) if Fraction(t) > 0)
        dual["mu"][y][k] = _q(Fraction(dual["mu"][y][k]) * 2)
    elif how == "weights on one prior":
        dual["weights"] = ["1"] + ["0"] * (len(dual["weights"]) - 1)
    elif how == "Q moved":
        row = d["mechanism"]["Q"][0]
        j = max(range(len(row)), key=lambda k: Fraction(row[k]))
        row[j] = _q(Fraction(row[j]) - Fraction(1, 10))
        row[(j + 1) % len(row)] = _q(Fraction(row[(j + 1) % len(row)]) + Fraction(1, 10))
    return d


MUTATIONS = [
    "eps lowered", "value raised", "bound raised", "radius lowered", "radius raised", "counts changed",
    "counts halved", "delta lowered", "nu raised", "mu perturbed", "weights on one prior", "Q moved",
]  # fmt: skip


@pytest.mark.parametrize("how", MUTATIONS)
def test_a_perturbed_certificate_is_rejected(how, docs, tmp_path):
    code, out = _run(_mutate(docs["pml-counts-tv"], how), tmp_path / "m.json")
    assert code == 1, (how, out)
    assert out["verdict"] == "rejected" and out["reason"]


@pytest.mark.parametrize("how", ["eps lowered", "value raised", "radius raised", "mu perturbed", "Q moved"])
def test_perturbed_certificates_of_other_notions_are_rejected(how, docs, tmp_path):
    for name in ("lip-counts-linf", "alip-ball"):
        code, out = _run(_mutate(docs[name], how), tmp_path / "m.json")
        assert code == 1, (name, how, out)


def test_a_witness_prior_outside_the_ball_is_moved_onto_it(docs, tmp_path):
    """The checker moves witness priors onto the ball: a prior pushed far out proves less, and is rejected."""
    d = json.loads(json.dumps(docs["pml-counts-tv"]))
    w = [Fraction(t) for t in d["dual"]["weights"]]
    j = max(range(len(w)), key=lambda k: w[k])
    n = len(d["dual"]["priors"][j])
    d["dual"]["priors"][j] = ["1"] + ["0"] * (n - 1)  # a point mass: far outside a small ball
    assert _run(d, tmp_path / "m.json")[0] == 1


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda d: d["problem"].update(kind="robust"), "robust-ball"),
        (lambda d: d["dual"]["priors"].append(["1"]), "d entries per witness prior"),
        (lambda d: d["problem"]["ball"].update(kind="l2"), "tv or linf"),
        (lambda d: d["problem"]["ball"].update(counts=["1.5"] * 12), "whole numbers"),
        (lambda d: d["problem"]["utility"].update(name="mi"), "utility mae"),
        (lambda d: d["dual"].update(mu=[]), "dual.mu"),
    ],
)
def test_bad_files_exit_2(edit, words, docs, tmp_path):
    d = json.loads(json.dumps(docs["pml-counts-tv"]))
    edit(d)
    code, out = _run(d, tmp_path / "b.json")
    assert code == 2 and words in out["reason"], out


def test_the_checker_runs_alone_beside_certcheck(docs, tmp_path):
    """Copied with certcheck.py and run with ``python -I -S`` (no site-packages: neither mechopt nor numpy)."""
    alone = tmp_path / "alone"
    alone.mkdir()
    for mod in (certball, certcheck):
        shutil.copy(mod.__file__, alone / Path(mod.__file__).name)
    (alone / "c.json").write_text(json.dumps(docs["pml-counts-tv"]))
    got = subprocess.run([sys.executable, "-I", "-S", "certball.py", "c.json"], cwd=alone, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert got.returncode == 0, got.stdout + got.stderr
    assert got.stdout.startswith("verified: c.json: pml eps = 1, mae, 12 inputs")
