"""Blackwell dominance (mechopt.dominates): known garblings, random garblings, exact witnesses, mutations."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt.dominance.blackwell import bayes_gain, dominates, garbling_residual
from mechopt.dominance.rational import exact_matrix, matmul
from mechopt.errors import ProblemError


def grr(a: F, d: int) -> list[list[F]]:
    """GRR with e^eps = a (a rational), exactly."""
    return [[a / (a + d - 1) if x == y else 1 / (a + d - 1) for y in range(d)] for x in range(d)]


def rr_binary(a: F) -> list[list[F]]:
    return grr(a, 2)


def stochastic(rng: np.random.Generator, rows: int, cols: int, den: int = 60) -> list[list[F]]:
    """A random row-stochastic matrix of small rationals (exactly stochastic rows, some zeros)."""
    out = []
    for _ in range(rows):
        w = rng.integers(0, 5, cols)
        w[rng.integers(cols)] += 1
        out.append([F(int(v), int(w.sum())) for v in w])
    return out


@pytest.mark.parametrize("d", [2, 3, 5])
@pytest.mark.parametrize(("hi", "lo"), [(F(3), F(2)), (F(9), F(5, 4)), (F(4), F(1))])
def test_grr_at_a_smaller_eps_is_an_exact_garbling(d: int, hi: F, lo: F) -> None:
    r = dominates(grr(hi, d), grr(lo, d))
    assert (r.dominates, r.verdict, r.residual) == (True, "garbling", 0)
    assert matmul(exact_matrix(grr(hi, d)), r.R) == exact_matrix(grr(lo, d))
    # and the stronger channel is never a garbling of the weaker one (lo = 1: the constant channel)
    back = dominates(grr(lo, d), grr(hi, d))
    assert back.dominates is False and back.margin > 0
    assert bayes_gain(grr(hi, d), back.gain, back.prior) == back.v2


def test_a_support_too_large_for_one_system_is_solved_column_by_column() -> None:
    r = dominates(grr(F(3), 16), grr(F(2), 16))  # R has 256 nonzeros > EXACT_SOLVE_MAX
    assert r.verdict == "garbling" and r.residual == 0 and r.note == ""


@pytest.mark.parametrize("shape", [(2, 3), (3, 3), (4, 2), (3, 6)])
def test_identity_dominates_every_channel_with_R_equal_to_the_channel(shape: tuple[int, int]) -> None:
    Q = stochastic(np.random.default_rng(sum(shape)), *shape)
    r = dominates(np.eye(shape[0]), Q)
    assert r.verdict == "garbling"
    assert r.R == exact_matrix(Q)  # I·R = Q has the one solution R = Q


def test_a_channel_with_a_zero_where_the_other_has_none_is_not_below_a_constant() -> None:
    const = [[F(1, 2), F(1, 2)]] * 2
    r = dominates(const, rr_binary(F(3)))
    assert not r.dominates and r.v2 > r.v1
    assert dominates(rr_binary(F(3)), const).verdict == "garbling"


@pytest.mark.parametrize("seed", range(4))
def test_rr_composed_with_a_random_garbling(seed: int) -> None:
    rng = np.random.default_rng(seed)
    R = stochastic(rng, 2, 4)
    Q2 = matmul(exact_matrix(rr_binary(F(5, 2))), exact_matrix(R))
    r = dominates(rr_binary(F(5, 2)), Q2)
    assert r.verdict == "garbling" and garbling_residual(rr_binary(F(5, 2)), Q2, r.R) == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.integers(1, 4), st.integers(0, 2**31 - 1))
def test_random_garbling_is_found_with_a_witness_that_verifies_exactly(d: int, m1: int, m2: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    Q1, R = stochastic(rng, d, m1), stochastic(rng, m1, m2)
    Q2 = matmul(exact_matrix(Q1), exact_matrix(R))
    r = dominates(Q1, Q2)
    assert r.dominates
    assert r.verdict == "garbling", r.note
    assert garbling_residual(Q1, Q2, r.R) == 0


@settings(max_examples=15, deadline=None)
@given(st.integers(2, 4), st.integers(2, 4), st.integers(0, 2**31 - 1))
def test_float_garblings_are_yes_within_tolerance_with_the_residual_said(d: int, m: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    Q1 = rng.dirichlet(np.ones(m), d)
    Q2 = Q1 @ rng.dirichlet(np.ones(3), m)
    r = dominates(Q1, Q2)
    assert r.dominates and r.verdict in ("garbling", "garbling-within-tolerance")
    assert r.residual == garbling_residual(Q1, Q2, r.R) <= F(r.tolerance)
    if r.verdict == "garbling-within-tolerance":
        assert "only to" in r.note


def _perturb(R: tuple, i: int, j: int, k: int, delta: F) -> list[list[F]]:
    """Move ``delta`` of row i's mass from column j to column k (the row stays stochastic)."""
    M = [list(row) for row in R]
    M[i][j] -= delta
    M[i][k] += delta
    return M


@pytest.mark.parametrize("delta", [F(1, 10**12), F(1, 1000), F(-1, 10**9)])
def test_a_perturbed_witness_is_rejected_by_the_exact_checker(delta: F) -> None:
    Q1, Q2 = grr(F(3), 3), grr(F(2), 3)
    R = dominates(Q1, Q2).R
    assert garbling_residual(Q1, Q2, R) == 0
    bad = _perturb(R, 1, 0, 2, delta)  # still stochastic, no longer a garbling
    assert garbling_residual(Q1, Q2, bad) > 0
    assert garbling_residual(Q1, Q2, bad) == abs(delta) * max(abs(q) for q in exact_matrix(Q1)[0] + exact_matrix(Q1)[1])
    scaled = [list(row) for row in R]
    scaled[0] = [v * (1 + F(1, 10**15)) for v in scaled[0]]  # row sum off by 1e-15
    assert garbling_residual(Q1, Q2, scaled) > 0
    negative = [list(row) for row in R]
    negative[2] = [-abs(delta)] + [negative[2][1], negative[2][2] + negative[2][0] + abs(delta)]
    assert garbling_residual(Q1, Q2, negative) >= abs(delta)


def test_the_separating_gain_really_separates_and_a_worse_gain_does_not() -> None:
    Q1, Q2 = grr(F(2), 4), grr(F(3), 4)
    r = dominates(Q1, Q2)
    assert r.verdict == "separated"
    assert all(0 <= v <= 1 for row in r.gain for v in row)
    assert bayes_gain(Q1, r.gain, r.prior) == r.v1 < r.v2 == bayes_gain(Q2, r.gain, r.prior)
    # a constant gain is indifferent between any two channels: it cannot separate
    flat = [[F(1, 2)] * 4] * 4
    assert bayes_gain(Q1, flat, r.prior) == bayes_gain(Q2, flat, r.prior)
    # Blackwell: no gain makes a garbling better than the channel it came from
    assert bayes_gain(Q2, r.gain, r.prior) >= bayes_gain(grr(F(3, 2), 4), r.gain, r.prior)


def test_the_separating_gain_takes_the_given_prior() -> None:
    r = dominates(grr(F(2), 3), grr(F(3), 3), prior=["0.2", "0.3", "0.5"])
    assert r.prior == (F(1, 5), F(3, 10), F(1, 2))
    assert bayes_gain(grr(F(3), 3), r.gain, r.prior) - bayes_gain(grr(F(2), 3), r.gain, r.prior) == r.margin > 0


def test_decimal_strings_are_exact_and_floats_are_their_binary_values() -> None:
    Q1 = [["0.9", "0.1"], ["0.1", "0.9"]]
    Q2 = [["0.82", "0.18"], ["0.18", "0.82"]]  # = Q1 · [[0.9, 0.1], [0.1, 0.9]] exactly
    r = dominates(Q1, Q2)
    assert r.verdict == "garbling" and r.R == exact_matrix([["0.9", "0.1"], ["0.1", "0.9"]])
    rf = dominates([[0.9, 0.1], [0.1, 0.9]], [[0.82, 0.18], [0.18, 0.82]])
    assert rf.dominates and rf.residual == garbling_residual(
        [[0.9, 0.1], [0.1, 0.9]], [[0.82, 0.18], [0.18, 0.82]], rf.R
    )


def test_rows_with_different_exact_sums_are_yes_within_tolerance_and_say_why() -> None:
    Q2 = [[0.1, 0.2, 0.7], [0.7, 0.2, 0.1], [0.2, 0.7, 0.1]]  # as binary floats, no row sums exactly to 1
    r = dominates(np.eye(3), Q2)
    assert r.verdict == "garbling-within-tolerance" and 0 < r.residual < F(1, 10**15)
    assert "different exact sums" in r.note
    assert dominates(np.eye(3), [[str(v) for v in row] for row in Q2]).verdict == "garbling"  # as decimals: exact


def test_to_dict_carries_exact_text_and_floats() -> None:
    yes = dominates(grr(F(3), 2), grr(F(2), 2)).to_dict()
    assert yes["witness"]["kind"] == "garbling" and yes["witness"]["residual"] == "0"
    assert all(isinstance(v, str) for row in yes["witness"]["R"] for v in row)
    no = dominates(grr(F(2), 2), grr(F(3), 2)).to_dict()
    assert no["witness"]["kind"] == "gain" and F(no["witness"]["margin"]) > 0
    assert F(no["witness"]["bayes_gain_Q2"]) - F(no["witness"]["bayes_gain_Q1"]) == F(no["witness"]["margin"])


@pytest.mark.parametrize(
    ("Q1", "Q2", "match"),
    [
        ([[1, 0], [0, 1]], [[1, 0, 0]], "inputs"),
        ([[1, 0], [0, 1]], [[0.5, 0.6], [0.5, 0.5]], "probability vector"),
        ([[1, 0], [0, 1]], [[-0.5, 1.5], [0.5, 0.5]], "probability vector"),
        ([[1, 0], [0, 1]], [[1, 0], [0]], "equal length"),
        ([[1, 0], [0, 1]], [["x", 1], [0, 1]], "not a number"),
        ([[1, 0], [0, 1]], [["\u0661", "0"], [0, 1]], "ASCII digits"),
        ([[1, 0], [0, 1]], [[float("nan"), 1], [0, 1]], "not finite"),
        ([[True, False], [0, 1]], [[1, 0], [0, 1]], "boolean"),
        ([], [[1]], "non-empty"),
    ],
)
def test_bad_input_is_a_problem_error(Q1, Q2, match) -> None:
    with pytest.raises(ProblemError, match=match):
        dominates(Q1, Q2)


def test_bad_prior_is_a_problem_error() -> None:
    with pytest.raises(ProblemError, match="strictly positive"):
        dominates(grr(F(2), 2), grr(F(3), 2), prior=[1, 0])


def test_the_garbling_tolerance_is_read_at_call_time() -> None:
    from mechopt import settings as mset

    with mset.override(garbling=1e-6):
        assert dominates(grr(F(3), 2), grr(F(2), 2)).tolerance == 1e-6
    assert dominates(grr(F(3), 2), grr(F(2), 2), tol=1e-3).tolerance == 1e-3


def test_public_front_door() -> None:
    assert mechopt.dominates is dominates
    assert mechopt.dominates(np.eye(3), np.full((3, 2), 0.5)).verdict == "garbling"


@pytest.mark.parametrize("eps", ["1e-10", "1e-12", "1e-15"])
def test_exact_entries_a_hair_more_informative_are_not_dominated(eps: str) -> None:
    # Q2's first row is 0.75 + eps: no garbling of Q1 (whose entries are 1/4 and 3/4) reaches it,
    # and the 0-1 gain separates exactly. Exact entries get the exact verdict, not a yes within tolerance.
    e = F(eps)
    Q1 = [["0.75", "0.25"], ["0.25", "0.75"]]
    Q2 = [[F(3, 4) + e, F(1, 4) - e], [F(1, 4), F(3, 4)]]
    r = dominates(Q1, Q2)
    assert not r.dominates and r.verdict == "separated"
    assert bayes_gain(Q2, r.gain, r.prior) - bayes_gain(Q1, r.gain, r.prior) == r.margin > 0
    assert "below the garbling tolerance" in r.note
    assert dominates(Q2, Q1).dominates  # the other way round Q1 is a garbling of Q2


def test_rows_that_sum_to_one_only_within_tolerance_are_not_separated_by_their_excess_mass() -> None:
    # Q2's first row sums to 1 + 5e-9 (inside the row-sum tolerance 1e-8): a constant gain "prefers" it by its
    # extra mass alone, which says nothing about information; the answer stays a yes within tolerance
    Q2 = [["0.5", "0.500000005"], ["0.5", "0.5"]]
    for Q1 in ([["0.5", "0.5"], ["0.5", "0.5"]], [[1, 0], [0, 1]]):  # the identity dominates every channel
        r = dominates(Q1, Q2)  # was "separated" (margin 2.5e-9), then "neither witness verified" (exit 2)
        assert r.dominates and r.verdict == "garbling-within-tolerance", r.note
        assert "different exact sums" in r.note and r.tolerance == 1e-8
