"""Mechanism.to_opendp(): OpenDP's own privacy map against the audit, sampling through OpenDP, refusals, the file."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import opendp.prelude as dp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import mechopt
from mechopt import Mechanism
from mechopt.deploy.opendp import ULPS_UP, ldp_epsilon_upward
from mechopt.errors import ProblemError
from mechopt.testing import channels

P5 = np.array([0.4, 0.25, 0.15, 0.12, 0.08])


def _grr(d: int, eps: float) -> np.ndarray:
    Q = np.full((d, d), 1.0 / (math.exp(eps) + d - 1))
    np.fill_diagonal(Q, math.exp(eps) / (math.exp(eps) + d - 1))
    return Q


def _exact_eps(Q: np.ndarray) -> mpmath.mpf:
    """max over columns of log(max/min), at 60 digits from the doubles as they are."""
    with mpmath.workdps(60):
        return max(mpmath.log(mpmath.mpf(float(c.max())) / mpmath.mpf(float(c.min()))) for c in Q.T)


@pytest.fixture(scope="module")
def designed() -> Mechanism:
    r = mechopt.design(prior=P5, notion="ldp", utility="mi", eps=1.0, solver="exact")
    return Mechanism.from_result(r, prior=P5, inputs=[f"v{i}" for i in range(5)])


def test_opendp_map_is_the_audited_eps_rounded_up(designed) -> None:
    meas = designed.to_opendp(rng=0)
    audited = designed.audit("ldp")["notions"]["ldp"]["eps"]
    got = meas.map(1)
    assert got >= audited and got >= _exact_eps(designed.Q)  # never below the truth of the float Q
    assert got == ldp_epsilon_upward(designed.Q)  # the audited ε rounded up, exactly
    assert got - audited <= (ULPS_UP + 4) * math.ulp(audited)  # and only by a few ulps
    assert got <= designed.claim["eps"] + mechopt.settings.tolerance("privacy")
    assert meas.map(0) == 0.0 and meas.map(2) == got  # discrete distance: any two records are at 1
    assert meas.check(1, got) and not meas.check(1, math.nextafter(float(_exact_eps(designed.Q)), 0.0))
    assert str(meas.input_metric) == "DiscreteDistance()" and str(meas.output_measure).startswith("MaxDivergence")


@pytest.mark.parametrize("d, eps", [(2, 0.5), (3, 1.0986122886681098), (7, 2.0), (4, 1e-9)])
def test_grr_export_agrees_with_opendp_randomized_response(d: int, eps: float) -> None:
    Q = _grr(d, eps)
    cats = [f"c{i}" for i in range(d)]
    ours = Mechanism(Q, inputs=cats, outputs=cats, claim=("ldp", eps * (1 + 1e-9))).to_opendp().map(1)
    exact = _exact_eps(Q)
    assert ours >= exact and ours - float(exact) <= (ULPS_UP + 1) * math.ulp(float(exact))
    if eps > 1e-6:  # OpenDP's own randomized response, same p: its map (rounded up by OpenDP) within ulps of ours
        theirs = dp.m.make_randomized_response(cats, float(Q[0, 0])).map(1)
        assert abs(ours - theirs) <= (ULPS_UP + 2) * math.ulp(theirs)


def _check_frequencies(m: Mechanism, x: np.ndarray, y: list) -> None:
    """Per input row: a chi-square test of the outputs against Q[x] and their total variation (seeded draws)."""
    out_index = {o: j for j, o in enumerate(m.outputs)}
    yi = np.array([out_index[v] for v in y])
    for i, label in enumerate(m.inputs):
        counts = np.bincount(yi[x == label], minlength=m.shape[1])
        expected = m.Q[i] * counts.sum()
        keep = expected > 0
        assert counts[~keep].sum() == 0  # zero-probability outputs never drawn
        assert stats.chisquare(counts[keep], expected[keep]).pvalue > 1e-4
        assert 0.5 * np.abs(counts / counts.sum() - m.Q[i]).sum() < 0.02  # total variation


def _inputs(m: Mechanism, n: int) -> np.ndarray:
    return np.asarray(m.inputs)[np.random.default_rng(1).choice(5, size=n, p=P5)]


def test_sampling_through_opendp_is_mechanism_randomize_and_matches_q(designed) -> None:
    """A release through OpenDP costs ~0.4 ms (its FFI and callback): 4000 releases here are the seeded
    stream of ``randomize``, whose 10⁵ draws are then tested against Q (all 10⁵ through OpenDP: the slow test)."""
    x = _inputs(designed, 100_000)
    meas = designed.to_opendp(rng=7)
    reports = designed.randomize(x, rng=7).tolist()
    assert [meas(str(v)) for v in x[:4000]] == reports[:4000]  # the same seeded stream, one draw per release
    _check_frequencies(designed, x, reports)


@pytest.mark.slow
def test_1e5_draws_through_opendp_match_q(designed) -> None:
    x = _inputs(designed, 100_000)
    meas = designed.to_opendp(rng=7)
    y = [meas(str(v)) for v in x]
    assert y == designed.randomize(x, rng=7).tolist()
    _check_frequencies(designed, x, y)


def test_integer_labels_and_an_unknown_record() -> None:
    m = Mechanism(_grr(3, 1.0), inputs=[10, 20, 30], outputs=["a", "b", "c"], claim=("ldp", 1.0))
    meas = m.to_opendp(rng=2)
    assert str(meas.input_domain) == "AtomDomain(T=i64)"
    assert [meas(v) for v in (10, 30)] == m.randomize([10, 30], rng=2)
    with pytest.raises(Exception, match="not an input of the mechanism"):
        meas(40)


@pytest.mark.parametrize(
    "claim, match",
    [
        (None, "has no privacy claim"),
        (("ldp", 1.0), "fails its audit: its Q needs ε-LDP = 1.098612289 > claimed 1"),
        (("lip", 2.0), "claims 'lip', not 'ldp'"),
    ],
)
def test_refused_without_a_confirmed_ldp_claim(claim, match) -> None:
    m = Mechanism([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5], claim=claim)
    with pytest.raises(ProblemError, match=match) as info:
        m.to_opendp()
    assert "\n" not in str(info.value)


def test_refused_for_an_infinite_eps_and_for_mixed_labels() -> None:
    with pytest.raises(ProblemError, match="infinite"):
        Mechanism([[1.0, 0.0], [0.5, 0.5]], claim=("ldp", 5.0)).to_opendp()
    with pytest.raises(ProblemError, match="relabel them"):
        Mechanism(_grr(2, 1.0), inputs=["a", 1], claim=("ldp", 1.0)).to_opendp()


def test_the_saved_file_exports_the_same_measurement(designed, tmp_path) -> None:
    path = tmp_path / "m.json"
    designed.save(path)
    back = Mechanism.load(path)
    a, b = designed.to_opendp(rng=5), back.to_opendp(rng=5)
    assert a.map(1) == b.map(1)
    assert [a(v) for v in designed.inputs * 20] == [b(v) for v in designed.inputs * 20]


def test_eps_upward_holds_for_random_channels() -> None:
    rng = np.random.default_rng(11)
    for _ in range(200):
        d, k = rng.integers(2, 6, size=2)
        Q = rng.dirichlet(np.full(k, 0.7), size=d) + 1e-12
        Q /= Q.sum(axis=1, keepdims=True)
        up, exact = ldp_epsilon_upward(Q), _exact_eps(Q)
        assert up >= exact and up - float(exact) <= (ULPS_UP + 1) * math.ulp(float(exact))


def test_eps_upward_of_a_ratio_beyond_the_double_range() -> None:
    Q = np.array([[1.0 - 5e-324, 5e-324], [5e-324, 1.0 - 5e-324]])  # a subnormal: the ratio overflows a double
    up, exact = ldp_epsilon_upward(Q), _exact_eps(Q)
    assert math.isfinite(up) and up >= exact and up - float(exact) < 1e-9


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda d: channels(d, min_outputs=2, positive=True)))
def test_the_exported_map_is_never_below_the_truth(Q) -> None:
    """Any positive channel, claimed at its own audited ε: OpenDP's map is ≥ the 60-digit ε and within ulps of it,
    and agrees with mechopt's float audit to the audit's precision."""
    audited = Mechanism(Q).audit("ldp")["notions"]["ldp"]["eps"]
    got = Mechanism(Q, claim=("ldp", audited)).to_opendp().map(1)
    exact = _exact_eps(Q)
    # the map is the exact ε rounded up; the float audit (logs of float ratios) agrees with it to its own
    # precision, a few ulps either side (hypothesis found 1 ulp above at ε = 0.036)
    assert got >= exact and got - float(exact) <= (ULPS_UP + 1) * math.ulp(max(float(exact), 1e-300))
    assert abs(got - audited) <= 1e-9 * max(audited, 1e-300)
