"""Every registered solver says the word its evidence supports (docs/status.rst).

``optimal`` only with a proof (certificate, convex, eigenproblem, theorem); a local method is
``locally_optimal``; a heuristic ``feasible``; a closed form outside its proven region
``feasible`` or ``infeasible_point``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import registry
from mechopt.api import _proof_status
from mechopt.io.catalog import builtin_catalog
from mechopt.model.solver import _honest, check_options
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import PROOFS, Certificate, Result, Status

CATALOG = {(i.problem, i.name): i for i in builtin_catalog()}
GAUSS = ("gauss-dataset1", "dataset 1 delta=0.3 gamma=0")
FISHER = ("fisher-interval", "[-1,1] n=400 (Corollary 1, J = pi^2)")
BINARY = ("lip-binary", "P1=0.4 eps=1 LIP (Theorem 2 region)")
GEO = ("geo", "grid:4x4 eps=0.5 metric-ldp, prior from counts")

#: solver -> (its guarantee, a catalog instance, the status it must report there, the proof)
EXPECTED = {
    "exact": ("global", BINARY, Status.OPTIMAL, "certificate"),
    "search": ("global", GAUSS, Status.OPTIMAL, "certificate"),
    "conic": ("global", FISHER, Status.OPTIMAL, "convex"),
    "lp": ("global", GEO, Status.OPTIMAL, "certificate"),
    "spectral": ("global", FISHER, Status.OPTIMAL, "eigenproblem"),
    "closed-form": ("global", BINARY, Status.OPTIMAL, "theorem"),
    "robust-lp": ("global", ("robust", "prior-free ldp on 6 symbols, eps=1"), Status.OPTIMAL, "certificate"),
    "robust-rays": (
        "global",
        ("robust", "pml mi over two priors on 3 symbols, eps=1 (robust-rays)"),
        Status.OPTIMAL,
        "certificate",
    ),
    "sqp": ("local", ("lip-mimo", "p=0.3,0.3,0.4 eps=1 (Theorem 3 region)"), Status.LOCALLY_OPTIMAL, None),
    "gd-penalty": ("local", GAUSS, None, None),  # locally_optimal or feasible: see the test
    "greedy": ("heuristic", GAUSS, Status.FEASIBLE, None),
    "anneal": ("heuristic", GAUSS, Status.FEASIBLE, None),
}
NEVER_OPTIMAL = {s for s, (g, *_) in EXPECTED.items() if g != "global"}
FAST = {"anneal": {"n_iter": 500}}


def _solve(key: tuple[str, str], solver: str) -> Result:
    inst = CATALOG[key]
    return mechopt.solve(inst.build(), solver=solver, **{**inst.options.get(solver, {}), **FAST.get(solver, {})})


def test_the_table_covers_every_registered_solver() -> None:
    assert set(EXPECTED) == set(registry.solver_names())
    for name, (guarantee, *_) in EXPECTED.items():
        assert registry.get_solver(name).guarantee == guarantee, name


@pytest.mark.parametrize("solver", sorted(EXPECTED))
def test_each_solver_reports_its_honest_status(solver: str) -> None:
    _, key, status, proof = EXPECTED[solver]
    r = _solve(key, solver)
    assert r.violation is not None and r.violation <= 1e-7, r.message
    if solver == "gd-penalty":  # a restored point is not a local optimum (solvers/baselines.py)
        status = Status.FEASIBLE if r.extras["restoration_moved"] else Status.LOCALLY_OPTIMAL
    assert r.status is status and r.proof == proof, (r.status, r.proof, r.message)
    if proof == "certificate":
        assert r.certificate is not None and r.certificate.gap <= 1e-7
    if solver == "sqp":
        assert r.message.startswith("best local optimum of ") and "no certificate of global optimality" in r.message
    if solver == "conic":
        assert "optimum of the 400-point discretisation" in r.message
    if solver == "spectral":
        assert "error estimate" in r.message


@pytest.mark.parametrize("solver", sorted(EXPECTED))
def test_the_solver_itself_says_it_the_caps_are_only_a_safety_net(solver: str) -> None:
    """Straight from ``_solve`` (no guarantee cap, no audit), the status and proof are already honest."""
    backend = registry.get_solver(solver)
    _, key, status, proof = EXPECTED[solver]
    inst = CATALOG[key]
    given_opts = {**inst.options.get(solver, {}), **FAST.get(solver, {})}
    raw = backend._solve(inst.build(), check_options(solver, given_opts, {**backend.common_options, **backend.options}))
    if solver == "gd-penalty":
        status = Status.FEASIBLE if raw.extras["restoration_moved"] else Status.LOCALLY_OPTIMAL
    assert raw.status is status and raw.proof == proof, (raw.status, raw.proof)
    assert _honest(raw, backend.guarantee).status is raw.status  # the cap had nothing to do


_CLAIMS = {c.id for c in registry.claims()}

#: closed forms on catalog instances: (problem, instance) -> (status, verify claim)
CLOSED = {
    BINARY: (Status.OPTIMAL, "lip.thm2"),
    ("lip-binary", "P1=0.1 eps=1 LIP (outside Theorem 2 region)"): (Status.INFEASIBLE_POINT, "lip.thm2"),
    ("lip-binary", "P1=0.1 eps=1 LDP (Proposition 4)"): (Status.OPTIMAL, "lip.prop4"),
    ("lip-mimo", "p=0.3,0.3,0.4 eps=1 (Theorem 3 region)"): (Status.OPTIMAL, "lip.thm3"),
    ("lip-mimo", "p=0.1,0.2,0.7 eps=1"): (Status.INFEASIBLE_POINT, "lip.thm3"),
    ("lip-mimo", "uniform:4 eps=1 LDP"): (Status.FEASIBLE, "lip.ldp_mimo"),
    ("lip-histogram", "p=0.3,0.3,0.4 eps=1"): (Status.OPTIMAL, "lip.thm5"),
    ("lip-histogram", "p=0.1,0.2,0.3,0.4 eps=0.5"): (Status.INFEASIBLE_POINT, "lip.thm5"),
    ("kss-mi", "uniform d=4 eps=1 (Theorem 2.1: k*=1)"): (Status.OPTIMAL, "kss.thm2_1"),
    ("kss-l2", "uniform d=4 eps=1 n=10000 (Theorem 3.1: k#=1)"): (Status.FEASIBLE, "kss.thm3_1"),
    FISHER: (Status.OPTIMAL, "fisher.cor1"),
    ("fisher-interval", "[0,3] n=400 average query (Corollary 3)"): (Status.OPTIMAL, "fisher.cor3"),
    ("fisher-interval", "[-1,1] n=300 variance query (Corollary 5)"): (Status.OPTIMAL, "fisher.cor5"),
    ("fisher-box", "[-1,1]x[0,3] 20x20 (Corollary 1, box)"): (Status.OPTIMAL, "fisher.cor1_box"),
    ("fisher-gaussian", "m=2 sigma2=4 (Problem 4, Corollary 6)"): (Status.OPTIMAL, "fisher.cor6"),
    ("fisher-gaussian", "m=1 xi=4 (Problem 3, Corollary 6)"): (Status.OPTIMAL, "fisher.thm3"),
    ("fisher-lti", "Example 4 vehicle dt=1 T=5 xi=1 (Theorem 4)"): (Status.OPTIMAL, "fisher.thm4"),
    ("fisher-weighted", "X=[0,4] weight exp:0.5 nw=11 (Corollary 4, reconstructed)"): (Status.FEASIBLE, "fisher.cor4"),
}
#: the certified solver a proven closed form must agree with
REFERENCE = {
    "fisher-lti": "conic",
    "fisher-interval": "spectral",
    "fisher-box": "spectral",
    "fisher-gaussian": "spectral",
}


@pytest.mark.parametrize("key", list(CLOSED), ids=[f"{p}: {n}" for p, n in CLOSED])
def test_closed_form_is_optimal_only_in_its_proven_region(key: tuple[str, str]) -> None:
    status, claim = CLOSED[key]
    r = _solve(key, "closed-form")
    assert r.status is status and r.extras["claim"] == claim, (r.status, r.message)
    assert claim in _CLAIMS  # compare links rows to verify claims by this id
    if status is Status.OPTIMAL:  # a proven theorem is the certified optimum
        assert r.proof == "theorem"
        ref = _solve(key, REFERENCE.get(key[0], "exact"))
        assert ref.status is Status.OPTIMAL and r.value == pytest.approx(ref.value, rel=1e-6)
    else:  # it says which theorem and why it is not proven
        assert r.proof is None and "not proven here" in r.message
        assert (r.violation > 1e-7) == (status is Status.INFEASIBLE_POINT)


# -- properties ------------------------------------------------------------------------------

designs = st.tuples(
    st.integers(2, 4).flatmap(lambda d: st.lists(st.floats(0.05, 1.0), min_size=d, max_size=d)),
    st.sampled_from(["ldp", "lip"]),
    st.sampled_from(["mi", "histogram", "mse"]),
    st.floats(0.1, 4.0),
)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(designs)
def test_only_proven_results_are_optimal_on_random_designs(case) -> None:
    weights, notion, utility, eps = case
    prob = ChannelDesign.from_params(prior=np.array(weights) / np.sum(weights), notion=notion, utility=utility, eps=eps)
    exact = mechopt.solve(prob, solver="exact")
    results = [exact, mechopt.solve(prob, solver="sqp", n_starts=2)]
    if "closed-form" in registry.solvers_for(prob):
        results.append(mechopt.solve(prob, solver="closed-form"))
    for r in results:
        assert not (r.solver in NEVER_OPTIMAL and r.status is Status.OPTIMAL), r.solver
        assert (r.proof in PROOFS) if r.status is Status.OPTIMAL else r.proof is None, (r.solver, r.proof)
        assert r.status is not Status.INFEASIBLE_POINT or r.violation > 1e-7 or "audit" in r.message
    cf = results[2:]
    if cf and cf[0].status is Status.OPTIMAL:  # the theorem's value is the certified one
        assert cf[0].value == pytest.approx(exact.value, rel=1e-7, abs=1e-9)


GAUSS_KEYS = [k for k in CATALOG if k[0] == "gauss-dataset1"]


@pytest.mark.parametrize("solver", sorted(NEVER_OPTIMAL))
def test_local_and_heuristic_solvers_are_never_optimal_on_the_gauss_catalog(solver: str) -> None:
    for key in GAUSS_KEYS:
        r = _solve(key, solver)
        assert r.status is not Status.OPTIMAL and r.proof is None, (key, r.status)
        assert r.status in (Status.LOCALLY_OPTIMAL, Status.FEASIBLE, Status.ITERATION_LIMIT, Status.TIME_LIMIT)
        if solver in ("greedy", "anneal"):
            assert r.status is not Status.LOCALLY_OPTIMAL


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(list(Status)),
    st.sampled_from([None, "bogus", *PROOFS]),
    st.sampled_from([None, 0.0, 1e-9, 1e-3]),
    st.sampled_from(["global", "local", "heuristic"]),
)
def test_the_safety_nets_never_let_an_unproven_optimal_through(status, proof, gap, guarantee) -> None:
    cert = None if gap is None else Certificate(bound=1.0 + gap, gap=gap)
    value = 1.0 if status.has_solution else None
    res = Result(status=status, value=value, sense="min", objective="t", proof=proof, certificate=cert)
    capped = _honest(res, guarantee)
    if guarantee != "global":
        assert capped.status is not Status.OPTIMAL
    if guarantee == "heuristic":
        assert capped.status is not Status.LOCALLY_OPTIMAL
    out = _proof_status(capped)
    if out.status is Status.OPTIMAL:
        assert out.proof in PROOFS
        assert out.certificate is None or out.certificate.gap <= 1e-7
    else:
        assert out.proof is None


@pytest.mark.parametrize("status", [Status.OPTIMAL, Status.OPTIMAL_INACCURATE])
@pytest.mark.parametrize(("value", "bound"), [(9e-12, 0.0), (2.0, -1e-3), (-1e-15, 3e-16)])
def test_a_bound_that_proves_nothing_is_not_called_a_looser_proof(status, value, bound) -> None:
    """Hostile-five: robust-lp, ldp mae over {(.2,.3,.5), (.5,.3,.2)}, values 0,1,2, ε = 30 said "optimal_inaccurate:
    proven only to a looser tolerance, gap 1" with value 9e-12 and bound 0 (the optimum is ≥ 2.5e-13, the
    single-prior LP's certified value): a bound of 0 or of the other sign proves nothing; the answer is feasible."""
    res = Result(status=status, value=value, sense="min", objective="mae", certificate=Certificate(bound, 1.0))
    out = _proof_status(res)
    assert out.certificate.gap >= 1 and out.status is Status.FEASIBLE and out.proof is None
    assert "proves nothing" in out.message
    near = _proof_status(res.replace(certificate=Certificate(value * 0.7, 0.3)))  # a weak but real bound
    assert near.status is Status.OPTIMAL_INACCURATE


def test_robust_mae_at_a_large_eps_claims_no_proof_its_bound_lacks() -> None:
    from mechopt.problems.robust import RobustDesign

    prob = RobustDesign.from_params(
        prior_set=[[0.2, 0.3, 0.5], [0.5, 0.3, 0.2]], notion="ldp", utility="mae", eps=30.0, values=[0, 1, 2]
    )
    r = mechopt.solve(prob)
    assert r.violation is not None and r.violation <= 1e-7
    if r.status in (Status.OPTIMAL, Status.OPTIMAL_INACCURATE):
        assert r.certificate.gap < 1, r
    else:
        assert r.status is Status.FEASIBLE
