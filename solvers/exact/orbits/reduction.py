"""Symmetry reduction: one LP column per orbit of rays (math.md §2).

Inputs with equal prior (and equal utility data, e.g. the values a of an MSE)
form a class; permuting inside classes leaves P, the notion (LDP, LIP) and the
gain unchanged, so an optimum exists with weights constant on orbits. An orbit
is described *compressed*: per class a few entry types (LDP: high/low; LIP:
upper/lower/free), each with a value and a multiplicity. The orbit's LP column
is its class totals; its gain is that of any one member.

Examples
--------
>>> import numpy as np
>>> from mechopt.utilities import MutualInfo
>>> cl = classes_of(np.full(4, 0.25), MutualInfo(np.full(4, 0.25)))
>>> orb = ldp_orbits(cl, 1.0)
>>> orb.n, orb_sizes(orb).tolist()        # k = 0..4 entries high
(5, [1.0, 4.0, 6.0, 4.0, 1.0])
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from mechopt import settings
from mechopt.model import gains
from mechopt.model.info import kl_generator
from mechopt.solvers.exact.rays import lip_deviations
from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE, Utility

__all__ = [
    "Classes",
    "Orbits",
    "classes_of",
    "sorted_classes",
    "classes_from",
    "ldp_orbits",
    "lip_orbits",
    "orbit_gain",
    "class_shift",
    "orb_sizes",
    "materialise",
    "orbit_count_ldp",
    "orbit_count_lip",
]


@dataclass
class Classes:
    """Symmetry classes: ``members[i]`` are the inputs of class i, prior ``p[i]`` each."""

    members: list[np.ndarray]
    p: np.ndarray
    a: np.ndarray  # utility values per class (zeros when unused)
    pu: np.ndarray  # the prior the MI gain uses, per class

    @property
    def g(self) -> int:
        return len(self.members)

    @property
    def m(self) -> np.ndarray:
        return np.array([mb.size for mb in self.members])

    @property
    def totals(self) -> np.ndarray:
        return self.p * self.m


@dataclass
class Orbits:
    """Compressed orbits: entry e of class ``cls[e]`` has value V[e, j] with multiplicity M[e, j]."""

    V: np.ndarray
    M: np.ndarray
    cls: np.ndarray
    classes: Classes

    @property
    def n(self) -> int:
        return self.V.shape[1]

    def reduced(self) -> np.ndarray:
        """Class totals of every orbit's ray, shape (g, n): the LP columns."""
        out = np.zeros((self.classes.g, self.n))
        np.add.at(out, self.cls, self.M * self.V)
        return out


def _utility_key(utility: Utility, d: int) -> tuple[np.ndarray, np.ndarray] | None:
    if isinstance(utility, SumMSE):
        return utility.centred, np.zeros(d)  # centred: the gain and the orbits use the same numbers
    if isinstance(utility, MutualInfo) and utility.prior is not None:
        return np.zeros(d), utility.prior
    if isinstance(utility, HistogramMSE):
        return np.zeros(d), np.zeros(d)
    return None


def _breaks(P: np.ndarray, utility: Utility, tol: float | None) -> tuple | None:
    """(order, class starts in it, a, pu) of :func:`classes_of`, None if unsupported."""
    tol = settings.resolve(tol, "prior_equal")
    key = _utility_key(utility, P.size)
    if key is None:
        return None
    a, pu = key
    order = np.lexsort((P, pu, a))
    brk = (
        np.flatnonzero(
            (np.abs(np.diff(P[order])) > tol) | (np.abs(np.diff(a[order])) > tol) | (np.abs(np.diff(pu[order])) > tol)
        )
        + 1
    )
    return order, brk, a, pu


def classes_of(P: np.ndarray, utility: Utility, tol: float | None = None) -> Classes | None:
    """Group inputs with equal prior and utility data (within ``tol``, default ``prior_equal``); None if unsupported."""
    return classes_from(P, _breaks(P, utility, tol))


class Sorted:
    """The inputs sorted by class (:func:`sorted_classes`): ``g`` classes, built into :class:`Classes` only
    when needed (a million singleton classes cost seconds to split, and then symmetry cannot win)."""

    def __init__(self, found: tuple | None) -> None:
        self.found = found
        self.g = None if found is None else int(found[1].size) + 1


def sorted_classes(P: np.ndarray, utility: Utility, tol: float | None = None) -> Sorted:
    """The inputs sorted by prior and utility data, and the number of classes (one sort)."""
    return Sorted(_breaks(P, utility, tol))


def classes_from(P: np.ndarray, found: tuple | None) -> Classes | None:
    """:class:`Classes` from the sort :func:`_breaks` made (None if unsupported)."""
    if found is None:
        return None
    order, brk, a, pu = found
    members = np.split(order, brk)
    starts = np.concatenate([[0], brk])
    p = np.add.reduceat(P[order], starts) / np.diff(np.append(starts, P.size))
    pu_c = np.add.reduceat(pu[order], starts) / np.diff(np.append(starts, P.size))
    return Classes(members, p, a[order][starts], pu_c)


def _sizes(cl: Classes) -> list[tuple[int, int]]:
    """(class size, how many classes have it): a product over classes is a product of a few powers."""
    sizes, counts = np.unique(cl.m, return_counts=True)
    return [(int(v), int(c)) for v, c in zip(sizes, counts)]


def orbit_count_ldp(cl: Classes) -> int:
    """Π(m_i + 1) as a Python int (exact at any size; one power per distinct class size, so a million
    singleton classes cost one ``pow``, not a million big-integer products).

    >>> orbit_count_ldp(Classes([np.arange(k) for k in (1, 1, 3)], np.ones(3) / 5, np.zeros(3), np.zeros(3)))
    16
    """
    return math.prod(pow(v + 1, c) for v, c in _sizes(cl))


def orbit_count_lip(cl: Classes) -> int:
    """Count vectors :func:`lip_orbits` scans, Python int: Π(m_i + 1) with no free class plus one grid per free class.

    The orbits kept are those whose free value lies inside its bounds (~2/(m_j+1)
    of each free-class grid); the scan, not the kept count, sets the memory.
    """
    full = orbit_count_ldp(cl)
    return full + sum(c * (full // (v + 1)) * v for v, c in _sizes(cl))


def enum_bytes(cl: Classes, kind: str) -> int:
    """Peak bytes :func:`ldp_orbits` / :func:`lip_orbits` and the master LP allocate (Python int, any size).

    Measured with tracemalloc (tests/solvers/test_orbit_scale.py): LDP holds the
    count grid (int and float copies), values, multiplicities and the reduced
    columns and HiGHS's copy, ~(9g + 26) doubles per orbit; LIP scans one free
    class at a time, ~(4g + 1) doubles per vector of Π(m_i + 1), and keeps
    ~2/(m_j+1) of them.
    """
    g = cl.g
    if kind == "ldp":
        return 8 * (9 * g + 26) * orbit_count_ldp(cl)
    return 8 * (4 * g + 1) * orbit_count_ldp(cl)


def _grid(limits: np.ndarray) -> np.ndarray:
    """All integer tuples 0 ≤ k_i ≤ limits[i], shape (g, n)."""
    return np.indices(tuple(int(v) + 1 for v in limits)).reshape(limits.size, -1)


def ldp_orbits(cl: Classes, eps: float) -> Orbits:
    """LDP patterns up to symmetry: k_i of the m_i entries of class i high (value ∝ e^ε p_i)."""
    K = _grid(cl.m).astype(float)
    m, p, E = cl.m[:, None].astype(float), cl.p[:, None], math.exp(eps)
    Z = (p * (E * K + (m - K))).sum(axis=0)
    V = np.vstack([E * p / Z, p / Z * np.ones_like(K)])
    M = np.vstack([K, m - K])
    return Orbits(V, M, np.concatenate([np.arange(cl.g), np.arange(cl.g)]), cl)


def lip_orbits(cl: Classes, eps: float, tol: float | None = None) -> Orbits:
    """LIP vertices up to symmetry: k_i coordinates of class i at the upper bound, at most one free."""
    tol = settings.resolve(tol, "vertex")
    lo, hi = math.exp(-eps) * cl.p, np.minimum(math.exp(eps) * cl.p, 1.0)
    dlo, dhi = lip_deviations(cl.p, eps)  # the free value from deviations, tolerances relative to widths
    width = dhi - dlo
    g, Vs, Ms = cl.g, [], []
    for j in range(-1, g):
        free = (np.arange(g) == j).astype(float)
        K = _grid(cl.m - free).astype(float)
        rest = cl.m[:, None] - free[:, None] - K
        dv = -(K * dhi[:, None] + rest * dlo[:, None]).sum(axis=0)  # v − p_j, v = 1 − Σ of the others
        if j < 0:
            ok = np.abs(dv) <= tol * width.max()
            v = dv
        else:
            ok = (dv > dlo[j] + tol * width[j]) & (dv < dhi[j] - tol * width[j])
            v = cl.p[j] + dv
        K, rest, v = K[:, ok], rest[:, ok], v[ok]
        Fv = np.zeros((g, v.size))
        if j >= 0:
            Fv[j] = v
        Vs.append(np.vstack([np.repeat(hi[:, None], v.size, 1), np.repeat(lo[:, None], v.size, 1), Fv]))
        Ms.append(np.vstack([K, rest, np.repeat(free[:, None], v.size, 1)]))
    V, M = np.hstack(Vs), np.hstack(Ms)
    V = V / (M * V).sum(axis=0)
    return Orbits(V, M, np.tile(np.arange(g), 3), cl)


def orbit_gain(orb: Orbits, utility: Utility) -> np.ndarray:
    """The column program's gain (``ColumnProgram.gain``: sign · κ) of one member of each orbit.

    κ is the cancellation-free column value of :mod:`mechopt.model.gains` on the
    compressed entries (entry e stands for M_e inputs with value V_e).
    """
    V, M, cl = orb.V, orb.M, orb.classes
    MV = M * V
    if isinstance(utility, MutualInfo):
        mass = MV.sum(axis=0)
        pu = cl.pu[orb.cls][:, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = M * pu * kl_generator((V / mass) / pu)  # Σ_e M_e pu_e = 1: the identity of gains.mi_gain
        return mass * np.where(M > 0, terms, 0.0).sum(axis=0)
    if isinstance(utility, HistogramMSE):
        before = np.zeros_like(MV)
        before[1:] = np.cumsum(MV[:-1], axis=0)
        after = np.zeros_like(MV)
        after[:-1] = np.cumsum(MV[:0:-1], axis=0)[::-1]
        rest = before + after + np.maximum(M - 1.0, 0.0) * V  # the other inputs' mass, with no subtraction
        return -(MV * rest).sum(axis=0) / MV.sum(axis=0)
    if isinstance(utility, SumMSE):
        return -gains.mse_loss(cl.a[orb.cls], MV)
    raise TypeError(f"no orbit gain for {type(utility).__name__}")


def class_shift(cl: Classes, utility: Utility) -> np.ndarray:
    """``ColumnProgram.shift`` per class: a pricer of μ prices the gain at class duals ν + this."""
    if isinstance(utility, SumMSE):
        return cl.a**2
    if isinstance(utility, HistogramMSE):
        return np.ones(cl.g)
    return np.zeros(cl.g)


def orb_sizes(orb: Orbits) -> np.ndarray:
    """Number of rays in each orbit (a float; multinomial coefficients per class)."""
    return np.exp(orb_log_sizes(orb)).round()


def orb_log_sizes(orb: Orbits) -> np.ndarray:
    """Natural log of the number of rays in each orbit."""
    logs = np.zeros(orb.n)
    for i in range(orb.classes.g):
        rows = orb.cls == i
        logs += gammaln(orb.classes.m[i] + 1) - gammaln(orb.M[rows] + 1).sum(axis=0)
    return logs


def _arrangements(values: list[float], counts: list[int]) -> np.ndarray:
    """All distinct sequences with ``counts[t]`` copies of ``values[t]``, shape (count, Σ counts)."""
    size = int(sum(counts))
    rows: list[np.ndarray] = []

    def rec(free: tuple[int, ...], t: int, row: np.ndarray) -> None:
        if t == len(values):
            rows.append(row.copy())
            return
        for pos in itertools.combinations(free, counts[t]):
            row[list(pos)] = values[t]
            rec(tuple(f for f in free if f not in pos), t + 1, row)

    rec(tuple(range(size)), 0, np.zeros(size))
    return np.array(rows)


def materialise(orb: Orbits, cols: np.ndarray, weights: np.ndarray, P: np.ndarray) -> np.ndarray:
    """Q with every ray of the orbits ``cols``, ray weight θ_j / |orbit j| (rows are inputs)."""
    cl, blocks = orb.classes, []
    for j, w in zip(cols, weights):
        per_class = []
        for i, mb in enumerate(cl.members):
            rows = np.flatnonzero(orb.cls == i)
            cnt = [int(round(orb.M[e, j])) for e in rows]
            per_class.append(_arrangements([float(orb.V[e, j]) for e in rows], cnt))
        size = math.prod(a.shape[0] for a in per_class)
        R = np.zeros((P.size, size))
        for col, combo in enumerate(itertools.product(*[range(a.shape[0]) for a in per_class])):
            for i, c in enumerate(combo):
                R[cl.members[i], col] = per_class[i][c]
        blocks.append(R * (w / size) / P[:, None])
    return np.hstack(blocks)
