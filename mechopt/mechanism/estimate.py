"""The estimate of an input distribution from a mechanism's reports: the :class:`Estimate` record and how it is made.

:func:`estimate_counts` runs one estimator of :mod:`mechopt.mechanism.estimators`
on output counts, attaches standard errors and normal intervals
(θ̂ ± z·se, z the ``(1 + level)/2`` normal quantile, clipped to [0, 1]) where
the estimator has them, and applies a consistency map
(:mod:`mechopt.mechanism.consistency`). Standard errors and intervals always
describe the estimator *before* the consistency map (what the theory covers).

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.estimate import estimate_counts
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> est = estimate_counts(Q, [620, 380], method="linear", ci=0.95, inputs=("a", "b"))
>>> est.frequencies.round(3).tolist(), est.stderr.round(4).tolist()
([0.74, 0.26], [0.0274, 0.0274])
>>> est.to_dict()["inputs"], est.to_dict()["ci"]["level"]
(['a', 'b'], 0.95)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.mechanism import estimators as E
from mechopt.mechanism.consistency import make_consistent
from mechopt.results._json import jsonable

__all__ = ["Estimate", "estimate_counts", "METHODS"]

#: The estimators by name, with when each applies (``Mechanism.estimate(method=...)``).
METHODS = {
    "linear": "unbiased, generalised inverse; needs Q of full row rank",
    "em": "maximum likelihood by EM (iterative Bayesian update); every Q",
    "posterior": "average posterior under the design prior (what histogram/mse designs assume); biased toward it",
}


@dataclass(frozen=True)
class Estimate:
    """An estimated input distribution.

    Attributes
    ----------
    frequencies : numpy.ndarray
        θ̂ over the mechanism's inputs (after ``consistency``, if any).
    method : str
        ``linear``, ``em`` or ``posterior``.
    n : int
        Number of reports.
    stderr : numpy.ndarray or None
        Standard error of each frequency (of the estimator before ``consistency``).
    ci_low, ci_high : numpy.ndarray or None
        The ``level`` normal interval θ̂ ± z·se clipped to [0, 1]; None without ``ci`` or a standard error.
    consistency : str or None
        The map onto the simplex applied (``clip``, ``norm-sub``, ``project``).
    note : str
        What the reader must know: convergence, why no interval, what is confounded.
    inputs : tuple
        The input labels, in the order of ``frequencies``.
    level : float or None
        The interval's coverage level.
    raw : numpy.ndarray or None
        The estimate before ``consistency`` (None when none was applied).
    iterations : int or None
        EM iterations.
    """

    frequencies: np.ndarray
    method: str
    n: int
    stderr: np.ndarray | None = None
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None
    consistency: str | None = None
    note: str = ""
    inputs: tuple[Any, ...] = ()
    level: float | None = None
    raw: np.ndarray | None = None
    iterations: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready document (lists and plain numbers, never NaN).

        >>> Estimate(np.array([0.5, 0.5]), "em", 10, inputs=(0, 1)).to_dict()["frequencies"]
        [0.5, 0.5]
        """
        ci = None
        if self.ci_low is not None and self.ci_high is not None:
            ci = {"level": self.level, "low": jsonable(self.ci_low), "high": jsonable(self.ci_high)}
        return {
            "method": self.method,
            "n": int(self.n),
            "inputs": jsonable(list(self.inputs)),
            "frequencies": jsonable(self.frequencies),
            "stderr": None if self.stderr is None else jsonable(self.stderr),
            "ci": ci,
            "consistency": self.consistency,
            "raw": None if self.raw is None else jsonable(self.raw),
            "iterations": self.iterations,
            "note": self.note,
        }

    def to_series(self) -> Any:
        """The frequencies as a pandas Series indexed by the input labels (needs pandas).

        >>> Estimate(np.array([0.25, 0.75]), "em", 4, inputs=("a", "b")).to_series().to_dict()
        {'a': 0.25, 'b': 0.75}
        """
        from mechopt.runtime.optional import require

        pd = require("pandas", "data", "Estimate.to_series")
        return pd.Series(self.frequencies, index=pd.Index(list(self.inputs), dtype=object), name=self.method)


def _level(ci: float | None) -> float | None:
    if ci is None:
        return None
    if isinstance(ci, bool) or not isinstance(ci, (int, float)) or not 0 < ci < 1:
        raise ParamError(f"ci must be a coverage level strictly between 0 and 1 (e.g. 0.95), got {ci!r}")
    return float(ci)


def _check_possible(Q: np.ndarray, c: np.ndarray, outputs: tuple[Any, ...]) -> None:
    """Refuse reports of an output no input can produce (a zero column of Q): they are not from this mechanism."""
    bad = (c > 0) & ~np.any(Q > 0, axis=0)
    if np.any(bad):
        y = int(np.argmax(bad))
        name = outputs[y] if outputs else y
        times = f"{c[y]:g} time{'s' if c[y] != 1 else ''}"
        raise ProblemError(
            f"output {name!r} was reported {times}, but no input can produce it (its column of Q is 0): "
            "these reports do not come from this mechanism"
        )


def _negative(var: np.ndarray | None) -> bool:
    """Whether a variance estimate is negative beyond rounding (then no standard error is given)."""
    return var is not None and bool(np.any(var < -1e-9 * np.abs(var).max() - 1e-15))


def estimate_counts(
    Q: np.ndarray,
    counts: Any,
    *,
    method: str = "linear",
    consistency: str | None = None,
    ci: float | None = None,
    prior: Any = None,
    design_prior: Any = None,
    inputs: tuple[Any, ...] = (),
    outputs: tuple[Any, ...] = (),
    confounded: str = "",
    R: np.ndarray | None = None,
) -> Estimate:
    """Estimate the input distribution from output ``counts`` (see the module docstring).

    ``prior`` starts EM (``em`` only); ``design_prior`` is the prior of the
    ``posterior`` estimate; ``confounded`` names the confounded inputs in
    refusals and notes; ``R`` is the linear operator (Qᵀ)⁺ when already known. Reports of an
    output that no input can produce (a zero column of Q) are refused, naming it by ``outputs``.
    """
    if method not in METHODS:
        raise ParamError(f"unknown estimation method {method!r}; known: {', '.join(METHODS)}")
    if prior is not None and method != "em":
        raise ParamError(f"prior= is the start of method='em' only; method={method!r} does not use it")
    level = _level(ci)
    make_consistent([1.0], consistency)  # an unknown name fails before any work
    Q = np.asarray(Q, dtype=float)
    c, n = E.check_counts(counts, Q.shape[1])
    frac = np.abs(c - np.round(c))
    if np.any(frac > 1e-6) or n < 1:  # standard errors need whole reports (0.3 would round n to 0 or 1)
        y = int(np.argmax(frac if np.any(frac > 1e-6) else c))
        raise ProblemError(
            f"counts must be whole numbers of reports, one per output; output {y} has {c[y]:g}: pass counts, "
            "not frequencies (multiply the frequencies by the number of reports)"
        )
    _check_possible(Q, c, outputs)
    f = c / c.sum()
    notes: list[str] = []
    iterations = None
    if method == "linear":
        R = E.linear_operator(Q, f" (confounded inputs: {confounded})" if confounded else "") if R is None else R
        theta = R @ f
        var: np.ndarray | None = E.linear_variance(R, f, theta, n, floor=False)
        if _negative(var):  # a 0 floor would print a zero-width interval
            var = None
            notes.append("no standard error: the unbiased variance estimate is negative (too few reports)")
    elif method == "em":
        fit = E.em(Q, c, start=prior)
        theta, iterations = fit.theta, fit.iterations
        if not fit.converged:
            notes.append(
                f"EM stopped after the {fit.iterations}-iteration limit with last change {fit.change:.2g} "
                "(settings em_iterations, em)"
            )
        var = E.em_covariance(Q, c, theta, full=False) if not confounded else None
        if _negative(var):  # the delta method does not hold here; a 0 floor would print a zero-width interval
            var = None
            notes.append(
                "no standard error: the delta method gives a negative variance (the EM fit is on the boundary "
                "of the simplex and the reports do not fit the model closely); more reports or a bootstrap"
            )
        elif confounded:
            notes.append(
                f"Q does not identify the distribution (confounded inputs: {confounded}): the EM fit is one of "
                "many maximum-likelihood points (it depends on the start) and has no standard error"
            )
        elif var is None:
            notes.append("no standard error: the observed information is singular (too few distinct outputs)")
    else:
        if design_prior is None:
            raise ParamError(
                "method='posterior' needs the design prior: build the Mechanism with prior=... "
                "(Mechanism.from_result and Mechanism.load keep it)"
            )
        theta, var = E.posterior_estimate(Q, c, design_prior)
        notes.append("biased toward the design prior by construction: a standard error, no interval")
    stderr = None if var is None else np.sqrt(np.maximum(var, 0.0))  # floored: rounding only (_negative)
    low = high = None
    if level is not None and stderr is not None and method != "posterior":
        from scipy.special import ndtri  # the normal quantile (scipy.stats costs a second to import)

        z = float(ndtri(0.5 + level / 2))
        low, high = np.clip(theta - z * stderr, 0.0, 1.0), np.clip(theta + z * stderr, 0.0, 1.0)
        outside = np.flatnonzero((theta + z * stderr < 0.0) | (theta - z * stderr > 1.0))
        if outside.size:  # the clipped interval is one point that excludes the estimate: say so
            names = ", ".join(str(inputs[i]) if len(inputs) else str(i) for i in outside[:5])
            more = f" and {outside.size - 5} more" if outside.size > 5 else ""
            notes.append(
                f"the {level:g} interval of {names}{more} lies wholly outside [0, 1] and is clipped to one point: "
                "the reports disagree with this mechanism beyond sampling error (the wrong mechanism file, or reports "
                "not drawn independently of the data?)"
            )
    out = make_consistent(theta, consistency)
    if consistency is not None and stderr is not None:
        notes.append(f"stderr and intervals are those of the {method} estimate before {consistency}")
    return Estimate(
        frequencies=out,
        method=method,
        n=n,
        stderr=stderr,
        ci_low=low,
        ci_high=high,
        consistency=consistency,
        note="; ".join(notes),
        inputs=tuple(inputs) or tuple(range(Q.shape[0])),
        level=level if low is not None else None,
        raw=theta if consistency is not None else None,
        iterations=iterations,
    )
