"""(ε, δ)-PML from samples: the empirical set holds the true prior w.p. ≥ 1 − δ, designs over it are private there."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import linprog

import mechopt
from mechopt.errors import ProblemError
from mechopt.notions import PML
from mechopt.problems.robust import EmpiricalPrior, RobustDesign, empirical_radius, sample_size

TRUE = np.array([0.1, 0.2, 0.3, 0.4])


def _in_hull(V: np.ndarray, p: np.ndarray) -> bool:
    """p is a convex combination of the rows of V (an LP feasibility problem)."""
    k = len(V)
    res = linprog(np.zeros(k), A_eq=np.vstack([V.T, np.ones(k)]), b_eq=np.r_[p, 1.0], bounds=[(0, None)] * k,
                  method="highs")  # fmt: skip
    return res.status == 0


@pytest.mark.parametrize("bound, norm", [("weissman", 1), ("hoeffding", np.inf)])
def test_the_set_holds_the_true_prior_with_frequency_at_least_one_minus_delta(bound, norm):
    rng = np.random.default_rng(20261126)
    n, delta, draws = 200, 0.05, 2000
    counts = rng.multinomial(n, TRUE, size=draws)
    r = empirical_radius(n, TRUE.size, delta, bound)
    dist = np.linalg.norm(counts / n - TRUE, ord=norm, axis=1)
    assert np.mean(dist <= r) >= 1 - delta
    # the polytope PriorSet holds the same priors as the ball: hull membership agrees with the distance
    for c in counts[:40]:
        S = EmpiricalPrior(c, delta, bound).prior_set()
        assert _in_hull(S.vertices, TRUE) == (np.linalg.norm(c / n - TRUE, ord=norm) <= r)


@pytest.mark.parametrize("bound", ["weissman", "hoeffding"])
def test_the_radius_is_not_vacuous_and_shrinks_like_one_over_sqrt_n(bound):
    r1, r4 = empirical_radius(1000, 4, 1e-3, bound), empirical_radius(4000, 4, 1e-3, bound)
    assert r4 == pytest.approx(r1 / 2, rel=1e-12)
    assert r1 < 0.2  # far below the diameter of the simplex (2 in L1, 1 in L∞)
    assert empirical_radius(5, 1, 0.1, bound) == (
        0.0 if bound == "weissman" else pytest.approx(math.sqrt(math.log(20) / 10))
    )


def test_weissman_radius_is_the_formula_and_survives_large_alphabets():
    assert empirical_radius(500, 6, 0.01) == pytest.approx(math.sqrt(2 * math.log((2**6 - 2) / 0.01) / 500), rel=1e-14)
    r = empirical_radius(10**6, 2000, 1e-9)  # 2^2000 overflows a float: the log is taken first
    assert r == pytest.approx(math.sqrt(2 * (2000 * math.log(2) - math.log(1e-9)) / 1e6), rel=1e-12)


@pytest.mark.parametrize("bound", ["weissman", "hoeffding"])
@pytest.mark.parametrize("d", [2, 3, 7])
@pytest.mark.parametrize("delta", [1e-6, 0.05])
def test_sample_size_inverts_the_radius(bound, d, delta):
    for target in (0.3, 0.05, 0.0123):
        n = sample_size(target, d, delta, bound)
        assert empirical_radius(n, d, delta, bound) <= target
        assert n == 1 or empirical_radius(n - 1, d, delta, bound) > target
    for n0 in (17, 240, 99_991):
        assert sample_size(empirical_radius(n0, d, delta, bound), d, delta, bound) == n0


def test_the_design_is_pml_at_every_vertex_and_at_random_priors_of_the_set():
    E = EmpiricalPrior.from_counts("40,25,20,15", delta=1e-3)
    S = E.prior_set()
    assert S.vertices.shape[1] == 4 and len(S.vertices) >= 8
    prob = RobustDesign.from_params(prior_set=S, notion="pml", utility="mae", eps=0.8)
    r = mechopt.solve(prob, solver="robust-lp")
    assert r.status.value == "optimal" and r.violation <= 1e-9
    notion = PML(0.8)
    for P in S.vertices:
        assert notion.audit(r.Q, P).eps <= 0.8 + 1e-9
    rng = np.random.default_rng(7)
    for w in rng.dirichlet(np.ones(len(S.vertices)) * 0.3, size=200):
        P = w @ S.vertices
        assert np.abs(P - E.p_hat).sum() <= E.radius + 1e-12  # inside the L1 ball
        assert notion.audit(r.Q, P).eps <= 0.8 + 1e-9
    # not trivially private: at a prior far outside the set, the same channel leaks more than ε
    assert notion.audit(r.Q, np.array([0.001, 0.001, 0.001, 0.997])).eps > 0.8


def test_the_set_is_the_exact_ball():
    E = EmpiricalPrior.from_counts([120, 80, 40], delta=1e-3)
    V = E.prior_set().vertices
    assert np.abs(V - E.p_hat).sum(axis=1) == pytest.approx(np.full(len(V), E.radius), rel=1e-12)
    H = EmpiricalPrior.from_counts([120, 80, 40], delta=1e-3, bound="hoeffding").prior_set().vertices
    assert np.abs(H - E.p_hat).max() <= empirical_radius(240, 3, 1e-3, "hoeffding") + 1e-15


@pytest.mark.parametrize(
    "counts, delta, bound, words",
    [
        ([3, -1, 2], 0.1, "weissman", "whole numbers >= 0"),
        ([3, 1.5, 2], 0.1, "weissman", "whole numbers >= 0"),
        ([0, 0, 0], 0.1, "weissman", "at least one sample"),
        ([1e300, 1e300], 0.1, "weissman", "no longer exact integers"),  # n was printed as 301 digits
        ([2.0**51, 2.0**51, 0], 0.1, "hoeffding", "no longer exact integers"),
        ([3, 1, 2], 0.0, "weissman", "delta must be in (0, 1)"),
        ([3, 1, 2], 1.0, "weissman", "delta must be in (0, 1)"),
        ([3, 1, 2], "x", "weissman", "delta must be a number"),
        ([3, 1, 2], 0.1, "bernstein", "not known"),
    ],
)
def test_bad_counts_delta_and_bound_are_problem_errors(counts, delta, bound, words):
    with pytest.raises(ProblemError, match=words.replace("(", r"\(").replace(")", r"\)")):
        EmpiricalPrior(counts, delta, bound)


def test_counts_just_below_the_exact_limit_are_taken_whole():
    E = EmpiricalPrior([2.0**51, 2.0**51 - 1, 0], 0.1)
    assert E.n == 2**52 - 1 and str(E.n) in E.prior_set().describe()


def test_bad_sample_size_arguments():
    for args in ((0.0, 3, 0.1), (math.inf, 3, 0.1), (0.1, 0, 0.1), (0.1, 2.5, 0.1), (0.1, 3, 1.2)):
        with pytest.raises(ProblemError):
            sample_size(*args)
    with pytest.raises(ProblemError):
        empirical_radius(0, 3, 0.1)


@pytest.mark.parametrize("bound", ["weissman", "hoeffding"])
@pytest.mark.parametrize("radius", [1e-12, 7e-13, 1e-200])
def test_a_radius_needing_more_samples_than_floats_count_is_a_problem_error(bound, radius):
    # 1e-12 and 7e-13 looped forever (n - 1 == n as floats), 1e-200 divided by r * r == 0
    with pytest.raises(ProblemError, match="larger radius"):
        sample_size(radius, 3, 0.05, bound)
    n = sample_size(1e-6, 3, 0.05, bound)  # ~1e13 samples: still exact
    assert empirical_radius(n, 3, 0.05, bound) <= 1e-6 < empirical_radius(n - 1, 3, 0.05, bound)


def test_more_symbols_than_the_vertex_enumeration_takes_is_a_problem_error():
    E = EmpiricalPrior(np.arange(1, 12), 0.1)
    assert E.radius > 0
    with pytest.raises(ProblemError, match="empirical prior set on 11 symbols is above 10"):
        E.prior_set()


def test_robust_design_takes_the_empirical_prior_itself():
    E = EmpiricalPrior.from_counts([30, 20, 10], delta=0.01, bound="hoeffding")
    a = RobustDesign.from_params(prior_set=E, notion="pml", utility="mae", eps=0.5)
    b = RobustDesign.from_params(prior_set=E.prior_set(), notion="pml", utility="mae", eps=0.5)
    assert np.array_equal(a.prior_set.vertices, b.prior_set.vertices) and a.prior_set.source == b.prior_set.source


@pytest.mark.parametrize(("d", "radius"), [(3, 1e-300), (10**300, 0.1)])
def test_a_sample_size_beyond_floats_never_reads_about_inf(d, radius) -> None:
    """Hostile-five: ``sample-size --symbols 3 --radius 1e-300`` (and ``--symbols 1e308``) said "needs about inf
    samples ... give a larger radius" (no radius helps 1e308 symbols)."""
    with pytest.raises(ProblemError, match=r"needs (more than 1\.8e\+308|about [0-9.e+]+) samples") as info:
        sample_size(radius, d, 0.05)
    assert "inf" not in str(info.value).replace("float", "") and "fewer symbols" in str(info.value)
