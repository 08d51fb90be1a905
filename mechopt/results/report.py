"""A privacy report for any channel Q: ε under LDP/LIP/MIP, leakages, Bayes risk and the δ(ε) profile.

All measures are in nats. With ``Q[x, y] = P(Y=y | X=x)`` and a prior P:

- ε-LDP: max_y log(max_x Q[x,y] / min_x Q[x,y]); ε-LIP and ε-MIP from the
  notions' audits (:mod:`mechopt.notions`), which need P;
- maximal leakage: L = log Σ_y max_{x: P(x)>0} Q[x,y];
- mutual information I(X;Y) (:func:`mechopt.model.info.mutual_information`);
- Bayes vulnerability V(P) = max_x P(x) and the attacker's success rate
  V(P, Q) = Σ_y max_x P(x) Q[x,y] (one guess after seeing y), their ratio
  (multiplicative leakage) and its log (min-entropy leakage, ≤ L);
- the hockey-stick profile of LDP, δ(ε) = max_{x≠x'} Σ_y max(0, Q[x,y] − e^ε Q[x',y]):
  the smallest δ for which Q is (ε, δ)-LDP.

Examples
--------
>>> import numpy as np
>>> from mechopt.results.report import privacy_report
>>> d, e = 4, np.exp(1.0)
>>> Q = np.full((d, d), 1 / (e + d - 1)); np.fill_diagonal(Q, e / (e + d - 1))   # k-RR, ε = 1
>>> rep = privacy_report(Q, eps=[0.0, 0.5, 1.0])
>>> round(rep["notions"]["ldp"]["eps"], 12), round(rep["bayes"]["attacker_success"], 12)
(1.0, 0.475366886419)
>>> [round(v, 6) for v in rep["hockey_stick"]["delta"]]        # (e − e^ε)/(e + d − 1)
[0.300489, 0.187042, 0.0]
"""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.model.channel import validate_channel
from mechopt.model.info import mutual_information
from mechopt.model.priors import parse_prior, validate_prior

__all__ = ["privacy_report", "hockey_stick_profile", "maximal_leakage", "bayes_vulnerability", "default_eps_grid"]


def _finite(v: float) -> float | None:
    return float(v) if math.isfinite(v) else None


def hockey_stick_profile(Q: Any, eps: Any) -> np.ndarray:
    """δ(ε) = max over input pairs of the hockey-stick divergence E_{e^ε}(Q[x] ‖ Q[x']), for each ε.

    Since rows sum to 1, Σ_y max(0, a_y − c b_y) = ((1 − c) + Σ_y |a_y − c b_y|) / 2,
    and the L1 distances between every row and every row scaled by c are one
    :func:`scipy.spatial.distance.cdist` call (compiled, no d × d × m
    temporary): O(d² m) per ε, none for ε at or above the LDP level (δ = 0 there).
    The identity cancels (1 − c) against the L1 sum, so the absolute error is
    about machine epsilon × e^ε × m (measured 8e-12 against the per-pair loop at
    d = 256, ε up to 16; ``benchmarks/bench_report.py``).

    Parameters
    ----------
    Q : array_like, shape (d, m)
        Row-stochastic channel.
    eps : array_like of float
        Privacy levels ≥ 0 (finite).

    Returns
    -------
    numpy.ndarray
        δ(ε) for each ε, in [0, 1], non-increasing in ε.

    Examples
    --------
    >>> import numpy as np
    >>> hockey_stick_profile(np.array([[0.75, 0.25], [0.25, 0.75]]), [0.0, np.log(2), np.log(3)]).round(12).tolist()
    [0.5, 0.25, 0.0]
    """
    from scipy.spatial.distance import cdist

    from mechopt.notions import LDP

    M = validate_channel(Q)
    e = np.atleast_1d(np.asarray(eps, dtype=float))
    if e.ndim != 1 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ProblemError("the eps grid of the delta(eps) profile must be finite numbers >= 0")
    if np.any(e > 700):
        raise ProblemError("eps > 700 in the delta(eps) profile: e^eps overflows; use eps <= 700")
    eps_ldp = LDP(0.0).epsilon(M, None)
    out = np.zeros(e.size)
    for k, ek in enumerate(e):
        if ek >= eps_ldp:
            continue  # Q[x,y] ≤ e^ε Q[x',y] everywhere: δ = 0 exactly
        c = math.exp(ek)
        l1 = cdist(M, c * M, "cityblock")
        out[k] = 0.5 * ((1.0 - c) + float(l1.max()))
    return np.clip(out, 0.0, 1.0)


def maximal_leakage(Q: Any, prior: Any = None) -> float:
    """L(X→Y) = log Σ_y max_{x ∈ supp P} Q[x, y] (nats; all rows when no prior is given).

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.isclose(maximal_leakage(np.eye(3)), np.log(3))), maximal_leakage(np.full((3, 2), 0.5))
    (True, 0.0)
    """
    M = validate_channel(Q)
    rows = M if prior is None else M[validate_prior(prior) > 0]
    return float(np.log(rows.max(axis=0).sum()))


def bayes_vulnerability(Q: Any, prior: Any) -> tuple[float, float]:
    """(V(P), V(P, Q)): one-guess success before and after seeing Y, V(P, Q) = Σ_y max_x P(x) Q[x, y].

    Examples
    --------
    >>> import numpy as np
    >>> bayes_vulnerability(np.eye(2), [0.3, 0.7])
    (0.7, 1.0)
    """
    P = validate_prior(prior)
    M = validate_channel(Q, n_inputs=P.size)
    return float(P.max()), float((P[:, None] * M).max(axis=0).sum())


def default_eps_grid(eps_ldp: float, n: int = 33) -> np.ndarray:
    """ε from 0 to 1.25 × the LDP level (to 10 when it is infinite, to 1 when it is 0), ``n`` points.

    Examples
    --------
    >>> default_eps_grid(2.0, 5).tolist()
    [0.0, 0.625, 1.25, 1.875, 2.5]
    """
    hi = 10.0 if not math.isfinite(eps_ldp) else (1.0 if eps_ldp == 0 else min(1.25 * eps_ldp, 700.0))
    return np.linspace(0.0, hi, n)


def privacy_report(Q: Any, prior: Any = None, eps: Any = None) -> dict[str, Any]:
    """Every measure of the module docstring for one channel, as a JSON-ready dict.

    Parameters
    ----------
    Q : array_like, shape (d, m)
        Row-stochastic channel (rows are inputs).
    prior : array_like or str, optional
        The input distribution (a vector, or the CLI syntax ``"0.2,0.8"``,
        ``"uniform:d"``, a file). Without one the prior-dependent measures use
        the uniform prior and ``prior_source`` says so.
    eps : array_like, optional
        The ε grid of the δ(ε) profile (default :func:`default_eps_grid`).

    Returns
    -------
    dict
        ``inputs``, ``outputs``, ``prior``, ``prior_source`` (``given`` or
        ``uniform (none given)``), ``units`` (``nats``), ``notions`` {ldp, lip,
        mip: {eps}} (None: infinite), ``maximal_leakage``, ``mutual_information``,
        ``bayes`` {prior_vulnerability, attacker_success, multiplicative_leakage,
        min_entropy_leakage}, ``hockey_stick`` {eps, delta}.
    """
    from mechopt.notions import LDP, LIP, MIP

    M = validate_channel(Q)
    if prior is None:
        P, source = np.full(M.shape[0], 1.0 / M.shape[0]), "uniform (none given)"
    else:
        P = parse_prior(prior) if isinstance(prior, (str, os.PathLike)) else validate_prior(prior)
        source = "given"
    M = validate_channel(M, n_inputs=P.size)
    eps_ldp = LDP(0.0).epsilon(M, None)
    grid = default_eps_grid(eps_ldp) if eps is None else np.atleast_1d(np.asarray(eps, dtype=float))
    v_prior, v_post = bayes_vulnerability(M, P)
    return {
        "inputs": int(M.shape[0]),
        "outputs": int(M.shape[1]),
        "prior": P.tolist(),
        "prior_source": source,
        "units": "nats",
        "notions": {
            "ldp": {"eps": _finite(eps_ldp)},
            "lip": {"eps": _finite(LIP(0.0).epsilon(M, P))},
            "mip": {"eps": _finite(MIP(0.0).epsilon(M, P))},
        },
        "maximal_leakage": maximal_leakage(M, P),
        "mutual_information": mutual_information(P, M),
        "bayes": {
            "prior_vulnerability": v_prior,
            "attacker_success": v_post,
            "multiplicative_leakage": v_post / v_prior,
            "min_entropy_leakage": math.log(v_post / v_prior),
        },
        "hockey_stick": {"notion": "ldp", "eps": grid.tolist(), "delta": hockey_stick_profile(M, grid).tolist()},
    }
