"""kss-mi and kss-l2: closed forms vs direct computation and vs the certified optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import mechopt
from mechopt import registry
from mechopt.errors import ProblemError
from mechopt.model.info import mutual_information
from mechopt.notions import LDP
from mechopt.oracles.bits import BRR
from mechopt.oracles.frequency import GRR, KSubset
from mechopt.problems.design import ChannelDesign
from mechopt.problems.kss import formulas as F
from mechopt.problems.kss.l2 import EstimationL2, KssL2, l2_value_grad
from mechopt.problems.kss.problems import KssMI, KSubsetMechanism, best_ksubset, ksubset_mi


def test_registered_problems_and_cli_strings() -> None:
    assert registry.get_problem("kss-mi") is KssMI and registry.get_problem("kss-l2") is KssL2
    p = KssMI.from_params(prior="0.1,0.2,0.7", eps="0.5")
    assert p.eps == 0.5 and p.prior.size == 3
    q = KssL2.from_params(prior="uniform:8", eps="2", n="10000", outputs="20")
    assert (q.n, q.m, q.d) == (10000, 20, 8)


@pytest.mark.parametrize(
    "params,field",
    [
        ({"prior": "0.5,0.6", "eps": "1"}, "prior"),
        ({"prior": "uniform:4", "eps": "-1"}, "eps"),
        ({"prior": "uniform:4", "eps": "1", "n": "ten"}, "n"),
        ({"prior": "uniform:4", "eps": "1", "bogus": 1}, "bogus"),
    ],
)
def test_bad_params_name_the_field(params, field) -> None:
    cls = KssL2 if "n" in params else KssMI
    with pytest.raises(ProblemError, match=field):
        cls.from_params(**params)


@pytest.mark.parametrize("d,eps", [(2, 0.5), (5, 1.0), (8, 2.0), (12, 0.3)])
def test_kss_mi_closed_form_is_the_materialised_ksubset(d, eps) -> None:
    r = mechopt.solve(KssMI.from_params(prior=f"uniform:{d}", eps=eps), solver="closed-form")
    assert r.ok and r.violation <= 1e-9
    assert math.isclose(r.value, mutual_information(np.full(d, 1 / d), r.Q), rel_tol=1e-12)
    assert math.isclose(LDP(eps).audit(r.Q).eps, eps, rel_tol=1e-12)


def test_large_d_closed_form_is_compact_and_audited_analytically() -> None:
    r = mechopt.solve(KssMI.from_params(prior="uniform:256", eps=1), solver="closed-form")
    assert r.ok and isinstance(r.mechanism, KSubsetMechanism) and r.extras["k"] == 87
    assert r.to_dict()["mechanism"]["type"] == "k-subset"
    assert KssMI.from_params(prior="0.2,0.8", eps=1).closed_form() is None


def test_generic_design_gets_the_ksubset_closed_form() -> None:
    prob = ChannelDesign.from_params(prior="uniform:6", notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="closed-form")
    assert r.ok and math.isclose(r.value, F.mi_optimal(6, 1.0))
    lip = ChannelDesign.from_params(prior="uniform:6", notion="lip", utility="mi", eps=1.0)
    from mechopt.problems.kss.problems import _design_hook

    assert _design_hook(lip) is None


def test_ksubset_mi_for_any_prior_matches_the_matrix() -> None:
    rng = np.random.default_rng(0)
    for d in (3, 5, 7):
        P = rng.dirichlet(np.ones(d))
        for k in range(1, d):
            assert math.isclose(
                ksubset_mi(P, k, 0.7), mutual_information(P, KSubset(d, 0.7, k).matrix()), rel_tol=1e-10, abs_tol=1e-14
            )
    assert best_ksubset(np.full(9, 1 / 9), 1.0)[0] == F.k_star(9, 1.0)


def test_formulas_against_channels() -> None:
    U = lambda d: np.full(d, 1 / d)  # noqa: E731
    for d, eps in ((3, 0.5), (6, 2.0), (9, 1.0)):
        assert math.isclose(F.mi_mrr(d, eps), mutual_information(U(d), GRR(d, eps).matrix()), rel_tol=1e-12)
        assert math.isclose(F.mi_brr(d, eps), mutual_information(U(d), BRR(d, eps).matrix()), rel_tol=1e-10)
        assert F.mi_brr(d, eps) <= F.brr_mi_bound(d, eps, corrected=True) <= F.brr_mi_bound(d, eps)
        assert F.k_sharp(d, eps) in (np.argmin([F.l2_ksubset(d, k, eps) for k in range(1, d)]) + 1,)


def test_kss_mi_against_the_certified_optimum() -> None:
    from mechopt.claims.kss.reference import ldp_mi_optimum

    for d, eps in ((4, 1.0), (7, 0.5), (9, 3.0)):
        ref, how = ldp_mi_optimum(np.full(d, 1 / d), eps)
        assert math.isclose(ref, F.mi_optimal(d, eps), rel_tol=1e-7), how


@pytest.mark.skipif("exact" not in registry.solver_names(), reason="exact solver not installed on this branch")
@pytest.mark.parametrize("d,eps", [(5, 1.0), (16, 0.5), (64, 1.0)])
def test_exact_solver_matches_theorem_2_1(d, eps) -> None:
    r = mechopt.solve(KssMI.from_params(prior=f"uniform:{d}", eps=eps), solver="exact")
    assert r.ok and math.isclose(r.value, F.mi_optimal(d, eps), rel_tol=1e-7)


def test_l2_problem_value_is_the_remapping_error() -> None:
    rng = np.random.default_rng(4)
    for d, k, eps in ((4, 1, 1.0), (6, 2, 0.5), (8, 3, 1.0)):
        theta = rng.dirichlet(np.ones(d))
        Q = KSubset(d, eps, k).matrix()
        assert math.isclose(EstimationL2(500).value(Q, theta), F.l2_ksubset(d, k, eps, 500), rel_tol=1e-9)
    p = KssL2.from_params(prior="uniform:5", eps="1", n="100")
    r = mechopt.solve(p, solver="closed-form")
    assert r.extras["k"] == F.k_sharp(5, 1.0) and r.violation <= 1e-7
    # Theorems 3.1-3.2 are optimal among power-set mechanisms only: audited, not proven
    assert r.status.value == "feasible" and r.proof is None and r.extras["claim"] == "kss.thm3_1"


def test_l2_gradient_by_finite_differences() -> None:
    rng = np.random.default_rng(1)
    Q = rng.dirichlet(np.ones(5), size=3)
    th = rng.dirichlet(np.ones(3))
    _, g = l2_value_grad(Q, th)
    fd = np.zeros_like(Q)
    for i in range(3):
        for j in range(5):
            E = np.zeros_like(Q)
            E[i, j] = 1e-6
            fd[i, j] = (l2_value_grad(Q + E, th)[0] - l2_value_grad(Q - E, th)[0]) / 2e-6
    assert np.allclose(fd, g, rtol=1e-5, atol=1e-6)


def test_sqp_does_not_beat_the_ksubset_on_small_l2_instances() -> None:
    p = KssL2.from_params(prior="uniform:3", eps="1", n="1")
    r = mechopt.solve(p, solver="sqp", n_starts=4, seed=0)
    assert r.violation <= 1e-7
    assert r.value >= p.closed_form().value * (1 - 1e-6)


def test_catalog_instances_build_and_have_closed_forms_where_uniform() -> None:
    import tomllib
    from importlib.resources import files

    cat = tomllib.loads((files("mechopt") / "data" / "catalog" / "kss.toml").read_text())
    assert len(cat["instance"]) >= 4
    for inst in cat["instance"]:
        prob = registry.get_problem(inst["problem"]).from_params(**inst["params"])
        cf = prob.closed_form()
        if inst["problem"] == "kss-l2":
            assert cf is not None and cf.status.value == "feasible" and cf.extras["claim"] == "kss.thm3_1"
        elif "uniform" in str(inst["params"]["prior"]):
            assert cf is not None and cf.ok and cf.proof == "theorem" and cf.extras["claim"] == "kss.thm2_1"


@given(d=st.integers(2, 9), eps=st.floats(0.01, 8.0))
@hsettings(max_examples=40, deadline=None)
def test_theorem_2_1_closed_form_properties(d, eps) -> None:
    r = KssMI(prior=np.full(d, 1 / d), eps=eps).closed_form()
    Q = r.Q
    assert LDP(eps).audit(Q).eps <= eps * (1 + 1e-12)
    assert math.isclose(r.value, mutual_information(np.full(d, 1 / d), Q), rel_tol=1e-9, abs_tol=1e-15)
    assert all(F.mi_ksubset(d, k, eps) <= r.value * (1 + 1e-12) + 1e-15 for k in range(d + 1))
    assert F.mi_brr(d, eps) <= r.value + 1e-12 and F.mi_mrr(d, eps) <= r.value + 1e-12


@given(d=st.integers(2, 40), eps=st.floats(0.01, 8.0), k=st.integers(1, 39))
@hsettings(max_examples=60, deadline=None)
def test_remapping_error_is_minimised_at_k_sharp(d, eps, k) -> None:
    k = min(k, d - 1)
    assert F.l2_optimal(d, eps) <= F.l2_ksubset(d, k, eps) * (1 + 1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("d,eps,m", [(3, 0.5, 6), (3, 2.0, 6), (4, 1.0, 8)])
def test_no_local_optimum_beats_the_ksharp_subset_with_more_outputs(d, eps, m) -> None:
    """Beyond Theorem 3.2 (which only covers symmetric power-set mechanisms): multi-start SQP over all
    ε-LDP channels with m outputs finds nothing better than the k#-subset mechanism (not a proof)."""
    p = KssL2.from_params(prior=f"uniform:{d}", eps=eps, n=1, outputs=m)
    r = mechopt.solve(p, solver="sqp", n_starts=6, seed=1)
    assert r.value >= p.closed_form().value * (1 - 1e-6)
