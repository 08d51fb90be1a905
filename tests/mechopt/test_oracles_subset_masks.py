"""k-subset masks (Bernoulli start + fix-up): exact law, and the compiled kernel is bit-identical to numpy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechopt.errors import ProblemError
from mechopt.oracles import subset_masks as sm
from mechopt.oracles.ksubset import KSubset, subset_rank
from mechopt.oracles.mechanism import ORACLE_BLOCK
from mechopt.runtime import jit

ALPHA = 1e-3  # a seeded chi-square test at this level: fails on a wrong law (see the power check below)


def _paths(monkeypatch, draw):
    """``draw()`` with the compiled kernel and again on the numpy path (MECHOPT_JIT=0)."""
    numpy_path, compiled = jit.numpy_and_compiled(draw, sm._settle)
    return compiled, numpy_path


def test_the_kernel_compiles_here() -> None:
    assert jit.numpy_and_compiled(lambda: 0, sm._settle) == (0, 0)  # numba is in [test]: the identity tests compare


@pytest.mark.parametrize("d", [2, 3, 16, 17, 64, 256, 1024])
@pytest.mark.parametrize("kind", ["one", "half", "all-but-one"])
def test_compiled_and_numpy_paths_are_bit_identical(monkeypatch, d: int, kind: str) -> None:
    k = {"one": 1, "half": max(1, d // 2), "all-but-one": d - 1}[kind]
    for seed, n in ((0, 1), (1, 2049 if d < 1024 else 1500), (2, 777)):  # n across several blocks and not a multiple
        x = np.random.default_rng(seed + 100).integers(0, d, n)
        a, b = _paths(monkeypatch, lambda: sm.own_subset_masks(np.random.default_rng(seed), x, d, k, 0.6))
        assert a.shape == (n, (d + 7) // 8) and np.array_equal(a, b)
        bits = np.unpackbits(a, axis=1)
        assert np.all(bits[:, :d].sum(axis=1) == k) and not bits[:, d:].any()


@given(d=st.integers(2, 300), data=st.data())
@hsettings(max_examples=40, deadline=None)
def test_every_report_has_k_items_and_the_coin_decides_x(d: int, data) -> None:
    k = data.draw(st.integers(1, d - 1))
    n = data.draw(st.integers(0, 40))
    g = data.draw(st.sampled_from([0.0, 0.37, 1.0]))
    x = np.random.default_rng(d).integers(0, d, n)
    bits = np.unpackbits(sm.own_subset_masks(np.random.default_rng(k), x, d, k, g), axis=1)
    assert bits.shape == (n, 8 * ((d + 7) // 8)) and not bits[:, d:].any()
    assert np.all(bits[:, :d].sum(axis=1) == k)
    own = bits[np.arange(n), x]
    if g == 0.0:
        assert not own.any()
    elif g == 1.0:  # the coin u < 2^64 − 1 fails with chance 2^-64
        assert own.all()


def test_bit_identical_across_superblocks_and_fallback_rounds(monkeypatch) -> None:
    """Force one fix-up word per user (most users go to the fallback rounds, several times) over 2+ superblocks."""
    d, k = 100, 30
    tight = sm.Plan(a=1, t=2, words=1, slot=7, users=512)
    monkeypatch.setattr(sm, "plan", lambda d_, k_: tight)
    x = np.random.default_rng(5).integers(0, d, 2 * sm.SUPER + 33)
    a, b = _paths(monkeypatch, lambda: sm.own_subset_masks(np.random.default_rng(6), x, d, k, 0.3))
    assert np.array_equal(a, b)
    assert np.all(np.unpackbits(a, axis=1, count=d).sum(axis=1) == k)


def test_kernel_source_runs_as_python_and_agrees() -> None:
    """The kernel's own Python source (what numba compiles) gives the numpy twin's result."""
    d, k, n = 40, 11, 300
    rng = np.random.default_rng(3)
    x = rng.integers(0, d, n)
    last, thr = sm._consts(d, 0.7)
    W0 = np.empty((n, 1), dtype=np.uint64)
    sm._bits([rng.bit_generator.random_raw((n, 1)) for _ in range(2)], W0, 1, last)
    C, R = rng.bit_generator.random_raw(n), rng.bit_generator.random_raw((n, 2))
    out = []
    for fn in (sm._settle.python, sm._settle_numpy):
        W, left = W0.copy(), np.empty(n, dtype=np.int64)
        fn(C, R, np.arange(n), x, W, left, k, thr, d, 6)
        out.append((W, left))
    assert np.array_equal(out[0][0], out[1][0]) and np.array_equal(out[0][1], out[1][1])
    assert np.any(out[0][1] != 0) and np.any(out[0][1] == 0)  # some rows finished, some wait for more words


def _laws(d: int, k: int, x: int, g: float) -> tuple[np.ndarray, np.ndarray]:
    """Q^k(· | x) with P(x ∈ Z) = g over the C(d, k) subsets in colex rank order."""
    from itertools import combinations

    Z = np.array(list(combinations(range(d), k)))
    law = np.where((Z == x).any(axis=1), g / math.comb(d - 1, k - 1), (1 - g) / math.comb(d - 1, k))
    return Z, law[np.argsort(subset_rank(Z))]


@pytest.mark.parametrize("d,k,x,g", [(7, 3, 0, 0.8), (7, 3, 6, 0.1), (9, 1, 4, 0.5), (8, 6, 2, 0.9), (66, 2, 65, 0.3)])
def test_own_subset_masks_follow_eq5_exactly(d: int, k: int, x: int, g: float) -> None:
    n = 60_000 if d < 66 else 300_000
    m = sm.own_subset_masks(np.random.default_rng(d * 10 + k), np.full(n, x), d, k, g)
    items = np.nonzero(np.unpackbits(m, axis=1, count=d))[1].reshape(n, k)
    counts = np.bincount(subset_rank(items), minlength=math.comb(d, k))
    _, law = _laws(d, k, x, g)
    assert chisquare(counts, law * n).pvalue > ALPHA
    if g != k / d:  # power: the same counts reject the uniform law over subsets
        assert chisquare(counts, np.full(law.size, n / law.size)).pvalue < 1e-9


def test_fix_up_from_every_start_is_exact(monkeypatch) -> None:
    """p is free: starts of p = 0, 1/2 and 1 (all additions, both, all removals) give the same exact law."""
    d, k, x, g, n = 7, 3, 2, 0.6, 40_000
    _, law = _laws(d, k, x, g)
    for a, t in ((0, 0), (1, 1), (1, 0)):
        monkeypatch.setattr(sm, "plan", lambda d_, k_, a=a, t=t: sm.Plan(a, t, 1, 3, 1024))
        m = sm.own_subset_masks(np.random.default_rng(a + t), np.full(n, x), d, k, g)
        items = np.nonzero(np.unpackbits(m, axis=1, count=d))[1].reshape(n, k)
        assert chisquare(np.bincount(subset_rank(items), minlength=law.size), law * n).pvalue > ALPHA


def test_reports_do_not_depend_on_superblock_chunks() -> None:
    ks = KSubset(300, 1.0)
    x = np.random.default_rng(0).integers(0, 300, 2 * ORACLE_BLOCK + 9)
    whole = ks.randomize(x, np.random.default_rng(1), packed=True)
    g = np.random.default_rng(1)
    parts = [ks.randomize(x[:ORACLE_BLOCK], g, packed=True), ks.randomize(x[ORACLE_BLOCK:], g, packed=True)]
    assert np.array_equal(whole, np.concatenate(parts))


def test_plan_picks_cheap_starts() -> None:
    assert sm.plan(256, 69)[:2] == (1, 2)  # p = 1/4 for k/d = 0.27
    assert sm.plan(3_300_000, 22_086)[:2] == (0, 0)  # sparse: start empty, add k items
    assert sm.plan(1024, 512)[:2] == (1, 1)
    for d, k in ((17, 8), (1024, 275), (5000, 100)):
        assert sm.SUPER % sm.plan(d, k).users == 0  # blocks tile a superblock


def test_bad_k_is_refused() -> None:
    with pytest.raises(ProblemError, match="k must lie in 1..9"):
        sm.own_subset_masks(np.random.default_rng(0), np.zeros(2, dtype=np.int64), 10, 10, 0.5)


# ------------------------------------------------------------ d ≤ 16: one word per report
@pytest.mark.parametrize("d,k", [(2, 1), (3, 1), (3, 2), (16, 1), (16, 4), (16, 8), (16, 15), (9, 4)])
def test_small_d_paths_are_bit_identical(monkeypatch, d: int, k: int) -> None:
    ks = KSubset(d, 1.0, k)
    x = np.random.default_rng(d + k).integers(0, d, 2 * ORACLE_BLOCK + 77)
    a, b = _paths(monkeypatch, lambda: ks.randomize(x, np.random.default_rng(k), packed=True))
    assert np.array_equal(a, b)


def test_small_d_ties_and_rejections_take_the_same_words() -> None:
    """Crafted draws: a coin tie (h = top), a Lemire rejection and plain draws; kernel and numpy agree."""
    from mechopt.oracles import small_ksubset as ss

    d, k, g = 16, 8, 0.4
    lists, c0, c1 = ss._own_lists(d, k)
    top = int(g * 2.0**64) >> 48
    consts = np.array([c0, c1, (1 << 16) % c0, (1 << 16) % c1, top], dtype=np.int64)
    u = np.array([top << 16 | 5, (top - 1) << 16 | 0, 7 << 16 | 40000, 0xFFFF0000 | 12345], dtype=np.uint32)
    x = np.array([3, 3, 0, 15])
    res = []
    compiled = jit.numpy_and_compiled(ss._pick.compiled, ss._pick)[1]
    for fn in (compiled, ss._pick_numpy, ss._pick.python):
        out, bad = np.zeros(4, dtype=np.uint16), np.zeros(4, dtype=np.int64)
        res.append((out, bad[: fn(u, x, lists, consts, out, bad)].tolist()))
    assert res[0][1] == [0, 1]  # the tie, and index 0 (low product 0 < 2^16 mod C(15, 7)) rejected
    for out, bad in res[1:]:
        assert bad == res[0][1] and np.array_equal(out[2:], res[0][0][2:])
