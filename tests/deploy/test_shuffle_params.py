"""Amplification parameters read from Q, typed errors, and validity of the bounds against exact small cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from mechopt.deploy.shuffle import central_guarantee, randomizer_params
from mechopt.errors import MechoptError, ParamError, ProblemError, TooLargeError
from mechopt.oracles import GRR, OUE


@pytest.mark.parametrize("d,eps", [(2, 0.5), (4, 1.0), (16, 3.0), (64, 5.0)])
def test_grr_parameters_are_the_closed_forms(d, eps):
    prm = randomizer_params(GRR(d=d, eps=eps))
    e = math.exp(eps)
    assert prm["eps0"] == pytest.approx(eps, rel=1e-12)
    assert prm["beta"] == pytest.approx((e - 1) / (e + d - 1), rel=1e-12)  # the reference README's GRR row
    assert prm["blanket_mass"] == pytest.approx(d / (e + d - 1), rel=1e-12)  # Balle et al.'s gamma for GRR
    assert prm["p"] == prm["q"] == pytest.approx(e, rel=1e-12)


@pytest.mark.parametrize("d,eps", [(3, 1.0), (5, 2.5)])
def test_oue_parameters_are_the_closed_forms(d, eps):
    """OUE: two rows differ in two independent bits, Ber(1/2) vs Ber(1/(e^eps+1)): TV = (1/2)(e^eps-1)/(e^eps+1)."""
    prm = randomizer_params(OUE(d=d, eps=eps))
    e = math.exp(eps)
    assert prm["eps0"] == pytest.approx(eps, rel=1e-12)
    assert prm["beta"] == pytest.approx(0.5 * (e - 1) / (e + 1), rel=1e-12)
    assert prm["beta"] <= (prm["p"] - 1) / (prm["p"] + 1)


def test_a_zero_next_to_a_positive_has_no_finite_eps0_nor_central_eps():
    Q = [[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]]
    prm = randomizer_params(Q)
    assert math.isinf(prm["eps0"]) and prm["eps0_pair"] == [1, 0]
    g = central_guarantee(Q, 10**4, 1e-6)
    assert math.isinf(g.eps) and g.to_dict()["eps"] is None and "not eps0-LDP" in g.note


def test_identical_rows_give_zero():
    g = central_guarantee([[0.2, 0.8], [0.2, 0.8]], 10, 1e-6)
    assert g.eps == 0.0 and g.params["beta"] == 0.0 and g.params["blanket_mass"] == pytest.approx(1.0)


def _exact_rr_delta(eps: float, n: int, p1: float) -> float:
    """Exact δ(ε) of n shuffled binary-RR reports (the count of ones), worst over the number m of other ones."""
    k = np.arange(n + 1)
    worst = 0.0
    for m in range(n):  # the other n-1 users hold m ones (m <= n-1); the victim holds 0 or 1
        others = np.convolve(
            stats.binom.pmf(np.arange(m + 1), m, p1), stats.binom.pmf(np.arange(n - m), n - 1 - m, 1 - p1)
        )
        a = np.convolve(others, [1 - p1, p1])[: n + 1]  # victim's bit 0: reports 1 w.p. 1 - p1
        b = np.convolve(others, [p1, 1 - p1])[: n + 1]
        assert a.size == k.size
        worst = max(worst, np.maximum(a - math.exp(eps) * b, 0).sum(), np.maximum(b - math.exp(eps) * a, 0).sum())
    return float(worst)


@pytest.mark.parametrize("bound", ["variation-ratio", "stronger-clone", "clone"])
@pytest.mark.parametrize("eps0,n", [(1.0, 40), (2.0, 120), (3.0, 200)])
def test_every_numerical_bound_is_never_below_the_exact_shuffled_rr(bound, eps0, n):
    """Binary RR shuffled among n users is a count of ones: its exact δ at the bound's ε must be ≤ the target δ."""
    p1 = math.exp(eps0) / (1 + math.exp(eps0))
    delta = 1e-3
    g = central_guarantee([[p1, 1 - p1], [1 - p1, p1]], n, delta, bound)
    assert 0 < g.eps < eps0
    assert _exact_rr_delta(g.eps, n, p1) <= delta * (1 + 1e-9)


@pytest.mark.parametrize("bound", ["variation-ratio", "stronger-clone", "clone"])
@pytest.mark.parametrize("flip", [1e-12, 1e-16, 1e-20, 1e-50, 1e-250])
def test_a_nearly_deterministic_rr_gets_no_amplification_it_does_not_have(bound, flip):
    """Hostile-five: binary RR flipping with probability 1e-50 (eps0 = 115), 10^6 users, δ = 1e-6 was "(37.36,
    1e-06)-DP" by every numerical bound, though a count of 0 ones has probability ~1 under one neighbour and 1e-50
    under the other (exact δ(37.36) = 1). ⌊t⌋ on a line a + b = m was computed as m once e^ε > 1e16 made t round
    to m; flips of 1e-12 to 1e-100 gave 48 false guarantees in a grid (notes-hostile-five/shuffle_check.py);
    1e-250 printed overflow warnings."""
    n = 10**6
    g = central_guarantee([[1 - flip, flip], [flip, 1 - flip]], n, 1e-6, bound)
    assert g.eps <= g.params["eps0"] * (1 + 1e-12)
    # one pair of neighbours (the n - 1 others all hold 0; the count of ones is seen) bounds the true δ from below
    c = np.arange(60)
    B = stats.binom.pmf(c, n - 1, flip)
    before = np.concatenate([[0.0], B[:-1]])
    P0, P1 = (1 - flip) * B + flip * before, flip * B + (1 - flip) * before
    assert float(np.maximum(P0 - math.exp(g.eps) * P1, 0.0).sum()) <= 1e-6 * (1 + 1e-6)


def test_bounds_are_ordered_and_capped_by_eps0():
    Q = GRR(d=16, eps=3.0)
    eps = {b: central_guarantee(Q, 10**5, 1e-7, b).eps for b in ("variation-ratio", "stronger-clone", "clone")}
    assert eps["variation-ratio"] <= eps["stronger-clone"] <= eps["clone"] <= 3.0
    assert eps["variation-ratio"] < 0.8 * eps["stronger-clone"]  # GRR's small beta is worth a lot at d=16


def test_more_users_never_hurt_and_the_answer_ignores_relabelling():
    Q = OUE(d=3, eps=2.0).matrix()
    eps = [central_guarantee(Q, n, 1e-6).eps for n in (10**3, 10**4, 10**5, 10**6)]
    assert all(a > b for a, b in zip(eps, eps[1:]))
    rng = np.random.default_rng(0)
    Qp = Q[rng.permutation(Q.shape[0])][:, rng.permutation(Q.shape[1])]
    assert central_guarantee(Qp, 10**4, 1e-6).eps == pytest.approx(eps[1], rel=1e-12)


@pytest.mark.parametrize(
    "n,delta,bound,err",
    [
        (0, 1e-6, "clone", ProblemError),
        (1.5, 1e-6, "clone", ProblemError),
        (True, 1e-6, "clone", ProblemError),
        (10, 0.0, "clone", ProblemError),
        (10, 1.0, "clone", ProblemError),
        (10, float("nan"), "clone", ProblemError),
        (10, "x", "clone", ProblemError),
        (10, 5e-324, "variation-ratio", ProblemError),  # was ZeroDivisionError: the window's tail underflowed
        (10, 1e-6, "blanket", ParamError),
        (10**11, 1e-6, "clone", TooLargeError),
        (10**300, 1e-6, "clone", TooLargeError),  # said "n=1000...0" with 301 digits
    ],
)
def test_bad_input_is_a_typed_one_line_error(n, delta, bound, err):
    with pytest.raises(err) as info:
        central_guarantee([[0.75, 0.25], [0.25, 0.75]], n, delta, bound)
    assert isinstance(info.value, MechoptError) and "\n" not in str(info.value) and len(str(info.value)) < 200


def test_a_bad_channel_is_a_problem_error():
    with pytest.raises(ProblemError):
        central_guarantee([[0.5, 0.6], [0.5, 0.5]], 10, 1e-6)


def test_the_result_says_which_bound_and_that_it_is_an_upper_bound():
    g = central_guarantee(GRR(d=4, eps=1.0), 10**4, 1e-6, "stronger-clone")
    doc = g.to_dict()
    assert doc["bound"] == "stronger-clone" and doc["upper_bound"] is True and "SODA 2023" in doc["reference"]
    assert "by the stronger-clone bound" in g.statement() and "upper bound" in g.statement()
