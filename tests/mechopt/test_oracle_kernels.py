"""The compiled sampler kernels (numba) give bit-identical reports to the numpy path for the same seed."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from mechopt.oracles import kernels
from mechopt.oracles.bits import BRR, OUE
from mechopt.oracles.frequency import GRR
from mechopt.oracles.packed import ROW_BYTES, _byte_cells, bernoulli_rows
from mechopt.runtime import jit

DS = (2, 7, 8, 9, 16, 255, 1024)


def _both(draw):
    """``draw()`` with the kernels off (numpy path), then on (compiled)."""
    return jit.numpy_and_compiled(draw, kernels.byte_rows)


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


def test_python_references_match_the_numpy_path():
    """The kernels' plain-Python loops (their readable reference) compute what the numpy path does."""
    rng = np.random.default_rng(5)
    cells, first = _byte_cells(0.2)
    u = rng.integers(0, 1 << 16, 20_000).astype(np.uint16)
    dst, tail = np.empty(u.size, dtype=np.uint8), np.empty(u.size, dtype=np.intp)
    t = kernels.byte_rows.python(cells, u, first, dst, tail)
    assert np.array_equal(dst, cells[u]) and np.array_equal(tail[:t], np.flatnonzero(u >= first))
    d, n = 21, 500
    x = _items(d, n, 6)
    out, y = np.zeros((n, 3), dtype=np.uint8), np.empty(n, dtype=np.int16)
    bits = rng.integers(0, 256, (n + 7) // 8).astype(np.uint8)
    kernels.own_bits.python(out.reshape(-1), 3, x, bits, 0, n)
    unpacked = np.unpackbits(out, axis=1)
    assert np.array_equal(unpacked[np.arange(n), x], np.unpackbits(bits, count=n, bitorder="little"))
    assert unpacked.sum() == unpacked[np.arange(n), x].sum()
    uu = rng.random(n)
    kernels.grr_shift.python(x, uu, math.e + d - 1, d, y)
    assert np.array_equal(y, (x + np.minimum(uu * (math.e + d - 1), d - 1).astype(int) + 1) % d)


def test_kernels_are_off_without_numba_switch(monkeypatch):
    monkeypatch.setenv("MECHOPT_JIT", "0")
    assert not jit.available()
    assert all(k.compiled() is None for k in (kernels.byte_rows, kernels.own_bits, kernels.grr_shift))
