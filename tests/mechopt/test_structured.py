"""Audit of structured mechanisms (Q not materialised) and the chunked audits of large channels."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.info import mutual_information
from mechopt.model.structured import StructuredMechanism, audit_structured
from mechopt.notions import LDP, LIP
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status


def _design(notion: str, utility: str, prior: str = "uniform:1000"):
    return ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=1.0)


@pytest.mark.parametrize("notion,utility", [("ldp", "mi"), ("lip", "histogram")])
def test_structured_audit_equals_dense_audit(notion: str, utility: str) -> None:
    prob = _design(notion, utility)
    dense = mechopt.solve(prob, solver="exact")
    plan_r = mechopt.solve(prob, solver="exact", max_memory=1e6)  # 1000 × n floats do not fit: a plan comes back
    assert dense.mechanism is not None and plan_r.mechanism is None
    plan = plan_r.extras["plan"]
    assert isinstance(plan, StructuredMechanism) and plan.n_outputs <= 1000
    assert plan_r.status is Status.OPTIMAL and plan_r.proof == "certificate"
    aud = audit_structured(plan, prob.prior, prob.notion, prob.utility)
    full = prob.audit_channel(plan.dense(prob.prior))  # the same mechanism, materialised
    assert aud.reasons == []
    assert aud.eps_audited == pytest.approx(full.eps_audited, abs=1e-12)
    assert aud.value == pytest.approx(full.value, abs=1e-12)
    assert aud.value == pytest.approx(dense.value, abs=1e-9)
    assert plan_r.eps_audited == pytest.approx(aud.eps_audited, abs=1e-15)  # audit_result used the plan
    np.testing.assert_allclose(plan.row_sums(prob.prior), 1.0, atol=1e-12)


def test_tampered_plan_fails_its_audit() -> None:
    prob = _design("ldp", "mi")
    r = mechopt.solve(prob, solver="exact", max_memory=1e6)
    plan = r.extras["plan"]
    w = plan.w.copy()
    w[0] *= 1.5  # rows no longer sum to one
    bad = dataclasses.replace(plan, w=w)
    aud = audit_structured(bad, prob.prior, prob.notion, prob.utility)
    assert aud.reasons and "sums to" in aud.reasons[0]
    res = mechopt.api.audit_result(prob, r.replace(extras={**r.extras, "plan": bad}))
    assert res.status is Status.INFEASIBLE_POINT


def test_structured_audit_refuses_a_notion_it_cannot_check() -> None:
    prob = _design("ldp", "mi")
    r = mechopt.solve(prob, solver="exact", max_memory=1e6)
    from mechopt.notions import MIP

    aud = audit_structured(r.extras["plan"], prob.prior, MIP(1.0), prob.utility)
    assert aud.violation is None and "ldp and lip only" in aud.reasons[-1]


@hsettings(max_examples=25, deadline=None)
@given(st.integers(2, 9), st.integers(1, 700), st.integers(0, 2**31))
def test_chunked_audits_equal_dense_formulas(d: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    Q = rng.dirichlet(np.full(n, 0.3), size=d)
    Q[(rng.random(Q.shape) < 0.1) & (Q < Q.max(axis=1, keepdims=True))] = 0.0  # zeros, never a whole row
    Q = Q / Q.sum(axis=1, keepdims=True)
    P = rng.dirichlet(np.ones(d))
    J = P[:, None] * Q
    lam = J.sum(axis=0)
    live = J > 0
    ref = float(np.sum(J[live] * np.log((Q / np.where(lam > 0, lam, 1))[live])))
    assert mutual_information(P, Q, chunk=7) == pytest.approx(ref, rel=1e-12, abs=1e-14)
    used = lam > 0
    R = Q[:, used] / lam[used]
    ref_lip = np.inf if np.any(R <= 0) else float(np.abs(np.log(R)).max())
    assert LIP(1.0).epsilon(Q, P) == pytest.approx(ref_lip, rel=1e-12)
    M = validate_channel(Q)
    assert not M.flags.writeable or M is not Q
    np.testing.assert_allclose(M, Q, rtol=1e-13, atol=0)


def test_validate_channel_reports_bad_entries_without_copying_checks() -> None:
    Q = np.full((3, 2), 0.5)
    Q[1, 0] = np.nan
    with pytest.raises(ProblemError, match=r"Q\[1, 0\] is not finite"):
        validate_channel(Q)
    Q[1, 0] = -0.2
    with pytest.raises(ProblemError, match="negative"):
        validate_channel(Q)
    Q[1, 0] = -1e-15
    Q[1, 1] = 1.0
    M = validate_channel(Q)
    assert M[1, 0] == 0.0 and Q[1, 0] == -1e-15  # the caller's array is untouched
    assert LDP(1.0).epsilon(M, None) == np.inf
