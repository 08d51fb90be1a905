"""The whole essential-pairs LP in one HiGHS interior-point solve, certified by the column-generation bound.

Column generation (:mod:`~mechopt.solvers.lp.colgen`) tails when every point has many essential pairs
(Euclidean geo-indistinguishability: ~31 per point on a 10×10 grid; a spanner with diagonals: ~3.4):
the row prices of its degenerate master leave outputs with negative pricing minima round after round.
The *full* LP — n·m variables, a row Q[x, y] ≤ e^{ε d} Q[x', y] per essential pair, direction and
output, and the n row sums — has no such tail. It is solved by HiGHS's interior point method with
crossover, and then certified exactly as column generation is: for **any** row prices u,

    Σ C Q ≥ Σ_x u_x + Σ_y min(0, β_y)     (β_y: the exact pricing bound of :class:`MetricCone`),

so with u = the LP's row-sum duals the bound is proven by weak duality on our side; HiGHS's accuracy
is never trusted. The channel is HiGHS's Q with each column made exactly admissible (``repair``).

**Choice rule** (:func:`choose`, option ``method="auto"``): column generation, except on a metric cone
with more than ``DENSE_PAIRS_PER_POINT`` (3) essential pairs per point whose full LP fits the memory
budget ``full_memory`` (estimate :func:`full_memory`, default 4 GB): there column generation runs for
at most ``STALL_PASSES`` (12) full pricing passes and, if it has not converged by then, the full LP
is solved instead (``extras["column_generation_first"]`` keeps the first attempt's rounds and time).
Measured (RESULTS_geo.md): the four-neighbour grid (2 pairs per point) converges by column generation
in 1–35 rounds; Euclidean 10×10 (31 per point) converges at ε = 0.5 in 6 full passes (7 s, the full LP
takes 118 s) but tails at ε = 0.1 (50 full passes in 90 s, gap 0.12; the full LP certifies in ~50 s).
``method="full"`` goes straight to the full LP and above the budget is a
:class:`~mechopt.errors.TooLargeError`; ``method="colgen"`` never switches.

**Memory estimate**: ``BYTES_PER_NONZERO`` (600) × nonzeros (4·pairs·m pair-row entries + n·m row
sums); measured 393 MB peak RSS (process included) for 10×10 Euclidean (1.25 M nonzeros, 314 B each),
rounded up to 600.

Examples
--------
>>> import numpy as np
>>> full_memory(n=100, m=100, pairs=3106) / 1e9 < 1
True
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from mechopt.errors import ParamError, SolverError, TooLargeError
from mechopt.solvers._quiet import quiet_stdout
from mechopt.solvers.lp.colgen import Outcome
from mechopt.solvers.lp.cones import MetricCone, essential_pairs

__all__ = ["pair_lp", "full_memory", "choose", "solve_full", "proven_bound", "METHODS"]

METHODS = ("auto", "colgen", "full")
#: More essential pairs per point than this sends ``auto`` to the full LP (module docstring).
DENSE_PAIRS_PER_POINT = 3.0
#: Bytes per nonzero of the constraint matrix in the HiGHS IPM solve with crossover: peak RSS 10×10 Euclidean
#: (3106 pairs, 1.25 M nonzeros): 393 MB, 314 B per nonzero with the interpreter, rounded up.
BYTES_PER_NONZERO = 600
#: Full pricing passes of column generation before ``auto`` on a dense cone switches to the full LP.
STALL_PASSES = 12
#: Default memory budget of the full LP (bytes, option ``full_memory``).
FULL_MEMORY = 4e9


def full_memory(n: int, m: int, pairs: int) -> float:
    """Estimated bytes of the full LP: BYTES_PER_NONZERO × (4·pairs·m pair-row entries + n·m row-sum entries)."""
    return BYTES_PER_NONZERO * float(4 * pairs * m + n * m)


def pair_lp(C: np.ndarray, D: np.ndarray, eps: float, pairs: np.ndarray, *, limit: float | None = None,
            solver: str | None = None) -> Any:  # fmt: skip
    """One HiGHS model of min Σ C Q s.t. rows sum to 1 (the last n rows), Q[x,y] ≤ e^{ε d} Q[x',y] on ``pairs``."""
    import highspy
    import scipy.sparse as sp

    n, m = C.shape
    u, v = np.concatenate([pairs[:, 0], pairs[:, 1]]), np.concatenate([pairs[:, 1], pairs[:, 0]])
    k = u.size
    r = np.arange(k * m)
    Y, X1, X2 = np.repeat(np.arange(m), k), np.tile(u, m), np.tile(v, m)
    gain = np.tile(np.exp(eps * D[u, v]), m)
    vals = np.concatenate([-np.ones(k * m), gain, np.ones(n * m)])
    rows = np.concatenate([r, r, k * m + np.repeat(np.arange(n), m)])
    cols = np.concatenate([X1 * m + Y, X2 * m + Y, np.arange(n * m)])
    A = sp.csc_matrix((vals, (rows, cols)), shape=(k * m + n, n * m))
    with quiet_stdout():
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if limit is not None:
        h.setOptionValue("time_limit", max(float(limit), 0.0))
    if solver is not None:
        h.setOptionValue("solver", solver)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n * m, k * m + n
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = C.ravel(), np.zeros(n * m), np.full(n * m, np.inf)
    lp.row_lower_ = np.concatenate([np.zeros(k * m), np.ones(n)])
    lp.row_upper_ = np.concatenate([np.full(k * m, np.inf), np.ones(n)])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    h.passModel(lp)
    return h


def _pairs(cone: MetricCone) -> np.ndarray:
    """The essential pairs of the cone: its start pairs when they are complete, else all pairs filtered."""
    if cone.complete:
        return cone.start
    iu = np.array(np.triu_indices(cone.n, 1)).T
    return essential_pairs(cone.D, iu[np.isfinite(cone.D[iu[:, 0], iu[:, 1]])])


def choose(method: str, cone: Any, m: int, budget: float) -> tuple[str, np.ndarray | None]:
    """``"colgen"``, ``"full"`` or ``"stall"`` (column generation, then the full LP if it stalls) for option
    ``method``, with the essential pairs for the last two (module docstring).

    >>> from mechopt.solvers.lp.cones import LDPCone
    >>> choose("auto", LDPCone(4, 1.0), 4, FULL_MEMORY)
    ('colgen', None)
    """
    if method not in METHODS:
        raise ParamError(f"option method is one of {', '.join(METHODS)}, got {method!r}; leave it out for auto")
    if method == "colgen":
        return "colgen", None
    if not isinstance(cone, MetricCone):
        if method == "full":
            raise ParamError("method='full' applies to graph- and metric-LDP (and spanners); use auto or colgen")
        return "colgen", None
    n = cone.n
    if method == "auto" and full_memory(n, m, int(DENSE_PAIRS_PER_POINT * n)) > budget:
        return "colgen", None  # too large even at the threshold: skip the O(n³) pair filter
    pairs = _pairs(cone)
    need = full_memory(n, m, len(pairs))
    if method == "full" and need > budget:
        raise TooLargeError(
            f"the full LP ({len(pairs)} essential pairs x {m} outputs) needs about {need / 1e9:.2g} GB, above "
            f"full_memory={budget / 1e9:.2g} GB; raise full_memory or use method='colgen'"
        )
    if method == "full":
        return "full", pairs
    dense = len(pairs) > DENSE_PAIRS_PER_POINT * n
    return ("stall", pairs) if dense and need <= budget else ("colgen", None)


def solve_full(C: np.ndarray, cone: MetricCone, pairs: np.ndarray, deadline: float | None = None) -> Outcome | None:
    """The full LP of ``pairs`` (HiGHS IPM + crossover), its channel's columns and the proven bound (None: the
    time limit came first)."""
    import highspy

    t0 = time.perf_counter()
    n, m = C.shape
    scale = float(n)  # costs × n: row prices of order 1 against HiGHS's absolute tolerances (as the master)
    limit = None if deadline is None else deadline - t0
    h = pair_lp(C * scale, cone.D, cone.eps, pairs, limit=limit, solver="ipm")
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kTimeLimit:
        return None  # an interior-point iterate is no channel: the caller falls back to column generation
    if st != highspy.HighsModelStatus.kOptimal:
        raise SolverError(f"HiGHS could not solve the full LP: {h.modelStatusToString(st)}")
    sol = h.getSolution()
    u = np.asarray(sol.row_dual, float)[-n:] / scale if sol.dual_valid else np.zeros(n)
    t1 = time.perf_counter()
    Q = np.clip(np.asarray(sol.col_value, float).reshape(n, m), 0.0, None)
    cols = np.column_stack([cone.repair(Q[:, y]) for y in range(m)])
    lower, priced = proven_bound(C, pairs, cone, u)
    value = float(np.sum(C * Q))
    stats = {"rounds": 1, "pricing_lps": priced, "pair_rows": 2 * len(pairs) * m, "essential_pairs": len(pairs),
             "lp_s": t1 - t0, "bound_s": time.perf_counter() - t1, "time_s": time.perf_counter() - t0}  # fmt: skip
    return Outcome(cols, np.arange(m), np.ones(m), value, lower, "converged", stats)


def proven_bound(C: np.ndarray, pairs: np.ndarray, cone: MetricCone, u: np.ndarray) -> tuple[float, int]:
    """Σ u + Σ_y min(0, β_y), β_y a proven lower bound of min (C_y − u)·q over admissible q ≤ 1 (any u);
    and the number of pricing LPs solved.

    >>> D = np.abs(np.subtract.outer(np.arange(3.0), np.arange(3.0)))
    >>> C = np.array([[0, 1, 2], [1, 0, 1], [2, 1, 0]]) / 3.0
    >>> cone = MetricCone(D, 50.0, start=np.array([[0, 1], [1, 2]]), complete=True)
    >>> proven_bound(C, cone.start, cone, np.zeros(3))      # u = 0: the bound 0 (C ≥ 0), no LP needed
    (0.0, 0)
    """
    pricer = MetricCone(cone.D, cone.eps, start=pairs, complete=True)
    bound = float(u.sum())
    for y in range(C.shape[1]):
        c = C[:, y] - u
        if c.min() < 0:
            bound += min(0.0, pricer.price(y, c, 0.0)[2])
    return bound, pricer.lp_solves
