"""Blackwell dominance of channels: is Q2 a garbling Q1·R of Q1, with an exactly checked witness either way.

Q1 (|X| × |Y1|) *dominates* Q2 (|X| × |Y2|) when Q2 = Q1·R for a row-stochastic R
(|Y1| × |Y2|): whatever Q2 reveals, post-processing Q1 reveals too. By Blackwell's theorem this
holds exactly when no decision problem prefers Q2: for every gain G (|X| × actions) and prior π
the Bayes expected gain V_G(Q) = Σ_y max_a Σ_x π(x) Q[x, y] G[x, a] satisfies V_G(Q1) ≥ V_G(Q2).

:func:`dominates` decides it with two linear programs (HiGHS through ``scipy.optimize.linprog``):

- the **gain LP** (the Farkas dual of "Q1·R = Q2, R ≥ 0, R·1 = 1"): maximise
  Σ_{x,a} Q2[x, a] g[x, a] − Σ_i w_i subject to Σ_x Q1[x, i] g[x, a] ≤ w_i for every output i of
  Q1 and action a, −1 ≤ g ≤ 1. Its optimum is 0 exactly when Q2 is a garbling; a positive optimum
  gives g, and G = g/π (rescaled into [0, 1]) makes Q2 strictly better;
- the **garbling LP**: minimise t subject to |Q1·R − Q2| ≤ t entrywise, R ≥ 0, R·1 = 1, solved
  by HiGHS's interior point method with crossover so that R is a basic solution (a vertex); R is
  then re-solved exactly on its support in rational arithmetic, column by column
  (:func:`mechopt.dominance.rational.solve_exact_many`), or rounded to exactly stochastic
  rationals when that fails.

Both witnesses are then checked in exact rational arithmetic (:mod:`mechopt.dominance.rational`):
floats count as their exact binary values, strings as the decimals they spell. A garbling is
reported ``exact`` only when Q1·R − Q2 is exactly 0; otherwise the exact residual is reported
and the answer is yes only *within tolerance* (the ``garbling`` tolerance). A separating gain is
reported only when V_G(Q2) − V_G(Q1) > 0 holds exactly.

Examples
--------
>>> from mechopt.dominance.blackwell import dominates
>>> grr = lambda a, d: [[a / (a + d - 1) if x == y else 1 / (a + d - 1) for y in range(d)] for x in range(d)]
>>> from fractions import Fraction as F
>>> r = dominates(grr(F(3), 3), grr(F(2), 3))      # GRR at eps = ln 3 vs at ln 2
>>> r.dominates, r.verdict, r.residual
(True, 'garbling', Fraction(0, 1))
>>> r = dominates(grr(F(2), 3), grr(F(3), 3))      # the other way round: no
>>> r.dominates, r.verdict, r.margin > 0
(False, 'separated', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np
import scipy.sparse as sp

from mechopt import settings
from mechopt.dominance.rational import (
    Matrix,
    as_floats,
    exact_matrix,
    exactly_stochastic,
    integer_form,
    matmul,
    max_abs_diff,
    solve_exact,
    solve_exact_many,
    stochastic_rows,
    text,
)
from mechopt.errors import ProblemError, SolverError

__all__ = ["Dominance", "dominates", "garbling_residual", "bayes_gain", "VERDICTS", "EXACT_SOLVE_MAX", "EXACT_WORK_MAX"]

#: ``garbling`` (Q2 = Q1·R exactly), ``garbling-within-tolerance`` (the exact residual is not 0 but at
#: most the ``garbling`` tolerance), ``separated`` (a gain under which Q2 is strictly better, exactly).
VERDICTS = ("garbling", "garbling-within-tolerance", "separated")
#: Largest support of R re-solved exactly as one system (Gauss–Jordan on rationals).
EXACT_SOLVE_MAX = 160
#: Largest work d · Σ |S| (|S| + columns with support S) of the column-by-column exact solve; beyond both R is rounded.
EXACT_WORK_MAX = 2_000_000


@dataclass(frozen=True)
class Dominance:
    """The answer of :func:`dominates`, with its witness in exact rationals.

    ``R`` is the garbling (rows: outputs of Q1, columns: outputs of Q2) and ``residual`` the exact
    max |Q1·R − Q2| when ``dominates``; ``gain`` (|X| × |Y2|, entries in [0, 1]), ``prior`` and the
    exact Bayes gains ``v1`` = V_G(Q1) < ``v2`` = V_G(Q2) (``margin`` = v2 − v1) when not.
    """

    dominates: bool
    verdict: str
    R: Matrix | None = None
    residual: Fraction | None = None
    gain: Matrix | None = None
    prior: tuple[Fraction, ...] | None = None
    v1: Fraction | None = None
    v2: Fraction | None = None
    tolerance: float = 0.0
    note: str = field(default="")

    @property
    def exact(self) -> bool:
        """True when the witness holds exactly (residual 0, or a strictly positive exact margin)."""
        return self.verdict in ("garbling", "separated")

    @property
    def margin(self) -> Fraction | None:
        return None if self.v1 is None or self.v2 is None else self.v2 - self.v1

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: exact values as ``"p/q"`` text next to their floats."""
        out: dict[str, Any] = {"dominates": self.dominates, "verdict": self.verdict, "exact": self.exact}
        if self.R is not None and self.residual is not None:
            out["witness"] = {
                "kind": "garbling",
                "R": [[text(v) for v in row] for row in self.R],
                "R_float": as_floats(self.R).tolist(),
                "residual": text(self.residual),
                "residual_float": float(self.residual),
                "tolerance": self.tolerance,
            }
        elif self.gain is not None and self.prior is not None and self.margin is not None:
            assert self.v1 is not None and self.v2 is not None
            out["witness"] = {
                "kind": "gain",
                "gain": [[text(v) for v in row] for row in self.gain],
                "gain_float": as_floats(self.gain).tolist(),
                "prior": [text(v) for v in self.prior],
                "bayes_gain_Q1": text(self.v1),
                "bayes_gain_Q2": text(self.v2),
                "margin": text(self.margin),
                "margin_float": float(self.margin),
            }
        out["note"] = self.note
        return out


def garbling_residual(Q1: Any, Q2: Any, R: Any) -> Fraction:
    """The exact defect of ``R`` as a garbling: max of |Q1·R − Q2|, of |row sum of R − 1| and of −R.

    0 exactly when R is row-stochastic and Q1·R = Q2; entries are read by
    :func:`mechopt.dominance.rational.exact_matrix`.

    Examples
    --------
    >>> garbling_residual([[1, 0], [0, 1]], [["3/4", "1/4"], ["1/4", "3/4"]], [["3/4", "1/4"], ["1/4", "3/4"]])
    Fraction(0, 1)
    >>> garbling_residual([[1, 0], [0, 1]], [["3/4", "1/4"], ["1/4", "3/4"]], [["3/4", "1/4"], ["1/4", "0.7"]])
    Fraction(1, 20)
    """
    A, B, G = exact_matrix(Q1, "Q1"), exact_matrix(Q2, "Q2"), exact_matrix(R, "R")
    if len(G) != len(A[0]) or len(G[0]) != len(B[0]) or len(A) != len(B):
        raise ProblemError(
            f"R must be {len(A[0])} x {len(B[0])} (outputs of Q1 x outputs of Q2), got {len(G)} x {len(G[0])}"
        )
    defects = [max_abs_diff(matmul(A, G), B)]
    defects += [abs(sum(row, Fraction(0)) - 1) for row in G]
    defects += [-v for row in G for v in row if v < 0]
    return max(defects)


def bayes_gain(Q: Any, G: Any, prior: Any) -> Fraction:
    """The exact Bayes expected gain V_G(Q) = Σ_y max_a Σ_x π(x) Q[x, y] G[x, a].

    Examples
    --------
    >>> bayes_gain([[1, 0], [0, 1]], [[1, 0], [0, 1]], ["1/2", "1/2"])   # identity, 0-1 gain
    Fraction(1, 1)
    >>> bayes_gain([["1/2", "1/2"], ["1/2", "1/2"]], [[1, 0], [0, 1]], ["1/2", "1/2"])
    Fraction(1, 2)
    """
    M, Gm = exact_matrix(Q, "Q"), exact_matrix(G, "G")
    pi = exact_matrix([prior], "prior")[0]
    if len(pi) != len(M) or len(Gm) != len(M):
        raise ProblemError(f"the prior and G need one entry / row per input of Q ({len(M)})")
    forms = integer_form(M), integer_form(Gm), integer_form([pi])
    if any(f is None for f in forms):
        total = Fraction(0)
        for col in zip(*M):
            weights = [p * q for p, q in zip(pi, col)]
            total += max(sum((w * g for w, g in zip(weights, gcol)), Fraction(0)) for gcol in zip(*Gm))
        return total
    (Nq, Dq), (Ng, Dg), (Np, Dp) = forms  # type: ignore[misc]
    gcols = list(zip(*Ng))
    total_int = 0
    for col in zip(*Nq):  # integers: V = Σ_y max_a Σ_x π_x Q[x, y] G[x, a], over Dq·Dg·Dp
        weights = [p * q for p, q in zip(Np[0], col)]
        total_int += max(sum(w * g for w, g in zip(weights, gcol)) for gcol in gcols)
    return Fraction(total_int, Dq * Dg * Dp)


def dominates(Q1: Any, Q2: Any, *, prior: Any = None, tol: float | None = None) -> Dominance:
    """Whether ``Q1`` Blackwell-dominates ``Q2`` (Q2 = Q1·R for a row-stochastic R), with a witness.

    Parameters
    ----------
    Q1, Q2 : matrices with the same number of rows (inputs)
        Row-stochastic channels, rows are inputs. Entries may be floats (taken as their exact
        binary values), ``Fraction``/integers, or strings (``"0.1"`` is exactly 1/10, ``"1/3"``).
    prior : sequence, optional
        A strictly positive prior for the separating gain (default uniform).
    tol : float, optional
        Largest exact residual accepted as "garbling within tolerance" (default: the
        ``garbling`` tolerance of :mod:`mechopt.settings`).

    Returns
    -------
    Dominance
        ``dominates`` and ``verdict`` (:data:`VERDICTS`) with the witness: R and its exact residual,
        or a gain in [0, 1] under which V_G(Q2) > V_G(Q1) exactly.

    Examples
    --------
    >>> import numpy as np
    >>> Q = np.array([[0.75, 0.25], [0.25, 0.75]])
    >>> dominates(np.eye(2), Q).verdict                  # the identity dominates every channel
    'garbling'
    >>> r = dominates(Q, np.eye(2))
    >>> r.dominates, float(r.v1), float(r.v2)            # 0-1 gain, uniform prior: 3/4 < 1
    (False, 0.75, 1.0)
    """
    tol = settings.resolve(tol, "garbling")
    A, B = _channels(Q1, Q2)
    pi = _prior(prior, len(A))
    sep = _separating_gain(A, B, pi, tol)
    if sep is not None:
        G, v1, v2 = sep
        return Dominance(False, "separated", gain=G, prior=pi, v1=v1, v2=v2, tolerance=tol)
    R, how = _garbling(A, B)
    res = garbling_residual(A, B, R)
    if res == 0:
        note = "" if how == "solved" else "R is the LP's solution rounded to rationals, and exactly a garbling"
        return Dominance(True, "garbling", R=R, residual=res, tolerance=tol, note=note)
    if exactly_stochastic(Q1, A) and exactly_stochastic(Q2, B):  # exact entries: an exact separating gain decides
        sep = _separating_gain(A, B, pi, 0.0)
        if sep is not None:
            note = (
                f"Q2 is within {float(res):.3g} of a garbling of Q1 (below the garbling tolerance {tol:g}), "
                "but the entries are exact and this gain separates them exactly"
            )
            return Dominance(False, "separated", gain=sep[0], prior=pi, v1=sep[1], v2=sep[2], tolerance=tol, note=note)
    if how == "inconsistent":  # rows accepted as stochastic within the row-sum tolerance: no finer residual exists
        tol = max(tol, settings.tolerance("row_sum"))
    if res <= tol:
        why = (
            "a row of Q1 and the same row of Q2 have different exact sums, so no exact garbling exists"
            if how == "inconsistent"
            else "Q1·R = Q2 has no exact solution on the LP's support, or it was too large to re-solve"
        )
        fix = (
            "give rows that sum to exactly 1"
            if how == "inconsistent"
            else "with floats, give the channels exactly (fractions or decimal strings)"
        )
        note = (
            f"Q1·R equals Q2 only to {float(res):.3g} in exact arithmetic (R rounded from the LP: {why}); "
            f"{fix} for an exact verdict"
        )
        return Dominance(True, "garbling-within-tolerance", R=R, residual=res, tolerance=tol, note=note)
    raise SolverError(
        f"neither witness verified: the gain LP found no separating gain above {tol:g} but the best "
        f"rational garbling misses Q2 by {float(res):.3g}; the channels are at the edge of dominance "
        "at this tolerance (mechopt.dominates(..., tol=...) decides; or give the channels exactly)"
    )


def _channels(Q1: Any, Q2: Any) -> tuple[Matrix, Matrix]:
    A, B = exact_matrix(Q1, "Q1"), exact_matrix(Q2, "Q2")
    if len(A) != len(B):
        raise ProblemError(
            f"Q1 has {len(A)} inputs (rows) and Q2 has {len(B)}: dominance compares channels on the same inputs"
        )
    rtol = Fraction(settings.tolerance("row_sum"))
    for name, M in (("Q1", A), ("Q2", B)):
        for x, row in enumerate(M):
            if any(v < 0 for v in row) or abs(sum(row, Fraction(0)) - 1) > rtol:
                raise ProblemError(f"row {x} of {name} is not a probability vector (entries >= 0 summing to 1)")
    return A, B


def _prior(prior: Any, d: int) -> tuple[Fraction, ...]:
    if prior is None:
        return tuple(Fraction(1, d) for _ in range(d))
    pi = exact_matrix([list(prior)], "prior")[0]
    if len(pi) != d or any(p <= 0 for p in pi):
        raise ProblemError(f"the prior must have {d} strictly positive entries, one per input")
    total = sum(pi, Fraction(0))
    return tuple(p / total for p in pi)


def _lp(c: np.ndarray, **kw: Any) -> Any:
    from scipy.optimize import linprog  # imported when used: ``import mechopt`` stays light

    res = linprog(c, method="highs-ipm", **kw)  # with crossover: a basic (vertex) solution
    if res.status != 0:
        raise SolverError(f"HiGHS did not solve the dominance LP: {res.message}")
    return res


def _separating_gain(
    A: Matrix, B: Matrix, pi: tuple[Fraction, ...], tol: float
) -> tuple[Matrix, Fraction, Fraction] | None:
    """The gain LP; a gain verified exactly (V_G(Q2) > V_G(Q1)) or None."""
    Q1, Q2 = as_floats(A), as_floats(B)
    d, m1 = Q1.shape
    m2 = Q2.shape[1]
    ng = d * m2  # g[x, a] at x * m2 + a, then w[i]
    rows, cols, vals = [], [], []
    for i in range(m1):
        for a in range(m2):
            r = i * m2 + a
            rows += [r] * (d + 1)
            cols += [x * m2 + a for x in range(d)] + [ng + i]
            vals += list(Q1[:, i]) + [-1.0]
    A_ub = sp.csr_matrix((vals, (rows, cols)), shape=(m1 * m2, ng + m1))
    c = np.concatenate([-Q2.ravel(), np.ones(m1)])
    bounds = [(-1.0, 1.0)] * ng + [(None, None)] * m1
    res = _lp(c, A_ub=A_ub, b_ub=np.zeros(m1 * m2), bounds=bounds)
    if -res.fun <= tol:
        return None
    g = res.x[:ng].reshape(d, m2) / np.array([float(p) for p in pi])[:, None]
    if not g.max() > g.min():
        return None
    g = (g - g.min()) / (g.max() - g.min())  # affine in [0, 1]: V_G(Q2) − V_G(Q1) only scales
    for den in (2**20, 2**40, None):
        G = tuple(tuple(Fraction(v) if den is None else Fraction(round(v * den), den) for v in row) for row in g)
        v1, v2 = bayes_gain(A, G, pi), bayes_gain(B, G, pi)
        if v2 > v1:
            return G, v1, v2
    return None


def _garbling(A: Matrix, B: Matrix) -> tuple[Matrix, str]:
    """The garbling LP's vertex R, re-solved exactly on its support (``"solved"``) or rounded (``"rounded"``,
    or ``"inconsistent"`` when the rows of Q1 and Q2 sum differently, so no exact garbling exists)."""
    Q1, Q2 = as_floats(A), as_floats(B)
    d, m1 = Q1.shape
    m2 = Q2.shape[1]
    n = m1 * m2  # R[i, j] at i * m2 + j, then t
    E = sp.kron(sp.csr_matrix(Q1), sp.eye(m2))  # (Q1 R)[x, j] as rows x * m2 + j
    t = sp.csr_matrix(np.ones((d * m2, 1)))
    A_ub = sp.vstack([sp.hstack([E, -t]), sp.hstack([-E, -t])]).tocsr()
    b_ub = np.concatenate([Q2.ravel(), -Q2.ravel()])
    A_eq = sp.hstack([sp.kron(sp.eye(m1), np.ones((1, m2))), sp.csr_matrix((m1, 1))]).tocsr()
    c = np.zeros(n + 1)
    c[-1] = 1.0
    res = _lp(c, A_ub=A_ub, b_ub=b_ub, A_eq=A_eq, b_eq=np.ones(m1), bounds=[(0, None)] * (n + 1))
    Rf = res.x[:n].reshape(m1, m2)
    if any(sum(a, Fraction(0)) != sum(b, Fraction(0)) for a, b in zip(A, B)):
        return stochastic_rows(Rf), "inconsistent"  # Q1·R·1 = Q1·1 for every stochastic R: no exact garbling
    support = [(i, j) for i in range(m1) for j in range(m2) if Rf[i, j] > settings.tolerance("negative")]
    for solve in (_solve_by_columns, _solve_on_support):
        R = solve(A, B, support)
        if R is not None and all(sum(row, Fraction(0)) == 1 for row in R):
            return R, "solved"
    return stochastic_rows(Rf), "rounded"


def _solve_by_columns(A: Matrix, B: Matrix, support: list[tuple[int, int]]) -> Matrix | None:
    """Each column j of R alone: Q1[:, S_j] r_j = Q2[:, j] exactly (a vertex's blocks have full rank),
    one elimination per distinct support S_j."""
    d, m1, m2 = len(A), len(A[0]), len(B[0])
    groups: dict[tuple[int, ...], list[int]] = {}
    for j in range(m2):
        groups.setdefault(tuple(i for i, jj in support if jj == j), []).append(j)
    if d * sum(len(rows) * (len(rows) + len(cols)) for rows, cols in groups.items()) > EXACT_WORK_MAX:
        return None
    R = [[Fraction(0)] * m2 for _ in range(m1)]
    for rows, cols in groups.items():
        if not rows:
            if any(B[x][j] != 0 for x in range(d) for j in cols):
                return None
            continue
        sols = solve_exact_many(
            [[A[x][i] for i in rows] for x in range(d)], [[B[x][j] for x in range(d)] for j in cols]
        )
        for j, sol in zip(cols, sols):
            if sol is None or any(v < 0 for v in sol):
                return None
            for i, v in zip(rows, sol):
                R[i][j] = v
    return tuple(tuple(row) for row in R)


def _solve_on_support(A: Matrix, B: Matrix, support: list[tuple[int, int]]) -> Matrix | None:
    """Q1·R = Q2 and R·1 = 1 with R zero off ``support``, solved exactly; None if no solution ≥ 0."""
    d, m1, m2 = len(A), len(A[0]), len(B[0])
    if len(support) > EXACT_SOLVE_MAX:
        return None
    eqs, rhs = [], []
    for x in range(d):
        for j in range(m2):
            eqs.append([A[x][i] if jj == j else Fraction(0) for i, jj in support])
            rhs.append(B[x][j])
    for i in range(m1):
        eqs.append([Fraction(1 if ii == i else 0) for ii, _ in support])
        rhs.append(Fraction(1))
    sol = solve_exact(eqs, rhs)
    if sol is None or any(v < 0 for v in sol):
        return None
    R = [[Fraction(0)] * m2 for _ in range(m1)]
    for (i, j), v in zip(support, sol):
        R[i][j] = v
    return tuple(tuple(row) for row in R)
