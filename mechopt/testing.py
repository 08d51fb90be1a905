"""Hypothesis strategies for priors, channels and privacy levels (for tests, yours and ours).

Needs hypothesis (the ``test`` extra), imported when a strategy is built: without it
the strategies raise :class:`~mechopt.errors.MissingDependency` naming ``pip install 'mechopt[test]'``.

Examples
--------
>>> from hypothesis import given, settings as hsettings
>>> from mechopt.testing import priors
>>> @hsettings(max_examples=5, deadline=None)
... @given(priors(min_size=2, max_size=4))
... def check(p):
...     assert abs(p.sum() - 1) < 1e-12 and (p > 0).all()
>>> check()
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from mechopt.runtime.optional import require

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

__all__ = ["priors", "channels", "eps_values", "prior_and_channel"]


def _st() -> Any:
    """``hypothesis.strategies``, imported on first use (hypothesis is a test dependency, not a core one)."""
    return require("hypothesis.strategies", "test", "mechopt.testing strategies")


def priors(
    min_size: int = 2, max_size: int = 6, min_mass: float = 1e-3, allow_zero: bool = False
) -> SearchStrategy[np.ndarray]:
    """A probability vector with entries ≥ ``min_mass`` (or exactly 0 when ``allow_zero``)."""
    st = _st()

    @st.composite
    def draw_prior(draw: Any) -> np.ndarray:
        d = draw(st.integers(min_size, max_size))
        w = np.array(draw(st.lists(st.floats(0.05, 1.0), min_size=d, max_size=d)))
        if allow_zero:
            zeros = draw(st.lists(st.booleans(), min_size=d, max_size=d))
            w = np.where(np.array(zeros) & (np.arange(d) > 0), 0.0, w)
        p = w / w.sum()
        p = np.where(p > 0, np.maximum(p, min_mass), 0.0)
        return p / p.sum()

    return draw_prior()


def channels(
    n_inputs: int, min_outputs: int = 1, max_outputs: int = 5, positive: bool = True
) -> SearchStrategy[np.ndarray]:
    """A row-stochastic matrix with ``n_inputs`` rows (strictly positive when ``positive``)."""
    st = _st()

    @st.composite
    def draw_channel(draw: Any) -> np.ndarray:
        m = draw(st.integers(min_outputs, max_outputs))
        lo = 0.01 if positive else 0.0
        rows = draw(
            st.lists(st.lists(st.floats(lo, 1.0), min_size=m, max_size=m), min_size=n_inputs, max_size=n_inputs)
        )
        M = np.array(rows, dtype=float)
        M[M.sum(axis=1) == 0, 0] = 1.0
        return M / M.sum(axis=1, keepdims=True)

    return draw_channel()


def eps_values(lo: float = 0.05, hi: float = 4.0) -> SearchStrategy[float]:
    """Privacy levels ε in [lo, hi]."""
    return _st().floats(lo, hi, allow_nan=False, allow_infinity=False)


def prior_and_channel(min_size: int = 2, max_size: int = 5, **kw: Any) -> SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """A prior and a channel with matching inputs (``kw`` goes to :func:`channels`)."""
    st = _st()

    @st.composite
    def draw_pair(draw: Any) -> tuple[np.ndarray, np.ndarray]:
        p = draw(priors(min_size=min_size, max_size=max_size))
        return p, draw(channels(p.size, **kw))

    return draw_pair()
