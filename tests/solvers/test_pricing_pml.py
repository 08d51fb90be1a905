"""The PML knapsack-window pricing proves the same maximum as the general branch and bound."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import xlogy

from mechopt.solvers.exact.pricing.bnb import separable_bnb
from mechopt.solvers.exact.pricing.pml import pml_max


@pytest.mark.parametrize("seed", range(12))
def test_same_bound_as_branch_and_bound_and_a_box_vertex(seed):
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 12))
    P = rng.dirichlet(np.ones(d))
    h = np.minimum(np.exp(rng.uniform(0.1, 3.0)) * P, 1.0)
    nu = rng.normal(0.0, 1.0, d) * rng.uniform(0.0, 3.0)
    logP = np.log(P)
    if seed % 2:

        def f(p, i):
            return p * p - nu[i] * p
    else:

        def f(p, i):
            return xlogy(p, p) - p * logP[i] - nu[i] * p

    ours, ref = pml_max(np.zeros(d), h, f, 4), separable_bnb(np.zeros(d), h, f, 4)
    assert ours.bound == pytest.approx(ref.bound, abs=1e-9)
    best = ours.points[0]
    assert abs(best.sum() - 1.0) < 1e-12 and np.all(best <= h + 1e-15) and np.all(best >= 0)
    assert np.count_nonzero((best > 0) & (best < h)) <= 1  # a vertex: one free coordinate at most
    assert float(np.sum(f(best, np.arange(d)))) == pytest.approx(ref.bound, abs=1e-9)


def test_refuses_a_box_with_a_lower_bound():
    with pytest.raises(ValueError):
        pml_max(np.full(2, 0.1), np.full(2, 0.9), lambda p, i: p * p, 2)
