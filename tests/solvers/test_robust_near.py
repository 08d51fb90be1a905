"""Patterns whose subset sums lie in a box (four-block meet in the middle) against all 2^n patterns, and the near-u*
seed columns of robust-rays against the enumerated robust LP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.errors import ParamError
from mechopt.model.info import mutual_information
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.near import box_patterns
from mechopt.solvers.robust.search import LDPMIBranchPricer, near_patterns


def _all_patterns(n: int) -> np.ndarray:
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(bool)


def _rows(Z: np.ndarray) -> list[tuple[int, ...]]:
    return sorted(map(tuple, np.asarray(Z, int)))


@settings(deadline=None, max_examples=80)  # no timing assertion
@given(st.integers(1, 12), st.integers(1, 5), st.integers(0, 2**31 - 1), st.floats(0.0, 1.0), st.floats(0.002, 0.4),
       st.sampled_from([1, 4, 64, 1 << 17]))  # fmt: skip
def test_box_patterns_are_exactly_the_patterns_in_the_box(n, k, seed, where, half, cell):
    """Over all 2^n patterns (n ≤ 12, any k, cells of 1 to 2^17 left patterns): the complete answer is the box's
    patterns, each once, and a budgeted answer a subset of them."""
    rng = np.random.default_rng(seed)
    V = rng.dirichlet(np.ones(n), size=k)
    Z = _all_patterns(n)
    U = Z @ V.T
    target = U[rng.integers(0, len(Z))] + where * rng.uniform(-half, half, k)  # near a pattern: the box is rarely empty
    inside = Z[np.all(np.abs(U - target) <= half, axis=1)]
    got, done = box_patterns(V, target, np.full(k, half), cell_size=cell)
    assert done and _rows(got) == _rows(inside)
    part, _ = box_patterns(V, target, np.full(k, half), budget=1, cell_size=cell)
    assert set(_rows(part)) <= set(_rows(inside))


def test_box_patterns_at_a_sum_on_the_box_edge():
    """A pattern whose sums are exactly on the box's faces is inside (the box is closed)."""
    V = np.array([[0.25, 0.25, 0.5], [0.5, 0.25, 0.25]])
    got, done = box_patterns(V, np.array([0.5, 0.5]), np.array([0.25, 0.25]))
    inside = [z for z in _all_patterns(3) if np.all(np.abs(V @ z - 0.5) <= 0.25)]
    assert done and _rows(got) == _rows(np.array(inside))


@pytest.mark.parametrize("n, k", [(10, 3), (12, 5), (11, 1)])
def test_near_patterns_lie_in_their_box_and_fill_it_when_complete(n, k):
    """Every pattern returned has all sums within h of u*; a complete answer is every such pattern."""
    V = np.random.default_rng(n + k).dirichlet(np.ones(n), size=k)
    peak = LDPMIBranchPricer(V, 1.0)._peak()
    got, h, done = near_patterns(V, peak, 40)
    every = _all_patterns(n)
    dev = np.abs(every @ V.T - peak).max(axis=1)
    assert len(got) >= 1 and np.abs(got @ V.T - peak).max() <= h
    if done:
        assert _rows(got) == _rows(every[dev <= h])
    else:
        assert set(_rows(got)) <= set(_rows(every[dev <= h]))


@pytest.mark.parametrize("pricer, n, k", [("branch", 12, 4), ("tree", 14, 3), ("tree", 12, 5)])
def test_near_seeds_keep_the_enumerated_optimum(pricer, n, k):
    """robust-rays with the near-u* seed columns (and without) certifies the optimum of the LP over every ray."""
    V = np.random.default_rng(100 + n).dirichlet(np.ones(n), size=k)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="robust-rays")  # every pattern, one LP
    assert ref.status.value == "optimal" and "enumeration" in ref.extras["pricing"]
    for near in (0, 16):
        r = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, mi_pricer=pricer, seed_near=near)
        assert r.status.value == "optimal" and r.certificate.gap <= 1e-7
        assert math.isclose(r.value, ref.value, rel_tol=1e-7)
        assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)


@pytest.mark.parametrize(
    ("key", "val"),
    [
        ("seed_near", "abc"),
        ("seed_near", True),
        ("seed_near", 0.5),
        ("seed_near", 10**9),
        ("seed_starts", -5),
    ],  # fmt: skip
)
def test_bad_seed_counts_are_one_line_param_errors(key, val):
    """Hostile pass 2026-11-26: seed_near='abc' and seed_starts=-5 ended as 'solver failed: ValueError', True
    and 0.5 were read as 1 and 0, and seed_near=1e9 ran 23.7 s past a 20 s limit and returned no mechanism."""
    prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(ParamError, match=key) as err:
        mechopt.solve(prob, solver="robust-rays", enumerate_max=2, **{key: val})
    assert "\n" not in str(err.value)


def test_seed_near_negative_is_a_param_error():
    V = np.random.default_rng(1).dirichlet(np.ones(6), size=2)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(ParamError, match="seed_near"):
        mechopt.solve(prob, solver="robust-rays", enumerate_max=2, seed_near=-1)


def test_box_patterns_refuse_a_box_without_width():
    V = np.random.default_rng(2).dirichlet(np.ones(5), size=2)
    with pytest.raises(ParamError, match="half"):
        box_patterns(V, np.full(2, 0.5), np.array([0.1, 0.0]))


@pytest.mark.slow
@pytest.mark.parametrize("d", [64, 40])
def test_five_priors_certified(d):
    """d = 64 and 40, 5 Dirichlet(1) priors, ε = 1: certified; the value is each prior's MI of the channel (audited)
    and at most the prior-free value v*, which d = 40 sits measurably below (its bound is the trees')."""
    V = np.random.default_rng(d).dirichlet(np.ones(d), size=5)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="robust-rays", time_limit=600)
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-7
    assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)
    pr = LDPMIBranchPricer(V, 1.0)
    vstar = pr._ratio(pr._peak())
    assert r.value <= vstar * (1 + 1e-12) and r.certificate.bound <= vstar + 1e-9  # + the pricing tolerance
    if d == 40:
        assert r.certificate.bound < vstar * (1 - 1e-6)


@pytest.mark.parametrize("n, k", [(14, 3), (12, 5)])
def test_tree_pricer_returning_at_once_keeps_the_enumerated_optimum(monkeypatch, n, k):
    """With no tuple budget before an early return (every tree search returns at its first pattern above tol, or
    proves), robust-rays still certifies the optimum of the LP over every ray."""
    import mechopt.solvers.robust.search as search

    monkeypatch.setattr(search, "TREE_BUDGET", 0)
    V = np.random.default_rng(200 + n).dirichlet(np.ones(n), size=k)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    ref = mechopt.solve(prob, solver="robust-rays")
    r = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, mi_pricer="tree", seed_near=0, seed_starts=0)
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-7
    assert math.isclose(r.value, ref.value, rel_tol=1e-7)


def test_a_cell_over_the_memory_limit_stops_incomplete(monkeypatch):
    """Past LIMIT right patterns (or hits) in a cell the search stops: flagged incomplete, a subset of the box."""
    import mechopt.solvers.robust.near as near

    V = np.random.default_rng(4).dirichlet(np.ones(12), size=2)
    Z = _all_patterns(12)
    inside = Z[np.all(np.abs(Z @ V.T - 0.5) <= 0.2, axis=1)]
    monkeypatch.setattr(near, "LIMIT", 3)
    got, done = box_patterns(V, np.full(2, 0.5), np.full(2, 0.2))
    assert not done and set(_rows(got)) <= set(_rows(inside)) and len(got) < len(inside)
