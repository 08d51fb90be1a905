"""Column generation over orbits of rays: the symmetric LP without listing its orbits.

The symmetric master LP (math.md §2) has one row per class of equal prior
values, g rows, and one column per orbit, Π(m_i + 1) of them for ε-LDP: ~10^10
for three classes at d = 10⁴. A basic solution uses at most g orbits, so the LP
is solved by column generation: a restricted master over a few orbits, class
duals ν, and the exact orbit pricing of :mod:`mechopt.solvers.exact.orbits.pricing`, whose proven
upper bound U on the reduced cost gives the certificate

    optimum ≤ νᵀT + max(0, U)          (T: class totals of P)

(for LDP U bounds the reduced cost of unnormalised columns c = P∘s, whose mass
1ᵀc ≥ 1, so max(0, U) also bounds it for normalised rays). As in
:mod:`mechopt.solvers.exact.colgen`, a round stops once the bound is within ``colgen_gap`` of the
master value (relative to the larger of |bound| and |value|), and the pricing closes every node
whose bound is below a quarter of that (times |νᵀT|): columns that
could improve the value by less cannot change the certified answer, and the
bound returned still covers them. Columns are kept in
the compressed :class:`~._symmetry.Orbits` form, so gains come from
:func:`~mechopt.solvers.exact.symmetry.orbit_gain` and the mechanism from :mod:`mechopt.solvers.exact.orbits.mechanism`.

Examples
--------
>>> import numpy as np
>>> from mechopt.solvers.exact.orbits.reduction import classes_of
>>> from mechopt.utilities import MutualInfo
>>> P = np.r_[np.full(400, 1.0), np.full(400, 2.0), np.full(200, 3.0)]; P /= P.sum()
>>> out = orbit_colgen(classes_of(P, MutualInfo(P)), "ldp", MutualInfo(P), 1.0)
>>> out.status, out.bound - out.value < 1e-9, int((out.theta > 0).sum()) <= 3
('optimal', True, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mechopt import settings
from mechopt.runtime.deadline import passed
from mechopt.solvers.exact.colgen import gain_units
from mechopt.solvers.exact.lp import cost_unit, solve_master
from mechopt.solvers.exact.orbits.pricing import maximise, pieces
from mechopt.solvers.exact.orbits.reduction import Orbits, class_shift, orbit_gain
from mechopt.solvers.exact.rays import lip_deviations

__all__ = ["ColgenOutcome", "orbit_colgen", "orbits_from_counts"]

ENOUGH = 1e4  # a pricing round stops at a column this many reduced-cost tolerances above 0 (speed, not accuracy)


@dataclass
class ColgenOutcome:
    status: str  # "optimal" | "time_limit" | "iteration_limit" | "failed"
    orbits: Orbits | None
    theta: np.ndarray
    nu: np.ndarray
    value: float
    bound: float
    iterations: int
    extras: dict = field(default_factory=dict)


def orbits_from_counts(cl, kind: str, eps: float, keys: list[tuple]) -> Orbits:
    """Compressed orbits (layout of ``symmetry.ldp_orbits`` / ``lip_orbits``) from count keys.

    LDP keys are ``(-1, k_1, …, k_g)``; LIP keys ``(j, k_1, …, k_g)`` with free
    class j; the key ``(-2,)`` is the constant column P (admissible for LIP,
    used to start the master LP feasibly).
    """
    g, m, p, E = cl.g, cl.m.astype(float), cl.p, math.exp(eps)
    n = len(keys)
    rows = 2 if kind == "ldp" else 3
    V, M = np.zeros((rows * g, n)), np.zeros((rows * g, n))
    lo, hi = (p, E * p) if kind == "ldp" else (p / E, np.minimum(E * p, 1.0))
    dlo, dhi = lip_deviations(p, eps)
    for c, key in enumerate(keys):
        if key[0] == -2:
            V[:g, c], M[:g, c] = p, m
            continue
        k = np.array(key[1:], float)
        one = np.arange(g) == key[0]
        V[:g, c], V[g : 2 * g, c], M[:g, c], M[g : 2 * g, c] = hi, lo, k, m - k - one
        if kind == "lip":  # the free value from the others' deviations (1 − Σ others cancels at small ε)
            M[2 * g :, c] = one
            V[2 * g + key[0], c] = p[key[0]] - (k * dhi + (m - k - one) * dlo).sum()
    V = V / (M * V).sum(axis=0)
    return Orbits(V, M, np.tile(np.arange(g), rows), cl)


def _start(cl, kind: str) -> list[tuple]:
    if kind == "lip":
        return [(-2,)]
    g = cl.g
    keys = [(-1,) + (0,) * g]
    keys += [(-1,) + tuple(int(cl.m[i]) if i == t else 0 for i in range(g)) for t in range(g)]
    return keys


def orbit_colgen(
    cl,
    kind: str,
    utility,
    eps: float,
    *,
    max_iter: int = 200,
    deadline: float | None = None,
    progress: Callable[..., None] | None = None,
) -> ColgenOutcome:
    """Solve the symmetric LP by column generation with exact count pricing (see the module docstring);
    ``progress`` is called after every round as in :func:`mechopt.solvers.exact.colgen.column_generation`,
    whose unit-free tolerances it shares (:func:`~mechopt.solvers.exact.colgen.gain_units` of the start
    orbits' gains, computed on the compressed orbits: nothing of size d)."""
    start = orbits_from_counts(cl, kind, eps, _start(cl, kind))
    with gain_units(cost_unit(orbit_gain(start, utility))):
        return _orbit_rounds(cl, kind, utility, eps, max_iter, deadline, progress)


def _orbit_rounds(cl, kind: str, utility, eps: float, max_iter: int, deadline, progress) -> ColgenOutcome:
    """The rounds of :func:`orbit_colgen` (its arguments)."""
    tol, gap = settings.tolerance("reduced_cost"), settings.tolerance("colgen_gap")
    keys = _start(cl, kind)
    shift = class_shift(cl, utility)
    seen = set(keys)
    T = cl.totals
    bound, it, calls = math.inf, 0, 0
    status = "iteration_limit"
    m = None
    while it < max_iter:
        it += 1
        orb = orbits_from_counts(cl, kind, eps, keys)
        left = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        m = solve_master(orb.reduced(), orbit_gain(orb, utility), T, time_limit=left, centred=False)
        if m.status != "optimal":
            status = "time_limit" if m.status == "time_limit" else "failed"
            break
        new, ub = [], -math.inf
        target = 0.25 * gap * abs(float(m.nu @ T))  # reduced costs below it cannot matter (relative: unit-free)
        for pc in pieces(cl, kind, utility, eps, m.nu + shift):  # pieces price μ: at ν + shift (class_shift)
            if passed(deadline):  # a piece left unpriced: this round proves no bound
                ub = math.inf
                break
            top, u = maximise(pc, tol, deadline=deadline, enough=ENOUGH * tol, target=target)
            calls += pc.calls
            ub = max(ub, u)
            new += [(pc.free,) + tuple(int(x) for x in k) for v, k in top if v > tol]
        bound = min(bound, float(m.nu @ T) + max(0.0, ub))
        if progress is not None:
            progress(round=it, columns=len(keys), gain=float(m.value), bound=float(bound))
        fresh = [k for k in new if k not in seen]
        close = math.isfinite(bound) and bound - m.value <= gap * max(abs(bound), abs(m.value))
        if ub <= tol or (not fresh and ub < math.inf) or close:
            status = "optimal"  # proven, or nothing new to add, or proven within colgen_gap: the gap says how well
            break
        if passed(deadline):
            status = "time_limit"
            break
        keys += fresh
        seen.update(fresh)
    if m is None or m.status not in ("optimal", "time_limit") or not np.all(np.isfinite(m.theta)):
        return ColgenOutcome("failed", None, np.zeros(0), np.zeros(cl.g), -math.inf, bound, it, {"milp_calls": calls})
    orb = orbits_from_counts(cl, kind, eps, keys)
    return ColgenOutcome(
        status,
        orb,
        m.theta,
        m.nu,
        float(m.value),
        bound,
        it,
        {"milp_calls": calls, "orbit_columns_generated": len(keys)},
    )
