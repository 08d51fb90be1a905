"""Hypothesis strategies for priors, channels and privacy levels (for tests, yours and ours).

Needs the ``test`` extra (hypothesis).

Examples
--------
>>> from hypothesis import given, settings as hsettings
>>> from mechopt.testing import priors
>>> @hsettings(max_examples=5)
... @given(priors(min_size=2, max_size=4))
... def check(p):
...     assert abs(p.sum() - 1) < 1e-12 and (p > 0).all()
>>> check()
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

__all__ = ["priors", "channels", "eps_values", "prior_and_channel"]


@st.composite
def priors(draw, min_size: int = 2, max_size: int = 6, min_mass: float = 1e-3,
           allow_zero: bool = False) -> np.ndarray:
    """A probability vector with entries ≥ ``min_mass`` (or exactly 0 when ``allow_zero``)."""
    d = draw(st.integers(min_size, max_size))
    w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=d, max_size=d)))
    if allow_zero:
        zeros = draw(st.lists(st.booleans(), min_size=d, max_size=d))
        w = np.where(np.array(zeros) & (np.arange(d) > 0), 0.0, w)
    p = w / w.sum()
    p = np.where(p > 0, np.maximum(p, min_mass), 0.0)
    return p / p.sum()


@st.composite
def channels(draw, n_inputs: int, min_outputs: int = 1, max_outputs: int = 5,
             positive: bool = True) -> np.ndarray:
    """A row-stochastic matrix with ``n_inputs`` rows (strictly positive when ``positive``)."""
    m = draw(st.integers(min_outputs, max_outputs))
    lo = 0.01 if positive else 0.0
    rows = draw(st.lists(st.lists(st.floats(lo, 1.0), min_size=m, max_size=m),
                         min_size=n_inputs, max_size=n_inputs))
    M = np.array(rows, dtype=float)
    M[M.sum(axis=1) == 0, 0] = 1.0
    return M / M.sum(axis=1, keepdims=True)


def eps_values(lo: float = 0.05, hi: float = 4.0) -> st.SearchStrategy[float]:
    """Privacy levels ε in [lo, hi]."""
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


@st.composite
def prior_and_channel(draw, min_size: int = 2, max_size: int = 5, **kw) -> tuple[np.ndarray, np.ndarray]:
    """A prior and a channel with matching inputs."""
    p = draw(priors(min_size=min_size, max_size=max_size))
    return p, draw(channels(p.size, **kw))
