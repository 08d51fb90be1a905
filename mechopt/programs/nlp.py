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
from scipy import sparse
from scipy.optimize import LinearConstraint, NonlinearConstraint

from mechopt import settings
from mechopt.model.forms import ColumnProgram, NLPForm
from mechopt.model.info import mutual_information
from mechopt.notions import MIP
from mechopt.programs.baselines import channel_baselines
from mechopt.programs.linear import make_private
from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

__all__ = [
    "channel_nlp",
    "gain_grad",
    "GRADIENTS",
    "channel_constraints",
    "private_starts",
    "dense_jacobian_bytes",
    "MAX_DENSE_BYTES",
]

_FLOOR = 1e-300  # guards log(0) in the MI gradient (a representable floor, not a tolerance)


GRADIENTS = (SumMSE, HistogramMSE, MutualInfo)  # utilities with an analytic gradient below


def gain_grad(utility, C: np.ndarray, prior: np.ndarray) -> np.ndarray:
    """∂μ(c_y)/∂c_y(x) for each column (shape of C); analytic for the sublinear utilities."""
    s = C.sum(axis=0)
    s_safe = np.where(s > 0, s, 1.0)
    if isinstance(utility, SumMSE):
        t = utility.centred @ C  # centred values: the MSE is shift-invariant, the numbers are not
        return 2 * np.outer(utility.centred, t / s_safe) - (t / s_safe) ** 2
    if isinstance(utility, HistogramMSE):
        return 2 * C / s_safe - ((C**2).sum(axis=0) / s_safe**2)
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


MAX_DENSE_BYTES = 256 * 2**20
"""Largest dense constraint Jacobian (bytes) SLSQP may form: it copies every constraint row into one
dense (rows × n) array, however the rows are given (:func:`dense_jacobian_bytes`)."""


def dense_jacobian_bytes(constraints: list, n: int) -> int:
    """Bytes of the dense (rows × n) float64 Jacobian SLSQP would form from ``constraints``.

    Examples
    --------
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="uniform:40", notion="ldp", utility="mi", eps=1.0).column_program()
    >>> dense_jacobian_bytes(channel_constraints(prog, 40), 1600)   # 62 440 rows x 1600 columns
    799232000
    """
    rows = 0
    for c in constraints:
        A = getattr(c, "A", None)
        rows += A.shape[0] if A is not None else int(np.size(c.lb)) if hasattr(c, "lb") else 1
    return 8 * rows * n


def channel_constraints(prog: Any, m: int) -> list:
    """Rows sum to 1 and the notion's cone (or, for MIP, I(X;Y) ≤ ε) on x = vec(Q), Q of shape d × m.

    The linear rows are sparse (``scipy.sparse`` CSR, O(nnz) memory: the cone rows of a d = 40 LDP
    design are 62 400 × 1600 with 124 800 nonzeros); SLSQP densifies them, trust-constr does not.

    Examples
    --------
    >>> from mechopt.problems.design import ChannelDesign
    >>> prog = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mi", eps=1.0).column_program()
    >>> [(c.A.shape, c.A.nnz) for c in channel_constraints(prog, 2)]
    [((2, 4), 4), ((4, 4), 8)]
    """
    P = prog.prior
    d = P.size
    cons: list = [
        LinearConstraint(sparse.kron(sparse.identity(d, format="csr"), np.ones((1, m)), format="csr"), 1.0, 1.0)
    ]
    if isinstance(prog.notion, MIP):

        def mi(x: np.ndarray) -> float:
            return mutual_information(P, np.clip(x.reshape(d, m), 0, None))

        cons.append(NonlinearConstraint(mi, -np.inf, prog.notion.eps))
    else:
        AP = sparse.csr_matrix(prog.notion.cone(P) * P[None, :])  # (r, d) on c = P ∘ q, acting on the column q directly
        if AP.shape[0]:  # one symbol on the support: no pairs, no cone rows
            # rows (k, y): Σ_x AP[k, x] Q[x, y]
            cons.append(LinearConstraint(sparse.kron(AP, sparse.identity(m, format="csr"), format="csr"), 0.0, np.inf))
    return cons


def last_point(fn: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], np.ndarray]:
    """``fn`` remembering its last point: a form's ``value_of`` and ``recover`` repair the same x.

    >>> calls = []
    >>> f = last_point(lambda x: calls.append(1) or x * 2)
    >>> x = np.ones(3); _ = f(x); _ = f(x.copy()); len(calls)
    1
    """
    memo: dict[str, Any] = {}

    def wrapper(x: np.ndarray) -> np.ndarray:
        key = np.asarray(x).tobytes()
        if memo.get("key") != key:
            memo.update(key=key, out=fn(x))
        return memo["out"]

    return wrapper


def channel_nlp(prog: ColumnProgram, outputs: int | None = None, closed: Callable[[], Any] | None = None) -> NLPForm:
    """Build the NLP of a channel design given on its support (a :class:`ColumnProgram`).

    ``outputs`` columns (default d); the recovered mechanism has the
    zero-mass rows restored (``prog.restore``). Its baselines are GRR, the shrunk
    identity, the constant channel and the closed form ``closed()`` returns
    (:mod:`mechopt.programs.baselines`). The objective is the normalised utility's
    (values of order one, whatever their units); ``value_of`` maps it back with ``prog.scale``.
    """
    P = prog.prior
    d = P.size
    m = d if outputs is None else int(outputs)
    util = prog.utility
    if isinstance(util, MutualInfo) and util.prior is None:
        util = MutualInfo(P)
    sign = -1.0 if util.sense == "max" else 1.0  # fun = sign * value

    def value(x: np.ndarray) -> float:
        return float(util.value(x.reshape(d, m), P))

    def fun(x: np.ndarray) -> float:
        return sign * value(np.clip(x, 0, None))

    def jac(x: np.ndarray) -> np.ndarray:
        Q = np.clip(x.reshape(d, m), 0, None)
        g = gain_grad(util, P[:, None] * Q, P) * P[:, None]  # d value / d Q = sign_u * P_x dμ/dc
        return (sign * util.sign * g).ravel()

    @last_point
    def private(x: np.ndarray) -> np.ndarray:
        """The solver's point, cleaned, then mixed with the product channel as little as the audit needs
        (SLSQP meets the ratio constraints only to its tolerance: 1e-7 of ε was seen)."""
        return make_private(_clean(x.reshape(d, m)), P, prog.notion)

    return NLPForm(
        fun=fun,
        jac=jac,
        bounds=[(0.0, 1.0)] * (d * m),
        constraints=channel_constraints(prog, m),
        starts=private_starts(prog, m),
        recover=lambda x: prog.restore(private(x)),
        value_of=lambda x: float(prog.scale * util.value(private(x), P)),  # the program is unit-free
        sense=util.sense,
        objective=prog.objective,
        baselines=lambda: [(name, Q.ravel()) for name, Q in channel_baselines(prog, m, closed)],
        repairs=True,
    )


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
