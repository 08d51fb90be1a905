"""Whether a channel identifies the input distribution, and which inputs it confounds.

The output distribution of a channel Q (d inputs × k outputs) under an input
distribution θ is λ = Qᵀθ. θ is identifiable from λ exactly when Qᵀ is
injective, i.e. rank Q = d (full row rank); then every unbiased linear
estimator exists (:mod:`mechopt.mechanism.estimators`). Otherwise the null space
N = {v : Qᵀv = 0} is not {0}: θ and θ + tv give the same reports for every t.
The frequency θ_x of an input is still linearly estimable when e_x ⊥ N;
inputs x, x' are *confounded* together when the orthogonal projector onto N
has a nonzero entry at (x, x') (a basis-free relation); the groups are the
connected components of that relation over the inputs that touch N.

Examples
--------
>>> import numpy as np
>>> from mechopt.mechanism.identify import rank, confounded_groups
>>> Q = np.array([[0.7, 0.3], [0.7, 0.3], [0.2, 0.8]])   # inputs 0 and 1 give the same row
>>> rank(Q), confounded_groups(Q)
(2, [[0, 1]])
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.sparse.csgraph import connected_components

from mechopt import settings

__all__ = ["rank", "confounded_groups", "identifiability_note", "NOTE_PREFIX"]

#: How the note of a design that cannot identify its input distribution starts (``Result.message``, CLI ``note:``).
NOTE_PREFIX = "not identifiable"


def _range_basis(Q: Any, tol: float | None = None) -> tuple[int, np.ndarray]:
    """Rank of Q and an orthonormal basis (d × rank) of its column space, by QR with column pivoting.

    The diagonal of R of a pivoted QR is non-increasing in magnitude; entries
    above the ``rank`` tolerance × the first count (:mod:`mechopt.settings`).
    Cost O(d·k·min(d, k)), single-threaded BLAS (the same numbers on any machine load).
    """
    from scipy.linalg import qr

    from mechopt.runtime.threads import single_threaded

    A = np.asarray(Q, dtype=float)
    with single_threaded():
        Qq, R, _ = qr(A, mode="economic", pivoting=True)
    diag = np.abs(np.diag(R))
    r = int(np.sum(diag > settings.resolve(tol, "rank") * diag[0])) if diag.size and diag[0] > 0 else 0
    return r, Qq[:, :r]


def rank(Q: Any, tol: float | None = None) -> int:
    """Numerical rank of Q (pivoted QR; diagonal entries above the ``rank`` tolerance × the largest).

    >>> rank(np.full((3, 2), 0.5)), rank(np.eye(3))
    (1, 3)
    """
    return _range_basis(Q, tol)[0]


def null_projector(Q: Any, tol: float | None = None) -> np.ndarray:
    """The orthogonal projector (d × d) onto N = {v : Qᵀv = 0}, I − UUᵀ with U a basis of range Q.

    >>> null_projector(np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])).round(3).tolist()
    [[0.5, -0.5, 0.0], [-0.5, 0.5, 0.0], [0.0, 0.0, 0.0]]
    """
    r, U = _range_basis(Q, tol)
    d = np.shape(Q)[0]
    return np.eye(d) - U @ U.T if r < d else np.zeros((d, d))


def confounded_groups(Q: Any, tol: float | None = None) -> list[list[int]]:
    """Groups of input indices that Q cannot tell apart (see the module docstring), each sorted, in order.

    Two inputs are joined when the projector onto the null space of Qᵀ has an
    entry above the ``confound`` tolerance (:mod:`mechopt.settings`) at their
    pair. Empty when Q has full row rank.

    >>> confounded_groups(np.eye(3)), confounded_groups(np.full((3, 2), 0.5))
    ([], [[0, 1, 2]])
    """
    return _groups(null_projector(Q, tol))


def _groups(P: np.ndarray) -> list[list[int]]:
    """Connected components of {(x, x') : |P[x, x']| > confound tolerance} over the inputs that touch N."""
    link = np.abs(P) > settings.tolerance("confound")
    touched = np.flatnonzero(np.diag(link))
    if touched.size == 0:
        return []
    n, comp = connected_components(link[np.ix_(touched, touched)], directed=False)
    groups = [touched[comp == c].tolist() for c in range(n)]
    return sorted(groups, key=lambda g: g[0])


def identifiability_note(Q: Any, prior: Any = None, inputs: Any = None) -> str | None:
    """A one-line note when Q cannot identify the distribution of its inputs of positive prior, else None.

    With a prior, only the inputs of positive prior count: rank Q[S] < |S|
    (S the support) means two distributions on S give the same reports. The
    note names the confounded groups (by label when ``inputs`` are given) and
    what still works (the EM and posterior estimates). Cost: one pivoted QR of Q[S].

    Examples
    --------
    >>> identifiability_note(np.eye(2), [0.5, 0.5]) is None
    True
    >>> print(identifiability_note(np.array([[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]]), [0.2, 0.3, 0.5]))
    not identifiable: Q has rank 2 < 3 inputs of positive prior, ... (confounded inputs: {0, 1}); ...
    """
    Q = np.asarray(Q, dtype=float)
    support = np.arange(Q.shape[0]) if prior is None else np.flatnonzero(np.asarray(prior, dtype=float) > 0)
    r, U = _range_basis(Q[support])
    if r >= support.size:
        return None
    names = tuple(range(Q.shape[0])) if inputs is None else tuple(inputs)
    groups = _groups(np.eye(support.size) - U @ U.T)
    shown = "; ".join("{" + ", ".join(str(names[support[i]]) for i in g) + "}" for g in groups[:4])
    more = f" and {len(groups) - 4} more" if len(groups) > 4 else ""
    what = "inputs of positive prior" if prior is not None else "inputs"
    return (
        f"{NOTE_PREFIX}: Q has rank {r} < {support.size} {what}, so their distribution cannot be recovered "
        f"from the reports (confounded inputs: {shown}{more}); the linear (unbiased) estimate does not exist, "
        "EM gives one of many maximum-likelihood fits"
    )
