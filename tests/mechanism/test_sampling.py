"""The sampler: exact alias tables, one uniform per report, reports independent of chunks and threads."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from mechopt import Mechanism
from mechopt.errors import ParamError, ProblemError
from mechopt.mechanism.sampling import BLOCK, AliasSampler, alias_tables


def _channel(seed: int, d: int, k: int, zeros: bool = True) -> np.ndarray:
    rng = np.random.default_rng(seed)
    Q = rng.dirichlet(np.full(k, 0.7), size=d)
    if zeros:  # structural zeros, as designed mechanisms have
        Q[rng.random((d, k)) < 0.3] = 0.0
        Q[np.arange(d), rng.integers(0, k, d)] += 0.1
        Q /= Q.sum(axis=1, keepdims=True)
    return Q


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.integers(1, 9), k=st.integers(1, 40))
def test_alias_tables_reproduce_every_row_exactly(seed: int, d: int, k: int) -> None:
    """Q[x, y] = (prob[x, y] + Σ_{j: alias[x, j] = y} (1 − prob[x, j])) / k, and zeros are never aliased."""
    Q = _channel(seed, d, k)
    prob, alias = alias_tables(Q)
    assert np.all((prob >= 0) & (prob <= 1)) and np.all((alias >= 0) & (alias < k))
    back = prob.copy()
    for x in range(d):
        np.add.at(back[x], alias[x], 1.0 - prob[x])
    np.testing.assert_allclose(back / k, Q, rtol=0, atol=1e-14)
    for x in range(d):
        zero = Q[x] == 0
        assert np.all(prob[x][zero] == 0) and not np.any(zero[alias[x][prob[x] < 1]])


def test_report_i_uses_the_i_th_uniform_of_the_seeded_stream() -> None:
    Q = _channel(1, 5, 7)
    s = AliasSampler(Q)
    x = np.random.default_rng(2).integers(0, 5, 3 * BLOCK + 17)
    u = np.random.default_rng(11).random(x.size)
    np.testing.assert_array_equal(s.sample(x, 11), s.sample_uniforms(x, u))


def test_a_zero_entry_is_never_drawn_and_frequencies_match_q() -> None:
    """Chi-square goodness of fit per input row (200 000 reports each, seeded; p > 1e-4)."""
    Q = _channel(3, 4, 9)
    m = Mechanism(Q)
    x = np.repeat(np.arange(4), 200_000)
    y = m.randomize_indices(x, 5)
    for r in range(4):
        counts = np.bincount(y[x == r], minlength=9)
        assert np.all(counts[Q[r] == 0] == 0)
        keep = Q[r] > 0
        assert chisquare(counts[keep], 200_000 * Q[r][keep]).pvalue > 1e-4


@settings(max_examples=30, deadline=None)
@given(
    cuts=st.lists(st.integers(0, 2 * BLOCK + 500), max_size=6),
    seed=st.integers(0, 2**32 - 1),
    chunk=st.integers(300, 2 * BLOCK),
)
def test_reports_do_not_depend_on_chunks(cuts: list[int], seed: int, chunk: int) -> None:
    """One Generator passed to successive chunks gives the reports of one call; so does any chunk_size."""
    m = Mechanism(_channel(4, 6, 5), inputs=list("abcdef"))
    x = np.random.default_rng(0).integers(0, 6, 2 * BLOCK + 500)
    whole = m.randomize_indices(x, seed)
    g = np.random.default_rng(seed)
    bounds = [0, *sorted(cuts), x.size]
    parts = [m.randomize_indices(x[a:b], g) for a, b in zip(bounds, bounds[1:])]
    np.testing.assert_array_equal(np.concatenate(parts), whole)
    labels = np.array(list("abcdef"))[x]
    np.testing.assert_array_equal(m.randomize(labels, rng=seed, chunk_size=chunk), whole)


@pytest.mark.parametrize("threads", [2, 3, 4, 7])
@pytest.mark.parametrize("bitgen", [np.random.PCG64, np.random.Philox, np.random.PCG64DXSM])  # Philox: serial
def test_reports_do_not_depend_on_threads(threads: int, bitgen: type) -> None:
    m = Mechanism(_channel(5, 8, 12))
    x = np.random.default_rng(1).integers(0, 8, 5 * BLOCK + 3)
    one = m.randomize_indices(x, np.random.Generator(bitgen(9)))
    g = np.random.Generator(bitgen(9))
    many = m.randomize_indices(x, g, threads=threads)
    np.testing.assert_array_equal(many, one)
    ref = np.random.Generator(bitgen(9))
    ref.random(x.size)  # the caller's generator moved on by n draws, as if it had drawn them itself
    assert g.random() == ref.random()


@pytest.mark.parametrize("bitgen", [np.random.SFC64, np.random.MT19937])
def test_a_generator_without_advance_by_draws_runs_on_one_thread_with_the_same_reports(bitgen: type) -> None:
    m = Mechanism(_channel(6, 3, 4))
    x = np.random.default_rng(1).integers(0, 3, 2 * BLOCK + 1)
    one = m.randomize_indices(x, np.random.Generator(bitgen(3)))
    g = np.random.Generator(bitgen(3))
    np.testing.assert_array_equal(m.randomize_indices(x, g, threads=4), one)
    ref = np.random.Generator(bitgen(3))
    ref.random(x.size)
    assert g.random() == ref.random()


def test_threads_keep_the_buffered_32_bit_value_of_the_callers_generator() -> None:
    m = Mechanism(_channel(7, 3, 4))
    x = np.zeros(3 * BLOCK, dtype=int)
    g1, g2 = np.random.default_rng(4), np.random.default_rng(4)
    g1.integers(0, 2**16, dtype=np.uint32), g2.integers(0, 2**16, dtype=np.uint32)  # buffers half a draw
    m.randomize_indices(x, g1), m.randomize_indices(x, g2, threads=3)
    assert (
        g1.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
        == g2.integers(0, 2**32, size=3, dtype=np.uint32).tolist()
    )


def test_the_same_seed_gives_the_same_reports_and_another_seed_others() -> None:
    m = Mechanism(np.full((2, 3), 1 / 3))
    x = np.zeros(1000, dtype=int)
    a, b, c = m.randomize_indices(x, 1), m.randomize_indices(x, 1), m.randomize_indices(x, 2)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_identity_channel_reports_the_input() -> None:
    x = np.random.default_rng(0).integers(0, 50, 10_000)
    np.testing.assert_array_equal(Mechanism(np.eye(50)).randomize_indices(x, 0), x)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda m: m.randomize_indices(np.array([0, 1, 2, 1]), 0), r"input index 2 at position 2 is outside 0\.\.1"),
        (lambda m: m.randomize_indices(np.array([0.0, 1.0]), 0), "1-D integer array"),
        (lambda m: m.randomize_indices(np.array([-1]), 0), "position 0"),
    ],
)
def test_bad_indices_are_refused(call, match) -> None:
    with pytest.raises(ProblemError, match=match):
        call(Mechanism(np.eye(2)))


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rng": "seed"}, "rng must be a seed"),
        ({"rng": True}, "True is not a seed"),  # was read as the seed 1
        ({"rng": np.random.RandomState(0)}, "RandomState"),
        ({"rng": 0, "threads": 0}, "threads must be a positive integer"),
        ({"rng": 0, "chunk_size": 0}, "chunk_size must be a positive integer"),
        ({"rng": 0, "chunk_size": 2.5}, "chunk_size must be a positive integer"),
    ],
)
def test_bad_randomize_options_are_refused(kwargs, match) -> None:
    with pytest.raises(ParamError, match=match):
        Mechanism(np.eye(2)).randomize([0, 1], **kwargs)


def _numpy_then_compiled(draw):
    """``draw()`` with the kernels off (numpy path), then with the compiled alias kernel."""
    from mechopt.mechanism.sampling import alias_draw
    from mechopt.runtime.jit import numpy_and_compiled

    return numpy_and_compiled(draw, alias_draw)


@pytest.mark.parametrize("d", [1, 2, 7, 8, 9, 16, 255, 1024])
def test_compiled_alias_draws_equal_numpy_draws(d: int) -> None:
    """Same seed → the same reports with and without numba, over sizes that straddle BLOCK, and with threads."""
    for k, zeros in ((d, True), (max(1, d // 3), False), (d + 5, True)):
        m = Mechanism(_channel(d + k, d, k, zeros))
        for n in (0, 1, BLOCK + 17):
            x = np.random.default_rng(n).integers(0, d, n)
            slow, fast = _numpy_then_compiled(lambda: m.randomize_indices(x, n))
            assert np.array_equal(slow, fast), (d, k, n)
    x = np.random.default_rng(3).integers(0, d, 2 * BLOCK + 3)
    slow, fast = _numpy_then_compiled(lambda: m.randomize_indices(x, 5, threads=2))
    assert np.array_equal(slow, fast) and np.array_equal(fast, m.randomize_indices(x, 5))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), d=st.integers(1, 12), k=st.integers(1, 30), n=st.integers(0, 2000))
def test_compiled_alias_identity_property(seed: int, d: int, k: int, n: int) -> None:
    s = AliasSampler(_channel(seed, d, k))
    x = np.random.default_rng(seed).integers(0, d, n)
    slow, fast = _numpy_then_compiled(lambda: s.sample(x, seed))
    assert np.array_equal(slow, fast)


def test_threaded_calls_sharing_one_generator_never_reuse_its_draws() -> None:
    """Two threads call sample(threads=2) on one Generator at once: together they are one call of 2n, in some order.

    (Each threaded call copied the generator's state unlocked, so both calls drew the same uniforms: identical
    reports for different users.)
    """
    import threading

    Q = np.full((2, 50), 1 / 50)
    s = AliasSampler(Q)
    n = 3 * BLOCK
    x = np.zeros(n, dtype=np.int64)
    whole = s.sample(np.zeros(2 * n, dtype=np.int64), np.random.default_rng(7))
    for _ in range(3):
        g, res, bar = np.random.default_rng(7), [None, None], threading.Barrier(2)

        def run(i: int) -> None:
            bar.wait()
            res[i] = s.sample(x, g, threads=2)

        ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        pair = sorted((r.tolist() for r in res), key=lambda r: r != whole[:n].tolist())
        assert pair == [whole[:n].tolist(), whole[n:].tolist()]
