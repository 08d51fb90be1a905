"""Estimators of the input distribution θ from the output counts of a channel Q, with their covariances.

Notation: Q is d × k (rows are inputs), ``c`` the output counts of n reports,
f = c / n, λ = Qᵀθ the output distribution. The n reports come from a fixed
data set whose input frequencies are θ (each user's input is fixed, the
randomness is the mechanism's), so f is a sum of independent multinomials,
one per input, with E f = λ and

    Cov f = Σ_f = (diag λ − Qᵀ diag(θ) Q) / n.

Three estimators:

``linear``
    θ̂ = R f with R = (Qᵀ)⁺ = (QQᵀ)⁻¹Q, the Moore–Penrose left inverse of Qᵀ.
    Applies when Q has full row rank (rank Q = d, the distribution is
    identifiable): then R Qᵀ = I, so E θ̂ = θ (unbiased), and
    Cov θ̂ = R Σ_f Rᵀ = (R diag(λ) Rᵀ − diag θ) / n, estimated without bias by
    (R diag(f) Rᵀ − diag θ̂) / n. For a square Q it is the unique unbiased
    linear estimator (GRR's (f − h)/(g − h) is this one).
``em``
    The maximum-likelihood θ over the simplex of the multinomial likelihood
    Σ_y c_y log λ_y, by EM (the iterative Bayesian update,
    θ⁽ᵗ⁺¹⁾_x = θ⁽ᵗ⁾_x Σ_y f_y Q[x, y] / λ⁽ᵗ⁾_y). Applies to every Q; the
    likelihood increases at every step. Starts from the uniform distribution,
    or from a given prior (entries that start at 0 stay 0). Stops when no
    frequency moves by more than the ``em`` tolerance, or after
    ``em_iterations`` EM steps (:mod:`mechopt.settings`); the steps are
    accelerated by SQUAREM (Varadhan & Roland 2008), which keeps EM's fixed
    points and its monotone likelihood. When Q is not identifiable the
    maximum is a set, and EM returns the point of it its start leads to.
    Covariance (identifiable Q): the delta method on the likelihood equations,
    Cov θ̂ ≈ G Σ_f Gᵀ with G = B (Bᵀ J B)⁻¹ Bᵀ Q diag(1/λ̂), J = Q diag(f/λ̂²) Qᵀ
    the observed information per report and B an orthonormal basis of
    {v : Σv = 0} (the simplex's tangent space). For a square Q with θ̂ inside
    the simplex it equals the linear estimator's.
``posterior``
    θ̂ = Σ_y f_y P(X = · | Y = y), the average posterior under a prior π (the
    design prior): what a design for the ``histogram`` utility assumes (its
    utility is the expected squared error of this per-report posterior; for
    ``mse`` the posterior mean of the value, Σ_x a_x θ̂_x here). It is one EM
    step from π: biased toward π unless Q is the identity, so it carries a
    standard error (sampling noise, Var = (Σ_y f_y post_y² − θ̂²)/n, inputs
    drawn at random) and no interval.

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.estimators import linear_operator, em
>>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> lam = Q.T @ np.array([0.3, 0.7])
>>> (linear_operator(Q) @ lam).round(12).tolist()
[0.3, 0.7]
>>> em(Q, lam * 1000).theta.round(8).tolist()
[0.3, 0.7]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.model._matrix import posterior_matrix

posterior_matrix = posterior_matrix  # re-exported for the tests of the posterior estimate

__all__ = [
    "linear_operator",
    "linear_covariance",
    "linear_variance",
    "em",
    "EMFit",
    "em_covariance",
    "posterior_estimate",
    "check_counts",
]


def check_counts(counts: Any, k: int) -> tuple[np.ndarray, int]:
    """``counts`` as a float vector of k non-negative finite counts, and their total n ≥ 1.

    >>> check_counts([3, 1], 2)
    (array([3., 1.]), 4)
    """
    c = np.asarray(counts, dtype=float)
    if c.shape != (k,):
        raise ProblemError(f"counts must be a vector of {k} output counts, got shape {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0):
        raise ProblemError("counts must be finite and non-negative")
    n = float(c.sum())
    if n <= 0:
        raise ProblemError("no reports: the counts sum to 0")
    return c, int(round(n))


def linear_operator(Q: np.ndarray, why: str = "") -> np.ndarray:
    """R = (Qᵀ)⁺ (d × k), so that θ̂ = R f; refused (ProblemError) when rank Q < d.

    ``why`` is appended to the refusal (the caller names the confounded inputs).

    >>> linear_operator(np.array([[0.75, 0.25], [0.25, 0.75]])).round(12).tolist()
    [[1.5, -0.5], [-0.5, 1.5]]
    """
    Q = np.asarray(Q, dtype=float)
    U, s, Vt = np.linalg.svd(Q, full_matrices=False)
    r = int(np.sum(s > settings.tolerance("rank") * s[0]))
    if r < Q.shape[0]:
        raise ProblemError(
            f"the linear (unbiased) estimator needs Q of full row rank, and this Q has rank {r} < {Q.shape[0]} "
            f"inputs{why}: use method='em' (maximum likelihood) or 'posterior', or a mechanism of rank d"
        )
    return (U / s) @ Vt


def linear_covariance(Q: np.ndarray, theta: Any, n: int, R: np.ndarray | None = None) -> np.ndarray:
    """The closed-form Cov θ̂ = (R diag(λ) Rᵀ − diag θ)/n of the linear estimator, λ = Qᵀθ (a fixed data set).

    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> linear_covariance(Q, [0.5, 0.5], 1).round(6).tolist()   # (p(1−p))/(2p−1)² = 0.75, both ways
    [[0.75, -0.75], [-0.75, 0.75]]
    """
    R = linear_operator(Q) if R is None else R
    th = np.asarray(theta, dtype=float)
    lam = th @ Q
    return ((R * lam) @ R.T - np.diag(th)) / n


def linear_variance(R: np.ndarray, f: np.ndarray, theta_hat: np.ndarray, n: int, floor: bool = True) -> np.ndarray:
    """The unbiased estimate (Σ_y R[x, y]² f_y − θ̂_x)/n of each Var θ̂_x (floored at 0 unless ``floor=False``).

    With few reports the estimate can be negative (:func:`mechopt.mechanism.estimate.estimate_counts`
    then gives no standard error rather than a zero-width interval).

    >>> linear_variance(np.eye(2), np.array([0.5, 0.5]), np.array([0.5, 0.5]), 10).tolist()
    [0.0, 0.0]
    """
    var = ((R**2) @ f - theta_hat) / n
    return np.maximum(var, 0.0) if floor else var


@dataclass(frozen=True)
class EMFit:
    """An EM run: estimate, iterations, whether the tolerance was met, last change, log-likelihood per report."""

    theta: np.ndarray
    iterations: int
    converged: bool
    change: float
    loglik: float


def em(Q: np.ndarray, counts: Any, start: Any = None, tol: float | None = None, max_iter: int | None = None) -> EMFit:
    """Maximum-likelihood θ by EM (iterative Bayesian update); see the module docstring.

    Examples
    --------
    >>> Q = np.array([[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]])   # not identifiable: inputs 0 and 1 share a row
    >>> fit = em(Q, [40, 60])
    >>> fit.converged, fit.theta.round(6).tolist()            # the start (uniform) splits 0 and 1 evenly
    (True, [0.3, 0.3, 0.4])
    """
    Q = np.asarray(Q, dtype=float)
    c, _ = check_counts(counts, Q.shape[1])
    f = c / c.sum()
    seen = f > 0
    Qo, fo = Q[:, seen], f[seen]
    tol = settings.resolve(tol, "em")
    cap = int(settings.tolerance("em_iterations") if max_iter is None else max_iter)
    theta = _start(start, Q.shape[0])
    lam = theta @ Qo
    if np.any(lam <= 0):
        y = int(np.flatnonzero(seen)[np.argmax(lam <= 0)])
        raise ProblemError(
            f"output {y} was reported but has probability 0 under the EM start: give a start (prior) "
            "that is positive on every input that can produce it"
        )

    def step(t: np.ndarray) -> np.ndarray:  # one EM (iterative Bayesian update) step
        new = t * (Qo @ (fo / (t @ Qo)))
        return new / new.sum()

    def loglik(t: np.ndarray) -> float:
        lam = t @ Qo
        return float(fo @ np.log(lam)) if np.all(lam > 0) else -np.inf

    theta, evals, change = _squarem(step, loglik, theta, tol, cap)
    return EMFit(theta=theta, iterations=evals, converged=change <= tol, change=change, loglik=loglik(theta))


#: Most halvings of a SQUAREM step length toward the plain double EM step.
_BACKTRACKS = 8


def _squarem(step: Any, loglik: Any, theta: np.ndarray, tol: float, cap: int) -> tuple[np.ndarray, int, float]:
    """Iterate the EM map ``step`` from ``theta``, accelerated by SQUAREM (Varadhan & Roland 2008, scheme S3).

    Each cycle takes two EM steps t₁ = F(θ), t₂ = F(t₁), extrapolates
    θ' = θ − 2αr + α²v (r = t₁ − θ, v = t₂ − t₁ − r, α = −‖r‖/‖v‖ ≤ −1),
    halves α toward −1 (θ' = t₂, plain EM) until θ' stays positive where θ is and
    the log-likelihood does not drop, then takes one EM step from θ'. The fixed
    points are EM's, and the likelihood never decreases. Stops when a plain EM
    step moves no frequency by more than ``tol`` or after ``cap`` EM steps.
    Returns the estimate, the number of EM steps and the last plain step's change.
    """
    evals, change = 0, np.inf
    while evals < cap:
        t1 = step(theta)
        evals += 1
        change = float(np.max(np.abs(t1 - theta)))
        if change <= tol or evals + 2 > cap:
            return t1, evals, change
        t2 = step(t1)
        evals += 1
        r = t1 - theta
        v = t2 - t1 - r
        nv = float(np.linalg.norm(v))
        alpha = min(-float(np.linalg.norm(r)) / nv, -1.0) if nv > 0 else -1.0
        nxt, base = t2, loglik(theta)
        live = theta > 0
        for _ in range(_BACKTRACKS):
            if alpha == -1.0:
                break
            cand = theta - 2 * alpha * r + alpha**2 * v
            if np.all(cand[live] > 0) and np.all(cand >= 0) and loglik(cand) >= base:
                nxt = cand / cand.sum()
                break
            alpha = (alpha - 1.0) / 2
        theta = step(nxt)
        evals += 1
    return theta, evals, change


def _start(start: Any, d: int) -> np.ndarray:
    if start is None:
        return np.full(d, 1.0 / d)
    p = np.asarray(start, dtype=float)
    if p.shape != (d,) or not np.all(np.isfinite(p)) or np.any(p < 0) or p.sum() <= 0:
        raise ProblemError(f"the EM start must be {d} non-negative numbers with a positive sum")
    return p / p.sum()


def em_covariance(Q: np.ndarray, counts: Any, theta: np.ndarray, full: bool = True) -> np.ndarray | None:
    """The delta-method covariance of the EM estimate (module docstring); None when it is not defined.

    The tangent space of the simplex is spanned by e_x − e_r (r the input of
    largest θ̂; the result does not depend on the basis). None when the observed
    information on it is not positive definite (Q not identifiable, or too few
    distinct outputs reported) or its condition number, estimated from its
    Cholesky factor (LAPACK ``pocon``), exceeds the ``condition`` tolerance.
    With ``full=False`` only the variances (the diagonal), at O(d·k) memory.

    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> em_covariance(Q, [500, 500], np.array([0.5, 0.5])).round(6).tolist()   # the linear one, n = 1000
    [[0.00075, -0.00075], [-0.00075, 0.00075]]
    """
    from scipy.linalg import LinAlgError, cho_factor, cho_solve
    from scipy.linalg.lapack import dpocon

    Q = np.asarray(Q, dtype=float)
    c, n = check_counts(counts, Q.shape[1])
    d = Q.shape[0]
    f = c / c.sum()
    lam = theta @ Q
    inv = np.divide(1.0, lam, out=np.zeros_like(lam), where=lam > 0)
    r = int(np.argmax(theta))
    others = np.delete(np.arange(d), r)
    BQ = Q[others] - Q[r]  # Bᵀ Q with B = [e_x − e_r]
    H = (BQ * (f * inv**2)) @ BQ.T  # Bᵀ J B, J = Q diag(f/λ²) Qᵀ
    if d > 1:
        try:
            fac = cho_factor(H)
        except LinAlgError:
            return None
        rcond, info = dpocon(fac[0], np.abs(H).sum(axis=0).max(), uplo="L" if fac[1] else "U")
        if info != 0 or rcond * settings.tolerance("condition") < 1.0:
            return None
        X = cho_solve(fac, BQ)  # H⁻¹ Bᵀ Q
    else:
        X = np.zeros((0, Q.shape[1]))
    AQ = np.empty_like(Q)  # A Q = B H⁻¹ Bᵀ Q
    AQ[others] = X
    AQ[r] = -X.sum(axis=0)
    G = AQ * inv
    GQ = G @ Q.T
    if full:
        return ((G * f) @ G.T - (GQ * theta) @ GQ.T) / n
    return ((G**2) @ f - (GQ**2) @ theta) / n


def posterior_estimate(Q: np.ndarray, counts: Any, prior: Any) -> tuple[np.ndarray, np.ndarray]:
    """The average posterior θ̂ = Σ_y f_y post[:, y] under ``prior``, and the variance of each entry.

    >>> theta, var = posterior_estimate(np.eye(2), [3, 1], [0.5, 0.5])
    >>> theta.tolist(), var.tolist()
    ([0.75, 0.25], [0.046875, 0.046875])
    """
    Q = np.asarray(Q, dtype=float)
    c, n = check_counts(counts, Q.shape[1])
    P = np.asarray(prior, dtype=float)
    post = posterior_matrix(Q, P)
    lam = P @ Q
    impossible = (c > 0) & (lam <= 0)
    if np.any(impossible):
        y = int(np.argmax(impossible))
        raise ProblemError(
            f"output {y} was reported {int(c[y])} times but has probability 0 under the design prior: "
            "the posterior estimate does not exist; use method='em'"
        )
    f = c / c.sum()
    theta = post @ f
    var = np.maximum((post**2) @ f - theta**2, 0.0) / n
    return theta, var
