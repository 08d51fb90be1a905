"""Numerical extremes (issue 11, part 2): results stay finite, audited, and certified or honestly flagged.

Every family at tiny prior masses (1e-12), zero-mass symbols, ε from 1e-6 to 50
and d up to the exact solver's documented limits, through every applicable
solver. The invariant (:func:`honest`): no NaN or inf anywhere (value, JSON,
tables); a mechanism that comes back is audited; ``optimal`` only when the audit
passes (and the certificate, if any, closes); anything else carries a message.
The regressions pin the bugs this issue found, each at its source.
"""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest

import mechopt
from mechopt import settings
from mechopt.model.problem import ChannelProblem
from mechopt.problems.design import ChannelDesign
from mechopt.registry import get_problem, solvers_for
from mechopt.results.result import Result, Status

EPS = [1e-6, 1e-3, 10.0, 50.0]
PRIORS = {"tiny": "0.5,0.3,0.2,1e-12", "zero": "0.5,0,0.3,0.2", "skew": "0.999999,1e-6"}
FAST = {"sqp": {"n_starts": 2, "max_iter": 200}}


def honest(res: Result, where: str = "", channel: bool = False) -> None:
    """The invariant every result must satisfy, whatever the input."""
    doc = res.to_dict()
    text = json.dumps(doc, allow_nan=False)  # raises on NaN / inf
    assert "NaN" not in text and "Infinity" not in text, where
    assert res.value is None or math.isfinite(res.value), where
    if res.status.has_solution:
        assert res.value is not None, where
    if res.status is not Status.OPTIMAL:
        assert res.message, f"{where}: status {res.status.value} without a message"
        return
    if res.mechanism is None:  # a certified optimum too large to materialise (exact, symmetry): says so
        assert res.certificate is not None and "not materialised" in res.message, where
        return
    assert res.violation is not None and res.violation <= settings.tolerance("privacy"), (where, res.message)
    if res.certificate is not None:
        assert res.certificate.gap <= settings.tolerance("gap"), where
    if channel and res.mechanism is not None:  # densities and covariances are audited by their problem
        Q = res.Q
        assert np.all(np.isfinite(Q)) and np.all(Q >= 0), where
        assert np.max(np.abs(Q.sum(axis=1) - 1.0)) <= settings.tolerance("row_sum"), where


def _design(prior: str, notion: str, utility: str, eps: float) -> ChannelDesign:
    d = len(prior.split(","))
    kw = {}
    if utility == "mse":
        kw["values"] = list(range(d))
    if notion == "graph-ldp":
        kw["graph"] = nx.path_graph(d)
    return ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=eps, **kw)


def _all_solvers(prob, where: str) -> dict[str, Result]:
    out = {}
    for name in solvers_for(prob):
        r = mechopt.solve(prob, solver=name, time_limit=20, **FAST.get(name, {}))
        honest(r, f"{where} {name}", channel=isinstance(prob, ChannelProblem))
        out[name] = r
    return out


@pytest.mark.parametrize("prior", list(PRIORS))
@pytest.mark.parametrize("notion", ["ldp", "lip", "mip", "graph-ldp"])
def test_design_families_at_extremes(prior, notion) -> None:
    """Every solver honest; the exact solver certifies every LDP / LIP / policy-graph design."""
    if notion == "graph-ldp" and prior == "zero":
        pytest.skip("zero-mass symbols are refused for policy graphs (a typed ProblemError)")
    for utility in ("mi", "mse", "histogram"):
        for eps in EPS:
            where = f"{prior} {notion} {utility} eps={eps}"
            res = _all_solvers(_design(PRIORS[prior], notion, utility, eps), where)
            if notion != "mip":
                assert res["exact"].status is Status.OPTIMAL, (where, res["exact"].message)


CASES = [
    ("lip-binary", {"prior": "0.6,0.4", "notion": "lip"}),
    ("lip-binary", {"p1": "1e-12", "notion": "ldp"}),
    ("lip-mimo", {"prior": "0.5,0.3,0.2,1e-12"}),
    ("lip-mimo", {"prior": "uniform:4", "notion": "ldp"}),
    ("lip-histogram", {"prior": "0.5,0.3,0.2,1e-12"}),
    ("lip-weighted-sum", {"prior": "0.2,0.5,0.3", "values": "0,1,4", "weight": "2", "offset": "1"}),
    ("cip-binomial", {"n_users": "4", "p1": "0.3"}),
    ("cip-binomial", {"n_users": "4", "p1": "1e-9"}),
    ("kss-mi", {"prior": "0.5,0.3,0.2,1e-12"}),
    ("kss-mi", {"prior": "uniform:5"}),
    ("kss-l2", {"prior": "uniform:4", "n": 10000}),
    ("kss-l2", {"prior": "0.4,0.3,0.3,1e-12", "n": 10000}),
]


@pytest.mark.parametrize("pid, params", CASES, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CASES)])
def test_paper_families_at_extreme_eps(pid, params) -> None:
    for eps in EPS:
        prob = get_problem(pid).from_params(**params, eps=eps)
        res = _all_solvers(prob, f"{pid} {params} eps={eps}")
        if "exact" in res and pid != "cip-binomial":
            assert res["exact"].status is Status.OPTIMAL, (pid, eps, res["exact"].message)


CONTINUOUS = [
    ("fisher-interval", {"a": "-1e-6", "b": "1e-6", "n": "200"}),
    ("fisher-interval", {"a": "-1e6", "b": "1e6", "n": "200"}),
    ("fisher-box", {"lower": "-1e-4,0", "upper": "1e-4,1e4", "n": "10,10"}),
    ("fisher-gaussian", {"m": "1", "xi": "1e-8", "n": "200"}),
    ("fisher-gaussian", {"m": "1", "xi": "1e8", "n": "200"}),
    ("fisher-gaussian", {"m": "2", "sigma2": "1e-8", "n": "200"}),
    ("fisher-weighted", {"a": "-1", "b": "1", "c": "0", "d": "4", "weight": "exp:2000", "nw": "11"}),
    ("fisher-weighted", {"a": "-1", "b": "1", "c": "0", "d": "4", "weight": "gauss:0:1e-3", "nw": "11"}),
    ("fisher-lti", {"A": "0.9,0.2;0,0.8", "C": "1,1", "T": "4", "xi": "1e-10"}),
    ("fisher-lti", {"A": "0.9,0.2;0,0.8", "C": "1,1", "T": "4", "xi": "1e10"}),
    ("gauss-dataset1", {"delta": "1e-9", "gamma": "0"}),
    ("gauss-dataset1", {"delta": "1", "gamma": "1e-9"}),
    ("gauss-dataset1", {"delta": "0.5", "gamma": "1e9"}),
    ("gauss-dataset2", {"delta": "1e-6", "gamma": "0", "psd": "project"}),
]


@pytest.mark.parametrize("pid, params", CONTINUOUS, ids=[f"{p}-{i}" for i, (p, _) in enumerate(CONTINUOUS)])
def test_fisher_and_gauss_at_extremes(pid, params) -> None:
    prob = get_problem(pid).from_params(**params)
    res = _all_solvers(prob, f"{pid} {params}")
    assert res, "no solver applies"
    if "closed-form" in res and "conic" in res:  # the grid/SDP optimum agrees with the theorem
        cf, cv = res["closed-form"], res["conic"]
        assert cv.status is Status.OPTIMAL, cv.message
        err = cv.extras.get("error_estimate") or 0.0
        if pid != "fisher-weighted":  # Corollary 4 is a stationary point, not the optimum
            assert abs(cv.value - cf.value) <= 2e-4 * abs(cf.value) + 10 * err, (cv.value, cf.value)


# -- regressions: input → old behaviour → new behaviour ----------------------------------------


def test_skewed_prior_large_eps_is_certified_and_exactly_private() -> None:
    """P = (1 − 1e-6, 1e-6), ε = 10, LDP: was optimal_inaccurate ('privacy violated by 4.54e-05':
    HiGHS met the tiny row to 1e-10 absolute, renormalising it broke the ratio); now the basis is
    polished in mechanism scale and the ratio is e^ε to machine precision."""
    for notion in ("ldp", "lip"):
        r = mechopt.solve(_design("0.999999,1e-6", notion, "histogram", 10.0), solver="exact")
        assert r.status is Status.OPTIMAL and r.violation <= 1e-12, r.message
    r = mechopt.solve(_design("0.999999,1e-6", "ldp", "histogram", 10.0), solver="exact")
    assert abs(math.log(r.Q[0, 0] / r.Q[1, 0]) - 10.0) <= 1e-12


def test_skewed_prior_tiny_eps_solves() -> None:
    """P = (1 − 1e-6, 1e-6), ε = 1e-6, LDP-MI: was numerical_error ('HiGHS status 15: Unknown');
    now retried in mechanism scale: optimal, certified, MI ≈ 0."""
    r = mechopt.solve(_design("0.999999,1e-6", "ldp", "mi", 1e-6), solver="exact")
    assert r.status is Status.OPTIMAL and r.certificate.gap <= settings.tolerance("gap")
    best = 4.999994999999582798e-19  # the optimum at 60 digits (tests/solvers/mp_reference.py)
    assert abs(r.value - best) <= 1e-9 * best and r.certificate.bound >= best


@pytest.mark.parametrize("eps", [1e-6, 1.0, 50.0])
def test_policy_graph_tiny_mass_and_huge_eps(eps) -> None:
    """Path-graph LDP with a 1e-12 prior mass: was 'HiGHS: infeasible' (ε ≤ 1) or 'privacy violated
    by inf' (ε = 50, rays lost their e^{-50} entries in the double description); rays now come from
    log space on q = c / P: certified, and every edge ratio within e^ε."""
    prob = _design("0.5,0.3,0.2,1e-12", "graph-ldp", "histogram", eps)
    r = mechopt.solve(prob, solver="exact")
    assert r.status is Status.OPTIMAL, r.message
    Q = r.Q
    for u, v in nx.path_graph(4).edges:
        assert np.all(Q[u] > 0) and np.max(np.abs(np.log(Q[u]) - np.log(Q[v]))) <= eps + 1e-9


def test_kss_l2_tiny_eps_value_matches_its_mechanism() -> None:
    """kss-l2 at ε = 1e-6: the closed form was downgraded ('reported 900000000 but the mechanism gives
    899815581': the audit inverted QQᵀ, cond ≈ 1e12); the audit now goes through the SVD of Q and
    agrees with the exact value 9.00000000000075e8 (50-digit arithmetic)."""
    prob = get_problem("kss-l2").from_params(prior="uniform:4", eps=1e-6, n=10000)
    r = mechopt.solve(prob, solver="closed-form")
    # Theorems 3.1-3.2 are proven among power-set mechanisms only: feasible, and the audit agrees on the value
    assert r.status is Status.FEASIBLE and "reported value" not in r.message, r.message
    assert abs(prob.audit(r).value / r.value - 1) <= 1e-9
    assert abs(r.value / 900000000.000075 - 1) <= 1e-9
    from mechopt.oracles.ksubset import KSubset

    assert abs(prob.evaluate(KSubset(4, 1e-6, k=2).matrix()) / 900000000.000075 - 1) <= 1e-8


def test_fisher_interval_tiny_and_huge_supports() -> None:
    """fisher-interval on [−1e-6, 1e-6]: conic said 'infeasible'; on [−1e6, 1e6] its 'optimal' density
    was 2 % off; the SOCP is now posed on the unit interval: both match π²/L²·4 on the grid."""
    for half in (1e-6, 1e6):
        prob = get_problem("fisher-interval").from_params(a=str(-half), b=str(half), n="200")
        r = mechopt.solve(prob, solver="conic")
        grid = 4 * (201 / (2 * half)) ** 2 * 4 * math.sin(math.pi / 402) ** 2  # discrete optimum
        assert r.status is Status.OPTIMAL and abs(r.value / grid - 1) <= 1e-6, (half, r.value, grid)


def test_fisher_lti_small_xi_agrees_with_theorem_4() -> None:
    """ξ = 1e-10: the covariance SDP's 'optimal' was 7.89e-5, 30 % above Theorem 4's 6.0e-5;
    posed at ξ = 1 and scaled back, it agrees to 1e-6."""
    prob = get_problem("fisher-lti").from_params(A="0.9,0.2;0,0.8", C="1,1", T="4", xi="1e-10")
    cv, cf = mechopt.solve(prob, solver="conic"), mechopt.solve(prob, solver="closed-form")
    assert cv.status is Status.OPTIMAL and abs(cv.value / cf.value - 1) <= 1e-6


def test_fisher_weighted_steep_weights_stay_finite() -> None:
    """weight exp:500 on [0, 4]: e^{2000} overflowed: conic crashed ('Problem data contains NaN'),
    the closed form was NaN; gauss:0:1e-3 underflowed to zero, so no solver applied. Log space now."""
    for w in ("exp:500", "exp:-2000", "gauss:0:1e-3"):
        prob = get_problem("fisher-weighted").from_params(a="-1", b="1", c="0", d="4", weight=w, nw="11")
        names = solvers_for(prob)
        assert "conic" in names
        for name in names:
            honest(mechopt.solve(prob, solver=name), f"{w} {name}")


def test_cip_large_eps_is_certified_and_private() -> None:
    """cip-binomial N = 4, P1 = 0.3, ε = 50: was optimal_inaccurate ('privacy violated by inf'): the
    point mass δ_0 (statistic 0 < e^{-50} m) passed the absolute vertex tolerance and the mixtures'
    1 − λ ≈ 1e-22 rounded to 0; the rays now use the relative cone and both weights directly."""
    for eps in (10.0, 50.0):
        prob = get_problem("cip-binomial").from_params(n_users="4", p1="0.3", eps=eps)
        r = mechopt.solve(prob, solver="exact")
        assert r.status is Status.OPTIMAL and r.violation == 0.0, (eps, r.message)
        assert np.all(np.isfinite(r.Q))


def test_one_symbol_support_sqp() -> None:
    """Prior (1, 0): sqp crashed with a raw IndexError from scipy (no cone rows); now the trivial optimum."""
    prob = ChannelDesign.from_params(prior=[1.0, 0.0], notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="sqp", n_starts=1)
    assert r.status is Status.LOCALLY_OPTIMAL and r.value == pytest.approx(0.0, abs=1e-12)


# -- d up to the documented limits --------------------------------------------------------------


def _random_prior(d: int, seed: int) -> np.ndarray:
    P = np.random.default_rng(seed).dirichlet(np.ones(d))
    P[0] = 1e-12
    return P / P.sum()


@pytest.mark.kernel_sensitive  # which honest reason it gives depends on the BLAS kernel (CI reruns it under others)
@pytest.mark.parametrize("eps", [1e-6, 50.0])
@pytest.mark.parametrize(
    "notion, utility, d",
    [("ldp", "mi", 10), ("lip", "histogram", 10), ("ldp", "mi", 12), ("lip", "histogram", 12), ("ldp", "mi", 24)],
)
def test_exact_at_large_d_and_extreme_eps(notion, utility, d, eps) -> None:
    """Enumeration (d = 10), column generation (d = 12, 24: the MI pricing MILP; at ε = 50 it was a HiGHS
    'Model error', at ε = 1e-6 the LIP master was 'infeasible' to HiGHS's presolve).

    Issue 26: with the gap relative at every magnitude, three of these were certified only by the old
    absolute floor, and wrongly — d = 12 MI at ε = 1e-6 said optimal at 3.36e-14 (the optimum, by
    enumeration, is 1.2500e-13), d = 24 MI said optimal at 0.0, the d = 12 histogram at ε = 50 said
    optimal at −2.2e-16 (it is 3.12e-22). Column generation's pricers resolve reduced costs only to
    ~1e-16 of order-one duals, so there the answers are now ``optimal_inaccurate`` with their gap;
    d ≤ 12 is checked against enumeration, which certifies every case."""
    prob = ChannelDesign.from_params(prior=_random_prior(d, d), notion=notion, utility=utility, eps=eps)
    r = mechopt.solve(prob, solver="exact")
    honest(r, f"{notion} {utility} d={d} eps={eps}", channel=True)
    if d <= 12:
        ref = mechopt.solve(prob, solver="exact", method="enumerate")
        assert ref.status is Status.OPTIMAL, ref.message
        if r.ok:
            assert abs(r.value - ref.value) <= 1e-9 * abs(ref.value)
        else:  # not proven, and never better than the optimum
            assert (ref.value - r.value) * (1 if r.sense == "max" else -1) >= -1e-9 * abs(ref.value)
    if (notion, d, eps) in {("ldp", 12, 1e-6), ("ldp", 24, 1e-6), ("lip", 12, 50.0)}:
        # not proven here: said with its reason, the gap or a stalled column generation (which one depends on
        # the BLAS kernel: under OPENBLAS_CORETYPE=Haswell d = 12 and 24 stall at reduced costs of 2e-16)
        assert r.ok or (r.status is Status.OPTIMAL_INACCURATE and ("gap" in r.message or "stalled" in r.message))
    else:
        assert r.status is Status.OPTIMAL, r.message


def test_policy_graph_at_dd_max_d_and_eps_50() -> None:
    """Path graph on d = 14 (the exact solver's ``dd_max_d``), ε = 50, a 1e-12 mass: every one of the
    2^(d−1) rays kept (deduplicating the normalised rays merged those differing only in e^{-50k}
    entries: 254 of 8192), certified in seconds (the log-space enumeration was 113 s before its
    equality row went first)."""
    d = 14
    prob = ChannelDesign.from_params(
        prior=_random_prior(d, 3), notion="graph-ldp", utility="histogram", eps=50.0, graph=nx.path_graph(d)
    )
    r = mechopt.solve(prob, solver="exact")
    honest(r, "path 14 eps=50", channel=True)
    assert r.status is Status.OPTIMAL and r.extras["rays"] == 2 ** (d - 1)


@pytest.mark.parametrize("d, eps", [(1000, 1e-6), (200, 50.0), pytest.param(1000, 50.0, marks=pytest.mark.slow)])
def test_symmetry_uniform_large_d(d, eps) -> None:
    prob = ChannelDesign.from_params(prior=f"uniform:{d}", notion="ldp", utility="mi", eps=eps)
    r = mechopt.solve(prob, solver="exact")
    honest(r, f"uniform:{d} eps={eps}", channel=True)
    assert r.status is Status.OPTIMAL and 0.0 <= r.value <= math.log(d) + 1e-9


def test_cli_design_json_at_extremes_has_no_nan(capsys) -> None:
    from mechopt.cli import main

    for eps in ("1e-6", "50"):
        code = main(
            [
                "design",
                "--notion",
                "ldp",
                "--utility",
                "mi",
                "--prior",
                "0.999999,1e-6",
                "--eps",
                eps,
                "--solver",
                "exact",
                "--json",
            ]
        )
        out = capsys.readouterr().out
        assert code == 0
        doc = json.loads(out)  # strict JSON: NaN would not parse as a number here
        assert "NaN" not in out and "Infinity" not in out
        assert doc["status"] == "optimal" and math.isfinite(doc["value"])


def test_mutual_information_with_masses_near_underflow() -> None:
    """I(X; Y) for P = (1 − 1e-300, 1e-300) through the identity: was inf (P(x)·λ_y underflowed to 0
    inside rel_entr, so MIP audits said 'violated by inf'); now H(P) ≈ 6.9e-298, in log space."""
    from mechopt.model.info import entropy, mutual_information
    from mechopt.notions import MIP

    P = np.array([1 - 1e-300, 1e-300])
    mi = mutual_information(P, np.eye(2))
    assert math.isfinite(mi) and mi == pytest.approx(entropy(P), rel=1e-12)
    assert MIP(1e-6).audit(np.eye(2), P).violation == 0.0
    assert mutual_information([0.5, 0.5], np.eye(2)) == pytest.approx(math.log(2), rel=1e-15)


@pytest.mark.parametrize("notion", ["ldp", "lip", "graph-ldp"])
def test_design_dense_eps_grid(notion) -> None:
    """15 ε from 1e-6 to 50 × 5 priors (masses down to 1e-12, zeros) × 3 utilities: exact certifies all."""
    priors = dict(PRIORS, uniform="uniform:5", decades="0.9,0.09,0.009,0.0009,1e-4")
    for name, prior in priors.items():
        if notion == "graph-ldp" and name == "zero":
            continue
        for utility in ("mi", "mse", "histogram"):
            for eps in np.geomspace(1e-6, 50.0, 15):
                prob = _design(
                    prior if not prior.startswith("uniform") else "0.2,0.2,0.2,0.2,0.2", notion, utility, float(eps)
                )
                r = mechopt.solve(prob, solver="exact")
                honest(r, f"{name} {notion} {utility} eps={eps:.3g}", channel=True)
                if r.status is Status.OPTIMAL_INACCURATE and abs(r.value) < 1e-3:
                    # issue 19: below the objective's floor the gap is absolute (|b - v| <= 1e-10 for optimal);
                    # a value of 8e-7 known to 7e-9 (1 %) is not called optimal any more
                    assert "certificate gap" in r.message and abs(r.certificate.bound - r.value) < 1e-7
                    continue
                assert r.status is Status.OPTIMAL, (name, notion, utility, eps, r.message)


def test_sweep_and_compare_tables_at_extremes_have_no_nan(tmp_path, capsys) -> None:
    """A sweep over ε from 1e-6 to 50 and a compare of extreme instances: JSON lines parse strictly,
    the tables print no nan/inf, every certified row is optimal."""
    from mechopt.cli import main
    from mechopt.io.catalog import parse_catalog
    from mechopt.jobs.compare import compare
    from mechopt.jobs.sweep.run import read_lines

    spec = tmp_path / "spec.toml"
    spec.write_text(
        'problem = "design"\nsolvers = ["exact", "sqp"]\n[fixed]\nprior = "0.999999,1e-6"\n'
        'notion = "ldp"\nutility = "mi"\n[grid]\neps = [1e-6, 1e-3, 1.0, 10.0, 50.0]\n'
        "[options.sqp]\nn_starts = 2\n"
    )
    out = tmp_path / "s.jsonl"
    assert main(["sweep", str(spec), "--out", str(out)]) == 0
    table = capsys.readouterr().out.lower()
    assert "nan" not in table and "inf " not in table
    for line in out.read_text().splitlines():
        json.loads(line, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
    assert all(ln["status"] == "optimal" for ln in read_lines(out) if ln["solver"] == "exact")
    cat = parse_catalog("""
[[instance]]
problem = "design"
name = "skew eps=50"
params = { prior = "0.999999,1e-6", notion = "lip", utility = "histogram", eps = 50.0 }
options.sqp = { n_starts = 2 }

[[instance]]
problem = "kss-l2"
name = "eps=1e-6"
params = { prior = "uniform:4", eps = 1e-6, n = 10000 }
options.sqp = { n_starts = 2 }
""")
    rows = compare(instances=cat)
    assert all(r["value"] is None or math.isfinite(r["value"]) for r in rows)
    assert all(r["status"] == "optimal" for r in rows if r["certified"])
    assert any(r["certified"] for r in rows if r["instance"] == "skew eps=50")
