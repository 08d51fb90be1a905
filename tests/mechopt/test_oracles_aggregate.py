"""Aggregate support-count samplers: the exact law of the count vector (by enumeration), moments, large domains."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from mechopt.oracles.aggregate import _windows, subset_counts
from mechopt.oracles.frequency import GRR, KSubset, ksubset_outputs

ALPHA = 1e-3


def _exact_count_law(ks: KSubset, hist: list[int]) -> dict[tuple, float]:
    """P(f) for the support-count vector f of the users in ``hist``, by enumerating every report."""
    Q, Z = ks.matrix(), ksubset_outputs(ks.d, ks.k)
    law: dict[tuple, float] = {(0,) * ks.d: 1.0}
    for x in np.repeat(np.arange(ks.d), hist):
        nxt: dict[tuple, float] = Counter()
        for f, p in law.items():
            for y, z in enumerate(Z):
                g = list(f)
                for item in z:
                    g[item] += 1
                nxt[tuple(g)] += p * Q[x, y]
        law = nxt
    return law


@pytest.mark.parametrize("d,k,hist", [(4, 2, [2, 1, 0, 1]), (5, 1, [2, 0, 1, 1, 0]), (5, 3, [0, 2, 0, 1, 1])])
def test_count_vector_has_the_exact_law_of_the_reports(d: int, k: int, hist: list[int]) -> None:
    ks = KSubset(d, 0.9, k)
    law = _exact_count_law(ks, hist)
    rng = np.random.default_rng(d * 10 + k)
    draws = Counter(tuple(subset_counts(np.array(hist), k, ks.g, rng).tolist()) for _ in range(4000))
    assert set(draws) <= set(law)  # nothing impossible is drawn
    cells = sorted(law)
    expected = np.array([law[c] for c in cells]) * 4000
    observed = np.array([draws.get(c, 0) for c in cells])
    big = expected >= 5  # pool the rare cells into one
    obs = np.r_[observed[big], observed[~big].sum()]
    exp = np.r_[expected[big], expected[~big].sum()]
    assert chisquare(obs[exp > 0], exp[exp > 0]).pvalue > ALPHA


def test_grr_counts_are_the_one_subset_law() -> None:
    grr = GRR(6, 0.7)
    hist = np.array([40, 0, 3, 17, 0, 9])
    rng = np.random.default_rng(2)
    F = np.array([grr.simulate_counts(hist, rng) for _ in range(2000)])
    n = hist.sum()
    mean = hist * grr.g + (n - hist) * grr.h
    assert np.all(np.abs(F.mean(axis=0) - mean) < 4.5 * np.sqrt(F.var(axis=0) / len(F)))
    assert np.all(F.sum(axis=1) == n)
    Q = grr.matrix()
    cov = -(hist * Q[:, 0] * Q[:, 3]).sum()  # one report per user: Cov(f_0, f_3) = −Σ_x n_x Q[x,0] Q[x,3]
    se = np.sqrt(F[:, 0].var() * F[:, 3].var() / len(F))
    assert abs(np.cov(F[:, 0], F[:, 3])[0, 1] - cov) < 4.5 * se


def test_hypergeometric_windows_match_exact_arithmetic() -> None:
    import math
    from fractions import Fraction

    N, K, n = 200_000, 100_000, 1_500
    lo, pmf = _windows(np.array([[N, K, n], [9, 4, 3]]))
    for t in (750, 790):
        exact = Fraction(math.comb(K, t) * math.comb(N - K, n - t), math.comb(N, n))
        assert abs(pmf[0, t - lo[0]] / float(exact) - 1) < 1e-11
    assert abs(pmf[1].sum() - 1) < 1e-15 and pmf[1, 0] == pytest.approx(
        math.comb(4, 0) * math.comb(5, 3) / math.comb(9, 3)
    )


def test_large_domain_fits_where_a_d_by_k_state_would_not() -> None:
    """d = 2·10⁵ items at ε = 5 (k = 1339): a (d, k) state would be 2 GB; every report still has k items."""
    ks = KSubset(200_000, 5.0)
    rng = np.random.default_rng(0)
    hist = np.bincount(rng.integers(0, ks.d, 3000), minlength=ks.d)
    f = ks.simulate_counts(hist, rng)
    assert f.sum() == 3000 * ks.k and f.min() >= 0
    assert abs(f.mean() - 3000 * ks.k / ks.d) < 1e-9


def test_same_seed_same_counts() -> None:
    ks = KSubset(300, 1.0)
    hist = np.bincount(np.random.default_rng(1).integers(0, 300, 50_000), minlength=300)
    a = ks.simulate_counts(hist, np.random.default_rng(7))
    b = ks.simulate_counts(hist, np.random.default_rng(7))
    assert np.array_equal(a, b)
