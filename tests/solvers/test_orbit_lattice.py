"""The lattice pricing of ε-LDP orbits (solvers/exact/orbits/lattice.py) against brute-force enumeration of count
vectors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status
from mechopt.solvers.exact.orbits import pricing as _orbit_price
from mechopt.solvers.exact.orbits.lattice import applies, lattice_max
from mechopt.solvers.exact.orbits.reduction import classes_of
from mechopt.utilities import MutualInfo


def _piece(sizes, values, nu_scale, eps, seed):
    P = np.repeat(np.asarray(values, float), sizes)
    P /= P.sum()
    cl = classes_of(P, MutualInfo(P))
    nu = np.random.default_rng(seed).normal(scale=nu_scale, size=cl.g)
    (pc,) = _orbit_price.pieces(cl, "ldp", MutualInfo(P), eps, nu)
    return pc


@settings(max_examples=120, deadline=None)
@given(
    g=st.integers(1, 5),
    data=st.data(),
    nu_scale=st.sampled_from([1e-3, 0.05, 0.5, 2.0]),
    eps=st.sampled_from([0.2, 1.0, 3.0]),
    seed=st.integers(0, 2**16),
)
def test_lattice_max_equals_brute_force(g, data, nu_scale, eps, seed) -> None:
    sizes = data.draw(st.lists(st.integers(1, 6), min_size=g, max_size=g))
    values = data.draw(st.lists(st.integers(1, 60), min_size=g, max_size=g, unique=True))
    pc = _piece(sizes, values, nu_scale, eps, seed)
    assert applies(pc)
    top, ub = lattice_max(pc, 1e-12)
    best = max(pc.f(np.array(k)) for k in itertools.product(*[range(int(u) + 1) for u in pc.ub]))
    assert abs(top[0][0] - best) <= 1e-12  # the maximiser is found
    assert abs(pc.f(top[0][1]) - top[0][0]) <= 1e-13  # vectorised and scalar f agree
    assert best - 1e-13 <= ub <= best + 1e-9  # the bound is proven and tight


def test_truncated_search_keeps_a_proven_bound() -> None:
    pc = _piece([40, 30, 50, 20], [1, 2, 3, 5], 1e-4, 1.0, 7)
    full_top, full_ub = lattice_max(pc, 1e-12)
    top, ub = lattice_max(pc, 1e-12, max_evals=10)
    assert ub >= full_top[0][0] - 1e-13 and top[0][0] <= full_top[0][0] + 1e-13


def _five_classes(d: int, equal_mass: bool, seed: int = 0) -> np.ndarray:
    """5 classes of random sizes; random masses, or mass 1/5 each (so different per-symbol values)."""
    rng = np.random.default_rng(seed)
    sizes = np.diff(np.r_[0, np.sort(rng.choice(np.arange(1, d), 4, replace=False)), d])
    mass = np.full(5, 0.2) if equal_mass else rng.dirichlet(np.ones(5))
    return rng.permutation(np.repeat(mass / sizes, sizes))


@pytest.mark.parametrize("equal_mass", [False, True])
def test_five_class_ldp_mi_d2000_is_certified_with_an_audited_q(equal_mass: bool) -> None:
    P = _five_classes(2000, equal_mass)
    prob = ChannelDesign.from_params(prior=P, notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="exact")
    assert r.extras["symmetry"].startswith("orbit column generation")
    assert r.status is Status.OPTIMAL and r.certificate.gap <= 1e-9, r.message
    assert r.Q.shape[0] == 2000 and r.Q.shape[1] <= 2000
    assert r.violation is not None and r.violation <= 1e-7
    cp = prob.column_program()
    assert abs(float(cp.gain(cp.prior[:, None] * r.Q).sum()) - r.value) <= 1e-9  # Q carries the value


def test_orbit_colgen_past_its_deadline_claims_no_optimum() -> None:
    import time

    from mechopt.solvers.exact.orbits.colgen import orbit_colgen
    from mechopt.utilities import HistogramMSE

    P = _five_classes(1000, True)
    cl = classes_of(P, HistogramMSE())
    out = orbit_colgen(cl, "lip", HistogramMSE(), 1.0, deadline=time.perf_counter())
    assert out.status in ("time_limit", "failed")
    assert out.bound >= out.value
