"""What a :class:`~mechopt.mechanism.core.Mechanism` tells from reports: identifiability, estimates, posteriors.

:class:`Inference` is the part of the Mechanism that reads reports: which inputs
Q can tell apart (:mod:`mechopt.mechanism.identify`), the estimators of the input
distribution (:mod:`mechopt.mechanism.estimators`, :mod:`mechopt.mechanism.estimate`),
and the posterior and posterior means an ``mse`` design assumed, computed from the
design's own values a_x (:attr:`Inference.values`). The class holding the data
(Q, labels, prior, values) is :class:`~mechopt.mechanism.core.Mechanism`.

Examples
--------
>>> from mechopt import Mechanism
>>> m = Mechanism([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]], prior=[0.25, 0.5, 0.25], values=[0.0, 1e-9, 2e-9])
>>> (m.posterior_means() * 1e9).round(12).tolist()
[0.5, 1.5]
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from mechopt.mechanism import convert, identify
from mechopt.mechanism.estimate import Estimate, estimate_counts
from mechopt.mechanism.labels import Labels
from mechopt.model._matrix import posterior_matrix
from mechopt.runtime.threads import single_threaded

__all__ = ["Inference", "VALUED_OBJECTIVES"]

#: Objectives whose estimates are made of the values a_x of the inputs.
VALUED_OBJECTIVES = ("mse", "mae")


class Inference:
    """Identifiability, estimation and posteriors of a Mechanism (its base class; not built on its own).

    Reads the Mechanism's ``_Q``, ``_prior``, ``_values``, ``_in``, ``_out`` and
    ``_certificate``, and caches the rank, the confounded groups and the linear operator.

    Examples
    --------
    >>> from mechopt import Mechanism
    >>> isinstance(Mechanism([[1.0, 0.0], [0.0, 1.0]]), Inference)
    True
    """

    _Q: np.ndarray
    _prior: np.ndarray | None
    _values: np.ndarray | None
    _in: Labels
    _out: Labels
    _certificate: dict[str, Any] | None
    _rank: int | None
    _groups: list[list[int]] | None
    _R: np.ndarray | None

    @property
    def values(self) -> np.ndarray | None:
        """The numbers a_x of the inputs (an ``mse``/``mae`` design's, read-only), or None.

        >>> from mechopt import Mechanism
        >>> Mechanism([[0.6, 0.4], [0.4, 0.6]], values=[0.0, 1e-9]).values.tolist()
        [0.0, 1e-09]
        """
        return self._values

    # -- identifiability --------------------------------------------------------------------------------------
    @property
    def rank(self) -> int:
        """The numerical rank of Q (``rank`` tolerance)."""
        if self._rank is None:
            self._rank = identify.rank(self._Q)
        return self._rank

    @property
    def identifiable(self) -> bool:
        """Whether Q has full row rank: the input distribution is determined by the output distribution.

        >>> from mechopt import Mechanism
        >>> Mechanism([[0.6, 0.4], [0.6, 0.4]]).identifiable
        False
        """
        return self.rank == self._Q.shape[0]

    def confounded(self) -> list[list[Any]]:
        """Groups of input labels that the reports cannot tell apart (see :mod:`mechopt.mechanism.identify`).

        >>> from mechopt import Mechanism
        >>> Mechanism([[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]], inputs=["a", "b", "c"]).confounded()
        [['a', 'b']]
        """
        if self._groups is None:
            self._groups = [] if self.identifiable else identify.confounded_groups(self._Q)
        return [[self._in.labels[i] for i in g] for g in self._groups]

    def _confounded_text(self) -> str:
        return "; ".join("{" + ", ".join(map(str, g)) + "}" for g in self.confounded())

    # -- estimate ---------------------------------------------------------------------------------------------
    def counts(self, reports: Any, start: int = 0) -> np.ndarray:
        """How many times each output was reported (int64, over ``outputs``); errors name position ``start + i``.

        >>> from mechopt import Mechanism
        >>> Mechanism(np.eye(2), outputs=["n", "y"]).counts(["y", "y", "n"]).tolist()
        [1, 2]
        """
        y, _ = self._out.encode(reports, offset=start)
        return np.bincount(y, minlength=self._Q.shape[1]).astype(np.int64)

    def estimate(
        self,
        reports: Any,
        method: str = "linear",
        consistency: str | None = None,
        ci: float | None = None,
        prior: Any = None,
    ) -> Estimate:
        """Estimate the distribution of the inputs from the reports.

        Parameters
        ----------
        reports : array, list or Series of output labels
        method : {"linear", "em", "posterior"}
            ``linear``: unbiased θ̂ = (Qᵀ)⁺ f, needs Q of full row rank (else
            ProblemError naming the confounded inputs). ``em``: maximum
            likelihood by EM, any Q. ``posterior``: the average posterior under
            the design prior (what ``histogram``/``mse`` designs assume; biased).
            Formulas: :mod:`mechopt.mechanism.estimators`.
        consistency : {None, "clip", "norm-sub", "project"}
            Map the estimate onto the simplex (:mod:`mechopt.mechanism.consistency`).
        ci : float, optional
            Coverage level of normal intervals (e.g. 0.95).
        prior : array_like, optional
            EM's start (``em`` only); default uniform.

        Examples
        --------
        >>> from mechopt import Mechanism
        >>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]])
        >>> m.estimate(np.array([0] * 600 + [1] * 400)).frequencies.round(6).tolist()
        [0.7, 0.3]
        """
        return self.estimate_counts(self.counts(reports), method, consistency, ci, prior)

    def estimate_counts(
        self,
        counts: Any,
        method: str = "linear",
        consistency: str | None = None,
        ci: float | None = None,
        prior: Any = None,
    ) -> Estimate:
        """:meth:`estimate` from output counts (one per output; e.g. summed over chunks of reports).

        >>> from mechopt import Mechanism
        >>> m = Mechanism([[0.75, 0.25], [0.25, 0.75]])
        >>> m.estimate_counts([600, 400], method="em").frequencies.round(6).tolist()
        [0.7, 0.3]
        """
        with single_threaded():  # the same numbers under any BLAS thread count and machine load
            return estimate_counts(
                self._Q,
                counts,
                method=method,
                consistency=consistency,
                ci=ci,
                prior=prior,
                design_prior=self._prior,
                inputs=self._in.labels,
                outputs=self._out.labels,
                confounded="" if self.identifiable else self._confounded_text(),
                R=self._linear_operator() if method == "linear" and self.identifiable else None,
            )

    def per_report_values(self, reports: Any) -> np.ndarray:
        """Unbiased per-report estimates of the input indicator: row i is R[:, y_i], E = e_{x_i} (n × d).

        R = (Qᵀ)⁺ as in the linear estimator; their mean is the linear estimate.
        Refused (ProblemError naming the confounded inputs) when Q is not identifiable.

        >>> from mechopt import Mechanism
        >>> Mechanism([[0.75, 0.25], [0.25, 0.75]]).per_report_values([0, 1]).round(12).tolist()
        [[1.5, -0.5], [-0.5, 1.5]]
        """
        y, _ = self._out.encode(reports)
        return self._linear_operator()[:, y].T

    def _linear_operator(self) -> np.ndarray:
        if self._R is None:
            from mechopt.mechanism.estimators import linear_operator

            why = "" if self.identifiable else f" (confounded inputs: {self._confounded_text()})"
            with single_threaded():
                self._R = linear_operator(self._Q, why)
        return self._R

    # -- posteriors -------------------------------------------------------------------------------------------
    def posterior(self, prior: Any = None) -> np.ndarray:
        """P(X = x | Y = y) under ``prior`` (default the design prior), d × k; unreachable outputs are zero columns.

        >>> from mechopt import Mechanism
        >>> Mechanism([[0.75, 0.25], [0.25, 0.75]], prior=[0.5, 0.5]).posterior()[:, 0].tolist()
        [0.75, 0.25]
        """
        return posterior_matrix(self._Q, convert.prior_for(prior, self._prior, self._Q.shape[0]))

    def posterior_means(self, values: Any = None, prior: Any = None) -> np.ndarray:
        """E[a_X | Y = y] for each output: the estimate an ``mse`` design reports, in the unit of the values.

        ``values`` default to the mechanism's own (:attr:`values`: a design's, carried by its
        Result and its file), else to the input labels when they are numbers; the latter for a
        mechanism of an ``mse``/``mae`` design (a file written before values were carried) warns
        that the estimates are in the labels' units.

        >>> from mechopt import Mechanism
        >>> Mechanism([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]], prior=[0.25, 0.5, 0.25]).posterior_means()
        array([0.5, 1.5])
        """
        if values is None and self._values is not None:
            values = self._values
        elif values is None and (self._certificate or {}).get("objective") in VALUED_OBJECTIVES:
            warnings.warn(
                f"this {self._certificate['objective']} design carries no values (a file written before "
                "mechopt carried them): its posterior means take the input labels as the values a_x; pass "
                "values= (the design's --values) for its own estimates",
                UserWarning,
                stacklevel=2,
            )
        return convert.values_for(values, self._in.labels) @ self.posterior(prior)
