"""Sample datasets of Sharma & Amariucai (Section V) and covariance validation.

The two sample datasets are stored exactly as printed in the paper (two
decimals). Dataset 2's Σ_{X∪X_u} *as printed* is not positive semidefinite
(its smallest eigenvalue is ≈ −0.0028; the conditional variance
Var(X_u | X) = Σ_u − Σ_uX Σ_X⁻¹ Σ_Xu ≈ −0.0028 < 0): loading it raises a
:class:`~mechopt.errors.ProblemError` unless ``psd="project"`` is asked for.

The projection keeps Σ_X and the cross-covariances as printed (both blocks
must agree on Σ_X) and raises the Schur complement S = Σ_A − Σ_AX Σ_X⁻¹ Σ_XA
to the nearest (Frobenius) matrix with eigenvalues ≥ floor · tr(Σ_A)/n_A:
since Σ_{X∪A} ≽ 0 ⇔ S ≽ 0, this is the nearest consistent repair that only
changes Σ_A. A positive floor is needed: with S singular, I(A; X) = ∞. For
dataset 2 the answer depends strongly on the floor (I(X_u; X) = 2.31, 3.46,
4.61 nats and min I(X_p; Y) at δ = 1 ≈ 0.02, 0.91, 1.96 nats for floors
1e-2, 1e-3, 1e-4): its curves are set by the rounding of the printed matrix.

Examples
--------
>>> cp, cu, notes = validate_blocks(DATASETS["1"]["cov_p"], DATASETS["1"]["cov_u"], 2)
>>> cp.shape, cu.shape, notes
((3, 3), (3, 3), [])
>>> validate_blocks(DATASETS["2"]["cov_p"], DATASETS["2"]["cov_u"], 6)
Traceback (most recent call last):
...
mechopt.errors.ProblemError: covariance block Σ_{X∪Xu} is not positive definite: ...
"""

from __future__ import annotations

import numpy as np

from mechopt.errors import ProblemError

__all__ = ["DATASETS", "validate_blocks", "augment"]


def augment(sigma_x: list[list[float]], cross: list[list[float]], sigma_a: list[list[float]]) -> np.ndarray:
    """Assemble Σ_{X∪A} = [[Σ_X, Σ_XA], [Σ_AX, Σ_A]] from its blocks (Σ_XA is n × n_A).

    Examples
    --------
    >>> augment([[1.0]], [[0.5]], [[2.0]]).tolist()
    [[1.0, 0.5], [0.5, 2.0]]
    """
    X = np.asarray(sigma_x, dtype=float)
    B = np.asarray(cross, dtype=float).reshape(X.shape[0], -1)
    A = np.asarray(sigma_a, dtype=float).reshape(B.shape[1], B.shape[1])
    return np.block([[X, B], [B.T, A]])


_X1 = [[138.27, 165.66], [165.66, 240.07]]
_X2 = [
    [66.42, 57.38, 83.90, 80.03, 0.06, 121.43],
    [57.38, 229.20, 146.94, 232.62, 0.04, 69.30],
    [83.90, 146.94, 142.89, 169.83, 0.06, 140.22],
    [80.03, 232.62, 169.83, 247.38, 0.06, 114.44],
    [0.06, 0.04, 0.06, 0.06, 0.12, 0.10],
    [121.43, 69.30, 140.22, 114.44, 0.10, 233.30],
]

#: The paper's Section V sample datasets, as printed (n features, Σ_{X∪Xp}, Σ_{X∪Xu}).
DATASETS: dict[str, dict] = {
    "1": {
        "n": 2,
        "cov_p": augment(_X1, [[26.36], [43.86]], [[8.76]]),
        "cov_u": augment(_X1, [[11.28], [6.84]], [[2.26]]),
    },
    "2": {
        "n": 6,
        "cov_p": augment(_X2, [[9.26], [45.07], [27.17], [45.18], [0.01], [9.44]], [[9.01]]),
        "cov_u": augment(_X2, [[11.22], [2.42], [11.31], [6.93], [0.01], [22.38]], [[2.23]]),
    },
}


def _square_symmetric(C, name: str) -> np.ndarray:
    C = np.asarray(C, dtype=float)
    if C.ndim != 2 or C.shape[0] != C.shape[1]:
        raise ProblemError(f"covariance block {name} must be a square matrix, got shape {C.shape}")
    if not np.all(np.isfinite(C)):
        raise ProblemError(f"covariance block {name} has non-finite entries; give finite numbers")
    if not np.allclose(C, C.T, rtol=0, atol=1e-9 * max(1.0, float(np.abs(C).max()))):
        i, j = np.unravel_index(np.argmax(np.abs(C - C.T)), C.shape)
        raise ProblemError(
            f"covariance block {name} is not symmetric: entry ({i},{j}) = {C[i, j]:g} but ({j},{i}) = {C[j, i]:g}"
        )
    return (C + C.T) / 2


def _min_eig(C: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(C)[0])


def _pd_threshold(C: np.ndarray) -> float:
    return 1e-12 * max(1.0, float(np.abs(np.diag(C)).max()))


def _project_schur(C: np.ndarray, n: int, floor: float) -> tuple[np.ndarray, str]:
    """Raise the Schur complement of Σ_X in C to eigenvalues ≥ floor · mean diag(Σ_A)."""
    X, B, A = C[:n, :n], C[:n, n:], C[n:, n:]
    S = A - B.T @ np.linalg.solve(X, B)
    S = (S + S.T) / 2
    w, V = np.linalg.eigh(S)
    lo = floor * float(np.trace(A)) / A.shape[0]
    w_new = np.maximum(w, lo)
    S_new = (V * w_new) @ V.T
    out = C.copy()
    out[n:, n:] = S_new + B.T @ np.linalg.solve(X, B)
    out[n:, n:] = (out[n:, n:] + out[n:, n:].T) / 2
    msg = (
        f"Schur complement Σ_A − Σ_AX Σ_X⁻¹ Σ_XA had min eigenvalue {w[0]:.6g}, raised to {lo:.6g} "
        f"(psd_floor={floor:g} × mean variance); Σ_A changed by {np.abs(out[n:, n:] - A).max():.3g} (max abs)"
    )
    return out, msg


def validate_blocks(
    cov_p, cov_u, n: int, psd: str = "error", psd_floor: float = 1e-3
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Check Σ_{X∪Xp} and Σ_{X∪Xu}: square, symmetric, agreeing on Σ_X, positive definite.

    Parameters
    ----------
    cov_p, cov_u : array_like
        The joint covariances of (X, X_p) and (X, X_u), X first.
    n : int
        Number of released features X.
    psd : {"error", "project"}
        What to do with a block that is not positive definite: raise a
        ProblemError naming the block and its smallest eigenvalue, or
        project it (module docstring) and record a note.
    psd_floor : float
        Relative eigenvalue floor used by the projection.

    Returns
    -------
    cov_p, cov_u : ndarray
        The validated (possibly projected) blocks.
    notes : list of str
        One line per projection made.

    Examples
    --------
    >>> d = DATASETS["2"]
    >>> _, cu, notes = validate_blocks(d["cov_p"], d["cov_u"], 6, psd="project")
    >>> bool(np.linalg.eigvalsh(cu)[0] > 0), notes[0].startswith("Σ_{X∪Xu} projected")
    (True, True)
    """
    if psd not in ("error", "project"):
        raise ProblemError(f"psd must be 'error' or 'project', got {psd!r}")
    if not (np.isfinite(psd_floor) and 0 < psd_floor < 1):
        raise ProblemError(f"psd_floor must be in (0, 1), got {psd_floor!r}")
    Cp = _square_symmetric(cov_p, "Σ_{X∪Xp}")
    Cu = _square_symmetric(cov_u, "Σ_{X∪Xu}")
    if not (isinstance(n, (int, np.integer)) and 1 <= n < min(Cp.shape[0], Cu.shape[0])):
        raise ProblemError(
            f"n (number of released features) must be an integer in [1, {min(Cp.shape[0], Cu.shape[0]) - 1}] "
            f"so that both blocks have at least one attribute, got {n!r}"
        )
    scale = max(1.0, float(np.abs(Cp[:n, :n]).max()))
    if not np.allclose(Cp[:n, :n], Cu[:n, :n], rtol=0, atol=1e-9 * scale):
        dev = float(np.abs(Cp[:n, :n] - Cu[:n, :n]).max())
        raise ProblemError(
            f"Σ_{{X∪Xp}} and Σ_{{X∪Xu}} disagree on Σ_X (max abs difference {dev:.3g}); "
            "both blocks must share the same leading n × n covariance of X"
        )
    notes: list[str] = []
    lam = _min_eig(Cp[:n, :n])
    if lam <= _pd_threshold(Cp[:n, :n]):
        raise ProblemError(
            f"covariance block Σ_X is not positive definite: min eigenvalue {lam:.6g}; "
            "drop linearly dependent features (projection is only offered for the attribute blocks)"
        )
    out = []
    for C, name in ((Cp, "Σ_{X∪Xp}"), (Cu, "Σ_{X∪Xu}")):
        lam = _min_eig(C)
        if lam <= _pd_threshold(C):
            if psd == "error":
                kind = "positive semidefinite" if lam < 0 else "positive definite (it is singular)"
                raise ProblemError(
                    f"covariance block {name} is not positive definite: min eigenvalue {lam:.6g} "
                    f'(not {kind}); pass psd="project" to project it to the nearest valid matrix'
                )
            C, msg = _project_schur(C, n, psd_floor)
            notes.append(f"{name} projected (min eigenvalue was {lam:.6g}): {msg}")
        out.append(C)
    return out[0], out[1], notes
