"""The ε-LIP histogram beyond Theorem 5's region: private channels for every prior, and a proven bound.

Theorem 5's channel (Theorem 3's, :func:`~mechopt.problems.lip.closed.mimo_lip_channel`)
is ε-LIP only when min_m P_m ≥ 1/(1 + e^ε). Outside that region the exact
solver certifies the optimum only for small d (vertex enumeration grows as
2^d), so a skewed prior on ~100+ symbols has no certified optimum. Two facts
(derived here) give a valid curve with a certified gap there.

*Bound.* Write π(y) = P(X = · | Y = y). The histogram MSE is
Σ_k [P_k(1 − P_k) − Var π_k(Y)], and ε-LIP with the simplex puts π_k(y) in
[lo_k, hi_k], lo_k = max(e^{−ε}P_k, 1 − e^{ε}(1 − P_k)), hi_k = min(e^{ε}P_k,
1 − e^{−ε}(1 − P_k)). A law on [lo, hi] with mean P_k has variance at most
(hi − P_k)(P_k − lo) (Bhatia–Davis), so

    MSE*  ≥  Σ_k  binary_lip_optimum(P_k, ε)          (:func:`histogram_lip_bound`),

each term the binary ε-LIP optimum of the indicator of symbol k.

*Channel.* Output m has posterior π^(m): π^(m)_m = hi_m and π^(m)_k = s_m P_k
(k ≠ m) with s_m = (1 − hi_m)/(1 − P_m), which lies in the LIP box; the
weights w_m = c P_m (1 − P_m)/(hi_m − P_m) (c normalising) satisfy
Σ_m w_m π^(m) = P, so Q[x, m] = w_m π^(m)_x / P_x is a channel and ε-LIP
(:func:`histogram_lip_box_channel`). Inside Theorem 5's region hi_m =
1 − e^{−ε}(1 − P_m), s_m = e^{−ε}, w = P: it is Theorem 5's channel.

*A better channel.* Any mixture of posteriors in the LIP box with mean P is
an ε-LIP mechanism (math.md §1), so the column LP (maximise Σ_j θ_j ‖r_j‖²
s.t. Σ_j θ_j r_j = P, θ ≥ 0) over a *restricted* family of box vertices gives
a private channel, optimal within that family only
(:func:`histogram_lip_lp`): the clipped Theorem-5 posteriors, and per symbol m
the vertices with m at hi_m and the others filled to their upper bounds in a
few rotated orders of the prior. Against the bound it certifies its own gap.

Examples
--------
>>> import numpy as np
>>> from mechopt.problems.lip.problems import LIPHistogram
>>> P, eps = np.array([0.02, 0.08, 0.3, 0.6]), 1.0
>>> prob = LIPHistogram(prior=P, eps=eps)
>>> Q = histogram_lip_box_channel(P, eps)
>>> bool(prob.notion.audit(Q, P).violation <= 1e-12), histogram_lip_bound(P, eps) <= prob.evaluate(Q)
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.model.priors import validate_prior
from mechopt.problems.lip.closed import binary_lip_optimum

__all__ = ["histogram_lip_box_channel", "histogram_lip_bound", "histogram_lip_lp", "lip_box"]

#: Rotations of the prior's rank order used to fill the vertex columns of :func:`histogram_lip_lp`.
SHIFTS = (1, 2, 3, 5, 8, 13)


def histogram_lip_bound(prior, eps: float) -> float:
    """A proven lower bound on the ε-LIP histogram MSE of one user: Σ_k binary_lip_optimum(P_k, ε).

    Examples
    --------
    >>> round(histogram_lip_bound([0.5, 0.5], 1.0), 12) == round(2 * binary_lip_optimum(0.5, 1.0)[0], 12)
    True
    """
    P = validate_prior(prior)
    return float(sum(binary_lip_optimum(p, eps)[0] for p in P))


def histogram_lip_box_channel(prior, eps: float) -> np.ndarray:
    """An ε-LIP channel for any prior: Theorem 5's channel with each output's posterior clipped to the LIP box.

    d outputs (one per symbol; outputs of symbols with P_m = 0 are never used
    and get weight 0); ε = 0 gives the one-output null channel.

    Examples
    --------
    >>> from mechopt.problems.lip.closed import mimo_lip_channel, mimo_lip_region
    >>> P = [0.3, 0.3, 0.4]
    >>> mimo_lip_region(P, 1.0), bool(np.allclose(histogram_lip_box_channel(P, 1.0), mimo_lip_channel(P, 1.0)))
    (True, True)
    """
    P = validate_prior(prior)
    if math.exp(float(eps)) == 1.0:
        return np.ones((P.size, 1))
    hi = lip_box(P, eps)[1]
    live = (P > 0) & (P < 1)
    if not live.any():  # a point mass: nothing to hide
        return np.eye(P.size)
    s = np.where(live, (1.0 - hi) / np.where(live, 1.0 - P, 1.0), 0.0)
    w = np.where(live, P * (1.0 - P) / np.where(live, hi - P, 1.0), 0.0)
    w = w / w.sum()
    post = P[None, :] * s[:, None]  # row m: the posterior of output m
    np.fill_diagonal(post, np.where(live, hi, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = np.where(P[:, None] > 0, (post * w[:, None]).T / P[:, None], 0.0)
    Q[P == 0] = w  # an impossible input: any row works; use the output law
    return Q


def lip_box(prior, eps: float) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): the ε-LIP bounds on each posterior coordinate, intersected with the simplex.

    Examples
    --------
    >>> lo, hi = lip_box([0.5, 0.5], math.log(2))
    >>> lo.tolist(), hi.tolist()
    ([0.25, 0.25], [0.75, 0.75])
    """
    P = validate_prior(prior)
    e = math.exp(float(eps))
    return np.maximum(P / e, 1.0 - e * (1.0 - P)), np.minimum(P * e, 1.0 - (1.0 - P) / e)


def _vertex(order: list[int], lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The box vertex that starts at lo and raises coordinates in ``order`` to hi until the sum is 1."""
    r = lo.copy()
    room = 1.0 - lo.sum()
    for k in order:
        if room <= 0:
            break
        add = min(hi[k] - lo[k], room)
        r[k] += add
        room -= add
    return r


def histogram_lip_lp(prior, eps: float, shifts: tuple[int, ...] = SHIFTS) -> tuple[np.ndarray, float]:
    """(Q, MSE): the ε-LIP histogram channel of the column LP over a restricted family of box vertices.

    Private for every prior (each output's posterior lies in the LIP box);
    optimal within its column family only, never worse than
    :func:`histogram_lip_box_channel` (whose posteriors are columns too).
    Compare its MSE with :func:`histogram_lip_bound` for a proven gap.

    Examples
    --------
    >>> from mechopt.problems.lip.problems import LIPHistogram
    >>> P, eps = np.array([0.02, 0.08, 0.3, 0.6]), 2.0
    >>> Q, mse = histogram_lip_lp(P, eps)
    >>> prob = LIPHistogram(prior=P, eps=eps)
    >>> bool(prob.notion.audit(Q, P).violation <= 1e-9), abs(prob.evaluate(Q) - mse) < 1e-9
    (True, True)
    >>> histogram_lip_bound(P, eps) <= mse <= prob.evaluate(histogram_lip_box_channel(P, eps))
    True
    """
    from scipy.optimize import linprog

    from mechopt.errors import SolverError

    P = validate_prior(prior)
    if math.exp(float(eps)) == 1.0:
        return np.ones((P.size, 1)), float(1.0 - P @ P)
    lo, hi = lip_box(P, eps)
    Q0 = histogram_lip_box_channel(P, eps)
    lam = P @ Q0
    cols = [P.copy()] + [P * Q0[:, j] / lam[j] for j in range(Q0.shape[1]) if lam[j] > 0]
    rank = np.argsort(-P, kind="stable")
    for m in range(P.size):
        for sh in shifts:
            cols.append(_vertex([m] + [int(k) for k in np.roll(rank, -sh * (m + 1)) if k != m], lo, hi))
    R = np.array(cols).T
    res = linprog(-(R**2).sum(axis=0), A_eq=R, b_eq=P, bounds=(0, None), method="highs")
    if res.status != 0:
        raise SolverError(f"histogram LIP column LP failed: {res.message}")
    keep = np.flatnonzero(res.x > 1e-15)
    C = R[:, keep] * res.x[keep]  # joint columns P(x) Q[x, y]
    C = C * (P / np.where(C.sum(axis=1) > 0, C.sum(axis=1), 1.0))[:, None]  # exact marginals despite round-off
    with np.errstate(divide="ignore", invalid="ignore"):
        Q = np.where(P[:, None] > 0, C / P[:, None], 0.0)
    Q[P == 0] = C.sum(axis=0) / C.sum()
    lam = P @ Q
    mse = float(1.0 - sum((P * Q[:, j]) @ (P * Q[:, j]) / lam[j] for j in range(Q.shape[1]) if lam[j] > 0))
    return Q, mse
