"""Frequency oracles as :class:`mechopt.Mechanism` objects that keep their specialised samplers.

``GRR(d, eps).mechanism()`` (and OUE/BRR, k-subset where their output set can
be listed) is a Mechanism over the oracle's outputs — labels, estimators,
save/load, audits — whose :meth:`~mechopt.Mechanism.randomize` runs the
oracle's own vectorised randomizer instead of the generic alias tables.
GRR keeps the Mechanism's stream contract exactly (report i uses the i-th
double of the stream, so chunks of any size give the reports of one call);
OUE and k-subset draw their reports block by block (:data:`ORACLE_BLOCK`
reports per block), so chunks that are multiples of the block give the
reports of one call.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles import GRR
>>> m = GRR(4, 1.0).mechanism(inputs=list("abcd"))
>>> m.claim["eps"], m.randomize(["a", "b", "c"], rng=0)
(1.0, ['a', 'd', 'd'])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mechopt.errors import TooLargeError

__all__ = ["OracleSampler", "oracle_mechanism", "ORACLE_BLOCK", "MAX_CELLS"]

ORACLE_BLOCK = 1 << 16  # reports per block for the bit-vector oracles (a chunk multiple of it changes nothing)
MAX_CELLS = 1 << 25  # Q of at most this many cells (256 MB) is materialised for a Mechanism


class OracleSampler:
    """The Mechanism sampler interface (``sample(x, rng, threads=None)`` → output indices) over an oracle.

    Examples
    --------
    >>> from mechopt.oracles import GRR
    >>> OracleSampler(GRR(3, 50.0)).sample(np.array([0, 2, 1]), 1).tolist()
    [0, 2, 1]
    """

    def __init__(self, oracle: Any) -> None:
        self.oracle = oracle

    def sample(self, x: np.ndarray, rng: Any = None, *, threads: int | None = None) -> np.ndarray:
        """Output indices of the oracle's reports for input indices ``x`` (threads do not change them)."""
        from mechopt.mechanism.sampling import as_generator

        gen = as_generator(rng)
        x = np.asarray(x)
        orc = self.oracle
        if orc.n_outputs() == orc.d:  # GRR: one double per report already
            return orc.randomize(x, gen).astype(np.intp)
        out = np.empty(x.size, dtype=np.intp)
        for lo in range(0, x.size, ORACLE_BLOCK):
            rep = orc.randomize(x[lo : lo + ORACLE_BLOCK], gen)
            out[lo : lo + ORACLE_BLOCK] = orc.output_rank(rep)
        return out


def oracle_mechanism(oracle: Any, inputs: Any = None) -> Any:
    """A :class:`mechopt.Mechanism` for ``oracle`` (claim ε-LDP at its ε) that randomizes with its fast sampler.

    Raises TooLargeError when the channel has more than :data:`MAX_CELLS` cells
    (OUE beyond d = 16, large k-subsets): use the oracle's own ``randomize``,
    ``support_counts`` and ``estimate`` there.

    Examples
    --------
    >>> from mechopt.oracles import KSubset
    >>> m = oracle_mechanism(KSubset(5, 1.0, 2))
    >>> m.shape, m.outputs[:2]
    ((5, 10), ((0, 1), (0, 2)))
    """
    from mechopt.mechanism import Mechanism
    from mechopt.mechanism.files import provenance_now

    cells = oracle.d * oracle.n_outputs()
    if cells > MAX_CELLS:
        raise TooLargeError(
            f"{type(oracle).__name__}(d={oracle.d}) has {cells:.3g} channel cells (> {MAX_CELLS:.3g}): "
            "use the oracle's randomize / support_counts / estimate directly"
        )
    label = f"{type(oracle).__name__}(d={oracle.d}, eps={oracle.eps:g}" + (
        f", k={oracle.k})" if hasattr(oracle, "k") else ")"
    )
    m = Mechanism(
        oracle.matrix(),
        inputs=inputs,
        outputs=inputs if inputs is not None and oracle.n_outputs() == oracle.d else oracle.output_labels(),
        claim=("ldp", oracle.eps),
        provenance=provenance_now(label),
    )
    m._sampler = OracleSampler(oracle)
    return m
