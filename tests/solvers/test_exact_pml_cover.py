"""The ε-PML window cover (solvers/exact/pricing/cover.py): private exact covers, the exact solver's certified
optimum reproduced, the window's lower end enforced, and the cardinality obstruction against brute force."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing.cover import cover_obstructed, slice_columns, window_cover
from mechopt.solvers.exact.pricing.pml import PMLSeparablePricer, chord_duals, separable_phi
from mechopt.utilities import MutualInfo

#: Twelve inputs in 1/128ths with many subsets of mass exactly 1/4: at ε = log 4 + 1e-12 the window sets
#: have π(S) = 1/4 = a(1 + 1e-12), so a cover is 1e-12 below ε.
DYADIC = np.array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 25, 27]) / 128
EPS4 = math.log(4.0) + 1e-12


def _mi_direct(P: np.ndarray, Q: np.ndarray) -> float:
    J = P[:, None] * Q
    out = J.sum(axis=0)
    m = J > 0
    return float((J[m] * np.log(J[m] / (P[:, None] * out[None, :])[m])).sum())


@pytest.mark.parametrize("seed,eps,t", [(2, 1.0, 1e-3), (3, 0.5, 1e-3), (1, 1.0, 1e-2)])
def test_cover_columns_are_private_and_cover_exactly(seed, eps, t):
    P = np.random.default_rng(seed).dirichlet(np.ones(18))
    out = window_cover(P, eps, t=t, seed=seed)
    assert out is not None
    a = math.exp(-eps)
    # every column is a prior slice P·1_S/π(S) with a ≤ π(S) ≤ a(1 + t): ε-PML, within t of the chord bound
    S = out.R > 0
    pi = np.array([math.fsum(P[s]) for s in S.T])
    assert np.all(pi >= a) and np.all(pi <= a * (1 + t))
    assert np.allclose(out.R, np.where(S, P[:, None] / pi, 0.0), rtol=1e-12, atol=0)
    assert np.all(out.R <= np.exp(eps) * P[:, None] * (1 + 1e-12))
    # the cover is exact: Σ w p = P, the mechanism is a channel, and its MI is the cover's value, ≥ ε − t
    assert np.abs(out.R @ out.w - P).max() <= 1e-15
    assert np.abs(out.Q.sum(axis=1) - 1).max() <= 1e-14 and out.Q.min() >= 0
    assert (out.Q / (P @ out.Q)).max() <= np.exp(eps) * (1 + 1e-12)
    assert _mi_direct(P, out.Q) == pytest.approx(out.value, abs=1e-13)
    assert eps - t <= out.value <= eps


def test_cover_reproduces_the_certified_optimum():
    """d = 12: the cover's value is the exact solver's certified optimum (meet-in-the-middle pricing) to 1e-12."""
    out = window_cover(DYADIC, EPS4, seed=0)
    r = mechopt.solve(ChannelDesign.from_params(prior=DYADIC, notion="pml", utility="mi", eps=EPS4), solver="exact")
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-10
    assert out.value == pytest.approx(r.value, abs=1e-12)
    assert out.value == pytest.approx(math.log(4.0), abs=1e-13)  # ε − log(1 + 1e-12)


@pytest.mark.parametrize("scale", [1e-9, 1e9])
def test_cover_is_unit_free(scale):
    """A prior given as counts ×1e-9 or ×1e9, normalised, gives the same cover value."""
    c = DYADIC * 128 * scale
    assert window_cover(c / c.sum(), EPS4, seed=0).value == pytest.approx(math.log(4.0), abs=1e-13)


def test_a_set_just_below_the_threshold_is_rejected():
    """Mutation: π(S) = a(1 − 1e-12) is not ε-PML (p_S exceeds e^ε P by 1e-12); a(1 + 1e-12) is."""
    P = np.random.default_rng(5).dirichlet(np.ones(10))
    S = np.zeros((1, 10), bool)
    S[0, [1, 4, 7]] = True
    pi = math.fsum(P[S[0]])
    assert not slice_columns(P, -math.log(pi) - 1e-12, S)[0]  # a = π e^{1e-12} > π
    assert slice_columns(P, -math.log(pi) + 1e-12, S)[0]
    assert not slice_columns(P, -math.log(pi) + 1e-6, S)[0]  # above the window a(1 + t)


def test_seeded_cover_stops_column_generation_at_the_first_master():
    """The chord start's bound and a seeded cover meet at round 1: optimal, 1e-12 below the bound, no pricing."""
    P, eps = DYADIC, EPS4
    h = np.minimum(np.exp(eps) * P, 1.0)
    phi = separable_phi(MutualInfo(P))
    out = window_cover(P, eps, seed=0)

    class Untouched(PMLSeparablePricer):
        def price(self, nu, deadline=None):
            if not np.array_equal(nu, chord_duals(h, phi)):
                raise AssertionError("priced after the first master")
            return super().price(nu, deadline)

    gain = lambda R: phi(R.T, np.arange(P.size)).sum(axis=1)  # noqa: E731
    cg = column_generation(P, gain, Untouched(P, h, phi), np.hstack([P[:, None], out.R]), start=chord_duals(h, phi))
    assert cg.status == "optimal" and cg.iterations == 1 and cg.proven
    assert 0 <= cg.bound - cg.master.value <= 2e-12 and cg.bound == pytest.approx(eps, abs=1e-14)


def _window_family(P: np.ndarray, a: float, t: float) -> np.ndarray:
    """Every set with a ≤ π(S) ≤ a(1 + t), by brute force (boolean rows)."""
    rows = [
        np.isin(np.arange(P.size), S)
        for k in range(1, P.size + 1)
        for S in itertools.combinations(range(P.size), k)
        if a <= math.fsum(P[list(S)]) <= a * (1 + t)
    ]
    return np.array(rows, bool).reshape(-1, P.size)


@settings(max_examples=40, deadline=None)
@given(d=st.integers(8, 13), seed=st.integers(0, 10**6), eps=st.floats(1.0, 2.0), t=st.sampled_from([1e-3, 3e-2]))
def test_obstruction_is_sound_against_brute_force(d, seed, eps, t):
    """Obstructed ⇒ no exact fractional cover by all window sets (brute force + HiGHS); no window set of at
    most ⌊d a (1 + t)⌋ inputs ⇒ obstructed."""
    P = np.random.default_rng(seed).dirichlet(np.full(d, 4.0))  # both outcomes, few inputs of mass ≥ a
    a = math.exp(-eps)
    if np.any(P >= a):
        assert not cover_obstructed(P, eps, t)  # not decided
        return
    F = _window_family(P, a, t)
    m = math.floor(d * a * (1 + t))
    feasible = F.size > 0 and linprog(np.zeros(F.shape[0]), A_eq=F.T.astype(float), b_eq=np.ones(d)).status == 0
    if cover_obstructed(P, eps, t):
        assert not feasible
    if not np.any(F.sum(axis=1) <= m):
        assert cover_obstructed(P, eps, t)


def _cp(d: int, notion: str, utility: str, eps: float, **kw):
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    return ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=eps, **kw).column_program()


def test_cover_start_seeds_only_pml_mutual_information_above_the_meet_in_the_middle_limit():
    """PML MI at d = 48, ε = 1: slice columns within WINDOW_T of ε; ε = 2 (obstructed), d = 36, the
    histogram and ALIP get none."""
    from mechopt.solvers.exact.box import cover_start
    from mechopt.solvers.exact.pricing.cover import WINDOW_T

    for cp in (_cp(48, "pml", "mi", 2.0), _cp(36, "pml", "mi", 1.0), _cp(48, "pml", "histogram", 1.0)):
        assert cover_start(cp, "box", None) is None
    assert cover_start(_cp(48, "alip", "mi", 1.0, eps_lower=1.0), "box", None) is None
    cp = _cp(48, "pml", "mi", 1.0)
    R = cover_start(cp, "box", None)
    assert R is not None and np.allclose(R.sum(axis=0), 1.0, rtol=0, atol=1e-15)
    pi = np.array([math.fsum(cp.prior[c > 0]) for c in R.T])
    assert np.all(pi >= math.exp(-1.0)) and np.all(pi <= math.exp(-1.0) * (1 + WINDOW_T))
    P = cp.prior[:, None]
    kl = np.where(R > 0, R * np.log(np.where(R > 0, R, 1.0) / P), 0.0).sum(axis=0)  # = log(1/π(S)) ≥ ε − t
    assert np.all(kl >= 1.0 - 1.01 * WINDOW_T) and np.all(kl <= 1.0 + 1e-14)


def test_the_cover_obstruction_enumerates_sets_with_the_strata_table():
    """The window cover's small sets were a second enumeration (``cover._small_sets``) of what the strata pricer's
    ``_subsets`` builds: one serves both, and it lists every set of at most k inputs by sum, as combinations do."""
    from mechopt.solvers.exact.pricing import cover, strata

    assert cover._subsets is strata._subsets and not hasattr(cover, "_small_sets")
    P = np.random.default_rng(3).dirichlet(np.ones(12))
    sums, masks = strata._subsets(P, 3)[:2]
    want = sorted(
        (sum(P[list(c)]), sum(1 << x for x in c)) for k in range(4) for c in itertools.combinations(range(12), k)
    )
    assert np.allclose(sums, [s for s, _ in want], rtol=0, atol=1e-15)
    assert sorted(masks.tolist()) == sorted(m for _, m in want)
