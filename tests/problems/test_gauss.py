"""GaussProblem: Section III formulas, limits, datasets and their validation, audit, params."""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import mechopt
from mechopt import registry
from mechopt.claims.gauss.theorems import random_instance
from mechopt.errors import ProblemError
from mechopt.problems.gauss.data import DATASETS, validate_blocks
from mechopt.problems.gauss.info import (
    fisher_eq10,
    fisher_s,
    mi_direct,
    mi_s,
    mi_s_grad,
    s_from_var,
    utility_loss_direct,
    var_from_s,
)
from mechopt.problems.gauss.problem import GaussianNoise, GaussProblem
from mechopt.results.result import Result, Status


def _noise(draw_u, n, rng):
    v = rng.exponential(3.0, n)
    v[draw_u[:n] < 0.25] = 0.0
    v[draw_u[n : 2 * n] < 0.25] = np.inf
    return v


@hsettings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 4), n_a=st.integers(1, 3))
def test_scaled_form_equals_paper_formula_including_zero_and_infinite_noise(seed, n, n_a):
    cp, _ = random_instance(seed, n=n, n_p=n_a)
    rng = np.random.default_rng(seed)
    v = _noise(rng.random(2 * n), n, rng)
    s = s_from_var(v, np.diag(cp)[:n])
    assert mi_s(cp, n, s) == pytest.approx(mi_direct(cp, n, v), abs=1e-10)


def test_paper_utility_loss_formula_matches_the_problem_slack():
    p = GaussProblem.from_params(dataset="1", delta="0.3")
    for v in ([0.0, 0.0], [1.0, 20.0], [300.0, 0.5]):
        loss = utility_loss_direct(p.cov_u, 2, v)
        assert loss == pytest.approx(p.mi_full - mi_s(p.cov_u, 2, p.s_of(v)), abs=1e-12)
        assert p.slacks_s(p.s_of(v))[0] == pytest.approx(0.3 - loss, abs=1e-12)


def test_infinite_noise_is_dropping_the_feature_and_zero_noise_is_exact():
    cp = DATASETS["1"]["cov_p"]
    sub = cp[np.ix_([0, 2], [0, 2])]
    ref = 0.5 * np.log(sub[0, 0] * sub[1, 1] / np.linalg.det(sub))  # I(Xp; X1)
    assert mi_direct(cp, 2, [0.0, np.inf]) == pytest.approx(ref, rel=1e-12)
    assert mi_s(cp, 2, np.array([1.0, 0.0])) == pytest.approx(ref, rel=1e-12)
    assert mi_s(cp, 2, np.zeros(2)) == 0.0
    assert var_from_s([0.0, 1.0], [2.0, 2.0]).tolist() == [np.inf, 0.0]
    assert s_from_var([np.inf, 0.0], [2.0, 2.0]).tolist() == [0.0, 1.0]


@pytest.mark.parametrize("seed", range(5))
def test_gradient_matches_finite_differences(seed):
    cp, _ = random_instance(seed, n=3, n_p=2)
    s = np.random.default_rng(seed).uniform(0.05, 0.95, 3)
    h, g = 1e-6, mi_s_grad(cp, 3, s)
    fd = [(mi_s(cp, 3, s + h * e) - mi_s(cp, 3, s - h * e)) / (2 * h) for e in np.eye(3)]
    assert np.allclose(g, fd, rtol=1e-5, atol=1e-8)


@hsettings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), i=st.integers(0, 2), t=st.floats(0.0, 1.0))
def test_privacy_and_utility_are_monotone_in_every_coordinate(seed, i, t):
    """The search solver's certificate rests on this (data processing)."""
    cp, cu = random_instance(seed, n=3, n_u=2)
    s = np.random.default_rng(seed).uniform(0, 1, 3)
    lo, hi = s.copy(), s.copy()
    lo[i], hi[i] = t * s[i], s[i] + t * (1 - s[i])
    for C in (cp, cu):
        assert mi_s(C, 3, lo) <= mi_s(C, 3, hi) + 1e-12
    assert np.trace(fisher_s(cu, 3, lo)) <= np.trace(fisher_s(cu, 3, hi)) + 1e-10


def test_fisher_scaled_form_equals_eq10_and_is_zero_under_infinite_noise():
    cu = DATASETS["2"]["cov_p"]  # a PD block with n = 6, n_u = 1
    v = np.linspace(0.0, 5.0, 6)
    assert np.allclose(fisher_s(cu, 6, s_from_var(v, np.diag(cu)[:6])), fisher_eq10(cu, 6, v), rtol=1e-9)
    assert np.all(fisher_s(cu, 6, np.zeros(6)) == 0.0)


def test_dataset1_loads_and_reference_quantities():
    p = GaussProblem.from_params(dataset="1", delta="0.3", gamma="0")
    assert (p.n, p.n_p, p.n_u, p.notes) == (2, 1, 1, ())
    cp = DATASETS["1"]["cov_p"]
    assert p.privacy_full == pytest.approx(0.5 * np.log(np.linalg.det(cp[:2, :2]) * cp[2, 2] / np.linalg.det(cp)))
    assert p.utility_threshold == pytest.approx(p.mi_full - 0.3)


def test_dataset2_as_printed_is_rejected_naming_block_and_eigenvalue():
    with pytest.raises(ProblemError, match=r"Σ_\{X∪Xu\} is not positive definite: min eigenvalue -0\.002789"):
        GaussProblem.from_params(dataset="2")
    with pytest.raises(ProblemError, match='psd="project"'):
        registry.get_problem("gauss-dataset2").from_params()


def test_dataset2_projection_is_reported_and_keeps_sigma_x():
    p = registry.get_problem("gauss-dataset2").from_params(psd="project")
    assert len(p.notes) == 1 and "Σ_{X∪Xu} projected (min eigenvalue was -0.002789" in p.notes[0]
    assert np.array_equal(p.cov_u[:6, :6], DATASETS["2"]["cov_u"][:6, :6])
    assert np.array_equal(p.cov_p, DATASETS["2"]["cov_p"])
    assert np.linalg.eigvalsh(p.cov_u)[0] > 0
    r = mechopt.solve(p.with_params(delta=0.3), solver="sqp", n_starts=3)
    assert "projected" in r.to_dict()["mechanism"]["notes"][0]


def test_block_validation_errors():
    cp, cu = DATASETS["1"]["cov_p"], DATASETS["1"]["cov_u"].copy()
    bad = cu.copy()
    bad[0, 0] += 1.0
    with pytest.raises(ProblemError, match="disagree on Σ_X"):
        validate_blocks(cp, bad, 2)
    bad = cu.copy()
    bad[0, 2] += 1.0
    with pytest.raises(ProblemError, match="not symmetric"):
        validate_blocks(cp, bad, 2)
    with pytest.raises(ProblemError, match="n \\(number of released features\\)"):
        validate_blocks(cp, cu, 3)
    with pytest.raises(ProblemError, match="psd must be"):
        validate_blocks(cp, cu, 2, psd="clip")


@pytest.mark.parametrize(
    "params, field",
    [
        ({"delta": "abc"}, "delta"),
        ({"delta": "-1"}, "delta"),
        ({"gamma": "nan"}, "gamma"),
        ({"utility": "mse"}, "utility"),
        ({"dataset": "3"}, "dataset"),
        ({"psd_floor": "2"}, "psd_floor"),
    ],
)
def test_from_params_names_the_bad_field(params, field):
    with pytest.raises(ProblemError, match=field):
        GaussProblem.from_params(**{"dataset": "1", **params})


def test_from_params_with_matrix_strings_and_files(tmp_path):
    p = GaussProblem.from_params(cov_p="2,1;1,1", cov_u="2,0.5;0.5,1", n="1", delta="0.1")
    np.save(tmp_path / "cp.npy", p.cov_p)
    q = GaussProblem.from_params(cov_p=str(tmp_path / "cp.npy"), cov_u="2,0.5;0.5,1", n="1", delta="0.1")
    assert q.privacy_full == p.privacy_full == pytest.approx(0.5 * np.log(2.0))
    with pytest.raises(ProblemError, match="cov_p"):
        GaussProblem.from_params(cov_p="2,x;1,1", cov_u="2,0.5;0.5,1", n="1")
    with pytest.raises(ProblemError, match="give dataset"):
        GaussProblem.from_params(cov_p="2,1;1,1")


def _result(prob, v):
    return Result(status=Status.OPTIMAL, value=0.0, sense="min", objective="I(Xp;Y)", mechanism=GaussianNoise(v))


def test_audit_recomputes_value_and_violation_in_nats():
    p = GaussProblem.from_params(dataset="1", delta="0.3", gamma="0")
    a = p.audit(_result(p, [0.0, 0.0]))
    assert a.violation == 0.0 and a.value == pytest.approx(p.privacy_full)
    a = p.audit(_result(p, [np.inf, np.inf]))  # everything suppressed
    assert a.value == 0.0 and a.violation == pytest.approx(p.mi_full - 0.3)
    g = p.with_params(gamma=10.0)  # ratio constraint: ΔP ≥ γ ΔU
    a = g.audit(_result(g, [0.0, 5.0]))
    dp = p.privacy_full - float(mi_direct(p.cov_p, 2, [0.0, 5.0]))
    du = p.mi_full - float(mi_direct(p.cov_u, 2, [0.0, 5.0]))
    assert a.violation == pytest.approx(max(0.0, 10.0 * du - dp, du - 0.3))
    with pytest.raises(ProblemError, match="3 noise variances"):
        p.audit(_result(p, [0.0, 0.0, 0.0]))


def test_fisher_delta_mapping_gives_the_same_feasible_set_for_one_utility_feature():
    p = GaussProblem.from_params(dataset="1", delta="0.3")
    f = p.with_params(utility="fisher")
    S = 1.0 - 10.0 ** np.random.default_rng(0).uniform(-6, 0, (400, 2))  # dense near s = 1
    mi_ok = p.slacks_s(S)[0] >= 0
    fi_ok = f.slacks_s(S)[0] >= 0
    assert np.array_equal(mi_ok, fi_ok) and 0 < mi_ok.sum() < 400
    # and the violation of a Fisher problem is reported in nats via eq. (13)
    r = f.audit(_result(f, [np.inf, np.inf]))
    assert r.violation == pytest.approx(p.mi_full - 0.3, rel=1e-9)


def test_mechanism_json_marks_infinite_noise():
    d = GaussianNoise([0.0, np.inf, 2.5]).to_dict()
    assert d == {"noise_variances": [0.0, "inf", 2.5], "suppressed": [1], "exact": [0], "notes": []}
    with pytest.raises(ProblemError, match="noise variances"):
        GaussianNoise([-1.0])


def test_registry_and_catalog_instances_build():
    assert {"gauss-tradeoff", "gauss-dataset1", "gauss-dataset2"} <= set(registry.problem_ids())
    path = Path(mechopt.__file__).parent / "data" / "catalog" / "gauss.toml"
    cat = tomllib.loads(path.read_text())
    assert len(cat["instance"]) >= 4
    for inst in cat["instance"]:
        prob = registry.get_problem(inst["problem"]).from_params(**inst["params"])
        assert prob.id == inst["problem"]
