"""Centralized IP on a sum (Definition 4) and Proposition 5's program."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.claims.lip.checks import certified
from mechopt.errors import ProblemError
from mechopt.notions import CIP, LIP
from mechopt.problems.lip.cip import CIPBinomial, Prop5Notion, prop5_band


def test_params_global_and_local():
    g = CIPBinomial.from_params(n_users="3", p1="0.3", eps="1")
    assert not g.local and g.prior.size == 4 and g.params()["n_users"] == 3
    loc = CIPBinomial.from_params(p="0.2,0.5,0.8", eps="1")
    assert loc.local and loc.prior.sum() == pytest.approx(1.0)
    for kw in (
        {"eps": "1"},
        {"n_users": "x", "p1": "0.3", "eps": "1"},
        {"n_users": "2", "p1": "0.3", "eps": "1", "program": "nope"},
        {"p": "0.2,0.5", "eps": "1", "program": "prop5"},
    ):
        with pytest.raises(ProblemError):
            CIPBinomial.from_params(**kw)


def test_prop5_band_is_lower_half_of_definition4():
    n, p1, eps = 4, 0.3, 1.0
    notion = Prop5Notion(eps, np.full(n, p1))
    P = notion.prior()
    lo, hi = prop5_band(n, p1, eps)
    s = np.arange(n + 1.0)
    for mean, inside in ((lo + 1e-6, True), (hi - 1e-6, True), (lo - 1e-3, False)):
        # a two-output channel whose output-0 posterior mean is `mean`: test the cone rows directly
        A = notion.cone(P)
        c = np.zeros(n + 1)
        j = int(np.searchsorted(s, mean))
        j = min(max(j, 1), n)
        w = (s[j] - mean) / (s[j] - s[j - 1])
        c[j - 1], c[j] = w, 1 - w
        assert bool(np.all(A @ c >= -1e-12)) == inside
    # for a skewed prior the dropped upper CIP bound e^eps N P1 is below hi: Definition 4 is stricter
    assert np.exp(eps) * n * 0.1 < prop5_band(n, 0.1, eps)[1]


def test_lip_on_sum_implies_cip_theorem6():
    rng = np.random.default_rng(1)
    notion = CIP(0.0, [0.2, 0.6, 0.7])
    P = notion.prior()
    for _ in range(20):
        Q = rng.dirichlet(np.ones(3), size=P.size)
        assert notion.epsilon(Q, P) <= LIP(0).epsilon(Q, P) + 1e-12


def test_certified_cip_is_private_and_prop5_relaxation_is_lower():
    cip = CIPBinomial(p=np.full(2, 0.3), eps=0.5)
    p5 = CIPBinomial(p=np.full(2, 0.3), eps=0.5, program="prop5")
    a, b = certified(cip), certified(p5)
    assert a.violation <= 1e-7 and b.value < a.value - 1e-3
    assert CIP(0.5, cip.p).audit(b.Q, cip.prior).violation > 1e-3  # Prop 5's optimum breaks Definition 4
