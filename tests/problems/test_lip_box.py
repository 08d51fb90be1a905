"""The eps-LIP histogram beyond Theorem 5's region: private channels and the proven bound, against the exact solver."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.problems.lip.box import histogram_lip_bound, histogram_lip_box_channel, histogram_lip_lp
from mechopt.problems.lip.closed import mimo_lip_channel, mimo_lip_region
from mechopt.problems.lip.problems import LIPHistogram


@pytest.mark.parametrize("seed", range(8))
def test_bound_exact_lp_box_are_ordered_and_channels_private(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 8))
    P = rng.dirichlet(np.full(d, 0.4))
    eps = float(rng.uniform(0.1, 5.0))
    prob = LIPHistogram(prior=P, eps=eps)
    opt = mechopt.solve(prob, solver="exact")
    assert opt.status.value == "optimal"
    box = histogram_lip_box_channel(P, eps)
    Q, mse = histogram_lip_lp(P, eps)
    for M in (box, Q):
        assert np.allclose(M.sum(axis=1), 1) and M.min() >= -1e-15
        assert prob.notion.audit(M, P).violation <= 1e-9
    assert mse == pytest.approx(prob.evaluate(Q), abs=1e-10)
    assert histogram_lip_bound(P, eps) <= opt.value + 1e-9 <= mse + 2e-9 <= prob.evaluate(box) + 3e-9


def test_inside_theorem5_region_the_box_channel_is_theorem5():
    P, eps = np.array([0.2, 0.3, 0.5]), 2.0
    assert mimo_lip_region(P, eps)
    assert np.allclose(histogram_lip_box_channel(P, eps), mimo_lip_channel(P, eps))


def test_zero_prior_symbols_and_eps_zero():
    P = np.array([0.0, 0.3, 0.7])
    prob = LIPHistogram(prior=P, eps=1.0)
    for M in (histogram_lip_box_channel(P, 1.0), histogram_lip_lp(P, 1.0)[0]):
        assert np.allclose(M.sum(axis=1), 1) and prob.notion.audit(M, P).violation <= 1e-12
    Q, mse = histogram_lip_lp(P, 0.0)
    assert Q.shape == (3, 1) and mse == pytest.approx(1 - P @ P)
