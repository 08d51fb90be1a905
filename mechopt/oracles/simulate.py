"""Monte-Carlo simulation of N users reporting through channels, aggregated by an estimator.

Every user i draws X_i from its prior, reports Y_i ~ Q_i[X_i, :], and the
curator estimates S = Σ_i f_i(X_i) (a scalar, or a vector for a histogram) by
Ŝ = Σ_i g_i(Y_i), where g_i is a per-output table: the MMSE estimator
E[f(X) | Y = y] (:func:`mmse_table`) or any linear unbiased one. One run gives
the squared error ‖S − Ŝ‖²; the MSE is their mean over runs, with a standard
error and a normal confidence interval.

Users that share (prior, Q, f, g) form a :class:`UserGroup`. A group of n users
is sampled through counts only: the input counts are Multinomial(n, P) and the
output counts of the users holding x are Multinomial(count_x, Q[x, :]), so a
run costs O(d·m) per group whatever n is. Users that are all different
(local priors) go through :func:`simulate_users`, vectorised over users.
Randomness comes from a seed or a ``numpy.random.Generator``: same seed, same
numbers.

Examples
--------
>>> import numpy as np
>>> from mechopt.oracles.simulate import UserGroup, simulate, mmse_table, analytic_mse
>>> P = np.array([0.7, 0.3]); Q = np.array([[0.8, 0.2], [0.3, 0.7]])
>>> grp = UserGroup(Q=Q, prior=P, count=1000, f=np.array([0.0, 1.0]), g=mmse_table(Q, P, [0.0, 1.0]))
>>> mc = simulate([grp], runs=4000, rng=7)
>>> exact = analytic_mse([grp])
>>> bool(abs(mc.mse - exact) <= 4 * mc.se)
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.errors import ParamError, ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.priors import validate_prior
from mechopt.runtime import rng as _rng

__all__ = [
    "UserGroup",
    "MCResult",
    "mmse_table",
    "analytic_mse",
    "simulate",
    "simulate_users",
    "simulate_oue",
    "simulate_fixed",
    "analytic_fixed",
    "as_generator",
]


def as_generator(rng: Any) -> np.random.Generator:
    """A ``numpy.random.Generator`` for a simulation: :func:`mechopt.runtime.rng.as_generator` with a seed required.

    Examples
    --------
    >>> int(as_generator(3).integers(10)) == int(as_generator(3).integers(10))
    True
    """
    return _rng.as_generator(rng, seeded=True)


def _fmat(f: Any, d: int) -> np.ndarray:
    F = np.asarray(f, dtype=float)
    F = F[:, None] if F.ndim == 1 else F
    if F.ndim != 2 or F.shape[0] != d:
        raise ProblemError(f"f must have one row per input symbol ({d}), got shape {np.shape(f)}")
    return F


def mmse_table(Q, prior, f) -> np.ndarray:
    """The MMSE estimator table g(y) = E[f(X) | Y = y] (eq. (16), (27), (30)).

    ``f`` is a vector (f(x) scalar) or a (d, k) matrix (histogram: the
    identity); the result has shape (m,) or (m, k). Unused outputs get E[f(X)].

    Examples
    --------
    >>> mmse_table(np.eye(2), [0.5, 0.5], [0.0, 1.0]).tolist()
    [0.0, 1.0]
    """
    P = validate_prior(prior)
    M = validate_channel(Q, n_inputs=P.size)
    F = _fmat(f, P.size)
    J = P[:, None] * M
    lam = J.sum(axis=0)
    safe = np.where(lam > 0, lam, 1.0)
    G = (J.T @ F) / safe[:, None]
    G[lam <= 0] = P @ F
    return G[:, 0] if np.ndim(f) == 1 else G


@dataclass(frozen=True, eq=False)
class UserGroup:
    """``count`` users sharing a prior, a channel Q (d × m), f (d or d × k) and estimator g (m or m × k)."""

    Q: np.ndarray
    prior: np.ndarray
    count: int
    f: np.ndarray
    g: np.ndarray

    def __post_init__(self) -> None:
        P = validate_prior(self.prior)
        object.__setattr__(self, "prior", P)
        object.__setattr__(self, "Q", np.array(validate_channel(self.Q, n_inputs=P.size)))
        F = _fmat(self.f, P.size)
        G = np.asarray(self.g, dtype=float)
        G = G[:, None] if G.ndim == 1 else G
        if G.shape != (self.Q.shape[1], F.shape[1]):
            raise ProblemError(f"g must have shape ({self.Q.shape[1]}, {F.shape[1]}), got {np.shape(self.g)}")
        if int(self.count) != self.count or self.count < 0:
            raise ProblemError(f"count must be a non-negative integer, got {self.count!r}")
        object.__setattr__(self, "f", F)
        object.__setattr__(self, "g", G)
        object.__setattr__(self, "count", int(self.count))

    def per_user_mse(self) -> float:
        """E‖f(X) − g(Y)‖² for one user, and the squared bias is part of it."""
        J = self.prior[:, None] * self.Q
        diff2 = ((self.f[:, None, :] - self.g[None, :, :]) ** 2).sum(axis=2)
        return float((J * diff2).sum())

    def per_user_bias(self) -> np.ndarray:
        J = self.prior[:, None] * self.Q
        return self.prior @ self.f - (J.sum(axis=0) @ self.g)


def analytic_mse(groups: Sequence[UserGroup]) -> float:
    """Exact E‖S − Ŝ‖² of independent users: Σ per-user variances + ‖Σ biases‖² (Proposition 2, eq. (11)).

    Examples
    --------
    >>> g = UserGroup(Q=np.eye(2), prior=[0.5, 0.5], count=10, f=[0.0, 1.0], g=[0.0, 1.0])
    >>> analytic_mse([g])
    0.0
    """
    var = 0.0
    bias = 0.0
    for grp in groups:
        b = grp.per_user_bias()
        var += grp.count * (grp.per_user_mse() - float(b @ b))
        bias = bias + grp.count * b
    return float(var + np.sum(np.asarray(bias) ** 2))


@dataclass(frozen=True)
class MCResult:
    """A Monte-Carlo MSE: mean squared error, its standard error, a normal CI.

    The CI is trustworthy when many runs had an error (``extras["nonzero"]``);
    with rare errors (a nearly exact mechanism) the sample variance understates the spread.
    """

    mse: float
    se: float
    runs: int
    z: float = 1.96
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def ci(self) -> tuple[float, float]:
        return (self.mse - self.z * self.se, self.mse + self.z * self.se)

    def covers(self, value: float, z: float | None = None) -> bool:
        """Whether ``value`` lies within ``z`` standard errors (default the CI's z)."""
        zz = self.z if z is None else z
        return abs(value - self.mse) <= zz * self.se

    def to_dict(self) -> dict[str, Any]:
        return {"mse": self.mse, "se": self.se, "ci": list(self.ci), "runs": self.runs, **self.extras}


def _summarise(err2: np.ndarray, z: float) -> MCResult:
    """Mean, standard error; ``extras["nonzero"]`` counts runs with an error (a normal CI needs many)."""
    runs = err2.size
    se = float(err2.std(ddof=1) / math.sqrt(runs)) if runs > 1 else math.inf
    return MCResult(float(err2.mean()), se, runs, z, {"nonzero": int(np.count_nonzero(err2 > 1e-18))})


def _check_runs(runs: int) -> int:
    if int(runs) != runs or runs < 2:
        raise ParamError(f"runs must be an integer ≥ 2, got {runs!r}")
    return int(runs)


def simulate(groups: Sequence[UserGroup], runs: int, rng: int | np.random.Generator, z: float = 1.96) -> MCResult:
    """Monte-Carlo MSE of Ŝ = Σ g(Y_i) for S = Σ f(X_i), sampling counts per group.

    Per run and group: N_x ~ Multinomial(n, P), then the output counts of the
    N_x users holding x ~ Multinomial(N_x, Q[x, :]); S and Ŝ are linear in the counts.
    """
    gen, runs = as_generator(rng), _check_runs(runs)
    if not groups:
        raise ProblemError("simulate needs at least one user group")
    k = groups[0].f.shape[1]
    err = np.zeros((runs, k))
    for grp in groups:
        if grp.count == 0:
            continue
        nx = _counts(gen, np.full(runs, grp.count), grp.prior)  # (R, d)
        err += nx @ grp.f
        for x in np.flatnonzero(grp.prior > 0):
            ny = _counts(gen, nx[:, x], grp.Q[x])  # (R, m)
            err -= ny @ grp.g
    return _summarise((err**2).sum(axis=1), z)


def _counts(gen: np.random.Generator, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Multinomial(n_r, p) for each r; a binomial when there are two categories (faster, same law)."""
    if p.size == 2:
        ones = gen.binomial(n, min(max(float(p[1]), 0.0), 1.0))
        return np.column_stack([n - ones, ones])
    return gen.multinomial(n, p)


def _inverse_cdf(u: np.ndarray, cum: np.ndarray) -> np.ndarray:
    """Index of the category: number of cumulative thresholds below u (last one excluded)."""
    return (u[..., None] > cum[..., :-1]).sum(axis=-1)


def simulate_users(
    Qs: np.ndarray,
    priors: np.ndarray,
    F: np.ndarray,
    G: np.ndarray,
    runs: int,
    rng: int | np.random.Generator,
    chunk: int = 2_000_000,
    z: float = 1.96,
) -> MCResult:
    """Monte-Carlo MSE with every user different (local priors), vectorised over users.

    ``Qs`` (N, d, m), ``priors`` (N, d), ``F`` (N, d) values f_i(x), ``G`` (N, m)
    estimator tables g_i(y). Runs are processed in chunks of about ``chunk``
    user draws.
    """
    gen, runs = as_generator(rng), _check_runs(runs)
    Qs, priors, F, G = (np.asarray(a, float) for a in (Qs, priors, F, G))
    n = priors.shape[0]
    if Qs.shape[:2] != priors.shape or F.shape != priors.shape or G.shape != (n, Qs.shape[2]):
        raise ProblemError("simulate_users needs Qs (N, d, m), priors (N, d), F (N, d), G (N, m)")
    cum_p = np.cumsum(priors, axis=1)
    cum_q = np.cumsum(Qs, axis=2)
    rows = np.arange(n)
    err2 = np.empty(runs)
    step = max(1, chunk // max(n, 1))
    for start in range(0, runs, step):
        r = min(step, runs - start)
        x = _inverse_cdf(gen.random((r, n)), cum_p[None, :, :])
        y = _inverse_cdf(gen.random((r, n)), cum_q[rows[None, :], x])
        e = F[rows[None, :], x].sum(axis=1) - G[rows[None, :], y].sum(axis=1)
        err2[start : start + r] = e**2
    return _summarise(err2, z)


def simulate_oue(
    prior, n_users: int, eps: float, runs: int, rng: int | np.random.Generator, z: float = 1.96
) -> MCResult:
    """Monte-Carlo total histogram MSE of optimal unary encoding (OUE, Wang et al.), i.i.d. users.

    The users holding k send bit k as 1 w.p. 1/2 and every other bit as 1 w.p.
    q = 1/(e^ε + 1); bit counts are binomials of the input counts;
    Ŝ_k = (B_k − N q)/(1/2 − q).

    Examples
    --------
    >>> mc = simulate_oue([0.5, 0.5], 100, 1.0, runs=2000, rng=1)
    >>> from mechopt.problems.lip.closed import oue_mse_exact
    >>> bool(mc.covers(oue_mse_exact([0.5, 0.5], 100, 1.0), z=4))
    True
    """
    gen, runs = as_generator(rng), _check_runs(runs)
    P = validate_prior(prior)
    p, q = 0.5, 1.0 / (math.exp(float(eps)) + 1.0)
    nk = gen.multinomial(int(n_users), P, size=runs)  # (R, d)
    bits = gen.binomial(nk, p) + gen.binomial(int(n_users) - nk, q)
    est = (bits - n_users * q) / (p - q)
    return _summarise(((est - nk) ** 2).sum(axis=1), z)


def analytic_fixed(Q, counts, f, g) -> float:
    """Exact E[‖S − Ŝ‖² | inputs] when ``counts[x]`` users hold x (a fixed dataset, Section V-B).

    Σ_x n_x Σ_k Var(g_k(Y) | x) + ‖Σ_x n_x (f(x) − E[g(Y) | x])‖².

    Examples
    --------
    >>> analytic_fixed(np.eye(2), [3, 7], [0.0, 1.0], [0.0, 1.0])
    0.0
    """
    M = validate_channel(Q)
    n = np.asarray(counts, dtype=float)
    F = _fmat(f, M.shape[0])
    G = np.asarray(g, dtype=float)
    G = G[:, None] if G.ndim == 1 else G
    mean = M @ G  # E[g(Y) | x], (d, k)
    var = (M @ G**2 - mean**2).sum(axis=1)
    bias = n @ (F - mean)
    return float(n @ var + bias @ bias)


def simulate_fixed(Q, counts, f, g, runs: int, rng: int | np.random.Generator, z: float = 1.96) -> MCResult:
    """Monte-Carlo E[‖S − Ŝ‖² | inputs] for a fixed dataset: output counts Multinomial(n_x, Q[x, :]).

    Examples
    --------
    >>> Q = np.array([[0.7, 0.3], [0.2, 0.8]])
    >>> g = mmse_table(Q, [0.5, 0.5], [0.0, 1.0])
    >>> mc = simulate_fixed(Q, [400, 600], [0.0, 1.0], g, runs=4000, rng=2)
    >>> bool(mc.covers(analytic_fixed(Q, [400, 600], [0.0, 1.0], g), z=4))
    True
    """
    gen, runs = as_generator(rng), _check_runs(runs)
    M = validate_channel(Q)
    n = np.asarray(counts, dtype=np.int64)
    F = _fmat(f, M.shape[0])
    G = np.asarray(g, dtype=float)
    G = G[:, None] if G.ndim == 1 else G
    err = np.tile(n @ F, (runs, 1)).astype(float)
    for x in np.flatnonzero(n > 0):
        err -= _counts(gen, np.full(runs, n[x]), M[x]) @ G
    return _summarise((err**2).sum(axis=1), z)
