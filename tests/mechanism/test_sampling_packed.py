"""Large alias tables: the packed-cell kernel makes the numpy path's decisions, for any inputs, chunks and threads."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt import Mechanism
from mechopt.mechanism.sampling import BLOCK, AliasSampler, _count_outside, alias_draw_packed, in_range, pack_cells
from mechopt.runtime.jit import numpy_and_compiled


@functools.cache
def _mechanism(d: int) -> Mechanism:
    """A d × d channel with structural zeros (as designed mechanisms have); tables built once per d."""
    rng = np.random.default_rng(d)
    Q = rng.dirichlet(np.full(d, 0.7), size=d)
    Q[rng.random((d, d)) < 0.3] = 0.0
    Q[np.arange(d), rng.integers(0, d, d)] += 0.1
    m = Mechanism(Q / Q.sum(axis=1, keepdims=True))
    m.randomize_indices(np.zeros(1, dtype=np.intp), 0)  # build the sampler
    return m


def _inputs(kind: str, d: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(n + d)
    if kind == "one":  # every user holds the last input
        return np.full(n, d - 1)
    if kind == "half":
        return np.where(rng.random(n) < 0.5, 0, d - 1)
    return rng.integers(0, d, n)


@pytest.mark.parametrize("d", [255, 1024, 2048])
@pytest.mark.parametrize("kind", ["one", "half", "uniform"])
def test_compiled_reports_equal_numpy_reports_on_large_tables(d: int, kind: str) -> None:
    """Same seed → the same reports with and without numba; n is not a multiple of BLOCK."""
    m = _mechanism(d)
    assert m._alias()._pack == (d >= 1024)  # 255: 650 KB of tables, the plain kernel; above 2 MB the packed one
    x = _inputs(kind, d, 2 * BLOCK + 1237)
    slow, fast = numpy_and_compiled(lambda: m.randomize_indices(x, 11), alias_draw_packed)
    assert np.array_equal(slow, fast)
    Q = m.Q
    assert np.all(Q[x, fast] > 0)  # a zero of Q is never reported


@pytest.mark.parametrize("d", [1024, 2048])
def test_packed_reports_do_not_depend_on_chunks_or_threads(d: int) -> None:
    m = _mechanism(d)
    x = _inputs("uniform", d, 3 * BLOCK + 5)
    one = m.randomize(x, rng=4)
    assert np.array_equal(one, m.randomize(x, rng=4, chunk_size=BLOCK // 3 + 7, threads=2))
    g = np.random.default_rng(4)
    parts = [m.randomize(x[: BLOCK + 1], rng=g), m.randomize(x[BLOCK + 1 :], rng=g, threads=2)]
    assert np.array_equal(one, np.concatenate(parts))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 600))
def test_uniforms_at_every_threshold_get_the_double_compare_decision(seed: int, k: int) -> None:
    """Uniforms on, just below and just above each cell's threshold/k: the 16-bit test and its fallback agree."""
    rng = np.random.default_rng(seed)
    s = AliasSampler(rng.dirichlet(np.full(k, 0.5), size=3))
    f = np.arange(s.threshold.size)
    base = np.minimum(s.threshold / k, np.nextafter(1.0, 0.0))
    u = np.concatenate([base, np.nextafter(base, 0.0), np.nextafter(base, 1.0), rng.random(f.size)])
    u = np.minimum(u, np.nextafter(1.0, 0.0))
    x = np.tile(f // k, 4)
    out = np.empty(x.size, dtype=np.intp)
    alias_draw_packed.python(x, u, k, pack_cells(s.threshold, s.alias, k), s.threshold, s.alias, out)
    v = u * k
    j = v.astype(np.intp)
    flat = x * k + j
    assert np.array_equal(out, np.where(v < s.threshold[flat], j, s.alias[flat]))


def test_k_times_a_uniform_never_rounds_up_to_k() -> None:
    """Why the kernels need no clip: the largest uniform times k stays below k, for every k ≤ 2¹⁷."""
    k = np.arange(1, 1 << 17, dtype=float)
    assert np.all(np.nextafter(1.0, 0.0) * k < k)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64])
def test_in_range_is_the_same_with_and_without_numba(dtype: type) -> None:
    signed = np.dtype(dtype).kind == "i"
    cases = [(np.array([0, 5, 2], dtype=dtype), 6, True), (np.array([0, 5, 2], dtype=dtype), 5, False)]
    cases.append((np.array([3, -1] if signed else [3, 1], dtype=dtype), 4, not signed))
    cases.append((np.array([], dtype=dtype), 1, True))
    for x, d, want in cases:
        assert numpy_and_compiled(lambda: in_range(x, d), _count_outside) == (want, want)


@pytest.mark.parametrize("d", [200, 400])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64])
def test_small_integer_inputs_give_the_int64_reports_on_both_paths(d: int, dtype: type) -> None:
    """x·k is formed in intp: on main's numpy path int16 inputs wrapped at x·k > 32767 (here 199·200)."""
    rng = np.random.default_rng(d)
    m = Mechanism(rng.dirichlet(np.ones(d), size=d))
    x = rng.integers(0, min(d, int(np.iinfo(dtype).max) + 1), BLOCK + 99)
    want = m.randomize_indices(x, 8)
    slow, fast = numpy_and_compiled(lambda: m.randomize_indices(x.astype(dtype), 8), alias_draw_packed)
    assert np.array_equal(slow, want) and np.array_equal(fast, want)
