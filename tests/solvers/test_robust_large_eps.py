"""robust-rays at a large ε: certified where double precision can prove it, honestly uncertified where it cannot."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt import certcheck
from mechopt.problems.robust import RobustDesign


def _robust(V, utility, eps, **opts):
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility=utility, eps=eps)
    return mechopt.solve(prob, solver="robust-rays", **opts)


def _entropy(P):
    P = P[P > 0]
    return float(-(P * np.log(P)).sum())


@pytest.mark.parametrize("eps", [20.0, 30.0])
def test_ldp_mi_at_a_large_eps_is_certified_below_the_least_entropy(eps, tmp_path):
    """I(P; Q) ≤ H(P) for every Q, and the identity (ε = ∞) reaches min_i H(P_i): at ε = 30 the robust optimum is
    within 1e-9 of it. Before the master's columns were scaled, ε = 30 ended with a bound of 7.5e10."""
    V = np.random.default_rng(7).dirichlet(np.ones(8), size=2)
    r = _robust(V, "mi", eps)
    least = min(_entropy(P) for P in V)
    assert r.status.value == "optimal" and r.extras["relative_gap"] <= 1e-7
    assert least - 1e-6 <= r.value <= r.certificate.bound <= least * (1 + 1e-12)
    if eps == 30.0:
        assert r.value >= least - 1e-9
    r.save_certificate(str(tmp_path / "c.json"))
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
