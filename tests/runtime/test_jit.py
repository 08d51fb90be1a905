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


@jit.helper
def _twice_plus(v, w):
    return 2 * v + w


@jit.kernel
def _helper_user(a):
    for i in range(a.size):
        a[i] = _twice_plus(a[i], i)


def test_helpers_compile_into_kernels():
    jit.numpy_and_compiled(lambda: None, _helper_user)
    a, b = np.arange(5), np.arange(5)
    _helper_user._compiled(a)
    _helper_user.python(b)
    assert a.tolist() == b.tolist() == [0, 3, 6, 9, 12]
