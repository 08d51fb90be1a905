"""Packed-report samplers: the table sampler's law is exactly its pmf; subsets and bit rows have the right laws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechopt.errors import ProblemError
from mechopt.oracles.bits import BRR, OUE
from mechopt.oracles.frequency import KSubset, subset_rank
from mechopt.oracles.packed import POP16, CellTable, _byte_table, bernoulli_rows
from mechopt.oracles.subset_masks import uniform_subsets

ALPHA = 1e-3


def _implied_law(t: CellTable) -> np.ndarray:
    """P(v) the sampler realises: table cells of v over M, plus the tail mass times the remainder law."""
    R, M = t.cells.shape
    V = t.tail_cdf.shape[1]
    law = np.zeros((R, V))
    for r in range(R):
        law[r] = np.bincount(t.cells[r, : t.threshold[r]], minlength=V)[:V] / M
        tail = np.diff(np.concatenate(([0.0], t.tail_cdf[r])))
        law[r] += (M - t.threshold[r]) / M * tail
    return law


@pytest.mark.parametrize("bits", [4, 8, 12])
def test_cell_table_realises_its_pmf_exactly(bits: int) -> None:
    rng = np.random.default_rng(bits)
    pmf = rng.dirichlet(np.full(9, 0.3), size=20)
    pmf[3] = np.r_[1e-12, 1 - 1e-12, np.zeros(7)]  # a tiny mass must survive
    law = _implied_law(CellTable.build(pmf, bits))
    assert np.max(np.abs(law - pmf / pmf.sum(axis=1, keepdims=True))) < 1e-15


def test_byte_tables_are_exact() -> None:
    pop = POP16[:256].astype(float)
    for q in (0.5, 0.2689414213699951, 1e-3):
        assert np.max(np.abs(_implied_law(_byte_table(q))[0] - q**pop * (1 - q) ** (8 - pop))) < 1e-15


def test_cell_table_sampling_matches_law() -> None:
    pmf = np.array([[0.05, 0.15, 0.3, 0.5], [0.7, 0.1, 0.1, 0.1]])
    t = CellTable.build(pmf, bits=3)  # coarse: many draws go to the tail
    rng = np.random.default_rng(4)
    for r in (0, 1):
        v = t.sample(np.full(50_000, r, dtype=np.intp), rng.integers(0, 8, 50_000), rng)
        assert chisquare(np.bincount(v, minlength=4), pmf[r] * v.size).pvalue > ALPHA


def test_cell_table_rejects_bad_weights() -> None:
    with pytest.raises(ProblemError, match="non-negative"):
        CellTable.build(np.array([[0.5, -0.5]]), 4)


@pytest.mark.parametrize("d,k", [(5, 2), (18, 3), (17, 14), (33, 2), (16, 4), (20, 1), (20, 19)])
def test_uniform_subsets_are_uniform(d: int, k: int) -> None:
    rng = np.random.default_rng(d * 100 + k)
    n = 60_000
    m = uniform_subsets(rng, n, d, k)
    assert m.shape == (n, (d + 7) // 8)
    bits = np.unpackbits(m, axis=1)
    assert not bits[:, d:].any()  # padding bits stay 0
    assert np.all(bits.sum(axis=1) == k)
    items = np.nonzero(bits[:, :d])[1].reshape(n, k)
    outcomes = math.comb(d, k)
    assert (
        chisquare(np.bincount(subset_rank(items), minlength=outcomes), np.full(outcomes, n / outcomes)).pvalue > ALPHA
    )


@given(d=st.integers(2, 70), data=st.data())
@hsettings(max_examples=40, deadline=None)
def test_uniform_subsets_have_exactly_k_items(d: int, data) -> None:
    k = data.draw(st.integers(0, d))
    n = data.draw(st.integers(0, 50))
    bits = np.unpackbits(uniform_subsets(np.random.default_rng(d + k), n, d, k), axis=1)
    assert bits.shape == (n, 8 * ((d + 7) // 8))
    assert np.all(bits[:, :d].sum(axis=1) == k) and not bits[:, d:].any()


def test_uniform_subsets_have_no_table_budget() -> None:
    """The Bernoulli start and fix-up need no tables: d = 50 000, k = 13 000 draws directly."""
    bits = np.unpackbits(uniform_subsets(np.random.default_rng(0), 2, 50_000, 13_000), axis=1, count=50_000)
    assert bits.sum(axis=1).tolist() == [13_000, 13_000]
    with pytest.raises(ProblemError, match="k must lie"):
        uniform_subsets(np.random.default_rng(0), 2, 10, 11)


@pytest.mark.parametrize("d,k,eps", [(6, 2, 0.8), (17, 3, 1.0), (18, 15, 0.5), (20, 1, 2.0)])
def test_ksubset_packed_reports_follow_eq5(d: int, k: int, eps: float) -> None:
    ks = KSubset(d, eps, k)
    Q = ks.matrix()
    rng = np.random.default_rng(d + k)
    n = 80_000
    for x in (0, d - 1, 9 % d):
        bits = np.unpackbits(ks.randomize(np.full(n, x), rng, packed=True), axis=1, count=d)
        items = np.nonzero(bits)[1].reshape(n, k)
        assert chisquare(np.bincount(subset_rank(items), minlength=Q.shape[1]), Q[x] * n).pvalue > ALPHA


@pytest.mark.parametrize("make", [lambda: OUE(10, 1.0), lambda: BRR(9, 0.5)])
def test_unary_rows_follow_their_channel(make) -> None:
    orc = make()
    Q = orc.matrix()
    rng = np.random.default_rng(2)
    for x in (0, 8):
        idx = orc.output_index(orc.randomize(np.full(100_000, x), rng), orc.d)
        assert chisquare(np.bincount(idx, minlength=Q.shape[1]), Q[x] * idx.size).pvalue > ALPHA


def test_bernoulli_rows_are_independent_bits() -> None:
    b = np.unpackbits(bernoulli_rows(np.random.default_rng(8), 200_000, 21, 0.2), axis=1)
    assert not b[:, 21:].any()
    m = b[:, :21].mean(axis=0)
    se = math.sqrt(0.2 * 0.8 / 200_000)
    assert np.all(np.abs(m - 0.2) < 4.5 * se)
    c = np.corrcoef(b[:, :21].T.astype(float))
    assert np.max(np.abs(c - np.eye(21))) < 4.5 / math.sqrt(200_000)
    with pytest.raises(ProblemError, match="prob"):
        bernoulli_rows(np.random.default_rng(0), 1, 8, 1.5)


@pytest.mark.parametrize("d,eps", [(256, 1.0), (100, 0.3)])
def test_ksubset_packed_marginals_at_deployment_size(d: int, eps: float) -> None:
    """P(x ∈ Z) = g_k, P(j ∈ Z) = h_k and the pair rates of eq. (5) at full size (16 blocks)."""
    ks = KSubset(d, eps)
    k, g, n = ks.k, ks.g, 200_000
    x = np.random.default_rng(0).integers(0, d, size=n)
    bits = np.unpackbits(ks.randomize(x, np.random.default_rng(1), packed=True), axis=1, count=d).astype(bool)
    assert np.all(bits.sum(axis=1) == k)
    own = bits[np.arange(n), x]
    assert abs(own.mean() - g) < 4.5 * math.sqrt(g * (1 - g) / n)
    others = (bits.sum(axis=0) - np.bincount(x[own], minlength=d)) / (n - np.bincount(x, minlength=d))
    se = math.sqrt(ks.h * (1 - ks.h) / (n - n / d * 1.2))
    assert np.all(np.abs(others - ks.h) < 4.5 * se)
    a, b = 3, d - 5  # a pair in the first and the last block, users away
    far = (x != a) & (x != b)
    pair = (g * (k - 1) * (k - 2) + (1 - g) * k * (k - 1)) / ((d - 1) * (d - 2))
    got = (bits[far, a] & bits[far, b]).mean()
    assert abs(got - pair) < 4.5 * math.sqrt(pair * (1 - pair) / far.sum())
