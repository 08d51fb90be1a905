"""Column generation's pricing for posterior boxes (ε-PML, ALIP; ε-LIP above ``MITM_MAX_D``): pricer, chord start.

- ALIP and ε-PML up to ``MITM_MAX_D`` inputs: the exact LIP pricers on the box
  (:mod:`~mechopt.solvers.exact.pricing.lip`); the MSE of a sum by the parametric sweep.
- ε-PML and ALIP above it, histogram MSE or mutual information: the proven Lagrangian bound with a
  core-face search (:mod:`~mechopt.solvers.exact.pricing.pml`, on the box l ≤ p ≤ h with
  l = e^{−ε_l} P for ALIP, 0 for PML). ε-LIP is the ALIP box with ε_l = ε_u = ε: above ``MITM_MAX_D``
  its histogram and MI designs take the same pricer and start (LIP's own branch and bound stopped at
  gap 1.5e-3 at d = 64, histogram); up to it, LIP keeps its exact pricers (``columns._structured``).
- ε-PML mutual information above ``MITM_MAX_D``: the master is seeded with a window cover
  (:func:`cover_start`, :mod:`~mechopt.solvers.exact.pricing.cover`), within ``WINDOW_T`` of the chord bound ε
  when one exists (d = 64, ε ≤ 1), so the first master meets the chord start's bound.
- ε-PML with a separable gain, and ALIP above ``MITM_MAX_D``: column generation first prices the chord duals ν⁰ (the
  chords of φ_x from l_x to h_x), whose bound ν⁰ᵀP is the chord relaxation's value, and smooths the
  master's duals towards the best-bound duals (Wentges, α = ``PML_SMOOTHING``): with many inputs the
  optimum sits within round-off of ν⁰ᵀP, and smoothing cuts the rounds of the tail (PML, d = 64,
  ε = 1, MI: 1.9e-10 of gap in 110 s with α = 0.9, 4.2e-10 in 119 s with α = 0.5).

Examples
--------
>>> from mechopt.problems.design import ChannelDesign
>>> cp = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="pml", utility="histogram", eps=1.0).column_program()
>>> nu0 = chord_start(cp, "box")
>>> [round(float(v), 12) for v in nu0 + cp.shift]         # h_x = min(e P_x, 1): φ(h)/h = h
[0.543656365692, 0.815484548538, 1.0]
"""

from __future__ import annotations

import math
import time

import numpy as np

from mechopt.model.forms import ColumnProgram
from mechopt.notions import LIP
from mechopt.solvers.exact.pricing.cover import window_cover
from mechopt.solvers.exact.pricing.lip import SWEEP_MAX_D, LIPSeparablePricer, LIPSumPricer, lip_box
from mechopt.solvers.exact.pricing.mitm import MITM_MAX_D
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals, separable_phi

__all__ = ["box_pricer", "chord_start", "cover_start", "LIP_SEARCH", "posterior_box", "PML_SMOOTHING"]

#: Wentges smoothing α of ε-PML column generation started at the chord duals (module docstring).
PML_SMOOTHING = 0.9


#: The exact separable LIP search's name: up to ``MITM_MAX_D`` inputs (above, LIP takes the box pricer).
LIP_SEARCH = "LIP meet in the middle"


def posterior_box(cp: ColumnProgram) -> tuple[np.ndarray, np.ndarray, str]:
    """(l, h, name) of the program's posterior box: ε-PML, ALIP, or ε-LIP (the ALIP box with ε_l = ε_u = ε)."""
    if isinstance(cp.notion, LIP):
        return (*lip_box(cp.prior, cp.notion.eps), "LIP")
    return (*cp.notion.box(cp.prior), "PML" if cp.notion.eps_lower == math.inf else "ALIP")


def box_pricer(cp: ColumnProgram, batch: int | None):
    """(pricer, seed columns, its name) for the vertices of an ε-PML, ALIP or ε-LIP posterior box, or None."""
    from mechopt.utilities import MutualInfo, SumMSE

    P, u = cp.prior, cp.utility
    lo, hi, name = posterior_box(cp)
    start = cp.prior[:, None].copy()
    if isinstance(u, SumMSE) and P.size <= SWEEP_MAX_D:
        return LIPSumPricer(P, 0.0, u.centred, batch, box=(lo, hi)), start, "box parametric sweep"
    phi = separable_phi(u)
    if phi is None:
        return None
    if P.size > MITM_MAX_D:
        low = None if name == "PML" else lo
        strata = name == "PML" and isinstance(u, MutualInfo)
        pr = PMLSeparablePricer(P, hi, phi, batch, lo=low, strata=strata)
        return pr, start, f"{name} Lagrangian bound, core-face search" + (", stratified" if pr.strata else "")
    return LIPSeparablePricer(P, 0.0, phi, batch, box=(lo, hi)), start, LIP_SEARCH


def chord_start(cp: ColumnProgram, kind: str) -> np.ndarray | None:
    """ε-PML (any d), ALIP or ε-LIP (d > ``MITM_MAX_D``) with a separable gain: the chord duals ν⁰ in program units.

    None otherwise. ALIP at d ≤ ``MITM_MAX_D`` keeps main's start (d = 32, MI: 8.5 s with ν⁰ vs 6.9 s without);
    ε-LIP there keeps its own pricers and start.
    """
    if kind not in ("box", "lip") or (kind == "lip" and type(cp.notion) is not LIP):
        return None
    lo, hi, name = posterior_box(cp)
    phi = separable_phi(cp.utility) if name == "PML" or cp.prior.size > MITM_MAX_D else None
    if phi is None:
        return None
    return chord_duals(hi, phi, None if name == "PML" else lo) - cp.shift


def cover_start(cp: ColumnProgram, kind: str, deadline: float | None) -> np.ndarray | None:
    """ε-PML mutual information above ``MITM_MAX_D`` inputs: the columns of a window cover, or None.

    A fractional exact cover by prior slices within ``WINDOW_T`` of the chord bound
    (:mod:`~mechopt.solvers.exact.pricing.cover`): seeded into the master, its value meets the chord
    start's bound at the first round (PML, d = 64, ε = 1: 3e-12 below ε). None when the cover is proven
    impossible (d = 64, ε = 2: no window set of ≤ 8 inputs), not found within the search's rounds (a work
    budget, the same on every machine) or half the time left to the deadline, or the program is another.
    """
    from mechopt.utilities import MutualInfo

    u = cp.utility
    if kind != "box" or cp.prior.size <= MITM_MAX_D or not isinstance(u, MutualInfo) or u.prior is None:
        return None
    if posterior_box(cp)[2] != "PML" or not np.array_equal(np.asarray(u.prior, float), cp.prior):
        return None
    now = time.perf_counter()
    stop = None if deadline is None else now + 0.5 * (deadline - now)
    out = window_cover(cp.prior, cp.notion.eps, deadline=stop) if stop is None or stop > now else None
    return None if out is None else out.R
