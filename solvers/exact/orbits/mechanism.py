"""A mechanism with at most d outputs from the weights of orbits of rays.

The symmetric LP (math.md §2) returns weights θ_j on n ≤ g orbits (g classes of
equal prior). Its symmetric mechanism uses every ray of every used orbit
(~10^17 outputs for uniform:64); this module builds an optimal mechanism with at
most d outputs, every output a ray of a used orbit, in three exact steps.

1. **Patterns.** In class i (m_i inputs, prior p_i each) orbit j has a
   representative pattern π_ji ∈ R^{m_i}: its entry values in contiguous
   blocks. Any rotation of it within the class is a ray of the same orbit, with
   the same gain μ_j.
2. **Rotation weights per class.** Output weights W_j(r) ≥ 0 on rotations
   r ∈ Z_{m_i} with Σ_r W_j(r) = θ_j must cover every input of class i equally:
   Σ_j Σ_r W_j(r) π_ji(x − r) = p_i. Taking differences in x, this is
   Σ_j Σ_r W_j(r) Dπ_ji(x − r) = 0 with Dπ(x) = π(x) − π(x−1), which has one
   non-zero per block edge (a circulation for two-block LDP patterns): a sparse
   LP with m_i + n rows of rank ≤ m_i + n − 1. The uniform W_j = θ_j / m_i is
   feasible, so a *basic* solution (HiGHS dual simplex) exists with support
   s_i ≤ m_i + n − 1; it is polished on its support to round-off. A class where
   only one orbit is non-constant needs no LP: its rotations by multiples of the
   block length k (m_i / gcd(m_i, k) of them, two-block patterns) or all m_i
   rotations, with equal weights, cover it exactly.
3. **Coupling the classes.** For each orbit the g marginals W_j(·) on the
   classes are joined by the north-west-corner rule (merge the cumulative
   weights): one output per interval, ≤ Σ_i s_ji − g + 1 outputs for orbit j.

In total at most Σ_i (m_i + n − 1) − n(g − 1) = d + n − g ≤ d outputs. Every
output is a ray of orbit j with total weight θ_j, so Σ_y μ(c_y) = Σ_j θ_j μ_j:
the value is the LP's, and Σ_y c_y = P by step 2, so the rows of Q sum to one.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.orbits.reduction import classes_of, ldp_orbits, orbit_gain
>>> from mechopt.solvers.exact.lp import solve_master
>>> from mechopt.utilities import MutualInfo
>>> P = np.full(6, 1 / 6); cl = classes_of(P, MutualInfo(P)); orb = ldp_orbits(cl, 1.0)
>>> m = solve_master(orb.reduced(), orbit_gain(orb, MutualInfo(P)), cl.totals)
>>> plan = build_plan(orb, np.flatnonzero(m.theta > 0), m.theta[m.theta > 0])
>>> Q = plan.dense(P); Q.shape, bool(np.allclose(Q.sum(axis=1), 1.0))    # k = 2 of 6: rotations by 2
((6, 3), True)
>>> abs(float(MutualInfo(P).gain(P[:, None] * Q).sum()) - m.value) < 1e-14
True
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.lib.stride_tricks import sliding_window_view
from scipy.optimize import linprog
from scipy.sparse.linalg import lsqr

from mechopt.errors import SolverError
from mechopt.model._matrix import column_block
from mechopt.runtime.deadline import passed

__all__ = ["Plan", "PlanTimeLimit", "build_plan", "class_pattern"]

# HiGHS tolerances of the rotation-weight LP: with the defaults (1e-7) a basic solution covered a class of
# LIP-MI at d = 10^4 only to 9.7e-7 (Q broke ε-LIP by 8.3e-7) and no polish on its support could repair it
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


class PlanTimeLimit(Exception):
    """The deadline passed while building the plan (caught by the solver: a ``time_limit`` result)."""


def _remaining(deadline: float | None) -> float | None:
    """Seconds left before ``deadline`` (None: no deadline); raises :class:`PlanTimeLimit` when none are."""
    if deadline is None:
        return None
    left = deadline - time.perf_counter()
    if left <= 0:
        raise PlanTimeLimit("the time limit passed while building the mechanism from the orbit weights")
    return left


def class_pattern(orb, j: int, i: int) -> np.ndarray:
    """Representative values of orbit j on class i: its entry values in contiguous blocks."""
    rows = np.flatnonzero(orb.cls == i)
    counts = np.rint(orb.M[rows, j]).astype(np.int64)
    return np.repeat(orb.V[rows, j], counts)


@dataclass
class Plan:
    """A mechanism by outputs: output y is orbit ``orbit[y]`` rotated by ``rot[y, i]`` in class i, weight ``w[y]``.

    Column y of the joint distribution is c_y(x) = w_y π_{j,i}((pos(x) − r_i) mod m_i)
    for input x at position pos(x) of class i. ``dense`` builds Q (rows are
    inputs), ``row`` one row, ``sample`` draws outputs, all without the d×d matrix
    except ``dense``.
    """

    members: list[np.ndarray]
    patterns: list[list[np.ndarray]]  # patterns[j][i]
    orbit: np.ndarray
    rot: np.ndarray
    w: np.ndarray

    @property
    def n_outputs(self) -> int:
        return int(self.w.size)

    def dense(self, P: np.ndarray, chunk: int | None = None) -> np.ndarray:
        """Q[x, y] = c_y(x) / P(x), rows renormalised (they sum to one up to round-off).

        Built ``chunk`` outputs at a time: a rotation of a pattern is a row of the
        sliding-window view of the pattern written twice, so each block is one
        gather of contiguous rows; the only d × n array allocated is Q.
        """
        d = sum(mb.size for mb in self.members)
        chunk = chunk or column_block(self.n_outputs, d)  # gathers of ≤ n/16 columns: peak ≈ 1× Q
        Q = np.empty((d, self.n_outputs))
        rows = [
            slice(int(mb[0]), int(mb[-1]) + 1) if mb.size and np.all(np.diff(mb) == 1) else mb for mb in self.members
        ]
        for j in np.unique(self.orbit):
            cols_j = np.flatnonzero(self.orbit == j)
            wins = [sliding_window_view(np.concatenate([pat, pat]), pat.size) for pat in self.patterns[j]]
            for start in range(0, cols_j.size, chunk):
                cols = cols_j[start : start + chunk]
                if cols[-1] - cols[0] + 1 == cols.size:
                    cols = slice(int(cols[0]), int(cols[-1]) + 1)
                for i, mb in enumerate(self.members):
                    Q[rows[i], cols] = wins[i][(-self.rot[cols, i]) % mb.size].T
        for start in range(0, d, 256):  # scale by w_y / P(x) and renormalise, row block by row block
            blk = Q[start : start + 256]
            blk *= self.w[None, :]
            blk /= blk.sum(axis=1, keepdims=True)
        return Q

    def eps_audited(self, P: np.ndarray, kind: str) -> float:
        """Smallest ε of the plan's mechanism under ε-LDP (``kind="ldp"``) or ε-LIP, exactly from the patterns.

        A rotation does not change the values of a column, so output y has the
        values w_y π_{j,i}(·) / p_i of its orbit: LDP needs their largest ratio,
        LIP their ratio to λ_y = w_y (columns have mass w_y).
        """
        worst = 0.0
        for j in np.unique(self.orbit):
            q = np.concatenate([pat / P[mb[0]] for pat, mb in zip(self.patterns[j], self.members)])
            if np.any(q <= 0):
                return math.inf
            lq = np.log(q)
            worst = max(worst, float(lq.max() - lq.min()) if kind == "ldp" else float(np.abs(lq).max()))
        return worst

    def row_sums(self, P: np.ndarray) -> np.ndarray:
        """Σ_y Q[x, y] for every input, without Q: per class and orbit a circular convolution (FFT).

        Σ_y w_y π_{j,i}((pos − r_{y,i}) mod m_i) is the rotation histogram of orbit j
        in class i convolved with its pattern; O(d log d) instead of O(d · n).
        """
        d = sum(mb.size for mb in self.members)
        s = np.zeros(d)
        for i, mb in enumerate(self.members):
            m, acc = mb.size, np.zeros(mb.size)
            for j in np.unique(self.orbit):
                cols = self.orbit == j
                h = np.bincount(self.rot[cols, i], weights=self.w[cols], minlength=m)
                acc += np.fft.irfft(np.fft.rfft(h) * np.fft.rfft(self.patterns[j][i]), n=m)
            s[mb] = acc / P[mb]
        return s

    def column_types(self, P: np.ndarray) -> np.ndarray:
        """One joint column per used orbit (rotation 0), scaled to the orbit's total weight θ_j."""
        d = sum(mb.size for mb in self.members)
        orbits = np.unique(self.orbit)
        C = np.zeros((d, orbits.size))
        for t, j in enumerate(orbits):
            theta = float(self.w[self.orbit == j].sum())
            for i, mb in enumerate(self.members):
                C[mb, t] = theta * self.patterns[j][i]
        return C

    def to_dict(self) -> dict:
        """JSON form: per output its orbit, rotation per class and weight (the orbits are in ``extras``); arrays, which
        :func:`mechopt.results.result.jsonable` turns into lists at C speed."""
        return {
            "outputs": self.n_outputs,
            "orbit": self.orbit,
            "rotation": self.rot,
            "weight": self.w,
            "classes": list(self.members),
        }

    def row(self, x: int, P: np.ndarray) -> np.ndarray:
        """Q[x, :] without the matrix."""
        for i, mb in enumerate(self.members):
            hit = np.flatnonzero(mb == x)
            if hit.size:
                pos = int(hit[0])
                vals = np.array([self.patterns[j][i][(pos - r) % mb.size] for j, r in zip(self.orbit, self.rot[:, i])])
                q = vals * self.w / P[x]
                return q / q.sum()
        raise IndexError(f"input {x} is in no class")

    def sample(self, x: int, P: np.ndarray, rng: np.random.Generator, size: int = 1) -> np.ndarray:
        """Outputs drawn from Q[x, :]."""
        return rng.choice(self.n_outputs, size=size, p=self.row(x, P))


def _two_block(pat: np.ndarray) -> int | None:
    """Block length k when the pattern is k copies of one value then copies of another."""
    jumps = np.flatnonzero(np.diff(pat) != 0)
    return int(jumps[0] + 1) if jumps.size == 1 else None


def _single(pat: np.ndarray, theta: float) -> tuple[np.ndarray, np.ndarray]:
    m = pat.size
    k = _two_block(pat)
    if k is not None:
        n = m // math.gcd(m, k)
        return (np.arange(n) * k) % m, np.full(n, theta / n)
    return np.arange(m), np.full(m, theta / m)


def _basic(A, b: np.ndarray, opts: dict, deadline: float | None, m: int) -> tuple[np.ndarray, np.ndarray, float]:
    """A basic solution of A u = b, u ≥ 0 (HiGHS dual simplex), polished on its support.

    Returns (support, u on it, max residual); raises :class:`PlanTimeLimit` past ``deadline``.
    """
    left = _remaining(deadline)
    opts = dict(opts) if left is None else {**opts, "time_limit": left}
    res = linprog(np.zeros(A.shape[1]), A_eq=A, b_eq=b, bounds=(0, None), method="highs-ds", options=opts)
    if res.status == 1 and passed(deadline):
        raise PlanTimeLimit(f"the time limit passed in the rotation-weight LP of a class of {m} inputs")
    if res.status != 0:
        raise SolverError(f"rotation-weight LP failed: {res.message}")
    u = np.clip(res.x, 0.0, None)
    S = np.flatnonzero(u > 1e-13)
    AS = A[:, S].tocsc()
    x = u[S]
    for _ in range(3):  # iterative refinement on the support
        resid = b - AS @ x
        if np.abs(resid).max() < 1e-16:
            break
        dx = lsqr(AS, resid, atol=0.0, btol=0.0, conlim=1e12, iter_lim=20 * S.size)[0]
        if not np.all(x + dx > 0):
            break
        x = x + dx
    return S, x, float(np.abs(b - AS @ x).max())


def _class_lp(
    pats: list[np.ndarray], theta: np.ndarray, deadline: float | None = None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """A basic solution of the rotation-weight LP of one class (step 2 of the module docstring).

    HiGHS gets the time left before ``deadline``; running out raises :class:`PlanTimeLimit`.
    """
    m, n = pats[0].size, len(pats)
    diffs = [p - np.roll(p, 1) for p in pats]
    scale = max(float(np.abs(th * dp).max()) for th, dp in zip(theta, diffs))
    rows, cols, vals = [], [], []
    for j, (dp, th) in enumerate(zip(diffs, theta)):
        q = np.flatnonzero(dp)
        r = np.arange(m)
        rows.append(((r[:, None] + q[None, :]) % m).ravel())
        cols.append(np.repeat(j * m + r, q.size))
        vals.append(np.tile(th * dp[q] / scale, m))  # unknowns u = W / θ_j
        rows.append(np.full(m, m + j))
        cols.append(j * m + r)
        vals.append(np.ones(m))
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(m + n, n * m))
    b = np.r_[np.zeros(m), np.ones(n)]
    try:  # HiGHS's default tolerances (1e-7) blur pattern values that differ by less (LIP free values)
        S, x, resid = _basic(A, b, TIGHT, deadline, m)
    except SolverError:
        S, x, resid = _basic(A, b, {}, deadline, m)
    out = []
    for j in range(n):
        sel = (S >= j * m) & (S < (j + 1) * m)
        wj = x[sel] / x[sel].sum() * theta[j]
        out.append((S[sel] - j * m, wj))
    return out


def _couple(margs: list[tuple[np.ndarray, np.ndarray]], theta: float) -> tuple[np.ndarray, np.ndarray]:
    """North-west-corner coupling of per-class rotation weights: (rotations (n, g), weights (n,)).

    One class is its own coupling (no sort of d cumulative weights: seconds at d = 10⁷).
    """
    if len(margs) == 1:
        r, w = margs[0]
        keep = w > 0
        return r[keep][:, None], w[keep] / w.sum() * theta
    cums = [np.cumsum(w) / w.sum() for _, w in margs]
    for c in cums:
        c[-1] = 1.0
    cuts = np.unique(np.concatenate(cums))
    keep = np.r_[True, np.diff(cuts) > 1e-14]
    cuts = cuts[keep]
    cuts[-1] = 1.0
    left = np.r_[0.0, cuts[:-1]]
    mid = 0.5 * (left + cuts)
    rot = np.stack([r[np.minimum(np.searchsorted(c, mid), r.size - 1)] for (r, _), c in zip(margs, cums)], axis=1)
    return rot, (cuts - left) * theta


def build_plan(orb, used: np.ndarray, theta: np.ndarray, deadline: float | None = None) -> Plan:
    """The ≤ d-output plan of the module docstring for orbits ``used`` with weights ``theta``.

    ``deadline`` (a :func:`time.perf_counter` time) bounds the class LPs: past it
    :class:`PlanTimeLimit` is raised and no plan is returned.
    """
    _remaining(deadline)
    cl = orb.classes
    used, theta = np.asarray(used), np.asarray(theta, float)
    pats = [[class_pattern(orb, int(j), i) for i in range(cl.g)] for j in used]
    margs: list[list] = [[None] * cl.g for _ in used]
    for i in range(cl.g):
        _remaining(deadline)
        var = [t for t in range(used.size) if np.ptp(pats[t][i]) > 0]
        for t in range(used.size):
            if t not in var:
                margs[t][i] = (np.array([0]), np.array([theta[t]]))
        if len(var) == 1:
            margs[var[0]][i] = _single(pats[var[0]][i], theta[var[0]])
        elif var:
            for t, mg in zip(var, _class_lp([pats[t][i] for t in var], theta[var], deadline)):
                margs[t][i] = mg
    orbit, rots, ws = [], [], []
    for t in range(used.size):
        _remaining(deadline)  # a coupling takes seconds at d = 10⁷
        r, w = _couple(margs[t], theta[t])
        orbit.append(np.full(w.size, t))
        rots.append(r)
        ws.append(w)
    return Plan(cl.members, pats, np.concatenate(orbit), np.vstack(rots), np.concatenate(ws))
