"""k-subset masks (Bernoulli start + fix-up): exact law, and the compiled kernel is bit-identical to numpy."""

from __future__ import annotations

import ctypes
import hashlib
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
from mechopt.runtime.bitgen import bitgen_handles, pcg64_address

ALPHA = 1e-3  # a seeded chi-square test at this level: fails on a wrong law (see the power check below)


def _paths(monkeypatch, draw):
    """``draw()`` with the compiled kernel and again on the numpy path (MECHOPT_JIT=0)."""
    numpy_path, compiled = jit.numpy_and_compiled(draw, sm._sample)
    return compiled, numpy_path


def test_the_kernel_compiles_here() -> None:
    assert jit.numpy_and_compiled(lambda: 0, sm._sample) == (0, 0)  # numba is in [test]: the identity tests compare


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


@pytest.mark.parametrize("bit_generator", [np.random.SFC64, np.random.MT19937, np.random.PCG64DXSM])
def test_other_bit_generators_are_bit_identical(monkeypatch, bit_generator) -> None:
    """Generators without the PCG64 registers: the kernel draws through next_uint64, block pass by pass."""
    d, k = 256, 69
    x = np.random.default_rng(8).integers(0, d, 3000)
    a, b = _paths(monkeypatch, lambda: sm.own_subset_masks(np.random.Generator(bit_generator(2)), x, d, k, 0.5))
    assert np.array_equal(a, b) and np.all(np.unpackbits(a, axis=1).sum(axis=1) == k)


@pytest.mark.parametrize("a, t", [(0, 0), (1, 0), (1, 1), (1, 2), (3, 2), (5, 3), (11, 4)])
def test_every_dyadic_start_is_bit_identical(monkeypatch, a: int, t: int) -> None:
    """Each start p = a/2^t (the kernel folds t = 2 in place, other t through its scratch) on both paths."""
    d, k = 130, 40
    monkeypatch.setattr(sm, "plan", lambda d_, k_: sm.Plan(a=a, t=t, words=3, slot=8, users=256))
    x = np.random.default_rng(t).integers(0, d, 1000)
    a_, b_ = _paths(monkeypatch, lambda: sm.own_subset_masks(np.random.default_rng(a), x, d, k, 0.4))
    assert np.array_equal(a_, b_) and np.all(np.unpackbits(a_, axis=1, count=d).sum(axis=1) == k)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.SFC64])
def test_kernel_source_runs_as_python_and_agrees(bit_generator) -> None:
    """The kernel's own Python source (what numba compiles) draws the numpy twin's words and gives its masks.

    PCG64 is stepped from its state address, SFC64 drawn through ``next_uint64``; a tight
    plan (two fix-up words, blocks of 64) sends rows to the superblock's fallback rounds.
    """
    d, k, n = 40, 11, 300
    pl = sm.Plan(a=1, t=2, words=2, slot=6, users=64)
    x = np.random.default_rng(3).integers(0, d, n)
    last, thr = sm._consts(d, 0.7)
    W0, W1 = np.empty((n, 1), dtype=np.uint64), np.empty((n, 1), dtype=np.uint64)
    sm._draw_numpy(np.random.Generator(bit_generator(4)), x, W0, pl, k, thr, d, last)
    bg = bit_generator(4)
    gen = (*bitgen_handles(bg), pcg64_address(bg))
    left, scratch, short = np.empty(n, dtype=np.int64), np.empty((64, 1), np.uint64), np.empty(n, np.int64)
    ext = np.empty(1, dtype=np.uint64)
    sm._sample.python(gen, x, W1, left, pl.a, pl.t, pl.words, pl.users, k, thr, pl.slot, last, scratch, short, ext)
    assert np.array_equal(W0, W1) and not left.any()
    after = np.random.Generator(bit_generator(4))
    sm._draw_numpy(after, x, W0, pl, k, thr, d, last)
    assert bg.random_raw() == after.bit_generator.random_raw()  # the kernel left the generator where numpy did


# sha256 of the masks since branch sampler-256 (fix-up slots name raw bits; compiled = numpy path when pinned)
STREAM = {
    (17, 5, 0.6, 3001, 1): "ce9193a1d2138386b7313f11559c1d0bfd659dad676ff31c6ac00e766f439487",
    (256, 69, 0.5, 70_000, 2): "f8063f6fa1284914100263077d8d524adfb7dd28a02c17e0ae5d0c3d6bce4288",
    (1024, 275, 0.5, 5000, 3): "dd86541a342e73b25859d816eb3033891c189984d228be9f4dded8cc00d8f4c8",
    (100, 99, 0.3, 999, 4): "73a90b9d40cf857a83d06f64750dbec2803ecea156878356939b7704de87ac7c",
    (700, 1, 0.9, 2000, 5): "2dda952d57e4d34c79b8cfbe66b7b9a596c47de9ed391ad973d8c034049e7b09",
}


@pytest.mark.parametrize("case", sorted(STREAM))
def test_the_report_stream_is_unchanged(case) -> None:
    """Same seed, same masks as pinned, on the path this environment runs (both, in CI)."""
    d, k, g, n, seed = case
    x = np.random.default_rng(seed + 50).integers(0, d, n)
    m = sm.own_subset_masks(np.random.default_rng(seed), x, d, k, g)
    assert hashlib.sha256(m.tobytes()).hexdigest() == STREAM[case]
    if case[0] == 700:
        u = sm.uniform_subsets(np.random.default_rng(9), 3000, 300, 150)
        assert hashlib.sha256(u.tobytes()).hexdigest() == UNIFORM


UNIFORM = "df4f24afe70833c9c99a03bb40179d5c889a4705c0506f881955115dc2aa11f6"
SMALL = {  # d <= 16 (mechopt.oracles.small_ksubset alias tables, fast-samplers), KSubset(d, 1.0).randomize(packed=True)
    (16, 1, 200_001): "82acf40a781df51f5770ddd4664bedf950616a366ee21563a084b901253e108b",
    (5, 2, 3000): "e85ecc6e5697697424f34ed4c7a13a7abfbf93e88cc18bba7e1252ce3bc3e425",
    (9, 3, 70_000): "c6a82beb79a2f0f846743fc543c5d844c8e4fcde3d668a4d7e85af4056ee33c7",
}


@pytest.mark.parametrize("case", sorted(SMALL))
def test_the_small_d_report_stream_is_unchanged(case) -> None:
    """The alias-table stream (branch fast-samplers; the coin-and-list one of main 2895526 before): same seed, same
    reports, on the path this environment runs (both, in CI)."""
    d, seed, n = case
    x = np.random.default_rng(seed + 50).integers(0, d, n)
    m = KSubset(d, 1.0).randomize(x, np.random.default_rng(seed), packed=True)
    assert hashlib.sha256(m.tobytes()).hexdigest() == SMALL[case]


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


def _modulo_slots(R: np.ndarray, d: int, slot: int) -> np.ndarray:
    """R with every fix-up slot naming an item j ≥ d (slot v names item v ^ 7) renamed to item j − d: the
    'modulo instead of rejection' bug."""
    out, seven = np.zeros_like(R), np.uint64(7)
    for s in range(64 // slot):
        j = ((R >> np.uint64(s * slot)) & np.uint64((1 << slot) - 1)) ^ seven
        out |= (np.where(j >= d, j - np.uint64(d), j) ^ seven) << np.uint64(s * slot)
    return out


def _modulo_mutant(fix):
    return lambda R, rows, x, W, left, d, slot: fix(_modulo_slots(R, d, slot), rows, x, W, left, d, slot)


def _unguarded_mutant(fix):
    """The fix-up may add or remove the own item (it is told there is none)."""
    return lambda R, rows, x, W, left, d, slot: fix(R, rows, np.full_like(x, -1), W, left, d, slot)


def _padding_mutant(fix):
    """The fix-up may add the row's padding bits (it is told the row is full: d = 64)."""
    return lambda R, rows, x, W, left, d, slot: fix(R, rows, x, W, left, 64 * W.shape[1], slot)


MUTANTS = {"modulo": _modulo_mutant, "own item unguarded": _unguarded_mutant, "padding unguarded": _padding_mutant}


def _pvalue(m: np.ndarray, d: int, k: int, law: np.ndarray) -> float:
    """Chi-square p-value of the reports' subsets against ``law``; 0 when a report has not exactly k items."""
    bits = np.unpackbits(m, axis=1, count=d)
    if np.any(bits.sum(axis=1) != k):
        return 0.0
    items = np.nonzero(bits)[1].reshape(-1, k)
    return chisquare(np.bincount(subset_rank(items), minlength=law.size), law * m.shape[0]).pvalue


@pytest.mark.parametrize("d,k,x,g", [(5, 2, 4, 0.7), (6, 2, 5, 0.45), (7, 3, 6, 0.3)])  # 8 − d slot values ≥ d
def test_a_million_reports_follow_eq5_and_biased_fix_ups_fail(monkeypatch, d: int, k: int, x: int, g: float) -> None:
    """10⁶ seeded reports from a start of p = 1/2 (half the rows add, half remove): every subset's count against
    Q^k(· | x); the same test rejects each mutant of the fix-up (the chi-square has the power to see a bias)."""
    n, seed = 1_000_000, d * 100 + k
    monkeypatch.setattr(sm, "plan", lambda d_, k_: sm.Plan(1, 1, 2, 3, 4096))  # p = 1/2, 3-bit slots: 8 − d rejections
    _, law = _laws(d, k, x, g)

    def pvalue() -> float:
        return _pvalue(sm.own_subset_masks(np.random.default_rng(seed), np.full(n, x), d, k, g), d, k, law)

    assert pvalue() > ALPHA
    monkeypatch.setenv("MECHOPT_JIT", "0")  # the mutants patch the numpy twin of the fix-up
    assert pvalue() > ALPHA  # the unmutated numpy path: the same reports, so the same verdict
    fix = sm._fixup_numpy
    for name, mutate in MUTANTS.items():
        monkeypatch.setattr(sm, "_fixup_numpy", mutate(fix))
        assert pvalue() < 1e-9, name


@pytest.mark.parametrize("d,k,x,g", [(7, 3, 6, 0.3), (6, 4, 0, 0.8)])
def test_slots_wider_than_the_row_are_exact(monkeypatch, d: int, k: int, x: int, g: float) -> None:
    """7-bit slots on a one-word row: half the slot values name bits of a word past the row (preset, never a
    success), the rest the row's padding or items. Chi-square over all C(d, k) subsets; both paths agree."""
    monkeypatch.setattr(sm, "plan", lambda d_, k_: sm.Plan(1, 1, 4, 7, 2048))  # p = 1/2, 9 slots per word
    _, law = _laws(d, k, x, g)
    a, b = _paths(monkeypatch, lambda: sm.own_subset_masks(np.random.default_rng(d + k), np.full(80_000, x), d, k, g))
    assert np.array_equal(a, b)
    assert _pvalue(a, d, k, law) > ALPHA


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


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.SFC64])
@pytest.mark.parametrize("d,k,x", [(16, 4, 11), (12, 5, 0), (7, 3, 6)])
def test_small_d_alias_law_over_all_subsets_per_generator(monkeypatch, bit_generator, d: int, k: int, x: int) -> None:
    """Chi-square over all C(d, k) subsets (eq. (5) at ε = 1), and the two paths agree, for each BitGenerator."""
    ks = KSubset(d, 1.0, k)
    n = max(60_000, 12 * math.comb(d, k))
    draw = lambda: ks.randomize(np.full(n, x), np.random.Generator(bit_generator(d + k)), packed=True)  # noqa: E731
    m, other = _paths(monkeypatch, draw)
    assert np.array_equal(m, other)
    items = np.nonzero(np.unpackbits(m, axis=1, count=d))[1].reshape(n, k)
    _, law = _laws(d, k, x, ks.g)
    counts = np.bincount(subset_rank(items), minlength=law.size)
    assert chisquare(counts, law * n).pvalue > ALPHA
    assert chisquare(counts, np.full(law.size, n / law.size)).pvalue < 1e-9  # power: the uniform law is rejected


def test_small_d_ties_take_the_same_words() -> None:
    """Crafted half-words: a tie (top bits = the column's threshold bits) and plain draws; kernel and numpy agree."""
    from mechopt.oracles import small_ksubset as ss

    d, k, g = 16, 8, 0.4
    tab, _, K = ss.alias_tables(d, k, g)
    x = np.array([3, 3, 0, 15])
    t3 = int(tab[3, 5]) >> 32
    u = np.array([t3 << K | 5, ((t3 + 1) % (1 << (32 - K))) << K | 5, 7 << K | 40, 0xFFFFFFFF], dtype=np.uint32)
    res = []
    compiled = jit.numpy_and_compiled(ss._pick.compiled, ss._pick)[1]
    words = (u[0::2].astype(np.uint64) | (u[1::2].astype(np.uint64) << np.uint64(32))).tolist()
    for fn in (compiled, ss._pick_numpy, ss._pick.python):
        out, ties = np.zeros(4, dtype=np.uint16), np.zeros(4, dtype=np.int64)
        if fn is ss._pick_numpy:
            nt = fn(u, x, tab, K, out, ties)
        else:  # the kernel draws its words through next_uint64: here a C callback handing out the crafted ones
            feed = iter(words)
            source = ctypes.CFUNCTYPE(ctypes.c_uint64, ctypes.c_void_p)(lambda _state: next(feed))
            nt = fn((ctypes.cast(source, ctypes.c_void_p).value, 0, 0, 0), x, tab, K, out, ties)
        res.append((out.tolist(), ties[:nt].tolist()))
    tied = [i for i in range(4) if int(u[i]) >> K == int(tab[x[i], int(u[i]) & ((1 << K) - 1)]) >> 32]
    assert res[0][1] == tied and tied[0] == 0 and 1 not in tied
    assert res[0][0][0] == 5  # the tie keeps its column until settled
    assert res[1] == res[0] and res[2] == res[0]


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937])
def test_small_d_ties_settled_in_the_kernel_take_the_numpy_words(bit_generator) -> None:
    """Ties settled by the compiled :func:`_settle` (the generator's lock held for all blocks) get the reports and
    leave the generator where :func:`_settle_ties` (numpy) does, on ties at every column with both outcomes."""
    from mechopt.oracles import small_ksubset as ss
    from mechopt.oracles.kernels import drawing

    d, k, g = 16, 4, 0.3
    tab, thr, K = ss.alias_tables(d, k, g)
    cols = 1 << K
    x = np.arange(600) % d
    at = np.arange(0, 600, 3)
    res = []
    for kern in (True, False):
        out = np.zeros(600, dtype=np.uint16)
        out[at] = (at * 7) % cols  # the tie's column, as _pick leaves it
        rng = np.random.Generator(bit_generator(4))
        if kern:
            settle = jit.numpy_and_compiled(ss._settle.compiled, ss._settle)[1]
            with drawing(rng) as gen:
                settle(gen, x, at, tab, thr, K, out)
        else:
            ss._settle_ties(rng, x, at, tab, thr, K, out)
        res.append((out, rng.bit_generator.random_raw()))
    assert np.array_equal(res[0][0], res[1][0]) and res[0][1] == res[1][1]
    prim = res[0][0][at] == (tab[x[at], (at * 7) % cols] & np.uint64(0xFFFF))
    assert 0 < prim.sum() < at.size  # both outcomes occur: the comparison is exercised
