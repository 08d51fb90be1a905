"""CONTRIBUTING.md's "Add a privacy notion" recipe, followed step by step (issue 24).

The toy notion is ε-LDP on the *pairs of neighbouring inputs* only (x and x+1): a policy graph on a
path, written from scratch as the page says, so the certified design can be checked against the
built-in ``graph-ldp`` on the same path.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechopt
from mechopt import registry
from mechopt.notions import PrivacyNotion


class NeighbourLDP(PrivacyNotion):
    """ε-LDP between neighbouring inputs x, x+1 only (step 1: subclass, name, needs_prior, three methods)."""

    name = "neighbour-ldp"
    needs_prior = False

    def epsilon(self, Q, prior=None):
        Q = np.asarray(Q, dtype=float)
        worst = 0.0
        for a, b in zip(Q[:-1], Q[1:]):
            if np.any((a > 0) != (b > 0)):
                return math.inf
            pos = a > 0
            worst = max(worst, float(np.max(np.abs(np.log(a[pos] / b[pos])))))
        return worst

    def cone(self, prior):
        d, e = prior.size, math.exp(self.eps)
        rows = []
        for x in range(d - 1):  # c[x] / P(x) <= e^eps c[x+1] / P(x+1) and the reverse
            for s, t in ((x, x + 1), (x + 1, x)):
                r = np.zeros(d)
                r[t], r[s] = e / prior[t], -1.0 / prior[s]
                rows.append(r)
        return np.array(rows)

    def cvxpy_constraints(self, Q, prior):
        e = math.exp(self.eps)
        return [Q[x] <= e * Q[x + 1] for x in range(Q.shape[0] - 1)] + [
            Q[x + 1] <= e * Q[x] for x in range(Q.shape[0] - 1)
        ]


@pytest.fixture
def registered():
    registry.register_notion("neighbour-ldp", NeighbourLDP)  # step 2
    yield
    registry.unregister_notion("neighbour-ldp")


def test_a_registered_toy_notion_designs_by_name_and_matches_graph_ldp(registered) -> None:
    prior = [0.1, 0.2, 0.3, 0.4]
    # step 3: design with it by name
    r = mechopt.design(prior=prior, notion="neighbour-ldp", utility="mi", eps=1.0, solver="exact")
    assert r.status.value == "optimal" and r.proof == "certificate"
    # step 4: the audit of the design is within tolerance under the toy notion's own epsilon
    assert NeighbourLDP(1.0).epsilon(r.Q) <= 1.0 + 1e-9
    # the same notion built in (graph-LDP on the path 0-1-2-3) gives the same certified value
    import networkx as nx

    g = mechopt.design(prior=prior, notion="graph-ldp", utility="mi", eps=1.0, solver="exact", graph=nx.path_graph(4))
    assert r.value == pytest.approx(g.value, rel=1e-9)
    # and it is never worse than full ε-LDP (a stronger notion: every pair constrained)
    full = mechopt.design(prior=prior, notion="ldp", utility="mi", eps=1.0, solver="exact")
    assert r.value >= full.value - 1e-12


def test_unregistered_and_builtin_names_are_refused(registered) -> None:
    with pytest.raises(mechopt.ProblemError, match="neighbour-ldp"):
        mechopt.design(prior=[0.5, 0.5], notion="no-such-notion", utility="mi", eps=1.0)
    with pytest.raises(mechopt.ProblemError, match="built in"):
        registry.register_notion("ldp", NeighbourLDP)
