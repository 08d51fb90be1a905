"""Hypothesis properties of the exact solver: private, row-stochastic, certified, ≥ SQP, monotone in ε."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status

priors = (
    st.integers(2, 5)
    .flatmap(lambda d: st.lists(st.floats(0.05, 1.0), min_size=d, max_size=d))
    .map(lambda v: np.array(v) / np.sum(v))
)
cases = st.tuples(
    priors, st.sampled_from(["ldp", "lip"]), st.sampled_from(["mi", "histogram", "mse"]), st.floats(0.1, 3.0)
)
SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def build(P, notion, utility, eps) -> ChannelDesign:
    return ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=eps)


@SETTINGS
@given(cases)
def test_private_stochastic_certified(case) -> None:
    prob = build(*case)
    r = mechopt.solve(prob, solver="exact")
    assert r.status is Status.OPTIMAL, r.message
    assert r.violation <= 1e-7
    assert np.allclose(r.Q.sum(axis=1), 1.0, atol=1e-12) and np.all(r.Q >= 0)
    assert r.certificate.gap <= 1e-9
    assert abs(prob.evaluate(r.Q) - r.value) <= 1e-9


@SETTINGS
@given(cases)
def test_exact_at_least_sqp(case) -> None:
    prob = build(*case)
    r = mechopt.solve(prob, solver="exact")
    s = mechopt.solve(prob, solver="sqp", n_starts=3, seed=0)
    if s.value is not None:
        slack = 1e-9 + 10 * (s.violation or 0.0)
        assert not s.better_than(r.value + (slack if r.sense == "max" else -slack))


@SETTINGS
@given(cases, st.floats(1.05, 2.0))
def test_monotone_in_eps(case, factor) -> None:
    P, notion, utility, eps = case
    lo = mechopt.solve(build(P, notion, utility, eps), solver="exact")
    hi = mechopt.solve(build(P, notion, utility, eps * factor), solver="exact")
    assert not lo.better_than(hi.value + (1e-10 if lo.sense == "max" else -1e-10))
