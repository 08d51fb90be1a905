"""Consistency maps against their definitions (hypothesis): on the simplex, the projection nearest (KKT), Norm-Sub."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from mechopt import Mechanism
from mechopt.mechanism.consistency import METHODS, clip, make_consistent, norm_sub, project_simplex

VECTORS = arrays(np.float64, st.integers(1, 12), elements=st.floats(-2.0, 2.0, allow_nan=False, width=64))
TOL = 1e-12


def _on_simplex(p: np.ndarray) -> None:
    assert np.all(p >= 0) and abs(p.sum() - 1.0) <= 1e-12 * max(1, p.size)


def _norm_sub_by_iteration(v: np.ndarray) -> np.ndarray:
    """Wang et al. (2020) as written: zero the negatives, subtract the common excess from the positives, repeat."""
    p = np.maximum(v, 0.0)
    if not np.any(p > 0):
        return np.full(v.size, 1.0 / v.size)
    for _ in range(v.size + 1):
        pos = p > 0
        delta = (p[pos].sum() - 1.0) / pos.sum()
        p[pos] -= delta
        if np.all(p >= 0):
            return p
        p = np.maximum(p, 0.0)
    raise AssertionError("Norm-Sub did not settle")


@settings(max_examples=300, deadline=None)
@given(VECTORS)
def test_every_method_lands_on_the_simplex(v: np.ndarray) -> None:
    for name in METHODS:
        _on_simplex(make_consistent(v, name))


@settings(max_examples=300, deadline=None)
@given(VECTORS)
def test_projection_is_the_nearest_point_kkt(v: np.ndarray) -> None:
    """p = argmin ‖p − v‖ over the simplex ⇔ v − p = τ on the support of p and v ≤ τ off it (KKT)."""
    p = project_simplex(v)
    support = p > 0
    tau = (v - p)[support]
    assert np.ptp(tau) <= TOL * 10
    assert np.all(v[~support] <= tau[0] + TOL * 10)
    rng = np.random.default_rng(0)  # and no random simplex point is nearer
    others = rng.dirichlet(np.ones(v.size), size=200)
    assert np.all(np.linalg.norm(others - v, axis=1) >= np.linalg.norm(p - v) - 1e-12)


@settings(max_examples=300, deadline=None)
@given(VECTORS)
def test_norm_sub_is_the_iterated_definition(v: np.ndarray) -> None:
    np.testing.assert_allclose(norm_sub(v), _norm_sub_by_iteration(v.copy()), atol=1e-12)


@settings(max_examples=200, deadline=None)
@given(VECTORS)
def test_clip_is_the_renormalised_positive_part(v: np.ndarray) -> None:
    pos = np.maximum(v, 0)
    want = pos / pos.sum() if pos.sum() > 0 else np.full(v.size, 1.0 / v.size)
    np.testing.assert_allclose(clip(v), want, rtol=1e-12, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 5), st.integers(1, 8)), elements=st.floats(-1, 1, width=64)))
def test_rows_of_a_matrix_are_mapped_one_by_one(V: np.ndarray) -> None:
    for name, fn in METHODS.items():
        np.testing.assert_allclose(fn(V), np.array([fn(row) for row in V]), atol=1e-13, err_msg=name)


def test_a_point_of_the_simplex_is_left_alone() -> None:
    p = np.array([0.1, 0.0, 0.6, 0.3])
    for name in METHODS:
        np.testing.assert_allclose(make_consistent(p, name), p, atol=1e-15)


def test_norm_sub_differs_from_the_projection_only_when_the_positives_sum_below_one() -> None:
    v = np.array([0.5, 0.2, -0.1])
    assert not np.allclose(norm_sub(v), project_simplex(v)) and norm_sub(v)[2] == 0
    w = np.array([0.9, 0.4, -0.1])
    np.testing.assert_allclose(norm_sub(w), project_simplex(w))


@pytest.mark.parametrize("how", ["clip", "norm-sub", "project"])
def test_estimate_applies_the_map_and_keeps_the_raw_estimate(how: str) -> None:
    Q = np.array([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    m = Mechanism(Q)
    e = m.estimate_counts([500, 480, 20], consistency=how, ci=0.95)  # the raw estimate has a negative entry
    assert e.raw is not None and e.raw.min() < 0 and e.consistency == how
    _on_simplex(e.frequencies)
    np.testing.assert_allclose(e.frequencies, make_consistent(e.raw, how))
    assert "before " + how in e.note and np.all((e.ci_low >= 0) & (e.ci_high <= 1))
