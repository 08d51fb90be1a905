"""The worst prior of a channel over a hull for an MSE: a bracket, both ends exact statements."""

from __future__ import annotations

import numpy as np
import pytest

from mechopt.problems.robust.hull import hull_worst_case, loss_slopes
from mechopt.utilities import HistogramMSE, SumMSE


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("utility", [SumMSE(np.arange(5.0)), HistogramMSE()])
def test_bracket_holds_and_is_tight(utility):
    """lo <= every sampled MSE <= hi is the promise (both ends exact); how tight the bracket is depends on
    SLSQP's converged point, whose last digits vary with the BLAS kernel (Sandybridge: 2e-9 relative), so
    the tightness asserted is the 1e-7 status tolerance, not one machine's 1e-9."""
    rng = np.random.default_rng(0)
    Q = rng.dirichlet(np.ones(4), size=5)
    V = rng.dirichlet(np.ones(5), size=3)
    lo, hi, P = hull_worst_case(Q, V, utility)
    sampled = max(utility.value(Q, w @ V) for w in rng.dirichlet(np.ones(3), size=2000))
    assert sampled <= hi + 1e-12 and lo <= hi and hi - lo <= 1e-7 * hi
    assert utility.value(Q, P) == pytest.approx(lo, rel=1e-12)


@pytest.mark.parametrize("utility", [SumMSE([0.0, 2.0, 5.0]), HistogramMSE()])
def test_slopes_are_supergradients(utility):
    """g(P̂)·P ≥ MSE(P, Q) for every P, with equality at P̂ (an MMSE is a minimum over estimators)."""
    rng = np.random.default_rng(2)
    Q = rng.dirichlet(np.ones(3), size=3)
    P0 = rng.dirichlet(np.ones(3))
    g = loss_slopes(Q, P0, utility)
    assert g @ P0 == pytest.approx(utility.value(Q, P0), rel=1e-12)
    for P in rng.dirichlet(np.ones(3), size=300):
        assert g @ P >= utility.value(Q, P) - 1e-12


@pytest.mark.kernel_sensitive
@pytest.mark.parametrize("scale", [1e-9, 1e9])
def test_bracket_is_unit_free(scale):
    """Values ×1e-9 or ×1e9: the bracket is the unit values' bracket × scale² (SLSQP's absolute ftol once
    stopped at the first step on the tiny MSE, leaving a gap of 0.8 %); tight at the status tolerance."""
    rng = np.random.default_rng(5)
    Q = rng.dirichlet(np.ones(4), size=3)
    V = rng.dirichlet(np.ones(3), size=3)
    lo, hi, _ = hull_worst_case(Q, V, SumMSE([1.0, 2.0, 4.0]))
    lo_s, hi_s, _ = hull_worst_case(Q, V, SumMSE([scale, 2 * scale, 4 * scale]))
    assert hi_s - lo_s <= 1e-7 * hi_s
    assert lo_s == pytest.approx(lo * scale**2, rel=1e-7) and hi_s == pytest.approx(hi * scale**2, rel=1e-7)
