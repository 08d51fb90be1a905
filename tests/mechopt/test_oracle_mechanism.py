"""Oracles as Mechanisms: their fast samplers follow Q, keep the stream contract, and refuse unlistable outputs."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import chisquare

from mechopt.errors import TooLargeError
from mechopt.oracles import GRR, OUE, KSubset
from mechopt.oracles.mechanism import ORACLE_BLOCK

ALPHA = 1e-3


@pytest.mark.parametrize("make", [lambda: GRR(5, 1.0), lambda: OUE(6, 1.0), lambda: KSubset(6, 0.8, 2)])
def test_mechanism_randomize_follows_the_oracles_channel(make) -> None:
    m = make().mechanism()
    rng = np.random.default_rng(4)
    for x in (0, 4):
        y = m.randomize_indices(np.full(60_000, x), rng)
        assert chisquare(np.bincount(y, minlength=m.shape[1]), m.Q[x] * y.size).pvalue > ALPHA
    assert m.claim == {"notion": "ldp", "eps": make().eps}
    assert m.audit("ldp")["notions"]["ldp"]["eps"] == pytest.approx(make().eps, abs=1e-9)


def test_grr_reports_do_not_depend_on_chunks() -> None:
    grr = GRR(300, 0.5)
    x = np.random.default_rng(0).integers(0, 300, 100_003)
    whole = grr.randomize(x, np.random.default_rng(9))
    g = np.random.default_rng(9)
    parts = [grr.randomize(x[a:b], g) for a, b in ((0, 7), (7, 40_000), (40_000, 100_003))]
    assert np.array_equal(whole, np.concatenate(parts))
    m = grr.mechanism()
    assert np.array_equal(m.randomize_indices(x, 9), whole)  # the Mechanism runs the oracle's sampler


def test_bit_oracle_reports_do_not_depend_on_block_multiple_chunks() -> None:
    m = OUE(8, 1.0).mechanism()
    x = np.random.default_rng(1).integers(0, 8, 3 * ORACLE_BLOCK + 5)
    whole = m.randomize_indices(x, np.random.default_rng(2))
    g = np.random.default_rng(2)
    parts = [m.randomize_indices(x[: 2 * ORACLE_BLOCK], g), m.randomize_indices(x[2 * ORACLE_BLOCK :], g)]
    assert np.array_equal(whole, np.concatenate(parts))


def test_unlistable_outputs_are_refused() -> None:
    with pytest.raises(TooLargeError, match="randomize / support_counts"):
        OUE(40, 1.0).mechanism()
    assert GRR(3, 1.0).mechanism(inputs=["a", "b", "c"]).outputs == ("a", "b", "c")


@pytest.mark.parametrize("d,eps", [(5, 600.0), (20_000, 1.0), (16_384, 0.3)])
def test_grr_extremes_stay_in_range(d: int, eps: float) -> None:
    """u/h beyond every integer type (ε = 600) and x + s + 1 beyond int16 (d > 16 383) are handled."""
    grr = GRR(d, eps)
    x = np.random.default_rng(0).integers(0, d, 100_000)
    y = grr.randomize(x, np.random.default_rng(1))
    assert y.min() >= 0 and y.max() < d
    kept = np.mean(y == x)
    assert abs(kept - grr.g) < 4.5 * np.sqrt(grr.g * (1 - grr.g) / x.size) + 1e-12
