"""Estimators against their closed forms, by seeded Monte Carlo over simulated output counts.

The counts of n = 10⁶ reports from a fixed data set (n_x users with input x)
are a sum of independent multinomials, one per input: ``rng.multinomial(n_x, Q[x])``.
Tolerances come from the sampling error of the Monte-Carlo statistic itself:
a variance estimated from R independent replicates has relative standard
deviation √(2/(R−1)) (its (R−1)s²/σ² is χ²_{R−1}); a mean, σ/√R. Each check
allows 4 of those standard deviations, so a correct estimator fails it with
probability below 10⁻⁴ for any seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from mechopt import Mechanism
from mechopt.errors import ParamError, ProblemError
from mechopt.mechanism import estimators as E

N = 10**6
THETA = np.array([0.5, 0.3, 0.2])
#: 3 inputs, 4 outputs, full row rank (the generalised inverse is not a plain inverse)
Q34 = np.array([[0.55, 0.15, 0.2, 0.1], [0.1, 0.6, 0.1, 0.2], [0.15, 0.1, 0.25, 0.5]])


def _fixed_counts(Q: np.ndarray, theta: np.ndarray, reps: int, seed: int) -> np.ndarray:
    """Output counts of ``reps`` randomizations of a fixed data set with n θ_x users of input x."""
    rng = np.random.default_rng(seed)
    nx = np.round(N * theta).astype(np.int64)
    return sum(rng.multinomial(nx[x], Q[x], size=reps) for x in range(Q.shape[0]))


def _rel_sd(reps: int) -> float:
    return float(np.sqrt(2.0 / (reps - 1)))


def test_linear_is_unbiased_with_the_closed_form_covariance_within_one_percent() -> None:
    """R = 330 000 replicates: a variance's relative sd is 0.246 %, so 1 % is 4 sd."""
    reps = 330_000
    C = _fixed_counts(Q34, THETA, reps, seed=1)
    R = E.linear_operator(Q34)
    est = (C / N) @ R.T
    cov = E.linear_covariance(Q34, THETA, N, R)
    sd = np.sqrt(np.diag(cov))
    assert np.all(np.abs(est.mean(axis=0) - THETA) <= 4 * sd / np.sqrt(reps))
    np.testing.assert_allclose(est.var(axis=0, ddof=1), np.diag(cov), rtol=4 * _rel_sd(reps))
    assert 4 * _rel_sd(reps) <= 0.01
    corr_emp, corr = np.corrcoef(est.T), cov / np.outer(sd, sd)
    np.testing.assert_allclose(corr_emp, corr, atol=4 / np.sqrt(reps))  # sd of a correlation ≤ 1/√R
    # the plug-in (R diag(f) Rᵀ − diag θ̂)/n is unbiased for the diagonal
    plug = (((C / N) @ (R**2).T) - est) / N
    np.testing.assert_allclose(plug.mean(axis=0), np.diag(cov), rtol=1e-3)


def test_linear_intervals_cover_the_data_at_their_level() -> None:
    """2 000 data sets: 95 % intervals cover each true frequency 95 % ± 4 binomial sd (2 %)."""
    reps = 2000
    m = Mechanism(Q34)
    C = _fixed_counts(Q34, THETA, reps, seed=2)
    hits = np.zeros(3)
    for c in C:
        e = m.estimate_counts(c, ci=0.95)
        hits += (e.ci_low <= THETA) & (THETA <= e.ci_high)
    assert np.all(np.abs(hits / reps - 0.95) <= 4 * np.sqrt(0.95 * 0.05 / reps))


def test_em_is_consistent_with_its_delta_method_covariance() -> None:
    """R = 4 000 EM fits at n = 10⁶ (4 inputs, 6 outputs): variances within 4 sd = 8.9 % of the closed form."""
    reps = 4000
    rng = np.random.default_rng(3)
    Q = rng.dirichlet(np.ones(6), size=4) * 0.6 + np.eye(4, 6) * 0.4
    theta = np.array([0.4, 0.3, 0.2, 0.1])
    C = _fixed_counts(Q, theta, reps, seed=4)
    est = np.array([E.em(Q, c).theta for c in C])
    cov = E.em_covariance(Q, N * (theta @ Q), theta)
    sd = np.sqrt(np.diag(cov))
    assert np.all(np.abs(est.mean(axis=0) - theta) <= 4 * sd / np.sqrt(reps))
    np.testing.assert_allclose(est.var(axis=0, ddof=1), np.diag(cov), rtol=4 * _rel_sd(reps))
    lin = E.linear_covariance(Q, theta, N)
    assert np.all(np.diag(cov) <= np.diag(lin) * (1 + 1e-9))  # the MLE is no worse than the unbiased linear one


def test_em_equals_linear_for_a_square_q_inside_the_simplex() -> None:
    Q = np.array([[0.7, 0.2, 0.1], [0.15, 0.7, 0.15], [0.1, 0.2, 0.7]])
    m = Mechanism(Q)
    c = _fixed_counts(Q, THETA, 1, seed=5)[0]
    lin, em = m.estimate_counts(c, ci=0.9), m.estimate_counts(c, method="em", ci=0.9)
    np.testing.assert_allclose(em.frequencies, lin.frequencies, atol=1e-9)
    np.testing.assert_allclose(em.stderr, lin.stderr, rtol=1e-6)
    assert em.note == "" and em.iterations > 1


def test_em_and_linear_agree_to_sampling_error_where_both_apply() -> None:
    m = Mechanism(Q34)
    c = _fixed_counts(Q34, THETA, 1, seed=6)[0]
    lin, em = m.estimate_counts(c), m.estimate_counts(c, method="em")
    assert np.all(np.abs(em.frequencies - lin.frequencies) <= 4 * lin.stderr)


def test_em_fixed_point_satisfies_the_likelihood_kkt_conditions_on_a_non_identifiable_q() -> None:
    """Σ_y f_y Q[x, y]/λ̂_y = 1 where θ̂_x > 0 and ≤ 1 elsewhere: a maximum of the likelihood."""
    rng = np.random.default_rng(7)
    Q = rng.dirichlet(np.ones(3), size=5)  # 5 inputs, 3 outputs: rank 3
    c = rng.multinomial(50_000, np.full(5, 0.2) @ Q)
    fit = E.em(Q, c)
    grad = Q @ ((c / c.sum()) / (fit.theta @ Q))
    assert fit.converged
    assert np.all(grad <= 1 + 1e-6) and np.all(np.abs(grad[fit.theta > 1e-6] - 1) <= 1e-6)
    e = Mechanism(Q).estimate_counts(c, method="em", ci=0.95)
    assert e.stderr is None and e.ci_low is None and "confounded inputs" in e.note


def test_posterior_estimate_mean_and_variance() -> None:
    """Inputs drawn at random (Mult(n, λ)): E θ̂ = Post λ, Var as reported, within 4 sd (1 %)."""
    reps = 320_000
    prior = np.array([0.6, 0.25, 0.15])
    post = E.posterior_matrix(Q34, prior)
    lam = THETA @ Q34
    C = np.random.default_rng(8).multinomial(N, lam, size=reps)
    est = (C / N) @ post.T
    _, var = E.posterior_estimate(Q34, N * lam, prior)
    assert np.all(np.abs(est.mean(axis=0) - post @ lam) <= 4 * np.sqrt(var / reps))
    np.testing.assert_allclose(est.var(axis=0, ddof=1), var, rtol=4 * _rel_sd(reps))
    # one EM step from the design prior
    np.testing.assert_allclose(E.em(Q34, C[0], start=prior, max_iter=1).theta, est[0], rtol=1e-12)


def test_posterior_estimate_has_no_interval_and_needs_the_design_prior() -> None:
    c = [300, 200, 400, 100]
    e = Mechanism(Q34, prior=[0.6, 0.25, 0.15]).estimate_counts(c, method="posterior", ci=0.95)
    assert e.stderr is not None and e.ci_low is None and "biased toward the design prior" in e.note
    with pytest.raises(ParamError, match="needs the design prior"):
        Mechanism(Q34).estimate_counts(c, method="posterior")


def test_per_report_values_are_unbiased_and_average_to_the_linear_estimate() -> None:
    m = Mechanism(Q34, inputs=["a", "b", "c"], outputs=["w", "x", "y", "z"])
    x = np.repeat(np.array(["a", "b", "c"]), [50_000, 30_000, 20_000])
    r = m.randomize(x, rng=9)
    V = m.per_report_values(r)
    np.testing.assert_allclose(V.mean(axis=0), m.estimate(r).frequencies, rtol=1e-12)
    for i, lab in enumerate("abc"):
        rows = V[x == lab]
        se = rows.std(axis=0, ddof=1) / np.sqrt(len(rows))
        assert np.all(np.abs(rows.mean(axis=0) - np.eye(3)[i]) <= 4 * se)


def test_linear_refusal_names_the_confounded_inputs() -> None:
    m = Mechanism([[0.6, 0.4], [0.6, 0.4], [0.1, 0.9]], inputs=["a", "b", "c"])
    assert not m.identifiable and m.confounded() == [["a", "b"]]
    for call in (lambda: m.estimate([0, 1]), lambda: m.per_report_values([0, 1])):
        with pytest.raises(ProblemError, match=r"rank 2 < 3 inputs \(confounded inputs: \{a, b\}\)"):
            call()


def test_em_that_stops_at_the_iteration_cap_says_so() -> None:
    from mechopt import settings

    with settings.override(em_iterations=3):
        e = Mechanism(Q34).estimate_counts([300, 200, 400, 100], method="em")
    assert e.iterations == 3 and "iteration limit" in e.note


@pytest.mark.parametrize(
    ("kwargs", "err", "match"),
    [
        ({"method": "mle"}, ParamError, "unknown estimation method 'mle'"),
        ({"consistency": "softmax"}, ParamError, "unknown consistency 'softmax'"),
        ({"ci": 1.5}, ParamError, "strictly between 0 and 1"),
        ({"ci": True}, ParamError, "strictly between 0 and 1"),
        ({"prior": [0.2, 0.3, 0.5]}, ParamError, "start of method='em' only"),
        ({"method": "em", "prior": [1.0, 2.0]}, ProblemError, "EM start must be 3"),
    ],
)
def test_bad_estimate_options_are_refused(kwargs, err, match) -> None:
    with pytest.raises(err, match=match):
        Mechanism(Q34).estimate_counts([300, 200, 400, 100], **kwargs)


def test_an_em_start_that_cannot_produce_a_report_is_refused() -> None:
    with pytest.raises(ProblemError, match="output 1 was reported but has probability 0 under the EM start"):
        Mechanism(np.eye(3)).estimate_counts([5, 1, 0], method="em", prior=[1.0, 0.0, 0.0])


@pytest.mark.parametrize(
    ("counts", "match"), [([1, 2, 3], "vector of 4"), ([0, 0, 0, 0], "no reports"), ([1, -1, 0, 0], "non-negative")]
)
def test_bad_counts_are_refused(counts, match) -> None:
    with pytest.raises(ProblemError, match=match):
        Mechanism(Q34).estimate_counts(counts)


@pytest.mark.parametrize("counts", [[0.3, 0.5, 0.2], [3e-10, 5e-10, 2e-10]])
def test_counts_of_less_than_one_report_are_refused_not_given_an_infinite_stderr(counts) -> None:
    # frequencies (or counts in the wrong unit) passed as counts rounded n to 0 or 1: stderr inf, interval [0, 0]
    from mechopt import Mechanism
    from mechopt.errors import ProblemError

    m = Mechanism([[0.6, 0.2, 0.2], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    with pytest.raises(ProblemError, match="not frequencies"):
        m.estimate_counts(counts, method="linear", ci=0.95)
    est = m.estimate_counts(np.array([3, 5, 2]) * 1e9, method="linear", ci=0.95)
    assert np.all(np.isfinite(est.stderr)) and est.n == 10**10


#: EM: 1000 reports over 2 of 5 outputs; the fit sits on the simplex's boundary and the delta-method variances
#: come out negative (-139): floored at 0 they gave stderr 0 and the 95% interval [0.392, 0.392], though EM's
#: spread over repeated samples is about 0.15 (seeded Monte Carlo, 300 draws).
Q_EM_BOUNDARY = [
    [2.65346072e-04, 9.38001380e-01, 6.16552371e-02, 7.80363534e-05, 0.0],
    [1.10811123e-02, 6.76060051e-01, 3.11377843e-01, 1.48099364e-03, 0.0],
    [1.52533402e-06, 9.92385395e-01, 7.61223624e-03, 8.43571990e-07, 0.0],
]
#: linear: 30 reports; the unbiased variance estimate (Σ R² f − θ̂)/n of the third input is negative: floored
#: at 0 it printed stderr 0 and the interval [0.977, 0.977].
Q_FEW_REPORTS = [
    [8.11160864e-01, 1.71284526e-01, 3.43026770e-05, 1.75203068e-02, 0.0],
    [4.90090195e-05, 1.30745522e-01, 8.67748152e-01, 1.45731741e-03, 0.0],
    [9.24064662e-01, 3.55306100e-03, 2.10034240e-06, 7.23801763e-02, 0.0],
]


@pytest.mark.parametrize(
    ("Q", "counts", "method", "x", "value"),
    [(Q_EM_BOUNDARY, [0, 971, 29, 0, 0], "em", 0, 0.3924), (Q_FEW_REPORTS, [26, 0, 3, 1, 0], "linear", 2, 0.977)],
)
def test_no_zero_width_interval_from_a_negative_variance(Q, counts, method, x, value) -> None:
    Q = np.array(Q) / np.sum(Q, axis=1, keepdims=True)
    est = Mechanism(Q).estimate_counts(counts, method=method, ci=0.95)
    assert est.frequencies[x] == pytest.approx(value, abs=1e-3)
    if est.stderr is None:
        assert est.ci_low is None and "no standard error" in est.note
    else:
        assert np.all(est.stderr > 0.05) and np.all(est.ci_high - est.ci_low > 0.1)


@pytest.mark.parametrize("method", ["linear", "em", "posterior"])
def test_a_report_no_input_can_produce_is_refused_by_every_method(method) -> None:
    # the linear estimate took it silently (frequencies summing to 0.909); em asked for a start "positive on
    # every input that can produce it" (there is none) and posterior said "use method='em'" (which failed too)
    m = Mechanism([[0.7, 0.3, 0.0], [0.3, 0.7, 0.0]], outputs=["a", "b", "never"], prior=[0.5, 0.5])
    with pytest.raises(ProblemError, match="'never' was reported 1 time.* no input can produce it"):
        m.estimate_counts([5, 5, 1], method=method)
    assert m.estimate_counts([5, 5, 0], method=method).frequencies.sum() == pytest.approx(1.0)
