"""The optional numba kernels: compiled when installed, off with MECHOPT_JIT=0."""

import numpy as np

from mechopt.runtime import jit


@jit.kernel
def _cumsum_into(a, out):
    s = 0
    for i in range(a.size):
        s += a[i]
        out[i] = s


def test_kernel_switch_follows_environment(monkeypatch):
    monkeypatch.setenv("MECHOPT_JIT", "0")
    assert not jit.available()
    assert _cumsum_into.compiled() is None


def test_compiled_twin_gives_the_python_numbers():
    a = np.arange(1, 2001, dtype=np.int64)
    fast, slow = np.empty_like(a), np.empty_like(a)
    jit.numpy_and_compiled(lambda: None, _cumsum_into)  # numba is in [test]: compile whatever MECHOPT_JIT says
    _cumsum_into._compiled(a, fast)
    _cumsum_into.python(a, slow)
    assert np.array_equal(fast, slow)
    assert fast[-1] == 2000 * 2001 // 2


BIT_GENERATORS = [np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64, np.random.MT19937]


@jit.kernel
def _draw_into(gen, words, doubles):
    u64, dbl, state = gen
    for i in range(words.size):
        words[i] = jit.next_uint64(u64, state)
        doubles[i] = jit.next_double(dbl, state)


@jit.helper
def _twice_plus(v, w):
    return 2 * v + w


@jit.kernel
def _helper_user(a):
    for i in range(a.size):
        a[i] = _twice_plus(a[i], i)


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
            fn(jit.bitgen_handles(g.bit_generator), w, d)
            assert np.array_equal(w, want_w) and np.array_equal(d, want_d), make.__name__
            assert g.random() == after


def test_helpers_compile_into_kernels():
    jit.numpy_and_compiled(lambda: None, _helper_user)
    a, b = np.arange(5), np.arange(5)
    _helper_user._compiled(a)
    _helper_user.python(b)
    assert a.tolist() == b.tolist() == [0, 3, 6, 9, 12]
