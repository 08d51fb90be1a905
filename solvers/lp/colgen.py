"""Column generation over (output, admissible column) pairs for min Σ C[x, y] Q[x, y]: master, pricing, bound.

The design LP (C = P ∘ L on the normalised loss, :mod:`~mechopt.solvers.lp.solver`)

    minimise Σ_{x,y} C[x, y] Q[x, y]   s.t.   Σ_y Q[x, y] = 1 (prices u_x),   Q[:, y] ∈ K for every y,

couples the outputs only through the n row sums. Writing each column as a non-negative
combination of admissible columns q_j assigned to outputs y_j (Dantzig–Wolfe), the restricted
master LP has n rows and one variable per generated column:

    minimise Σ_j θ_j C[:, y_j]·q_j   s.t.   Σ_j θ_j q_j = 1,   θ ≥ 0,

held in one HiGHS model (dual simplex once, then primal simplex from the last basis as columns
arrive). Its row duals u price every output: a column with C[:, y]·q − u·q < 0 improves the
master (:mod:`~mechopt.solvers.lp.cones` finds the best one exactly). **The bound** holds for *any* u: for every
feasible Q, Σ C Q = Σ_x u_x + Σ_y (C[:, y] − u)·Q[:, y] ≥ Σ_x u_x + Σ_y β_y, where β_y is a lower
bound of the pricing minimum over columns with entries ≤ 1 (Q ≤ 1), so ``lower = Σ u + Σ_y
min(0, β_y)`` (or Σ u + min(0, min_y β_y) when the pricing is normalised by λ_y = P·q, since
Σ_y λ_y = 1). The bound of every full pricing pass is kept; the best is the certificate.

Passes: a *full* pass prices every output (those with C[:, y] ≥ u price to 0 without work, and an
output whose last multipliers still prove its minimum ≥ −tol is not re-solved); between full
passes only the outputs that produced columns are priced, until they stall (the value moves by less
than ``target``, or ``PARTIAL_ROUNDS`` of them). The loop stops when a full pass proves the gap
:func:`~mechopt.results.certificate.relative_gap` ``(value, lower, Σ_x max_y |C|) ≤ target`` (relative; a value
of 0 at that scale against its floor), or proves ``accept`` while the value has not
moved since the previous full pass (degenerate columns: the duals, not the value, are converging),
when no column improves, or at a limit (``max_passes`` full passes: status ``stalled``).

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.lp.cones import LDPCone
>>> C = np.array([[0.0, 0.5], [0.5, 0.0]])            # P = (1/2, 1/2), loss 1 for a wrong report
>>> out = column_generation(C, LDPCone(2, np.log(3.0)))
>>> round(out.value, 12), round(out.lower, 12)      # randomised response: P(wrong) = 1/(1 + e^ε) = 1/4
(0.25, 0.25)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.errors import SolverError
from mechopt.results.certificate import relative_gap
from mechopt.runtime.deadline import passed
from mechopt.solvers.lp.cones import _highs, _optimal

__all__ = ["column_generation", "Outcome"]

#: Partial pricing passes (only the outputs that produced columns) between two full passes.
PARTIAL_ROUNDS = 10


@dataclass
class Outcome:
    """What column generation found: columns, their outputs and weights, the value and the bound."""

    cols: np.ndarray  # (n, k) admissible columns with positive weight
    ys: np.ndarray  # (k,) their outputs
    theta: np.ndarray  # (k,) their weights
    value: float  # master value on these columns
    lower: float  # best proven lower bound
    status: str  # "converged", "no_column", "time_limit", "iteration_limit"
    stats: dict[str, Any] = field(default_factory=dict)


class _Master:
    """The restricted master LP in HiGHS: n rows Σ θ_j q_j = 1."""

    def __init__(self, C: np.ndarray) -> None:
        self.C, self.n = C, C.shape[0]
        self.scale = 1.0  # costs inside HiGHS are C·q × scale (set by rescale: row prices of order 1)
        self.costs: list[float] = []
        self.h = _highs()
        self.h.addRows(self.n, np.ones(self.n), np.ones(self.n), 0, np.zeros(0, np.int32), np.zeros(0, np.int32), [])
        self.cols: list[np.ndarray] = []
        self.ys: list[int] = []
        self.solves = 0

    def add(self, Q: np.ndarray, ys: np.ndarray) -> None:
        """Columns Q[:, j] assigned to outputs ys[j] (cost C[:, y]·q)."""
        if Q.shape[1] == 0:
            return
        cost = np.einsum("xk,xk->k", self.C[:, ys], Q)
        self.costs.extend(cost.tolist())
        cost = cost * self.scale
        nz = Q > 0
        start = np.concatenate([[0], np.cumsum(nz.sum(axis=0))]).astype(np.int32)
        rows = np.nonzero(nz.T)[1].astype(np.int32)
        vals = Q.T[nz.T]
        k = Q.shape[1]
        self.h.addCols(k, cost, np.zeros(k), np.full(k, np.inf), int(start[-1]), start[:-1], rows, vals)
        self.cols.extend(Q.T)
        self.ys.extend(int(y) for y in ys)

    def rescale(self, value: float) -> None:
        """Scale the costs so the optimum is about n (each row price about 1): HiGHS's dual tolerance
        (1e-10) is absolute, and row prices of 1e-4 would leave relative errors of 1e-6 in the bound."""
        if value <= 0:
            return
        self.scale = self.n / value
        k = len(self.costs)
        self.h.changeColsCost(k, np.arange(k, dtype=np.int32), np.asarray(self.costs) * self.scale)

    def solve(self) -> tuple[float, np.ndarray, np.ndarray]:
        self.h.run()
        if self.h.getModelStatus() != _optimal():  # a warm start HiGHS refused: once more from scratch
            self.h.clearSolver()
            self.h.run()
            if self.h.getModelStatus() != _optimal():
                raise SolverError(f"HiGHS could not solve the master LP: {self.h.getModelStatus()}")
        if self.solves == 0:
            self.h.setOptionValue("simplex_strategy", 4)  # later solves: primal simplex from the last basis
        self.solves += 1
        sol = self.h.getSolution()
        theta = np.clip(np.asarray(sol.col_value, float), 0.0, None)
        value = float(self.h.getInfo().objective_function_value) / self.scale
        return value, np.asarray(sol.row_dual, float) / self.scale, theta


def _best_outputs(C: np.ndarray, R: np.ndarray, per: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Each column of R assigned to its ``per`` cheapest outputs: (columns, outputs)."""
    cost = C.T @ R  # (m, k)
    per = min(per, C.shape[1])
    best = np.argsort(cost, axis=0, kind="stable")[:per]  # (per, k)
    return np.tile(R, per), best.ravel()


def column_generation(
    C: np.ndarray,
    cone: Any,
    *,
    radii: tuple[float, ...] = (0.0,),
    target: float = 1e-9,
    max_rounds: int = 10_000,
    deadline: float | None = None,
    accept: float = 1e-7,
    max_passes: int | None = None,
) -> Outcome:
    """Minimise Σ C Q over channels whose columns lie in ``cone`` (module docstring)."""
    t0 = time.perf_counter()
    n, m = C.shape
    size = float(np.abs(C).max(axis=1).sum())  # the objective's scale: no channel costs more
    master = _Master(C)
    R, ys = _best_outputs(C, cone.initial(radii))
    master.add(np.column_stack([R, np.ones(n)]), np.append(ys, int(np.argmin(C.sum(axis=0)))))
    lower, full, active, partial, last_full = -np.inf, True, np.arange(m), 0, np.inf
    status, rounds, passes, priced = "iteration_limit", 0, 0, 0
    value, u, theta = master.solve()
    master.rescale(value)
    value, u, theta = master.solve()
    while rounds < max_rounds:
        rounds += 1
        tol = target * max(abs(value), 1e-300) / max(m, 1)
        bound, new_q, new_y = 0.0, [], []
        for y in range(m) if full else active:
            c = C[:, y] - u
            if c.min() >= 0:
                continue
            q, val, beta = cone.price(int(y), c, tol)
            priced += 1
            bound = bound + min(0.0, beta) if cone.combine == "sum" else min(bound, beta)
            if q is not None and val < -tol:
                new_q.append(q)
                new_y.append(int(y))
        if full:
            passes += 1
            lower = max(lower, float(u.sum()) + bound)
            gap = relative_gap(value, lower, size, sign=-1)
            if gap <= target or (gap <= accept and last_full - value <= target * abs(value)):
                status = "converged"  # at the target, or within ``accept`` with the value stalled since the last pass
                break
            last_full = value
            if not new_q:
                status = "no_column"
                break
            if max_passes is not None and passes >= max_passes:
                status = "stalled"  # the caller's cue to another method (lp: the full LP)
                break
        if passed(deadline):
            status = "time_limit"
            break
        if new_q:
            master.add(np.array(new_q).T, np.array(new_y))
            active = np.array(sorted(set(new_y) | (set() if full else set(active.tolist()))))
            before, partial = value, 0 if full else partial + 1
            value, u, theta = master.solve()
            # back to a full pass (the only one that proves a bound) once the partial passes stall:
            # degenerate columns that leave the value unchanged, or PARTIAL_ROUNDS of them in a row
            full = before - value <= target * abs(value) or partial >= PARTIAL_ROUNDS
        else:
            full = True
    keep = theta > 0
    cols = np.array(master.cols).T[:, keep] if keep.any() else np.zeros((n, 0))
    stats = {
        "rounds": rounds,
        "full_passes": passes,
        "priced": priced,
        "pricing_lps": cone.lp_solves,
        "pair_rows": cone.rows_added,
        "columns": len(master.cols),
        "master_solves": master.solves,
        "time_s": time.perf_counter() - t0,
    }
    return Outcome(cols, np.array(master.ys)[keep], theta[keep], value, lower, status, stats)
