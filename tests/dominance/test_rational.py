"""Exact rational matrices: conversion, elimination, stochastic rounding (mechopt.dominance.rational)."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt.dominance.rational import exact_matrix, solve_exact, solve_exact_many, stochastic_rows, to_fraction
from mechopt.errors import ProblemError


def test_floats_are_their_binary_values_and_strings_their_decimals() -> None:
    assert to_fraction(0.1) == F(3602879701896397, 2**55) != to_fraction("0.1") == F(1, 10)
    assert to_fraction("1/3") == F(1, 3) and to_fraction(np.int64(2)) == 2 and to_fraction("2.5e-1") == F(1, 4)
    with pytest.raises(ProblemError, match="not a number"):
        to_fraction("0.7_5")


def test_inconsistent_and_rank_deficient_systems() -> None:
    A = [[F(1), F(1)], [F(2), F(2)]]
    assert solve_exact(A, [F(1), F(3)]) is None  # inconsistent
    x = solve_exact(A, [F(1), F(2)])  # rank 1: one solution, free variable 0
    assert x is not None and x[0] + x[1] == 1
    assert solve_exact_many(A, [[F(1), F(3)], [F(2), F(4)]])[0] is None
    assert solve_exact_many(A, [[F(1), F(3)], [F(2), F(4)]])[1] == [F(2), F(0)]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_random_square_systems_are_solved_exactly(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    A = [[F(int(v), int(rng.integers(1, 9))) for v in rng.integers(-5, 6, n)] for _ in range(n)]
    x = [F(int(v), 7) for v in rng.integers(-9, 10, n)]
    b = [sum((a * xi for a, xi in zip(row, x)), F(0)) for row in A]
    sol = solve_exact(A, b)
    assert sol is not None
    assert [sum((a * s for a, s in zip(row, sol)), F(0)) for row in A] == b


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 5), st.integers(1, 6), st.integers(0, 2**31 - 1))
def test_stochastic_rounding_is_exactly_stochastic_and_close(rows: int, cols: int, seed: int) -> None:
    R = np.random.default_rng(seed).dirichlet(np.ones(cols), rows)
    M = stochastic_rows(R)
    assert all(sum(row, F(0)) == 1 and min(row) >= 0 for row in M)
    assert np.abs(np.array([[float(v) for v in row] for row in M]) - R).max() < 1e-9


def test_exact_matrix_refuses_ragged_and_empty() -> None:
    with pytest.raises(ProblemError, match="equal length"):
        exact_matrix([[1, 0], [1]])
    with pytest.raises(ProblemError, match="matrix"):
        exact_matrix("0.5,0.5")


def test_integer_and_entrywise_products_agree(monkeypatch) -> None:
    import mechopt.dominance.rational as rational
    from mechopt.dominance.blackwell import bayes_gain

    rng = np.random.default_rng(3)
    A = exact_matrix([[F(int(v), int(rng.integers(1, 30))) for v in rng.integers(0, 9, 4)] for _ in range(3)])
    B = exact_matrix(rng.random((4, 5)))  # floats: dyadic denominators
    G, pi = exact_matrix([["1/3", "0.25"]] * 3), ["0.2", "0.3", "0.5"]
    fast, gain = rational.matmul(A, B), bayes_gain(A, G, pi)
    monkeypatch.setattr(rational, "COMMON_DENOMINATOR_BITS", 1)  # forces the entry-by-entry path
    assert rational.integer_form(A) is None
    assert rational.matmul(A, B) == fast
    assert bayes_gain(A, G, pi) == gain
