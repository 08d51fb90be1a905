"""The :class:`Mechanism`: a channel Q with labelled inputs and outputs that randomizes data and estimates from reports.

A Mechanism is what a user carries from a design to data: ``Q[x, y] = P(Y=y | X=x)``
(rows are inputs), the labels of its inputs and outputs, the prior and privacy
claim it was designed for, its certificate and its provenance. It randomizes
values (:meth:`Mechanism.randomize`, seeded, chunk- and thread-independent:
:mod:`mechopt.mechanism.sampling`) and estimates the input distribution from
reports (:meth:`~mechopt.mechanism.inference.Inference.estimate`: :mod:`mechopt.mechanism.estimators`); what it
tells from reports (identifiability, estimates, posterior means in the unit of
the design's values) is its base class :class:`~mechopt.mechanism.inference.Inference`.

Examples
--------
>>> import numpy as np
>>> from mechopt import Mechanism
>>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "yes"], outputs=["N", "Y"])
>>> values = np.array(["yes"] * 30_000 + ["no"] * 70_000)
>>> reports = m.randomize(values, rng=1)
>>> reports[:4].tolist()
['Y', 'Y', 'N', 'Y']
>>> est = m.estimate(reports, method="linear", ci=0.95)
>>> est.frequencies.round(2).tolist(), bool(np.all(est.ci_low <= [0.7, 0.3]) and np.all([0.7, 0.3] <= est.ci_high))
([0.7, 0.3], True)
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.mechanism import convert, files
from mechopt.mechanism.inference import Inference
from mechopt.mechanism.labels import Container, Labels, clean_labels
from mechopt.mechanism.sampling import AliasSampler
from mechopt.model.priors import validate_prior

__all__ = ["Mechanism"]


class Mechanism(Inference):
    """A channel with labelled inputs and outputs, ready for data.

    Parameters
    ----------
    Q : array_like, shape (d, k), or a Channel, or an oracle with ``matrix()``
        ``Q[x, y] = P(Y=y | X=x)``, validated (rows are probability vectors).
    inputs, outputs : sequence, optional
        Distinct labels; default ``range(d)``, ``range(k)`` (or the Channel's).
    prior : array_like, optional
        The prior the mechanism was designed for (posterior estimate, LIP/MIP audits).
    values : array_like, optional
        The numbers a_x of the inputs, one per row (an ``mse``/``mae`` design's
        ``values``): what :meth:`posterior_means` averages. Default None (the
        input labels, when they are numbers).
    claim : dict or (notion, eps), optional
        The privacy claim, e.g. ``{"notion": "ldp", "eps": 1.0}``.
    certificate : dict, optional
        What the design proved (``bound``, ``gap``, ``status``, ...).
    provenance : dict, optional
        Where it came from; default ``{"mechopt": version, "date": now, "source": "Mechanism(Q)"}``.

    Notes
    -----
    What it tells from reports is inherited from
    :class:`~mechopt.mechanism.inference.Inference` (documented there):
    ``values``, ``rank``, ``identifiable``, ``confounded``, ``counts``,
    ``estimate``, ``estimate_counts``, ``per_report_values``, ``posterior`` and
    ``posterior_means``.

    Examples
    --------
    >>> m = Mechanism(np.eye(3), inputs=["a", "b", "c"])
    >>> m.inputs, m.outputs, m.Q.flags.writeable
    (('a', 'b', 'c'), (0, 1, 2), False)
    """

    def __init__(
        self,
        Q: Any,
        inputs: Any = None,
        outputs: Any = None,
        prior: Any = None,
        claim: Any = None,
        certificate: Any = None,
        provenance: dict[str, Any] | None = None,
        values: Any = None,
    ) -> None:
        M, ins, outs = convert.matrix_and_labels(Q)
        M = np.array(M, dtype=np.float64)  # our own copy, read-only
        M.flags.writeable = False
        self._Q = M
        d, k = M.shape
        self._in = Labels(clean_labels(inputs if inputs is not None else ins, d, "inputs"), "inputs")
        self._out = Labels(clean_labels(outputs if outputs is not None else outs, k, "outputs"), "outputs")
        self._prior = None if prior is None else validate_prior(prior)
        if self._prior is not None and self._prior.size != d:
            raise ProblemError(f"prior has {self._prior.size} symbols but Q has {d} rows (inputs)")
        self._values = None if values is None else np.array(convert.values_for(values, self._in.labels))
        if self._values is not None:  # our own copy, read-only
            self._values.flags.writeable = False
        self._claim = convert.claim(claim)
        cert = certificate.to_dict() if hasattr(certificate, "to_dict") else certificate
        self._certificate = None if cert is None else dict(cert)
        self._provenance = dict(provenance) if provenance is not None else files.provenance_now("Mechanism(Q)")
        self._sampler: AliasSampler | None = None
        self._rank: int | None = None
        self._groups: list[list[int]] | None = None
        self._R: np.ndarray | None = None

    # -- what it is -------------------------------------------------------------------------------------------
    @property
    def Q(self) -> np.ndarray:
        """The channel matrix (read-only float64, rows are inputs)."""
        return self._Q

    @property
    def inputs(self) -> tuple[Any, ...]:
        return self._in.labels

    @property
    def outputs(self) -> tuple[Any, ...]:
        return self._out.labels

    @property
    def prior(self) -> np.ndarray | None:
        return self._prior

    @property
    def claim(self) -> dict[str, Any] | None:
        return None if self._claim is None else dict(self._claim)

    @property
    def certificate(self) -> dict[str, Any] | None:
        return None if self._certificate is None else dict(self._certificate)

    @property
    def provenance(self) -> dict[str, Any]:
        return dict(self._provenance)

    @property
    def shape(self) -> tuple[int, int]:
        return self._Q.shape

    def __repr__(self) -> str:
        claim = (
            f", claim={self._claim['notion']} eps={self._claim['eps']:g}" if self._claim and self._claim["eps"] else ""
        )
        return f"Mechanism({self.shape[0]} inputs x {self.shape[1]} outputs{claim})"

    # -- randomize --------------------------------------------------------------------------------------------
    def randomize_indices(self, x_idx: np.ndarray, rng: Any = None, *, threads: int | None = None) -> np.ndarray:
        """Output indices for input indices ``x_idx`` (integers in 0..d−1): the fast path for chunks.

        ``rng`` as in :meth:`randomize`: pass one ``numpy.random.Generator`` to
        successive chunks and they get the reports of a single call.

        >>> m = Mechanism([[0.9, 0.1], [0.2, 0.8]])
        >>> g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
        >>> x = np.arange(10) % 2
        >>> a = m.randomize_indices(x, g1)
        >>> b = np.concatenate([m.randomize_indices(x[:3], g2), m.randomize_indices(x[3:], g2)])
        >>> bool(np.array_equal(a, b))
        True
        """
        from mechopt.mechanism.sampling import check_indices

        return self._alias().sample(check_indices(x_idx, self.shape[0]), rng, threads=threads)

    def _alias(self) -> AliasSampler:
        if self._sampler is None:  # built on first use, kept
            self._sampler = AliasSampler(self._Q)
        return self._sampler

    def randomize(
        self, values: Any, rng: Any = None, chunk_size: int | None = None, *, threads: int | None = None
    ) -> Any:
        """Randomize each value: one report (an output label) per value, in the container the values came in.

        Parameters
        ----------
        values : numpy array, list or pandas Series
            Input labels (a categorical Series works; its index and name are kept).
            A value that is not an input raises ProblemError naming its position.
        rng : int, SeedSequence, numpy Generator or None
            A seed gives the stream of ``numpy.random.default_rng(seed)``: report i
            uses its i-th uniform. A Generator is continued (and advanced).
        chunk_size : int, optional
            Values mapped and randomized per step (bounds temporary memory); the
            reports do not depend on it.
        threads : int, optional
            Threads sampling in parallel; the reports do not depend on it.

        Examples
        --------
        >>> m = Mechanism([[0.9, 0.1], [0.1, 0.9]], inputs=["a", "b"], outputs=["A", "B"])
        >>> m.randomize(["a", "b", "b"], rng=0)
        ['A', 'B', 'A']
        """
        from mechopt.mechanism.labels import chunks
        from mechopt.mechanism.sampling import as_generator, positive_int

        size = positive_int(chunk_size, "chunk_size") if chunk_size is not None else None
        gen = as_generator(rng)
        parts, kind = [], None
        for start, part in chunks(values, size):  # one Generator across chunks: the reports of one call
            idx, kind = self._in.encode(part, offset=start)
            parts.append(self._alias().sample(idx, gen, threads=threads))
        if kind is None:  # no values
            return self._out.decode(np.empty(0, dtype=np.intp), self._in.encode(values)[1])
        y = parts[0] if len(parts) == 1 else np.concatenate(parts)
        return self._out.decode(y, Container(kind.name, values if kind.name == "series" else None))

    # -- labels and indices ------------------------------------------------------------------------------------
    def input_indices(self, values: Any, start: int = 0) -> np.ndarray:
        """Row indices of input labels (for :meth:`randomize_indices` on chunks of a stream).

        A value that is not an input raises ProblemError naming its position ``start + i``.

        >>> Mechanism(np.eye(2), inputs=["n", "y"]).input_indices(["y", "n"]).tolist()
        [1, 0]
        """
        return self._in.encode(values, offset=start)[0]

    def output_labels(self, indices: np.ndarray) -> np.ndarray:
        """The output labels of output indices, as a numpy array.

        >>> Mechanism(np.eye(2), outputs=["N", "Y"]).output_labels(np.array([1, 1, 0])).tolist()
        ['Y', 'Y', 'N']
        """
        return self._out.decode(np.asarray(indices), Container("numpy"))

    # -- privacy ----------------------------------------------------------------------------------------------
    def audit(self, notion: str | None = None, prior: Any = None) -> dict[str, Any]:
        """The smallest ε of Q under each notion (LIP and MIP need a prior: ``prior`` or the design prior).

        With ``notion``, only that notion; with a claim, ``"claim"`` says whether it holds
        (audited ε ≤ claimed ε + the ``privacy`` tolerance).

        >>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], claim=("ldp", 1.1))
        >>> doc = m.audit("ldp")
        >>> round(doc["notions"]["ldp"]["eps"], 6), doc["claim"]["holds"]
        (1.098612, True)
        """
        return convert.audit(self._Q, self._prior if prior is None else prior, self._claim, notion)

    def to_opendp(self, rng: Any = None) -> Any:
        """An OpenDP measurement (``opendp`` 0.16, ``mechopt[opendp]``) whose privacy map is the audited ε, rounded up.

        One record in (an input label), one output label out; refused without an LDP
        claim its audit confirms. See :mod:`mechopt.deploy.opendp` for what the map covers.

        >>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]], inputs=["no", "yes"], claim=("ldp", 1.1))
        >>> 1.0986122886 < m.to_opendp().map(1) < 1.0986122887
        True
        """
        from mechopt.deploy.opendp import to_opendp

        return to_opendp(self, rng)

    # -- files and results ------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The fields as plain data (what :meth:`save` writes)."""
        return {
            "Q": self._Q,
            "inputs": self.inputs,
            "outputs": self.outputs,
            "prior": self._prior,
            "values": self._values,
            "claim": self.claim,
            "certificate": self.certificate,
            "provenance": self.provenance,
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write the mechanism file (:mod:`mechopt.mechanism.files`), atomically."""
        files.write(path, self.to_dict())

    @classmethod
    def load(cls, path: str | os.PathLike) -> "Mechanism":
        """Read a mechanism file: ours, a ``mechopt design --out`` document, a matrix (.json, .npy, .csv).

        >>> import os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
        >>> Mechanism(np.eye(2), inputs=["a", "b"], claim=("ldp", 30.0)).save(path)
        >>> m = Mechanism.load(path)
        >>> m.inputs, m.claim
        (('a', 'b'), {'notion': 'ldp', 'eps': 30.0})
        """
        return cls(**files.read(path))

    @classmethod
    def from_result(cls, result: Any, *, prior: Any = None, inputs: Any = None, outputs: Any = None) -> "Mechanism":
        """The mechanism of a design's :class:`~mechopt.results.result.Result` (its Q, claim, certificate, values).

        The values a_x of an ``mse``/``mae`` design come with it (``result.values``), so
        :meth:`posterior_means` gives the design's own estimates, and so does the prior it
        was designed for (``result.prior``: posterior estimates, LIP/MIP audits); ``prior``
        replaces it (a robust design, over a set of priors, has none of its own). Raises
        NoChannelError when the result has no channel matrix.

        >>> import mechopt
        >>> r = mechopt.design(prior="0.2,0.8", notion="ldp", utility="histogram", eps=1.0, solver="exact")
        >>> m = Mechanism.from_result(r)
        >>> m.claim, m.certificate["status"], m.provenance["source"], m.prior.tolist()
        ({'notion': 'ldp', 'eps': 1.0}, 'optimal', 'mechopt design: solver exact, objective histogram', [0.2, 0.8])
        """
        return cls(**convert.from_result(result, prior=prior, inputs=inputs, outputs=outputs))
