"""Frequency oracles: output distributions (chi-square against the channel), unbiasedness, exact count samplers."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechopt.errors import ProblemError
from mechopt.oracles import ksubset
from mechopt.oracles.bits import BRR, OUE, bernoulli
from mechopt.oracles.frequency import GRR, KSubset, ksubset_outputs, project_simplex, regression_estimator, subset_rank
from mechopt.problems.kss import formulas as F

ALPHA = 1e-3  # chi-square tests at a fixed seed: a p-value below this means the sampler is wrong


def _chi2_p(idx: np.ndarray, row: np.ndarray) -> float:
    obs = np.bincount(idx, minlength=row.size)
    return chisquare(obs, row * idx.size).pvalue


@pytest.mark.parametrize("route", ["masks", "floyd"])
@pytest.mark.parametrize("d,k", [(6, 1), (6, 2), (6, 3), (6, 4), (6, 5), (7, 3), (2, 1), (19, 2), (19, 16)])
def test_ksubset_randomizer_matches_eq5(monkeypatch, d: int, k: int, route: str) -> None:
    """Item reports by both routes (set bits of the packed reports; Floyd's sampler, kept for d ≫ k)."""
    monkeypatch.setattr(ksubset, "items_from_masks", lambda d_, k_: route == "masks")
    ks = KSubset(d, 0.8, k)
    Q = ks.matrix()
    rng = np.random.default_rng(100 + 10 * d + k)
    for x in (0, d - 1, d // 2):
        z = ks.randomize(np.full(30_000, x), rng)
        assert np.all(np.sort(z, axis=1)[:, 1:] != np.sort(z, axis=1)[:, :-1])  # distinct items
        assert _chi2_p(subset_rank(z), Q[x]) > ALPHA


def test_ksubset_packed_reports_match_items() -> None:
    ks = KSubset(10, 1.0, 3)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 10, size=40_000)
    packed = ks.randomize(x, rng, packed=True)
    bits = np.unpackbits(packed, axis=1, count=10).astype(bool)
    assert np.all(bits.sum(axis=1) == 3)
    own = bits[np.arange(x.size), x]
    assert abs(own.mean() - ks.g) < 4 * math.sqrt(ks.g * (1 - ks.g) / x.size)
    items = np.nonzero(bits)[1].reshape(-1, 3)
    assert np.array_equal(ks.support_counts(packed), ks.support_counts(items.astype(np.int16)))


@pytest.mark.parametrize("make", [lambda: GRR(5, 1.0), lambda: BRR(4, 1.0), lambda: OUE(4, 2.0)])
def test_grr_and_unary_randomizers_match_their_channels(make) -> None:
    orc = make()
    Q = orc.matrix()
    rng = np.random.default_rng(7)
    for x in (0, orc.d - 1):
        rep = orc.randomize(np.full(40_000, x), rng)
        idx = rep if isinstance(orc, GRR) else orc.output_index(rep, orc.d)
        assert _chi2_p(idx, Q[x]) > ALPHA


@pytest.mark.parametrize(
    "make",
    [
        lambda: KSubset(12, 1.0),
        lambda: KSubset(9, 0.3, 6),
        lambda: GRR(12, 1.0),
        lambda: BRR(12, 1.0),
        lambda: OUE(12, 1.0),
    ],
)
def test_estimator_is_unbiased_and_l2_formula_holds(make) -> None:
    orc = make()
    rng = np.random.default_rng(11)
    hist = rng.multinomial(400, rng.dirichlet(np.ones(orc.d)))
    theta = hist / hist.sum()
    x = np.repeat(np.arange(orc.d), hist)
    ests = np.array([orc.estimate(orc.support_counts(orc.randomize(x, rng)), x.size) for _ in range(600)])
    se = ests.std(axis=0, ddof=1) / math.sqrt(len(ests))
    assert np.all(np.abs(ests.mean(axis=0) - theta) < 4.5 * se)
    mse = ((ests - theta) ** 2).sum(axis=1)
    assert abs(mse.mean() - orc.l2_error(x.size, theta)) < 5 * mse.std(ddof=1) / math.sqrt(len(mse))


@pytest.mark.parametrize(
    "make", [lambda: KSubset(7, 1.0, 3), lambda: KSubset(7, 1.0, 5), lambda: GRR(7, 0.5), lambda: OUE(7, 1.0)]
)
def test_aggregate_counts_have_the_per_user_distribution(make) -> None:
    """simulate_counts: mean and per-item variance of each count as the per-user sum of Bernoullis."""
    orc = make()
    rng = np.random.default_rng(3)
    hist = np.array([50, 0, 120, 7, 30, 300, 1])
    n = hist.sum()
    F_ = np.array([orc.simulate_counts(hist, rng) for _ in range(3000)])
    mean = hist * orc.g + (n - hist) * orc.h
    var = hist * orc.g * (1 - orc.g) + (n - hist) * orc.h * (1 - orc.h)
    assert np.all(np.abs(F_.mean(axis=0) - mean) < 4.5 * np.sqrt(var / len(F_)))
    assert np.allclose(F_.var(axis=0, ddof=1), var, rtol=0.12)
    if isinstance(orc, KSubset):
        assert np.all(F_.sum(axis=1) == n * orc.k)  # every report has exactly k items


def test_regression_estimator_equals_remapping_for_ksubset() -> None:
    ks = KSubset(6, 1.0, 2)
    rng = np.random.default_rng(1)
    x = rng.integers(0, 6, size=5000)
    z = ks.randomize(x, rng)
    out_counts = np.bincount(subset_rank(z), minlength=math.comb(6, 2))
    assert np.allclose(regression_estimator(ks.matrix(), out_counts), ks.estimate(ks.support_counts(z), x.size))


def test_subset_rank_is_the_row_index_of_ksubset_outputs() -> None:
    for d, k in ((5, 2), (8, 3), (9, 8)):
        Z = ksubset_outputs(d, k)
        assert np.array_equal(subset_rank(Z[:, ::-1]), np.arange(math.comb(d, k)))


def test_hit_rates_match_the_paper() -> None:
    for d, k, eps in ((8, 3, 1.0), (64, 17, 0.5)):
        assert np.allclose((KSubset(d, eps, k).g, KSubset(d, eps, k).h), F.g_h(d, k, eps))
    assert KSubset(64, 1.0).k == F.k_sharp(64, 1.0)


@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=12))
@hsettings(max_examples=60, deadline=None)
def test_projection_is_the_closest_simplex_point(v) -> None:
    v = np.array(v)
    p = project_simplex(v)
    assert np.all(p >= 0) and abs(p.sum() - 1) < 1e-12
    rng = np.random.default_rng(0)
    others = rng.dirichlet(np.ones(v.size), size=50)
    assert np.all(np.linalg.norm(v - p) <= np.linalg.norm(v - others, axis=1) + 1e-12)


def test_projection_rows_and_kkt() -> None:
    V = np.random.default_rng(2).normal(size=(20, 7))
    P = project_simplex(V)
    tau = (V - P)[P > 0]  # on the support, v − p is the same constant per row
    for i in range(20):
        sup = P[i] > 0
        assert np.ptp((V - P)[i, sup]) < 1e-12
        assert np.all(V[i, ~sup] <= (V - P)[i, sup][0] + 1e-12)
    assert tau.size


def test_bernoulli_is_exact_in_distribution() -> None:
    b = bernoulli(np.random.default_rng(9), 400_000, 1 / 3 + 1 / 256**2)  # forces ties on byte 1
    assert abs(b.mean() - (1 / 3 + 1 / 256**2)) < 4 * math.sqrt(2 / 9 / b.size)


def test_bad_inputs_raise_problem_errors() -> None:
    with pytest.raises(ProblemError, match="k must be"):
        KSubset(5, 1.0, 5)
    with pytest.raises(ProblemError, match="d must be"):
        GRR(1, 1.0)
    with pytest.raises(ProblemError, match="items must lie"):
        KSubset(5, 1.0).randomize(np.array([7]), np.random.default_rng(0))
    with pytest.raises(ProblemError, match="eps"):
        OUE(4, -1.0)


def test_ksubset_rates_stay_finite_when_k_times_e_eps_overflows() -> None:
    """eps = 700, k = 25000: k·e^eps overflows; g must still be ~1 (was NaN: the own item was never reported)."""
    ks = KSubset(50_000, 700.0, k=25_000)
    assert ks.g == 1.0 and ks.h == pytest.approx(24_999 / 49_999)
    rows = ks.randomize(np.array([0, 1, 2]), np.random.default_rng(0))
    assert [int(x in row) for x, row in zip([0, 1, 2], rows)] == [1, 1, 1]
    bits = np.unpackbits(ks.randomize(np.array([0, 1, 2]), np.random.default_rng(0), packed=True), axis=1)
    assert bits[[0, 1, 2], [0, 1, 2]].tolist() == [1, 1, 1] and bits.sum(axis=1).tolist() == [25_000] * 3


@pytest.mark.parametrize("oracle", ["KSubset", "GRR", "OUE", "BRR"])
def test_an_eps_whose_exp_rounds_to_one_is_refused(oracle) -> None:
    """g = h at eps = 1e-300: a typed ProblemError (KSubset raised ZeroDivisionError choosing k; GRR was accepted
    and its estimate was -inf everywhere); the smallest eps with e^eps > 1 in doubles still works."""
    import mechopt.oracles as oracles

    cls = getattr(oracles, oracle)
    with pytest.raises(ProblemError, match="too small"):
        cls(20, 1e-300)
    assert cls(20, 1e-15).g > cls(20, 1e-15).h
