"""Exact pricing of orbits of rays from their counts per class (math.md §2, §3).

Under prior symmetry an orbit of rays is a count vector k = (k_1, …, k_g): for
ε-LDP, k_i of the m_i inputs of class i carry the high entry e^ε; for ε-LIP
(with a free class j), k_i coordinates of class i sit at the upper bound, one
coordinate of class j is free and the rest sit at the lower bound. The reduced
cost of an orbit under class duals ν (the symmetric master LP has g rows) is,
in closed form from the counts,

    f(k) = c₀ + βᵀk + ψ(z),     z = ℓ₀ + ℓᵀk,

with ψ a one-dimensional convex or concave function:

- LDP, mutual information (columns c = P∘s, unnormalised): z = 1ᵀc = 1 + (e^ε − 1)pᵀk,
  ψ(z) = −z log z (concave);
- LIP, histogram MSE: z = v (the free value), ψ = v²; mutual information:
  ψ = v log(v / P_j); MMSE of a sum: z = aᵀp, ψ = z² (all convex);
  and LIP adds the slab v ∈ [e^{-ε}p_j, min(e^ε p_j, 1)].

``maximise`` finds max f over the integer box exactly: by a lattice branch and
bound with closed-form bounds where it applies (:mod:`mechopt.solvers.exact.orbits.lattice` for LDP,
:mod:`mechopt.solvers.exact.orbits.lip_lattice` for LIP histogram and mutual information, no MILP),
else (and as the fallback when their budget is hit) by branch and bound on the
value of z: on an interval [a, b] ψ is bounded above by a *linear* function (its
chord when convex, its tangent at the midpoint when concave), so each node is a
g-variable integer LP (HiGHS via ``scipy.optimize.milp``) whose optimum bounds f
on that interval; intervals whose bound is within ``tol`` of the best point
found are closed. The returned upper bound is proven (it is the largest bound
of any open or closed node), which keeps the certificate exact. Nothing here is
d-dimensional: the cost depends on g, not on d.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.orbits.reduction import classes_of
>>> from mechopt.utilities import MutualInfo
>>> P = np.r_[np.full(300, 1.0), np.full(300, 2.0)]; P /= P.sum()
>>> cl = classes_of(P, MutualInfo(P))
>>> (piece,) = pieces(cl, "ldp", MutualInfo(P), 1.0, np.zeros(2))
>>> best, ub = maximise(piece, 1e-12)
>>> k = best[0][1]; abs(piece.f(k) - ub) < 1e-9      # the optimum and its proven bound meet
True
"""

from __future__ import annotations

import heapq
import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.special import rel_entr

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers._quiet import quiet_stdout
from mechopt.solvers.exact.orbits import lattice as _orbit_lattice
from mechopt.solvers.exact.orbits import lip_lattice as _orbit_lattice_lip
from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

__all__ = ["Piece", "pieces", "maximise", "supports", "MAX_NODES"]

PRICING = "lattice"  # "lattice": closed-form branch and bound where it applies (LDP, LIP); "milp": HiGHS nodes
MAX_NODES = 400  # branch-and-bound nodes per piece and pricing round (the bound stays valid above it)


def supports(kind: str, utility) -> bool:
    """Whether orbits of this notion and gain can be priced from counts."""
    if kind == "ldp":
        return isinstance(utility, MutualInfo) and utility.prior is not None
    return kind == "lip" and (
        isinstance(utility, (HistogramMSE, SumMSE)) or (isinstance(utility, MutualInfo) and utility.prior is not None)
    )


@dataclass
class Piece:
    """f(k) = c0 + betaᵀk + psi(l0 + ellᵀk) over integers lb ≤ k ≤ ub with slo ≤ slabᵀk ≤ shi.

    ``free`` is the free class of a LIP piece (−1 for LDP); ``convex`` says
    which linear over-estimator of psi to use.
    """

    c0: float
    beta: np.ndarray
    ell: np.ndarray
    l0: float
    psi: Callable[[float], float]
    dpsi: Callable[[float], float]
    convex: bool
    lb: np.ndarray
    ub: np.ndarray
    free: int = -1
    slab: np.ndarray | None = None
    slo: float = -math.inf
    shi: float = math.inf
    calls: int = field(default=0)
    psi_vec: Callable[[np.ndarray], np.ndarray] | None = None  # psi on arrays (lattice search)
    dpsi_inv: Callable[[np.ndarray], np.ndarray] | None = None  # (psi')^{-1} (lattice search, concave psi)

    def z(self, k: np.ndarray) -> float:
        return float(self.l0 + self.ell @ k)

    def f(self, k: np.ndarray) -> float:
        return float(self.c0 + self.beta @ k + self.psi(self.z(k)))

    def feasible(self, k: np.ndarray, tol: float) -> bool:
        if np.any(k < self.lb) or np.any(k > self.ub):
            return False
        if self.slab is None:
            return True
        s = float(self.slab @ k)
        return self.slo - tol <= s <= self.shi + tol

    def z_range(self) -> tuple[float, float]:
        lo = self.l0 + float(np.minimum(self.ell * self.lb, self.ell * self.ub).sum())
        hi = self.l0 + float(np.maximum(self.ell * self.lb, self.ell * self.ub).sum())
        if self.slab is not None and np.array_equal(self.slab, -self.ell):  # z is the slab's variable v
            lo, hi = max(lo, self.l0 - self.shi), min(hi, self.l0 - self.slo)
        return lo, hi


def pieces(cl, kind: str, utility, eps: float, nu: np.ndarray) -> list[Piece]:
    """The pricing problems of one round: one piece for LDP, one per free class for LIP."""
    m, p, E = cl.m.astype(float), cl.p, math.exp(eps)
    ints = cl.m.astype(np.int64)
    if kind == "ldp":
        rho = np.log(p / cl.pu)
        E1 = math.expm1(eps)
        beta = p * (E * eps + E1 * rho - E1 * nu)
        return [
            Piece(
                float(m @ (p * rho) - nu @ (p * m)),
                beta,
                E1 * p,
                1.0,
                lambda z: -z * math.log(z),
                lambda z: -(math.log(z) + 1.0),
                False,
                np.zeros(cl.g, np.int64),
                ints,
                psi_vec=lambda z: -z * np.log(z),
                dpsi_inv=lambda s: np.exp(-s - 1.0),
            )
        ]
    lo, hi = p / E, np.minimum(E * p, 1.0)
    dl = hi - lo
    out = []
    for j in range(cl.g):
        one = np.arange(cl.g) == j
        L = float(m @ lo - lo[j])
        v0 = 1.0 - L
        nu_c = float(nu @ (m * lo) - nu[j] * lo[j] + nu[j] * v0)
        nu_lin = (nu - nu[j]) * dl
        ub = ints - one
        common = dict(lb=np.zeros(cl.g, np.int64), ub=ub, free=j, slab=dl.copy(), slo=v0 - hi[j], shi=v0 - lo[j])
        if isinstance(utility, HistogramMSE):
            c0 = float((m - one) @ lo**2) - nu_c
            out.append(
                Piece(
                    c0,
                    hi**2 - lo**2 - nu_lin,
                    -dl,
                    v0,
                    lambda v: v * v,
                    lambda v: 2.0 * v,
                    True,
                    psi_vec=np.square,
                    **common,
                )
            )
        elif isinstance(utility, MutualInfo):
            pu = cl.pu
            el, eh = rel_entr(lo, pu), rel_entr(hi, pu)
            c0 = float((m - one) @ el) - nu_c
            puj = float(pu[j])
            out.append(
                Piece(
                    c0,
                    eh - el - nu_lin,
                    -dl,
                    v0,
                    lambda v, q=puj: float(rel_entr(v, q)),
                    lambda v, q=puj: math.log(v / q) + 1.0,
                    True,
                    psi_vec=lambda v, q=puj: rel_entr(v, q),
                    **common,
                )
            )
        else:  # SumMSE: (aᵀp)², aᵀp affine in k
            a = cl.a
            w0 = float(a @ (m * lo) - a[j] * lo[j] + a[j] * v0)
            out.append(Piece(-nu_c, -nu_lin, (a - a[j]) * dl, w0, lambda z: z * z, lambda z: 2.0 * z, True, **common))
    return out


LOOSE_GAP = 1e-6  # MILP gap while searching for an improving column (its dual bound stays a valid bound)
TANGENTS = 33  # tangent points per node for a concave psi (a modelling choice, not a tolerance)


def _model(piece: Piece, a: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """Lines t ≤ s z + t₀ over-estimating psi on [a, b]: rows (s, t₀).

    Convex psi: its chord (one line, exact at both ends). Concave psi: tangents
    at ``TANGENTS`` points of [a, b] (each is above psi everywhere). A round-off
    margin keeps the lines above psi in floating point.
    """
    if piece.convex:
        fa, fb = piece.psi(a), piece.psi(b)
        s = (fb - fa) / (b - a) if b - a > 1e-300 else piece.dpsi(a)
        lines = np.array([[s, max(fa - s * a, fb - s * b)]])
    else:
        cs = np.linspace(a, b, TANGENTS) if b > a else np.array([a])
        lines = np.array([[piece.dpsi(c), piece.psi(c) - piece.dpsi(c) * c] for c in cs])
    lines[:, 1] += 1e-15 * (np.abs(lines[:, 1]) + np.abs(lines[:, 0]) * max(abs(a), abs(b)))
    return lines[:, 0], lines[:, 1]


def _node(piece: Piece, a: float, b: float, deadline, loose: bool) -> tuple[float, np.ndarray | None]:
    """Upper bound of f on z ∈ [a, b] and the integer point that attains the linear model's optimum.

    The model maximises βᵀk + t over integers k in the box (and slab) with
    a ≤ z ≤ b and t below every line of :func:`_model`; its proven optimum
    (HiGHS's dual bound) bounds f on the interval.
    """
    S, T = _model(piece, a, b)
    g = piece.beta.size
    # HiGHS's tolerances are absolute: rows and objective are scaled to unit size (coefficients of
    # ~1e-7 would sit below its dual feasibility tolerance and be read as zero), then mapped back.
    zs = max(float(np.abs(piece.ell).max()), 1e-300)
    rows = [np.append(piece.ell / zs, 0.0)]
    lo, hi = [(a - piece.l0) / zs], [(b - piece.l0) / zs]
    if piece.slab is not None:
        ss = max(float(np.abs(piece.slab).max()), 1e-300)
        rows.append(np.append(piece.slab / ss, 0.0))
        lo.append(piece.slo / ss)
        hi.append(piece.shi / ss)
    cs = max(float(np.abs(piece.beta).max()), float(np.abs(S).max() * zs), 1e-300)
    for s, t0 in zip(S, T):  # t' ≥ … with t = cs t':  cs t' − s ℓᵀk ≤ t0 + s ℓ₀
        rows.append(np.append(-s * piece.ell / cs, 1.0))
        lo.append(-np.inf)
        hi.append((t0 + s * piece.l0) / cs)
    opts = {
        "mip_rel_gap": LOOSE_GAP if loose else settings.tolerance("mip_rel_gap"),
        "mip_abs_gap": LOOSE_GAP if loose else settings.tolerance("mip_abs_gap"),
        "mip_feasibility_tolerance": settings.tolerance("mip_feasibility"),
        "disp": False,
    }
    if deadline is not None:
        opts["time_limit"] = max(1e-3, deadline - time.perf_counter())
    piece.calls += 1
    c = np.append(piece.beta / cs, 1.0)
    with warnings.catch_warnings(), quiet_stdout():  # HiGHS prints MIP debug lines under tight tolerances
        warnings.simplefilter("ignore", RuntimeWarning)
        res = milp(
            -c,
            constraints=LinearConstraint(np.array(rows), lo, hi),
            integrality=np.append(np.ones(g), 0.0),
            bounds=Bounds(np.append(piece.lb, -np.inf), np.append(piece.ub, np.inf)),
            options=opts,
        )
    if res.status == 2:  # no integer point with z in [a, b]
        return -math.inf, None
    if res.x is None:  # stopped without a point: bound by the continuous box and lines
        zmax = max(abs(a), abs(b))
        return piece.c0 + float(np.maximum(piece.beta * piece.lb, piece.beta * piece.ub).sum()) + float(
            T.max() + abs(S).max() * zmax
        ), None
    dual = getattr(res, "mip_dual_bound", None)
    ub = piece.c0 - cs * min(res.fun, dual if dual is not None and np.isfinite(dual) else res.fun)
    slack = cs * (settings.tolerance("mip_abs_gap") + settings.tolerance("mip_feasibility"))  # t's rows: met to tol
    return ub + slack, np.round(res.x[:g]).astype(np.int64)


def maximise(
    piece: Piece,
    tol: float,
    *,
    deadline: float | None = None,
    max_nodes: int = MAX_NODES,
    keep: int = 4,
    enough: float = math.inf,
    target: float = -math.inf,
) -> tuple[list[tuple[float, np.ndarray]], float]:
    """Exact max of f over the piece: lattice search where it applies, else branch and bound on z.

    The lattice searches (no MILP) are :mod:`mechopt.solvers.exact.orbits.lattice` (LDP) and
    :mod:`mechopt.solvers.exact.orbits.lip_lattice` (LIP histogram and mutual information); the
    MILP-node search on z takes over when they stop at their budget.

    Returns (the best ``keep`` distinct points as (f, k), best first; a proven
    upper bound on max f). Intervals are split at the incumbent's z when it is
    inside, else at the midpoint; a node closes when its bound is within
    ``tol`` of the best value found. With ``enough``, the search stops as soon
    as a point with f ≥ ``enough`` is found (column generation only needs an
    improving column); the bound returned is then the largest open bound.
    Nodes whose bound is at most ``target`` are closed as well (a
    column-generation round only has to prove max f ≤ ``target``).
    """
    lattice = None
    if PRICING == "lattice" and _orbit_lattice.applies(piece):
        lattice = _orbit_lattice.lattice_max
    elif PRICING == "lattice" and _orbit_lattice_lip.applies(piece):
        lattice = _orbit_lattice_lip.lattice_max_lip
    if lattice is not None:
        top, ub = lattice(piece, tol, deadline=deadline, keep=keep, enough=enough, target=target)
        best = top[0][0] if top else -math.inf
        if best >= enough or ub <= _orbit_lattice.threshold(best, tol, enough, target):
            return top, ub
        # the lattice search stopped at its budget (near ties of the subset sums): the MILP nodes may close it
        more, ub2 = _search(piece, tol, deadline, max_nodes, keep, enough, False, target)
        pts = {tuple(k.tolist()): v for v, k in top + more}
        top = sorted(((v, np.array(k, dtype=np.int64)) for k, v in pts.items()), key=lambda t: -t[0])[:keep]
        return top, min(ub, ub2)  # both are proven bounds
    if enough < math.inf:  # first look for an improving column with loose MILP gaps
        top, ub = _search(piece, tol, deadline, max_nodes, keep, enough, True, target)
        if top and top[0][0] >= enough:
            return top, ub
    return _search(piece, tol, deadline, max_nodes, keep, enough, False, target)


def _search(piece, tol, deadline, max_nodes, keep, enough, loose, target=-math.inf):
    za, zb = piece.z_range()
    if za > zb:
        return [], -math.inf
    vtol = settings.tolerance("vertex")
    found: dict[tuple, float] = {}
    closed = -math.inf
    heap: list[tuple[float, float, float]] = []

    def visit(a: float, b: float) -> None:
        ub, k = _node(piece, a, b, deadline, loose)
        if k is not None and piece.feasible(k, vtol):
            found.setdefault(tuple(k.tolist()), piece.f(k))
        if ub > -math.inf:
            heapq.heappush(heap, (-ub, a, b))

    visit(za, zb)
    nodes = 1
    while heap:
        if passed(deadline):
            break  # every open node's bound is still on the heap
        negub, a, b = heapq.heappop(heap)
        best = max(found.values(), default=-math.inf)
        if best >= enough:
            closed = max(closed, -negub)
            break
        if -negub <= max(best + tol, target) or nodes >= max_nodes or b - a <= 1e-15 * max(1.0, abs(a)):
            closed = max(closed, -negub)
            continue
        ks = [np.array(k) for k, v in found.items() if v == best]
        zs = [piece.z(k) for k in ks if a < piece.z(k) < b]
        cut = zs[0] if zs and min(zs[0] - a, b - zs[0]) > 0.05 * (b - a) else 0.5 * (a + b)
        visit(a, cut)
        visit(cut, b)
        nodes += 2
    if heap:
        closed = max(closed, -heap[0][0])
    top = sorted(((v, np.array(k, dtype=np.int64)) for k, v in found.items()), key=lambda t: -t[0])[:keep]
    return top, max(closed, top[0][0] if top else -math.inf)
