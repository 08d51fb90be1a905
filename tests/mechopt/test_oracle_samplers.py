"""The fast oracle samplers: byte rows with a sentinel tail, own bits on words, k-subsets of one word (d ≤ 16).

Every law is checked against its closed form (chi-square at a fixed level on seeded
draws, or exact enumeration of the deterministic part); no timing here (speed is in
``benchmarks/bench_oracles.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import chisquare

from mechopt.errors import ProblemError
from mechopt.oracles.bits import BRR, OUE
from mechopt.oracles.frequency import KSubset, subset_rank
from mechopt.oracles.packed import CHUNK_USERS, POP16, SENTINEL, _byte_cells, _byte_table, _redraw_tail, bernoulli_rows
from mechopt.oracles.small_ksubset import ONE, _pick, alias_tables, own_subset_words
from mechopt.runtime import jit

ALPHA = 1e-3


def _byte_law(q: float) -> np.ndarray:
    pop = POP16[:256].astype(float)
    return q**pop * (1 - q) ** (8 - pop)


@pytest.mark.parametrize("q", [1 / (math.e + 1), 0.5, 0.05])
def test_bernoulli_row_bytes_follow_the_byte_law(q: float) -> None:
    """All 256 byte values at once (the tail cells and the genuine 0xFF cells included)."""
    b = bernoulli_rows(np.random.default_rng(11), 400_000, 16, q).ravel()
    law = _byte_law(q)
    keep = law * b.size >= 5  # chi-square cells with enough expected counts; the rest pooled
    obs = np.bincount(b, minlength=256)
    o = np.append(obs[keep], obs[~keep].sum())
    e = np.append(law[keep], law[~keep].sum()) * b.size
    assert chisquare(o[e > 0], e[e > 0]).pvalue > ALPHA


def test_tail_cells_are_redrawn_and_genuine_sentinels_kept() -> None:
    """Deterministic part: every draw below the first tail cell gives its cell; every tail draw is redrawn."""
    q = 0.5  # every byte has 256 cells, 0xFF included: genuine sentinels are common
    cells, first = _byte_cells(q)
    assert first == 1 << 16  # 0.5 fills the table exactly: no tail at all
    q = 1 / (math.e + 1)
    cells, first = _byte_cells(q)
    table = _byte_table(q)
    assert first < cells.size and np.all(cells[first:] == SENTINEL)
    u = np.arange(1 << 16, dtype=np.uint16)
    dst = np.take(cells, u)
    _redraw_tail(dst, u, first, dst == SENTINEL, table, np.random.default_rng(0))
    assert np.array_equal(dst[:first], table.cells[0, :first])  # genuine cells (0xFF ones too) untouched
    rest = np.diff(np.concatenate(([0.0], table.tail_cdf[0])))
    assert np.all(rest[dst[first:]] > 0)  # redrawn from the remainder law: outcomes it can give


def test_bernoulli_rows_edge_probabilities_and_padding() -> None:
    rng = np.random.default_rng(3)
    assert not bernoulli_rows(rng, 1000, 13, 0.0).any()
    ones = bernoulli_rows(rng, 1000, 13, 1.0)
    assert np.all(np.unpackbits(ones, axis=1, count=13)) and not np.unpackbits(ones, axis=1)[:, 13:].any()


@pytest.mark.parametrize("make", [lambda: OUE(3, 1.0), lambda: OUE(8, 0.7), lambda: OUE(16, 2.0), lambda: BRR(12, 1.0)])
def test_unary_reports_of_one_word_have_exact_marginals(make) -> None:
    """Own bit ~ Bern(p), every other bit ~ Bern(q), for each x (the word-mask path, d ≤ 16)."""
    orc = make()
    d, n = orc.d, 120_000
    rng = np.random.default_rng(d)
    for x in sorted({0, d // 2, d - 1}):
        bits = np.unpackbits(orc.randomize(np.full(n, x), rng), axis=1, count=d)
        rate = bits.mean(axis=0)
        p = np.full(d, orc.q)
        p[x] = orc.p
        assert np.all(np.abs(rate - p) < 4.5 * np.sqrt(p * (1 - p) / n)), (x, rate)


def test_unary_reports_over_many_blocks_have_the_channel_law() -> None:
    """d = 4 (16 outputs): the whole channel, users spread over several own-bit blocks."""
    orc = OUE(4, 1.0)
    Q = orc.matrix()
    x = np.random.default_rng(5).integers(0, 4, 3 * CHUNK_USERS + 7)
    y = orc.output_index(orc.randomize(x, np.random.default_rng(6)), 4)
    for r in range(4):
        obs = np.bincount(y[x == r], minlength=16)
        assert chisquare(obs, Q[r] * obs.sum()).pvalue > ALPHA


@pytest.mark.parametrize("d,k,g", [(2, 1, 0.7), (5, 2, 0.3), (16, 4, 0.47536688641867), (16, 12, 0.9), (13, 6, 0.5)])
def test_alias_tables_hold_eq5_to_2_pow_minus_64_exactly(d: int, k: int, g: float) -> None:
    """Exact integers: P(x ∈ Z) = ⌊g·2⁶⁴⌋/2⁶⁴ and each subset's mass to one unit of 2^−(64+K)."""
    fast, thr, K = alias_tables(d, k, g)
    G = int(g * 2.0**64)
    words = [int(v) for v in np.arange(1 << d)[POP16[np.arange(1 << d)] == k] << (16 - d)]
    n_in, n_out = math.comb(d - 1, k - 1), math.comb(d - 1, k)
    for x in range(d):
        mass = dict.fromkeys(words, 0)
        for e, t in zip(fast[x].tolist(), thr[x].tolist()):
            prim, alias = e & 0xFFFF, (e >> 16) & 0xFFFF
            t = ONE if prim == alias else t  # a full column (stored as 2⁶⁴ − 1 with alias = primary)
            assert e >> 32 == t >> (32 + K) or t == ONE  # the fast threshold is T's top 32 − K bits
            for w, m in ((prim, t), (alias, ONE - t)):
                if m:
                    mass[w] += m  # a padding word (not a k-subset) never gets mass
        assert sum(mass.values()) == ONE << K
        bit = 1 << (15 - x)
        assert sum(m for w, m in mass.items() if w & bit) == G << K  # P(x ∈ Z) = G / 2⁶⁴ exactly
        for w, m in mass.items():
            share = (G << K) / n_in if w & bit else ((ONE - G) << K) / n_out
            assert abs(m - share) <= 1  # uniform given membership, to one unit of 2^−(64+K)


@pytest.mark.parametrize("d,k,eps", [(16, 4, 1.0), (16, 12, 0.5), (7, 3, 2.0), (2, 1, 1.0)])
def test_small_ksubset_reports_follow_eq5(d: int, k: int, eps: float) -> None:
    """Every report has exactly k items and the law of eq. (5) given x (chi-square over all C(d, k) subsets)."""
    ks = KSubset(d, eps, k)
    Q = ks.matrix()
    rng = np.random.default_rng(d * 10 + k)
    n = max(60_000, 12 * Q.shape[1])
    for x in sorted({0, d - 1, 5 % d}):
        bits = np.unpackbits(ks.randomize(np.full(n, x), rng, packed=True), axis=1)
        assert np.all(bits.sum(axis=1) == k) and not bits[:, d:].any()
        items = np.nonzero(bits[:, :d])[1].reshape(n, k)
        assert chisquare(np.bincount(subset_rank(items), minlength=Q.shape[1]), Q[x] * n).pvalue > ALPHA


def test_small_ksubset_reports_do_not_depend_on_block_chunks() -> None:
    """Calls on chunks that are multiples of the block give the reports of one call (one stream)."""
    ks = KSubset(16, 1.0)
    x = np.random.default_rng(1).integers(0, 16, 3 * CHUNK_USERS + 11)
    whole = ks.randomize(x, np.random.default_rng(2), packed=True)
    g = np.random.default_rng(2)
    parts = [ks.randomize(x[lo : lo + 2 * CHUNK_USERS], g, packed=True) for lo in range(0, x.size, 2 * CHUNK_USERS)]
    assert np.array_equal(whole, np.concatenate(parts))


def test_own_subset_words_refuses_large_d() -> None:
    with pytest.raises(ProblemError, match="d <= 16"):
        own_subset_words(np.random.default_rng(0), np.zeros(3, dtype=np.int64), 3, 17, 0.5)


def test_items_check_refuses_negatives_and_overflow_in_one_pass() -> None:
    orc = OUE(8, 1.0)
    for bad in (np.array([0, -1, 3]), np.array([8, 1]), np.array([0, 1], dtype=np.uint8) + 200):
        with pytest.raises(ProblemError, match="items must lie in 0..7"):
            orc.randomize(bad, np.random.default_rng(0))
    assert orc.randomize(np.array([0, 7], dtype=np.uint16), np.random.default_rng(0)).shape == (2, 1)


@pytest.mark.parametrize(
    "oracle", [OUE(9, 1.0), BRR(9, 1.0), KSubset(9, 1.0), KSubset(40, 1.0)], ids=["oue", "brr", "ks9", "ks40"]
)
def test_randomize_and_simulate_take_every_rng_form_a_mechanism_takes(oracle) -> None:
    """A seed, a bit generator and a Generator give the same reports; a legacy RandomState is a ParamError
    (an int seed raised AttributeError: 'int' object has no attribute 'integers')."""
    from mechopt.errors import ParamError
    from mechopt.oracles.frequency import GRR

    for o in (oracle, GRR(9, 1.0)):
        x, hist = np.arange(300) % o.d, np.full(o.d, 30)
        ref = o.randomize(x, np.random.default_rng(5))
        for rng in (5, np.random.PCG64(5), np.random.SeedSequence(5)):
            assert np.array_equal(o.randomize(x, rng), ref)
        counts = o.simulate_counts(hist, np.random.default_rng(5))
        assert np.array_equal(o.simulate_counts(hist, 5), counts)
        with pytest.raises(ParamError, match="RandomState"):
            o.randomize(x, np.random.RandomState(5))


@pytest.mark.parametrize("bad", [-1, 16, 2**40])
@pytest.mark.parametrize("at", [0, CHUNK_USERS + 5])  # in the first block, or after a block was drawn
def test_small_ksubset_range_check_per_block_leaves_the_generator_untouched(bad: int, at: int) -> None:
    """Packed d ≤ 16 checks the items block by block inside the kernel (x read once): an item out of range
    raises the items error on both paths, and the generator is where it was (a later draw is unchanged)."""
    ks = KSubset(16, 1.0)
    x = np.random.default_rng(3).integers(0, 16, 2 * CHUNK_USERS)
    x[at] = bad
    after = []

    def draw() -> int:
        rng = np.random.default_rng(4)
        with pytest.raises(ProblemError, match=r"items must lie in 0\.\.15; got range \["):
            ks.randomize(x, rng, packed=True)
        after.append(int(rng.bit_generator.random_raw()))
        return 0

    jit.numpy_and_compiled(draw, _pick)
    assert after == [int(np.random.default_rng(4).bit_generator.random_raw())] * 2


def test_own_subset_words_refuses_items_out_of_range_on_both_paths() -> None:
    """The public sampler itself refuses them (before: the kernel read past its table)."""

    def draw() -> list[int]:
        out = []
        for x in (np.array([0, 5], dtype=np.int32), np.array([7, -3]), np.array([1, 2, 5, 3], dtype=np.uint8)):
            with pytest.raises(ProblemError, match=r"items must lie in 0\.\.4"):
                own_subset_words(np.random.default_rng(0), x, 2, 5, 0.5)
            out.append(x.size)
        return out

    assert jit.numpy_and_compiled(draw, _pick) == ([2, 2, 4], [2, 2, 4])


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64])
def test_small_ksubset_items_of_any_integer_dtype_give_the_int64_reports(dtype) -> None:
    """The range is checked in the kernel (no int64 pass first): narrow dtypes give the int64 items' reports."""
    ks = KSubset(12, 0.7)
    x = np.random.default_rng(8).integers(0, 12, 5000)
    want = ks.randomize(x, np.random.default_rng(9), packed=True)
    assert np.array_equal(ks.randomize(x.astype(dtype), np.random.default_rng(9), packed=True), want)


@pytest.mark.parametrize("make,d", [(OUE, 16), (BRR, 12), (OUE, 40)])
@pytest.mark.parametrize("at", [0, 300_000])  # in the first rows, or after whole blocks were drawn
def test_unary_range_check_in_the_kernel_undoes_the_rows_draws(make, d: int, at: int) -> None:
    """OUE/BRR check the items where the own bits are set (compiled: per sub-block, x read once): an item out of
    range raises the items error on both paths, nothing is written out of bounds, and the generator has advanced
    past the own bits' draws only (the rows' draws undone)."""
    from mechopt.oracles import kernels

    orc = make(d, 1.0)
    x = np.random.default_rng(3).integers(0, d, 300_001)
    after = []
    for bad in (-2, d):
        x[at] = bad

        def draw() -> int:
            rng = np.random.default_rng(4)
            with pytest.raises(ProblemError, match=rf"items must lie in 0\.\.{d - 1}; got range \["):
                orc.randomize(x, rng)
            after.append(int(rng.bit_generator.random_raw()))
            return 0

        jit.numpy_and_compiled(draw, kernels.unary_rows)
    rng = np.random.default_rng(4)
    orc.own_draws(x.size, rng)
    assert after == [int(rng.bit_generator.random_raw())] * 4
    x[at] = 0  # and a valid x still gives the same reports on both paths
    slow, fast = jit.numpy_and_compiled(lambda: orc.randomize(x, np.random.default_rng(5)), kernels.unary_rows)
    assert np.array_equal(slow, fast)
