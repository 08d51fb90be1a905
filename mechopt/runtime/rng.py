"""One reading of a random-number argument: :func:`as_generator` (seeds, bit generators, Generators).

Every sampler, oracle and simulation of mechopt takes ``rng`` through it, so the same argument means
the same stream everywhere: an integer seed (or a ``SeedSequence``) starts ``numpy.random.default_rng``,
a bit generator is wrapped, a ``Generator`` is used as it is (and advanced), a legacy ``RandomState`` is
refused (it has a different stream and no bit generator to draw from in kernels).

Examples
--------
>>> from mechopt.runtime.rng import as_generator
>>> as_generator(3).random() == as_generator(3).random()
True
"""

from __future__ import annotations

from typing import Any, Union

import numpy as np

from mechopt.errors import ParamError

__all__ = ["as_generator", "RngLike"]

#: What an ``rng`` argument may be: a seed, a ``SeedSequence``, a bit generator, a ``Generator``, or None.
RngLike = Union[int, np.random.SeedSequence, np.random.BitGenerator, np.random.Generator, None]


def as_generator(rng: Any, *, seeded: bool = False) -> np.random.Generator:
    """A ``numpy.random.Generator`` from a seed, a ``SeedSequence``, a bit generator, a Generator or None.

    ``None`` draws fresh entropy from the OS, unless ``seeded`` (simulations that must be reproducible),
    where it is a :class:`~mechopt.errors.ParamError`.

    >>> as_generator(3).random() == np.random.default_rng(3).random()
    True
    >>> as_generator(None, seeded=True)
    Traceback (most recent call last):
    ...
    mechopt.errors.ParamError: rng: give a seed or a numpy.random.Generator (rng=...): a run must be reproducible
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.BitGenerator):
        return np.random.Generator(rng)
    if isinstance(rng, (bool, np.bool_)):  # numpy would read True as the seed 1
        raise ParamError(f"rng: {rng!r} is not a seed; pass an integer seed, a Generator or None")
    if isinstance(rng, np.random.RandomState):
        raise ParamError("rng: a legacy RandomState is not supported; pass a seed or numpy.random.default_rng(seed)")
    if rng is None and seeded:
        raise ParamError("rng: give a seed or a numpy.random.Generator (rng=...): a run must be reproducible")
    try:
        return np.random.default_rng(rng)
    except (TypeError, ValueError) as exc:
        raise ParamError(
            f"rng must be a seed (int), a SeedSequence, a numpy Generator or None, got {rng!r} ({exc})"
        ) from None
