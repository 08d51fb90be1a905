"""Draws from a numpy BitGenerator inside kernels: the Generator's own words and doubles, in its order."""

import numpy as np
import pytest

from mechopt.runtime import bitgen, jit

BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937]


@jit.kernel
def _draw_into(gen, words, doubles):
    u64, dbl, state = gen
    for i in range(words.size):
        words[i] = bitgen.next_uint64(u64, state)
        doubles[i] = bitgen.next_double(dbl, state)


def test_compiled_draws_are_the_generators_words_and_doubles():
    """next_uint64 / next_double, compiled and in Python, draw what integers(0, 2**64) / random draw, interleaved."""
    jit.numpy_and_compiled(lambda: None, _draw_into)
    for make in BIT_GENERATORS:
        ref = np.random.Generator(make(7))
        want_w, want_d = np.empty(300, np.uint64), np.empty(300)
        for i in range(300):
            want_w[i] = ref.integers(0, 2**64, dtype=np.uint64)
            want_d[i] = ref.random()
        after = ref.random()  # where the Generator's own calls leave the generator
        for fn in (_draw_into._compiled, _draw_into.python):
            g = np.random.Generator(make(7))
            w, d = np.empty(300, np.uint64), np.empty(300)
            fn(bitgen.bitgen_handles(g.bit_generator), w, d)
            assert np.array_equal(w, want_w) and np.array_equal(d, want_d), make.__name__
            assert g.random() == after


@jit.kernel
def _pcg_words(at, out):
    lo, hi, inc_lo, inc_hi = (
        bitgen.load_u64(at),
        bitgen.load_u64(at + 8),
        bitgen.load_u64(at + 16),
        bitgen.load_u64(at + 24),
    )
    for i in range(out.size):
        hi, lo = bitgen.pcg64_step(hi, lo, inc_hi, inc_lo)
        out[i] = bitgen.pcg64_output(hi, lo)
    bitgen.store_u64(at, lo)
    bitgen.store_u64(at + 8, hi)


@pytest.mark.parametrize("seed", [0, 1, 2**63 + 5])
def test_pcg64_stepped_in_registers_is_random_raw(seed):
    """The PCG64 state read at pcg64_address, stepped and stored back, gives random_raw's words and leaves the
    generator where random_raw leaves it (compiled and in Python)."""
    jit.numpy_and_compiled(lambda: None, _pcg_words)
    want = np.random.PCG64(seed).random_raw(1001)
    for fn, n in ((_pcg_words._compiled, 1000), (_pcg_words.python, 50)):
        bg = np.random.PCG64(seed)
        out = np.empty(n, np.uint64)
        fn(bitgen.pcg64_address(bg), out)
        assert np.array_equal(out, want[:n])
        assert bg.random_raw() == want[n]


def test_pcg64_address_only_for_pcg64():
    assert bitgen.pcg64_address(np.random.PCG64(0)) != 0
    for make in (np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937):
        assert bitgen.pcg64_address(make(0)) == 0


@jit.kernel
def _popcounts(words, out):
    for i in range(words.size):
        out[i] = bitgen.popcount64(words[i])


def test_popcount64_counts_the_set_bits_compiled_and_in_python():
    words = np.random.default_rng(3).bit_generator.random_raw(500)
    words[:3] = [0, 2**64 - 1, 1 << 63]
    want = np.unpackbits(words.view(np.uint8)).reshape(-1, 64).sum(axis=1)
    jit.numpy_and_compiled(lambda: None, _popcounts)
    for fn in (_popcounts._compiled, _popcounts.python):
        out = np.empty(words.size, dtype=np.int64)
        fn(words, out)
        assert np.array_equal(out, want) and out[:3].tolist() == [0, 64, 1]
