"""The private channels a local channel design starts from and never returns worse than.

``sqp`` is a local method: its answer depends on where SLSQP starts and, through
OpenBLAS's CPU-specific kernels, on the machine. What it can promise on every
machine is that it is never worse than a few channels that are private by
construction, so these are both its first starts and candidates of their own:

* **GRR** (generalised randomized response, k-RR under ε-LDP): t I + (1 − t) J/d
  with the largest t that the notion audits as private (the identity itself when
  it is private, e.g. MIP with ε ≥ H(X));
* **shrunk identity**: t I + (1 − t) 1Pᵀ, the same toward the product channel
  (equal to GRR at a uniform prior, then left out);
* **constant**: every input reports the same distribution (private under every
  notion at every ε ≥ 0; the floor when nothing else is private);
* **closed form**: the problem's closed-form mechanism, where one applies and
  passes the audit; when it has more outputs than the program has columns it is
  first reduced to at most d columns with no loss, by the column program
  restricted to its columns (an LP solved by HiGHS, whose vertex uses at most d
  columns, scaled columns staying in the notion's cone).

The bisections keep only audited points, so every baseline is private whether
or not the audit is monotone in t.

Examples
--------
>>> import numpy as np
>>> from mechopt.notions import LDP
>>> Q = grr(np.array([0.2, 0.3, 0.5]), LDP(1.0))          # k-RR at ε = 1: Q[x, x] / Q[x, y] = e
>>> round(float(Q[0, 0] / Q[0, 1]), 6) == round(float(np.e), 6), bool(np.allclose(Q.sum(axis=1), 1))
(True, True)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import linprog

from mechopt import settings
from mechopt.programs.linear import make_private

__all__ = ["shrink_toward", "grr", "shrunk_identity", "fit_columns", "channel_baselines"]

_BISECTIONS = 60


def shrink_toward(prior: np.ndarray, notion: Any, target: np.ndarray) -> np.ndarray:
    """t I + (1 − t) ``target`` with the largest t found by bisection that ``notion`` audits as private.

    ``target`` must be private (a constant-row channel is, under every notion).

    >>> import numpy as np
    >>> from mechopt.notions import MIP
    >>> P = np.full(3, 1 / 3)
    >>> shrink_toward(P, MIP(2.0), np.tile(P, (3, 1)))[0].tolist()   # ε ≥ H(X) = log 3: the identity
    [1.0, 0.0, 0.0]
    """
    P = np.asarray(prior, float)
    eye = np.eye(P.size)
    if notion.epsilon(eye, P) <= notion.eps:
        return eye
    lo, hi = 0.0, 1.0
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        if notion.epsilon(mid * eye + (1 - mid) * target, P) <= notion.eps:
            lo = mid
        else:
            hi = mid
    return lo * eye + (1 - lo) * target


def grr(prior: np.ndarray, notion: Any) -> np.ndarray:
    """Generalised randomized response: the identity shrunk toward the uniform channel J/d (k-RR under LDP)."""
    d = np.asarray(prior).size
    return shrink_toward(prior, notion, np.full((d, d), 1.0 / d))


def shrunk_identity(prior: np.ndarray, notion: Any) -> np.ndarray:
    """t I + (1 − t) 1Pᵀ with the largest t that ``notion`` audits as private.

    >>> import numpy as np
    >>> from mechopt.notions import LDP
    >>> Q = shrunk_identity(np.full(3, 1 / 3), LDP(1.0))        # k-RR: Q[x, x] / Q[x, y] = e^ε
    >>> round(float(Q[0, 0] / Q[0, 1]), 6) == round(float(np.e), 6)
    True
    """
    P = np.asarray(prior, float)
    return shrink_toward(P, notion, np.tile(P, (P.size, 1)))


def fit_columns(prog: Any, Q: np.ndarray, m: int) -> np.ndarray | None:
    """A private channel of ``m`` outputs at least as good as ``Q`` (on ``prog``'s support), or None.

    With c_y = P ∘ Q[:, y], the column program restricted to Q's columns,
    max Σ w_y μ(c_y) s.t. Σ w_y c_y = P, w ≥ 0, has w = 1 feasible; a vertex of
    it (HiGHS) keeps at most d columns. Q's extra columns are then merged away
    at no loss; the result is padded with zero columns to ``m``.

    >>> import numpy as np
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="uniform:3", notion="ldp", utility="mi", eps=1.0).reduced()
    >>> K = grr(prog.prior, prog.notion)
    >>> F = fit_columns(prog, np.hstack([K, K]) / 2, 3)      # k-RR with every output duplicated: 6 columns
    >>> F.shape, bool(np.allclose(np.sort(F, axis=1), np.sort(K, axis=1), atol=1e-12))
    ((3, 3), True)
    """
    P = prog.prior
    Q = np.asarray(Q, float)
    if Q.shape[1] > m:
        C = P[:, None] * Q
        sol = linprog(-prog.utility.gain(C), A_eq=C, b_eq=P, bounds=(0, None), method="highs")
        if sol.status != 0:
            return None
        keep = sol.x > 0
        if keep.sum() > m:
            return None
        Q = C[:, keep] * sol.x[keep] / P[:, None]
    Q = np.hstack([Q, np.zeros((Q.shape[0], m - Q.shape[1]))])
    return make_private(Q, P, prog.notion, dust=0.0)


def _closed_channel(prog: Any, closed: Callable[[], Any] | None, m: int) -> tuple[str, np.ndarray] | None:
    """The closed form's channel on the support, fitted to m columns, when it exists and is private."""
    if closed is None:
        return None
    res = closed()
    mech = None if res is None else res.mechanism
    if mech is None:
        return None
    try:
        Q = np.asarray(res.Q, float)
    except Exception:  # a density, a plan, a mechanism too large to materialise: no channel to start from
        return None
    if prog.index is not None and Q.shape[0] != prog.d:
        Q = Q[prog.index]
    if Q.shape[0] != prog.d or prog.notion.epsilon(Q, prog.prior) > prog.notion.eps + settings.tolerance("privacy"):
        return None
    fitted = fit_columns(prog, Q, m)
    if fitted is None:
        return None
    what = res.extras.get("claim") or res.extras.get("theorem")
    return ("closed form" + (f" ({what})" if what else "")), fitted


def channel_baselines(prog: Any, m: int, closed: Callable[[], Any] | None = None) -> list[tuple[str, np.ndarray]]:
    """The named baselines (module docstring) as d × m channels on ``prog``'s support, duplicates left out.

    ``prog`` needs ``prior``, ``notion`` (and ``utility``, ``index``, ``d`` for a closed form); ``closed``
    returns the problem's closed form (a :class:`~mechopt.results.result.Result`) or None.

    >>> import numpy as np
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="uniform:3", notion="ldp", utility="mi", eps=1.0).reduced()
    >>> [name for name, Q in channel_baselines(prog, 3)]      # the shrunk identity is GRR here
    ['GRR', 'constant']
    """
    P = np.asarray(prog.prior, float)
    d = P.size

    def cols(Q: np.ndarray) -> np.ndarray:
        """Q (d × d) on m columns: zero columns added, or the last d − m merged into one (merging keeps
        every notion: the cones are closed under addition, and garbling never raises I(X; Y))."""
        if m >= d:
            return np.hstack([Q, np.zeros((d, m - d))])
        return np.hstack([Q[:, : m - 1], Q[:, m - 1 :].sum(axis=1, keepdims=True)])

    found = [("GRR", cols(grr(P, prog.notion))), ("shrunk identity", cols(shrunk_identity(P, prog.notion)))]
    found.append(("constant", np.full((d, m), 1.0 / m)))
    fitted = _closed_channel(prog, closed, m)
    if fitted is not None:
        found.insert(0, fitted)
    out: list[tuple[str, np.ndarray]] = []
    for name, Q in found:
        if not any(np.allclose(Q, R, rtol=0, atol=1e-12) for _, R in out):
            out.append((name, Q))
    return out
