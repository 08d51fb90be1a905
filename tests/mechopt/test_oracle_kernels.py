"""The compiled sampler kernels (numba) give bit-identical reports to the numpy path for the same seed."""

import math
import threading

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechopt.oracles import kernels
from mechopt.oracles.base import raw_uint16
from mechopt.oracles.bits import BRR, OUE
from mechopt.oracles.frequency import GRR
from mechopt.oracles.packed import ROW_BYTES, _byte_cells, _byte_table, _tail_guide, bernoulli_rows
from mechopt.runtime import bitgen, jit

DS = (2, 7, 8, 9, 16, 255, 1024)


def _both(draw):
    """``draw()`` with the kernels off (numpy path), then on (compiled)."""
    return jit.numpy_and_compiled(draw, kernels.unary_rows)


def _items(d, n, seed):
    return np.random.default_rng(seed).integers(0, d, n)


@pytest.mark.parametrize("d", DS)
@pytest.mark.parametrize("make", [OUE, BRR, GRR])
def test_compiled_reports_equal_numpy_reports(make, d):
    for eps in (0.3, 1.0, 6.0):
        orc = make(d, eps)
        for seed, n in ((0, 0), (1, 1), (2, 4097), (3, 70_001)):
            x = _items(d, n, seed)
            slow, fast = _both(lambda: orc.randomize(x, np.random.default_rng(seed)))
            assert slow.dtype == fast.dtype and np.array_equal(slow, fast), (make.__name__, d, eps, n)


def test_rows_cross_blocks_and_hit_the_tail_identically():
    """n·⌈d/8⌉ bytes over several ROW_BYTES blocks, not a multiple of one; tail cells are hit (redraws happen)."""
    q = 1 / (math.e + 1)
    n, d = 3 * ROW_BYTES // 5 + 13, 41  # 6 bytes per row
    slow, fast = _both(lambda: bernoulli_rows(np.random.default_rng(9), n, d, q))
    assert np.array_equal(slow, fast)
    cells, first = _byte_cells(q)
    u = np.random.default_rng(9).bit_generator.random_raw(ROW_BYTES // 4).view(np.uint16)
    assert np.count_nonzero(u >= first) > 100  # the first block alone redraws over a hundred tail bytes


def test_generator_is_left_in_the_same_state():
    x = _items(300, 5000, 4)
    for orc in (OUE(300, 1.0), BRR(300, 2.0), GRR(300, 1.0)):
        slow, fast = _both(lambda: _advanced(orc, x))
        assert slow == fast


def _advanced(orc, x):
    g = np.random.default_rng(11)
    orc.randomize(x, g)
    return g.bit_generator.state["state"]["state"]


@given(
    d=st.integers(2, 300),
    n=st.integers(0, 3000),
    eps=st.floats(0.05, 12.0),
    seed=st.integers(0, 2**32 - 1),
    kind=st.sampled_from(["OUE", "BRR", "GRR"]),
)
def test_identity_property(d, n, eps, seed, kind):
    orc = {"OUE": OUE, "BRR": BRR, "GRR": GRR}[kind](d, eps)
    x = _items(d, n, seed)
    slow, fast = _both(lambda: orc.randomize(x, np.random.default_rng(seed)))
    assert np.array_equal(slow, fast)


def test_python_references_match_the_numpy_path(monkeypatch):
    """The kernels' plain-Python loops (their readable reference) compute what the numpy path does."""
    rng = np.random.default_rng(5)
    d, n, q = 21, 2500, 1 / (math.e + 1)  # 7500 bytes: a few tail cells (108 of 2^16 at this q)
    x = _items(d, n, 6)
    bits = rng.integers(0, 256, (n + 7) // 8).astype(np.uint8)
    monkeypatch.setenv("MECHOPT_JIT", "0")
    want = bernoulli_rows(np.random.default_rng(3), n, d, q, own=(x, bits))
    cells, first = _byte_cells(q)
    assert np.count_nonzero(raw_uint16(np.random.default_rng(3), want.size) >= first) >= 3
    got, g = np.empty_like(want), np.random.default_rng(3)
    gen = (*bitgen.bitgen_handles(g.bit_generator), bitgen.pcg64_address(g.bit_generator))
    work = np.empty(ROW_BYTES, dtype=np.intp)
    tail = _byte_table(q).tail_cdf[0]
    kernels.unary_rows.python(gen, cells, first, tail, _tail_guide(q), got.reshape(-1), 3, 0xF8, x, bits, work, d)
    assert np.array_equal(got, want)
    y, uu = np.empty(n, dtype=np.int16), rng.random(n)
    kernels.grr_shift.python(x, uu, math.e + d - 1, d, y)
    assert np.array_equal(y, (x + np.minimum(uu * (math.e + d - 1), d - 1).astype(int) + 1) % d)


def test_tail_guide_finds_what_searchsorted_finds():
    """The compiled tail search (guide, then a forward scan) is np.searchsorted(cdf, u, 'right') capped at V − 1."""
    for q in (1 / (math.e + 1), 0.05, 0.5, 0.93):
        cdf, guide = _byte_table(q).tail_cdf[0], _tail_guide(q)
        u = np.concatenate((np.random.default_rng(1).random(20_000), cdf[:-1], np.nextafter(cdf[:-1], 0)))
        u = u[(u >= 0) & (u < 1)]
        want = np.minimum(np.searchsorted(cdf, u, side="right"), cdf.size - 1)
        v = guide[(u * guide.size).astype(np.intp)]
        for _ in range(cdf.size):  # the kernel's scan, vectorised
            step = (v < cdf.size - 1) & (cdf[np.minimum(v, cdf.size - 1)] <= u)
            v = v + step
        assert np.array_equal(np.minimum(v, cdf.size - 1), want)


@pytest.mark.parametrize(
    "make", [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937]
)
def test_every_bit_generator_gives_the_same_reports_and_state(make):
    """The kernel draws through the BitGenerator's C entry points: the same words as the numpy path, for each kind."""
    x = _items(40, 30_001, 2)
    for orc in (OUE(40, 1.0), BRR(40, 0.5)):

        def draw():
            g = np.random.Generator(make(8))
            return orc.randomize(x, g), g.random(3)

        (slow, s_next), (fast, f_next) = _both(draw)
        assert np.array_equal(slow, fast) and np.array_equal(s_next, f_next), make.__name__


def test_mt19937_bits_are_unbiased():
    """MT19937's raw words hold 32 random bits: the samplers draw 64-bit words (next_uint64), not raw words.

    Drawn from raw words, a quarter of the 16-bit cells would be 0 (byte 0) and half the own bits 0.
    """
    d, n, q = 16, 40_000, 1 / (math.e + 1)
    x = _items(d, n, 4)
    bits = np.unpackbits(OUE(d, 1.0).randomize(x, np.random.Generator(np.random.MT19937(5))), axis=1)
    own = bits[np.arange(n), x]
    other = (bits.sum() - own.sum()) / (n * (d - 1))
    assert abs(own.mean() - 0.5) < 5 * math.sqrt(0.25 / n)
    assert abs(other - q) < 5 * math.sqrt(q * (1 - q) / (n * (d - 1)))


def test_the_generator_is_held_while_the_kernel_draws():
    """randomize takes the BitGenerator's lock: another thread holding it makes the draw wait (no interleaved words)."""
    jit.numpy_and_compiled(lambda: None, kernels.unary_rows)  # compile first (MECHOPT_JIT as the caller set it)
    g, x = np.random.default_rng(0), _items(64, 1000, 1)
    done = []
    with g.bit_generator.lock:
        t = threading.Thread(target=lambda: done.append(OUE(64, 1.0).randomize(x, g)))
        t.start()
        t.join(0.3)
        assert not done  # waiting for the lock, not drawing
    t.join()
    assert np.array_equal(done[0], OUE(64, 1.0).randomize(x, np.random.default_rng(0)))


def test_kernels_are_off_without_numba_switch(monkeypatch):
    monkeypatch.setenv("MECHOPT_JIT", "0")
    assert not jit.available()
    assert all(k.compiled() is None for k in (kernels.unary_rows, kernels.grr_shift))


@pytest.mark.parametrize("r0,r1", [(0, 0), (0, 8), (3, 5), (5, 37), (8, 64), (13, 200), (0, 203)])
def test_two_byte_own_bits_on_any_row_range_match_numpy(r0, r1):
    """Rows r0..r1−1 of 2-byte rows (d = 9..16), unaligned to the 8 rows per own-bit byte: the compiled pass,
    its Python reference and :func:`own_bits_numpy` set the same bits and leave the other rows alone."""
    rng = np.random.default_rng(r0 * 1000 + r1)
    n = 203
    x, bits = rng.integers(0, 16, n), rng.integers(0, 256, (n + 7) // 8).astype(np.uint8)
    rows = rng.integers(0, 256, (n, 2)).astype(np.uint8)
    want = rows.copy()
    sub = want[r0:r1]
    kernels.own_bits_numpy(sub, x[r0:r1], np.packbits(np.unpackbits(bits, bitorder="little")[r0:r1], bitorder="little"))
    for fn in (kernels._finish_rows, _compiled_finish()):
        got = rows.copy()
        fn(got.reshape(-1), 2, 0xFF, x, bits, r0, r1)
        assert np.array_equal(got, want), fn


@jit.kernel
def _finish(flat, x, bits, r0, r1):
    kernels._finish_rows(flat, 2, 0xFF, x, bits, r0, r1)


def _compiled_finish():
    fn = _finish.compiled()
    if fn is None:  # pragma: no cover - numba is in [test]
        pytest.skip("numba missing")
    return lambda flat, width, pad, x, bits, r0, r1: fn(flat, x, bits, r0, r1)
