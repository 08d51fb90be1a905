"""Every catalog instance the ``exact`` solver takes comes back with an audited Q of at most d outputs (issue 16).

The channel is re-audited here from the problem data (row-stochastic, the notion's ε recomputed by
the notion, the value recomputed by the utility), not read from the result's own audit fields.
"""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.io.catalog import builtin_catalog
from mechopt.model.problem import ChannelProblem
from mechopt.registry import get_solver


def _exact_instances():
    exact = get_solver("exact")
    out = []
    for inst in builtin_catalog():
        prob = inst.build()
        if isinstance(prob, ChannelProblem) and exact.can_solve(prob):
            out.append(pytest.param(inst, id=inst.label))
    return out


INSTANCES = _exact_instances()


def test_the_catalog_has_exact_instances() -> None:
    assert len(INSTANCES) >= 15  # 18 today: design, kss-mi, lip-*, cip-binomial


@pytest.mark.parametrize("inst", INSTANCES)
def test_exact_returns_an_audited_channel_with_at_most_d_outputs(inst) -> None:
    prob = inst.build()
    r = mechopt.solve(prob, solver="exact")
    assert r.status.value == "optimal" and r.proof == "certificate"
    Q = np.asarray(r.Q, dtype=float)
    d = prob.prior.size
    assert Q.shape[0] == d and 1 <= Q.shape[1] <= d
    assert Q.min() >= -1e-12 and np.allclose(Q.sum(axis=1), 1.0, atol=1e-9)
    eps = prob.notion.epsilon(np.clip(Q, 0.0, None), prob.prior)
    assert eps <= prob.notion.eps + 1e-7
    assert prob.utility.value(Q, prob.prior) == pytest.approx(r.value, rel=1e-7, abs=1e-10)
    assert r.certificate is not None and r.certificate.gap <= 1e-8
