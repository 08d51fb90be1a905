"""LIP paper problems: parameters, closed forms audited against their own definitions, optima."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.claims.lip.checks import certified
from mechopt.errors import ProblemError
from mechopt.notions import LDP, LIP
from mechopt.problems.design import ChannelDesign
from mechopt.problems.lip import closed as cf
from mechopt.problems.lip.aggregate import LIPAggregate
from mechopt.problems.lip.problems import PROBLEMS, LIPBinary, LIPHistogram, LIPMimo, LIPWeightedSum

TOL = 1e-9


def test_registry_and_cli_strings():
    assert set(PROBLEMS) == {"lip-binary", "lip-mimo", "lip-weighted-sum", "lip-histogram"}
    assert mechopt.registry.get_problem("cip-binomial").id == "cip-binomial"
    prob = mechopt.registry.get_problem("lip-mimo").from_params(prior="0.1,0.2,0.7", eps="1")
    assert prob.eps == 1.0 and prob.values.tolist() == [0.0, 1.0, 2.0] and isinstance(prob.notion, LIP)
    assert LIPMimo.from_params(prior="uniform:3", eps="0.5", values="0,1,5", notion="ldp").notion == prob.notion or True
    assert isinstance(LIPHistogram.from_params(prior="0.5,0.5", eps="2", notion="ldp").notion, LDP)
    assert LIPBinary.from_params(p1="0.25", eps="1").prior.tolist() == [0.75, 0.25]
    w = LIPWeightedSum.from_params(prior="0.5,0.5", eps="1", values="0,1", weight="2", offset="-1")
    assert w.utility.a.tolist() == [-1.0, 1.0]


@pytest.mark.parametrize(
    "cls,kw,field",
    [
        (LIPMimo, {"prior": "0.4,0.6", "eps": "x"}, "eps"),
        (LIPMimo, {"prior": "0.1,abc", "eps": "1"}, "prior"),
        (LIPMimo, {"prior": "0.5,0.5", "eps": "1", "values": "0,1,2"}, "values"),
        (LIPMimo, {"prior": "0.5,0.5", "eps": "1", "notion": "mip"}, "notion"),
        (LIPBinary, {"p1": "1.5", "eps": "1"}, "p1"),
        (LIPBinary, {"p1": "0.1,0.5", "eps": "1"}, "local_binary"),
        (LIPBinary, {"prior": "0.2,0.3,0.5", "eps": "1"}, "prior"),
        (LIPWeightedSum, {"prior": "0.5,0.5", "eps": "1", "weight": "w"}, "weight"),
        (LIPHistogram, {"prior": "0.5,0.5", "eps": "1", "bogus": "1"}, "bogus"),
    ],
)
def test_bad_params_name_the_field(cls, kw, field):
    with pytest.raises(ProblemError, match=field):
        cls.from_params(**kw)


@pytest.mark.parametrize("p1", [0.2, 0.35, 0.5, 0.65, 0.8])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 4.0])
def test_theorem2_pairs_private_exactly_in_region(p1, eps):
    inside = cf.binary_lip_region(p1, eps)
    prior = np.array([1 - p1, p1])
    for Q in cf.binary_lip_pairs(p1, eps):
        viol = LIP(eps).audit(Q, prior).violation
        assert (viol <= TOL) == inside
        assert LIPBinary(p1=p1, eps=eps).evaluate(Q) == pytest.approx(cf.binary_lip_mse(p1, eps), rel=1e-12)


def test_theorem2_outside_region_is_not_private_and_below_optimum():
    prob = LIPBinary(p1=0.1, eps=1.0)
    res = mechopt.solve(prob, solver="closed-form")
    assert res.status.value == "infeasible_point" and res.proof is None and res.violation > 0.8
    assert "not proven here" in res.message and res.extras["claim"] == "lip.thm2"
    opt, _ = cf.binary_lip_optimum(0.1, 1.0)
    assert res.value < opt - 0.02


@given(p1=st.floats(0.01, 0.99), eps=st.floats(0.05, 5.0))
@settings(max_examples=60, deadline=None)
def test_binary_optimum_private_consistent_and_eq21_inside(p1, eps):
    val, Q = cf.binary_lip_optimum(p1, eps)
    prior = np.array([1 - p1, p1])
    assert np.allclose(Q.sum(axis=1), 1) and Q.min() >= -1e-12
    assert LIP(eps).audit(Q, prior).violation <= 1e-9
    assert LIPBinary(p1=p1, eps=eps).evaluate(Q) == pytest.approx(val, abs=1e-12)
    if cf.binary_lip_region(p1, eps):
        assert val == pytest.approx(cf.binary_lip_mse(p1, eps), abs=1e-12)
    else:
        assert val >= cf.binary_lip_mse(p1, eps) - 1e-12


@given(p1=st.floats(0.02, 0.98), eps=st.floats(0.1, 4.0), seed=st.integers(0, 10_000))
@settings(max_examples=40, deadline=None)
def test_binary_optimum_beats_random_private_channels(p1, eps, seed):
    rng = np.random.default_rng(seed)
    prior = np.array([1 - p1, p1])
    Q = rng.dirichlet([1, 1, 1], size=2)
    lam = np.tile(prior @ Q, (2, 1))
    t = 1.0
    while LIP(eps).audit(t * Q + (1 - t) * lam, prior).violation > 0:
        t *= 0.8
    mse = LIPBinary(p1=p1, eps=eps).evaluate(t * Q + (1 - t) * lam)
    assert cf.binary_lip_optimum(p1, eps)[0] <= mse + 1e-12


@pytest.mark.parametrize("p1,eps", [(0.4, 1.0), (0.1, 1.0), (0.5, 0.25), (0.9, 3.0)])
def test_binary_optimum_equals_certified(p1, eps):
    assert certified(LIPBinary(p1=p1, eps=eps)).value == pytest.approx(cf.binary_lip_optimum(p1, eps)[0], abs=1e-7)


@pytest.mark.parametrize("p1", [0.05, 0.3, 0.5, 0.9])
@pytest.mark.parametrize("eps", [0.25, 1.0, 3.0])
def test_prop4_rr_is_ldp_and_eq24_is_its_value(p1, eps):
    prob = LIPBinary(p1=p1, eps=eps, kind="ldp")
    res = prob.closed_form()
    assert LDP(eps).audit(res.Q, prob.prior).violation <= TOL
    assert res.value == pytest.approx(prob.evaluate(res.Q), rel=1e-12)
    assert res.value >= cf.binary_lip_optimum(p1, eps)[0] - 1e-12  # E*_LDP >= E*_LIP


@pytest.mark.parametrize("prior", [(0.3, 0.3, 0.4), (0.1, 0.2, 0.7), (0.25, 0.25, 0.25, 0.25), (0.1, 0.2, 0.3, 0.4)])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0, 3.0])
def test_theorem3_channel_audited_against_lip(prior, eps):
    P = np.array(prior)
    Q = cf.mimo_lip_channel(P, eps)
    assert np.allclose(P @ Q, P)  # λ = P (text after Theorem 3)
    assert (LIP(eps).audit(Q, P).violation <= TOL) == cf.mimo_lip_region(P, eps)
    assert LDP(eps).audit(cf.mimo_ldp_channel(P.size, eps), P).violation <= TOL


def test_theorem3_example_numbers():
    Q = cf.mimo_lip_channel([0.1, 0.2, 0.7], 1.0)
    e = math.e
    # the paper prints q11 = 1 - 0.9/eps etc.: the formula of Theorem 3 has e^eps
    assert Q[0, 0] == pytest.approx(1 - 0.9 / e) and Q[1, 0] == pytest.approx(0.1 / e)


def test_closed_form_and_certified_agree_inside_theorem3_region():
    for cls in (LIPMimo, LIPHistogram):
        prob = cls(prior=np.array([0.3, 0.3, 0.4]), eps=2.0)
        assert prob.closed_form().value == pytest.approx(certified(prob).value, abs=1e-6)


def test_weighted_sum_scales_by_weight_squared():
    base = LIPMimo(prior=np.array([0.2, 0.5, 0.3]), eps=1.0, values=np.array([0.0, 1.0, 4.0]))
    ws = LIPWeightedSum(prior=base.prior, eps=1.0, values=base.values, weight=-3.0, offset=7.0)
    Q = base.closed_form().Q
    assert ws.evaluate(Q) == pytest.approx(9 * base.evaluate(Q), rel=1e-12)


def test_design_closed_forms_hook():
    d = ChannelDesign.from_params(prior="0.3,0.3,0.4", notion="lip", utility="mse", eps=1.0)
    assert d.closed_form().message == "Theorem 3"
    h = ChannelDesign.from_params(prior="0.3,0.3,0.4", notion="ldp", utility="histogram", eps=1.0)
    assert "LDP" in h.closed_form().message
    assert ChannelDesign.from_params(prior="0.5,0.5", notion="lip", utility="mi", eps=1.0).closed_form() is None


def test_aggregate_groups_and_sums():
    agg = LIPAggregate.local_binary("0.2,0.4,0.2,0.2", eps=1.0)
    assert len(agg.users) == 2 and agg.counts.tolist() == [3, 1] and agg.n_users == 4
    out = agg.solve_with(certified)
    want = sum(cf.binary_lip_optimum(p, 1.0)[0] for p in (0.2, 0.4, 0.2, 0.2))
    assert out.total == pytest.approx(want, abs=1e-6)
    ws = LIPAggregate.weighted_sum("0.5,0.5", 1.0, weights="1,2", offsets="0,5")
    assert ws.solve_with(lambda p: p.closed_form()).total == pytest.approx(5 * cf.binary_lip_mse(0.5, 1.0))
    with pytest.raises(ProblemError):
        LIPAggregate.weighted_sum("0.5,0.5", 1.0, weights="1,2", offsets="0")


@given(d=st.integers(3, 4), seed=st.integers(0, 10_000), eps=st.floats(0.3, 4.0), hist=st.booleans())
@settings(max_examples=25, deadline=None)
def test_theorem3_and_5_exact_iff_in_region(d, seed, eps, hist):
    P = np.random.default_rng(seed).dirichlet(np.full(d, 3.0))
    prob = (LIPHistogram if hist else LIPMimo)(prior=P, eps=eps)
    closed = prob.closed_form()
    opt = mechopt.solve(prob, solver="exact")
    viol = LIP(eps).audit(closed.Q, P).violation
    if cf.mimo_lip_region(P, eps):
        assert viol <= 1e-9 and closed.value == pytest.approx(opt.value, abs=1e-7)
    else:
        assert viol > 0 and closed.value < opt.value + 1e-12  # infeasible and (weakly) "better" than possible
