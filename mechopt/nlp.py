"""The NLP form of a channel-design problem, for local solvers (scipy SQP).

Variables x = vec(Q) (row-major, Q of shape (d, m)); the program

    minimise   −sign · Σ_y μ(P ∘ Q[:, y])        (i.e. the problem's objective, as a minimisation)
    s.t.       Q 1 = 1,  0 ≤ Q ≤ 1,
               A (P ∘ Q[:, y]) ≥ 0 for every y   (the notion's column cone), or
               I(X; Y) ≤ ε                       (mutual-information privacy).

It is non-convex (a convex function is maximised): local solvers find KKT
points, not certified optima.

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0)
>>> form = channel_nlp(prob.reduced())
>>> form.sense, form.starts(__import__("numpy").random.default_rng(0), 2).shape
('max', (2, 4))
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import LinearConstraint, NonlinearConstraint

from . import settings
from .errors import TooLargeError
from .forms import ColumnProgram, NLPForm
from .info import mutual_information
from .notions import MIP
from .utilities import HistogramMSE, MutualInfo, SumMSE

__all__ = ["channel_nlp", "gain_grad", "GRADIENTS", "channel_constraints", "private_starts"]

_FLOOR = 1e-300   # guards log(0) in the MI gradient (a representable floor, not a tolerance)


GRADIENTS = (SumMSE, HistogramMSE, MutualInfo)   # utilities with an analytic gradient below


def gain_grad(utility, C: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """∂μ(c_y)/∂c_y(x) for each column (shape of C); analytic for the sublinear utilities."""
    s = C.sum(axis=0)
    s_safe = np.where(s > 0, s, 1.0)
    if isinstance(utility, SumMSE):
        t = utility.centred @ C          # centred values: the MSE is shift-invariant, the numbers are not
        return 2 * np.outer(utility.centred, t / s_safe) - (t / s_safe) ** 2
    if isinstance(utility, HistogramMSE):
        return 2 * C / s_safe - ((C ** 2).sum(axis=0) / s_safe ** 2)
    if isinstance(utility, MutualInfo):
        return np.log(np.maximum(C, _FLOOR)) - np.log(prior[:, None] * np.maximum(s_safe, _FLOOR))
    raise TypeError(f"no gradient for utility {utility.name}")


def _feasible_start(prog: ColumnProgram, Q: np.ndarray) -> np.ndarray:
    """Shrink Q toward the constant channel (0-private) until it passes the audit."""
    lam = prog.prior @ Q
    base = np.tile(lam, (Q.shape[0], 1))
    t = 1.0
    for _ in range(60):
        cand = t * Q + (1 - t) * base
        if prog.notion.audit(cand, prog.prior).violation <= 0:
            return cand
        t *= 0.7
    return base


def private_starts(prog: Any, m: int) -> Callable[[np.random.Generator, int], np.ndarray]:
    """``starts(rng, n)``: n flattened d × m starts, Dirichlet(½) rows shrunk until private.

    ``prog`` needs ``prior`` and ``notion`` (a :class:`ColumnProgram` or a
    problem on its support).

    Examples
    --------
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0).column_program()
    >>> X = private_starts(prog, 2)(np.random.default_rng(0), 3)
    >>> X.shape, all(prog.notion.audit(x.reshape(2, 2), prog.prior).violation <= 0 for x in X)
    ((3, 4), True)
    """
    d = prog.prior.size

    def starts(rng: np.random.Generator, n: int) -> np.ndarray:
        out = np.empty((n, d * m))
        for i in range(n):
            out[i] = _feasible_start(prog, rng.dirichlet(np.full(m, 0.5), size=d)).ravel()
        return out

    return starts


MAX_DENSE_BYTES = 256 * 2 ** 20
"""Largest dense constraint matrix (bytes) the local NLP builds; SLSQP works on dense matrices."""


def channel_constraints(prog: Any, m: int) -> list:
    """Rows sum to 1 and the notion's cone (or, for MIP, I(X;Y) ≤ ε) on x = vec(Q), Q of shape d × m.

    Examples
    --------
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0).column_program()
    >>> [c.A.shape for c in channel_constraints(prog, 2)]
    [(2, 4), (4, 4)]
    """
    P = prog.prior
    d = P.size
    cons: list = [LinearConstraint(np.kron(np.eye(d), np.ones(m)), 1.0, 1.0)]
    if isinstance(prog.notion, MIP):
        def mi(x: np.ndarray) -> float:
            return mutual_information(P, np.clip(x.reshape(d, m), 0, None))
        cons.append(NonlinearConstraint(mi, -np.inf, prog.notion.eps))
    else:
        AP = prog.notion.cone(P) * P[None, :]        # (r, d) on c = P ∘ q, acting on the column q directly
        rows, cols = AP.shape[0] * m, d * m
        if rows * cols * 8 > MAX_DENSE_BYTES:        # refuse before allocating (SLSQP densifies anyway)
            raise TooLargeError(f"the local NLP of a d = {d}, {m}-output design needs a dense {rows} x {cols} "
                                f"constraint matrix ({rows * cols * 8 / 2 ** 30:.2f} GiB, limit "
                                f"{MAX_DENSE_BYTES / 2 ** 30:.2f} GiB); use solver='exact' (column generation scales)")
        if AP.shape[0]:                              # one symbol on the support: no pairs, no cone rows
            cons.append(LinearConstraint(np.kron(AP, np.eye(m)), 0.0, np.inf))   # rows (k, y): Σ_x AP[k, x] Q[x, y]
    return cons


def channel_nlp(prog: ColumnProgram, outputs: int | None = None) -> NLPForm:
    """Build the NLP of a channel design given on its support (a :class:`ColumnProgram`).

    ``outputs`` columns (default d); the recovered mechanism has the
    zero-mass rows restored (``prog.restore``).
    """
    P = prog.prior
    d = P.size
    m = d if outputs is None else int(outputs)
    util = prog.utility
    if isinstance(util, MutualInfo) and util.prior is None:
        util = MutualInfo(P)
    sign = -1.0 if util.sense == "max" else 1.0   # fun = sign * value

    def value(x: np.ndarray) -> float:
        return float(util.value(x.reshape(d, m), P))

    def fun(x: np.ndarray) -> float:
        return sign * value(np.clip(x, 0, None))

    def jac(x: np.ndarray) -> np.ndarray:
        Q = np.clip(x.reshape(d, m), 0, None)
        g = gain_grad(util, P[:, None] * Q, P) * P[:, None]   # d value / d Q = sign_u * P_x dμ/dc
        return (sign * util.sign * g).ravel()

    def recover(x: np.ndarray) -> np.ndarray:
        return prog.restore(_clean(x.reshape(d, m)))

    return NLPForm(fun=fun, jac=jac, bounds=[(0.0, 1.0)] * (d * m), constraints=channel_constraints(prog, m),
                   starts=private_starts(prog, m), recover=recover, value_of=lambda x: float(util.value(_clean(x.reshape(d, m)), P)),
                   sense=util.sense, objective=prog.objective)


def _clean(Q: np.ndarray, drop: float | None = None) -> np.ndarray:
    """Clip, drop columns that are numerical dust (max entry < ``drop``, default ``dust``), renormalise rows.

    A local solver satisfies ratio constraints only to an absolute tolerance,
    so a column of entries ~1e-9 can have an unbounded ratio; dropping it
    changes the objective by O(drop).
    """
    drop = settings.resolve(drop, "dust")
    Q = np.clip(Q, 0.0, None)
    keep = Q.max(axis=0) >= drop
    if np.any(keep):
        Q = Q[:, keep]
    return Q / Q.sum(axis=1, keepdims=True)
