"""Issue 16: every optimal exact design returns an audited Q with ≤ d outputs; few-class priors at scale."""

from __future__ import annotations

import math
import time
import tracemalloc

import numpy as np
import pytest

import mechopt
from mechopt.api import audit_result
from mechopt.errors import TooLargeError
from mechopt.io.catalog import builtin_catalog
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status
from mechopt.solvers.exact.lp import solve_master
from mechopt.solvers.exact.methods import enumerate_rays
from mechopt.solvers.exact.orbits import pricing as _orbit_price
from mechopt.solvers.exact.orbits.colgen import orbit_colgen, orbits_from_counts
from mechopt.solvers.exact.orbits.mechanism import build_plan
from mechopt.solvers.exact.orbits.reduction import (
    class_shift,
    classes_of,
    enum_bytes,
    ldp_orbits,
    lip_orbits,
    orbit_gain,
)
from mechopt.utilities import HistogramMSE, MutualInfo


def few(d: int, g: int) -> np.ndarray:
    """g classes of (nearly) equal size d/g; class i has prior value ∝ i + 1."""
    sizes = [d // g + (i < d % g) for i in range(g)]
    P = np.concatenate([np.full(s, i + 1.0) for i, s in enumerate(sizes)])
    return P / P.sum()


def design(prior, notion: str, utility: str, eps: float = 1.0) -> ChannelDesign:
    values = None
    if utility == "mse":
        P = np.asarray(prior)
        values = np.round(P / P.min())  # equal values inside each class (keeps the symmetry)
    return ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=eps, values=values)


def check_audited(r, d: int) -> None:
    assert r.status is Status.OPTIMAL, r.message
    assert r.mechanism is not None and r.Q.shape[0] == d and r.Q.shape[1] <= d
    assert r.violation is not None and r.violation <= 1e-7
    assert np.allclose(r.Q.sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("inst", [i for i in builtin_catalog()], ids=lambda i: i.label)
def test_catalog_exact_returns_audited_q_with_at_most_d_outputs(inst) -> None:
    from mechopt.registry import get_solver

    prob = inst.build()
    solver = get_solver("exact")
    if (inst.solvers is not None and "exact" not in inst.solvers) or "exact" in inst.skip or not solver.can_solve(prob):
        pytest.skip("exact does not apply")
    r = mechopt.solve(prob, solver="exact", **inst.options.get("exact", {}))
    if r.status is not Status.OPTIMAL:
        pytest.skip(f"not optimal here: {r.status.value}")
    d = prob.prior.size
    assert r.mechanism is not None and r.violation is not None and r.violation <= 1e-7
    Q = r.Q
    assert Q.shape[0] == d and Q.shape[1] <= d


@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_uniform64_ldp_mi_returns_small_q_with_k_subset_value(eps: float) -> None:
    from tests.solvers.test_exact import best_k

    r = mechopt.solve(design("uniform:64", "ldp", "mi", eps), solver="exact")
    check_audited(r, 64)
    assert abs(r.value - best_k(64, eps)[1]) <= 1e-12
    assert r.certificate.gap <= 1e-9
    again = audit_result(design("uniform:64", "ldp", "mi", eps), r)  # the audit sees the mechanism
    assert again.violation is not None and again.status is Status.OPTIMAL


@pytest.mark.parametrize("kind,U", [("ldp", "mi"), ("lip", "histogram"), ("lip", "mi"), ("lip", "mse")])
@pytest.mark.parametrize("g", [2, 3])
def test_plan_keeps_the_orbit_lp_value_to_1e12(kind: str, U: str, g: int) -> None:
    d = 24 if kind == "ldp" else 30
    prob = design(few(d, g), kind, U)
    cp = prob.column_program()
    cl = classes_of(cp.prior, cp.utility)
    orb = ldp_orbits(cl, 1.0) if kind == "ldp" else lip_orbits(cl, 1.0)
    m = solve_master(orb.reduced(), orbit_gain(orb, cp.utility), cl.totals)
    used = np.flatnonzero(m.theta > 0)
    plan = build_plan(orb, used, m.theta[used])
    Q = plan.dense(cp.prior)
    assert Q.shape[1] <= d
    assert abs(float(cp.gain(cp.prior[:, None] * Q).sum()) - m.value) <= 1e-12
    assert abs(plan.eps_audited(cp.prior, kind) - 1.0) <= 1e-9
    notion = cp.notion
    assert notion.audit(Q, cp.prior).violation <= 1e-9


@pytest.mark.parametrize("kind,U", [("ldp", "mi"), ("lip", "histogram"), ("lip", "mi"), ("lip", "mse")])
def test_count_pricing_formula_is_the_orbit_reduced_cost(kind: str, U: str) -> None:
    prob = design(few(40, 3), kind, U)
    cp = prob.column_program()
    cl = classes_of(cp.prior, cp.utility)
    rng = np.random.default_rng(0)
    nu = rng.normal(size=3)
    shift = class_shift(cl, cp.utility)  # pieces price the utility's μ; the program's gain is μ − shiftᵀ(totals)
    for pc in _orbit_price.pieces(cl, kind, cp.utility, 1.0, nu + shift):
        for _ in range(20):
            k = np.array([rng.integers(lo, hi + 1) for lo, hi in zip(pc.lb, pc.ub)])
            if not pc.feasible(k, 0.0):
                continue
            orb = orbits_from_counts(cl, kind, 1.0, [(pc.free,) + tuple(int(x) for x in k)])
            rc = float(orbit_gain(orb, cp.utility)[0] - nu @ orb.reduced()[:, 0])
            scale = 1.0 + (math.expm1(1.0) * float(cl.p @ k) if kind == "ldp" else 0.0)  # LDP: unnormalised
            assert abs(pc.f(k) - scale * rc) <= 1e-12


@pytest.mark.parametrize("kind,U", [("ldp", "mi"), ("lip", "histogram"), ("lip", "mse")])
@pytest.mark.parametrize("g", [3, 5])
def test_orbit_colgen_matches_orbit_enumeration(kind: str, U: str, g: int) -> None:
    d = 30 if kind == "ldp" else 60
    prob = design(few(d, g), kind, U)
    cp = prob.column_program()
    cl = classes_of(cp.prior, cp.utility)
    orb = ldp_orbits(cl, 1.0) if kind == "ldp" else lip_orbits(cl, 1.0)
    ref = solve_master(orb.reduced(), orbit_gain(orb, cp.utility), cl.totals).value
    out = orbit_colgen(cl, kind, cp.utility, 1.0)
    assert out.status == "optimal" and abs(out.value - ref) <= 1e-11 * max(1.0, ref)
    assert ref - 1e-11 <= out.bound <= ref + 1e-9 * max(1.0, ref)


@pytest.mark.parametrize("notion,utility", [("ldp", "mi"), ("lip", "histogram"), ("lip", "mse")])
@pytest.mark.parametrize("g", [3, 5])
def test_few_classes_d1000(notion: str, utility: str, g: int) -> None:
    prob = design(few(1000, g), notion, utility)
    r = mechopt.solve(prob, solver="exact")
    assert r.extras["method"] == "symmetry"
    check_audited(r, 1000)
    assert r.certificate.gap <= 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("notion,utility", [("ldp", "mi"), ("lip", "histogram")])
@pytest.mark.parametrize("g", [1, 3, 5])
def test_few_classes_d10000(notion: str, utility: str, g: int) -> None:
    prob = design(few(10_000, g), notion, utility)
    r = mechopt.solve(prob, solver="exact")
    check_audited(r, 10_000)


def test_three_class_ldp_mi_value_at_d1000_is_the_certified_optimum() -> None:
    r = mechopt.solve(design(few(1000, 3), "ldp", "mi"), solver="exact")
    assert abs(r.value - 0.1233) < 5e-4 and r.certificate.gap <= 1e-9


def test_outputs_orbits_keeps_the_symmetric_mechanism_when_small() -> None:
    prob = design("uniform:6", "ldp", "mi")
    r = mechopt.solve(prob, solver="exact", outputs="orbits")
    assert r.Q.shape[1] == math.comb(6, 2) and r.status is Status.OPTIMAL
    big = mechopt.solve(design("uniform:40", "ldp", "mi"), solver="exact", outputs="orbits", max_outputs=100)
    assert big.Q.shape[1] <= 40 and "basic optimal mechanism" in big.message


def test_structured_plan_when_q_does_not_fit() -> None:
    prob = design(few(3000, 3), "lip", "histogram")
    r = mechopt.solve(prob, solver="exact", max_memory=1e6)
    assert r.status is Status.OPTIMAL and r.mechanism is None and "not materialised" in r.message
    plan = r.extras["plan"]
    assert plan.n_outputs <= 3000 and r.violation is not None and r.violation <= 1e-9
    row = plan.row(5, prob.prior)
    assert abs(row.sum() - 1.0) < 1e-12
    assert plan.sample(5, prob.prior, np.random.default_rng(1), size=3).shape == (3,)


# -- sizes -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind,d,g", [("ldp", 150, 3), ("ldp", 60, 5), ("lip", 300, 3), ("lip", 100, 5)])
def test_orbit_enumeration_estimate_within_2x_of_tracemalloc(kind: str, d: int, g: int) -> None:
    P = few(d, g)
    U = MutualInfo(P) if kind == "ldp" else HistogramMSE()
    cl = classes_of(P, U)
    tracemalloc.start()
    orb = ldp_orbits(cl, 1.0) if kind == "ldp" else lip_orbits(cl, 1.0)
    solve_master(orb.reduced(), orbit_gain(orb, U), cl.totals)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 0.5 <= enum_bytes(cl, kind) / peak <= 2.0


@pytest.mark.parametrize("notion,d", [("lip", 14), ("lip", 16), ("ldp", 12), ("ldp", 14)])
def test_ray_enumeration_estimate_within_2x_of_tracemalloc(notion: str, d: int) -> None:
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    prob = ChannelDesign.from_params(prior=P, notion=notion, utility="histogram", eps=1.0)
    cp = prob.column_program()
    from mechopt.solvers.exact.sizes import ldp_log2_bytes, lip_log2_bytes

    est = 2.0 ** (ldp_log2_bytes(d) if notion == "ldp" else lip_log2_bytes(cp.prior, 1.0))
    tracemalloc.start()
    R = enumerate_rays(cp, notion, {"max_memory": 1e12, "dd_max_d": 14})
    solve_master(R, cp.gain(R), cp.prior)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert 0.5 <= est / peak <= 2.0


@pytest.mark.parametrize("d", [1_000, 10_000, 10**6, 10**9])
def test_size_checks_never_overflow(d: int) -> None:
    from mechopt.solvers.exact.sizes import check_enumeration, ldp_log2_bytes

    assert ldp_log2_bytes(d) > d
    with pytest.raises(TooLargeError, match=r"GB"):
        check_enumeration(f"enumerating the 2^{d} patterns", ldp_log2_bytes(d), 2e9, "use method='colgen'")


def test_lip_vertex_estimate_near_the_exact_count() -> None:
    from mechopt.solvers.exact import sizes as _sizes
    from mechopt.solvers.exact.rays import lip_vertex_count

    P = np.random.default_rng(3).dirichlet(np.ones(20))
    exact = math.log2(lip_vertex_count(P, 1.0))
    old, _sizes.EXACT_COUNT_MAX_D = _sizes.EXACT_COUNT_MAX_D, 0
    try:
        est = _sizes.lip_log2_vertices(P, 1.0)
    finally:
        _sizes.EXACT_COUNT_MAX_D = old
    assert abs(est - exact) <= 1.0  # within 2×


def test_three_class_lip_d10000_forced_enumeration_is_refused_honestly() -> None:
    prob = design(few(10_000, 3), "lip", "histogram")
    with pytest.raises(TooLargeError, match="GB"):
        mechopt.solve(prob, solver="exact", method="enumerate")
    r = mechopt.solve(design(few(1000, 3), "lip", "histogram"), solver="exact")
    assert r.extras["method"] == "symmetry"


@pytest.mark.parametrize("notion,utility", [("lip", "histogram"), ("ldp", "mi")])
def test_solve_peak_memory_within_2x_of_the_dense_q_estimate(notion: str, utility: str) -> None:
    """mechopt.solve (plan, dense Q, value, re-audit) peaks within 2× of 8·d·n, the size max_memory counts."""
    mechopt.solve(design("uniform:40", notion, utility), solver="exact")  # imports and caches: not counted
    prob = design("uniform:1500", notion, utility)
    tracemalloc.start()
    try:
        r = mechopt.solve(prob, solver="exact")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert r.status is Status.OPTIMAL
    estimate = 8 * r.Q.shape[0] * r.Q.shape[1]
    assert estimate / 2 <= peak <= 2 * estimate, (peak, estimate)


def test_plan_past_its_deadline_builds_nothing() -> None:
    from mechopt.solvers.exact.orbits.mechanism import PlanTimeLimit

    P = few(60, 5)
    cl = classes_of(P, HistogramMSE())
    orb = lip_orbits(cl, 1.0)
    m = solve_master(orb.reduced(), orbit_gain(orb, HistogramMSE()), cl.totals)
    used = np.flatnonzero(m.theta > 0)
    with pytest.raises(PlanTimeLimit):
        build_plan(orb, used, m.theta[used], deadline=time.perf_counter() - 1.0)


def test_time_limit_in_the_plan_is_an_honest_time_limit_without_q(monkeypatch) -> None:
    """A deadline that passes while the mechanism is built: time_limit, no Q, the LP's value and bound kept."""
    from mechopt.solvers.exact import symmetry as _exact_symmetry

    prob = design(few(600, 5), "lip", "histogram")
    full = mechopt.solve(prob, solver="exact")
    real = _exact_symmetry.build_plan
    monkeypatch.setattr(
        _exact_symmetry,
        "build_plan",  # a fake deadline: already past at the plan
        lambda orb, used, theta, deadline=None: real(orb, used, theta, time.perf_counter() - 1.0),
    )
    r = mechopt.solve(prob, solver="exact", time_limit=600)
    assert r.status is Status.TIME_LIMIT and r.mechanism is None and r.value is None and r.proof is None
    assert abs(r.extras["lp_value"] - full.value) <= 1e-9 and abs(r.extras["bound"] - full.value) <= 1e-7
    assert "no mechanism was built" in r.message


def test_tiny_time_limit_returns_time_limit() -> None:
    r = mechopt.solve(design(few(3000, 5), "lip", "histogram"), solver="exact", time_limit=0.05)
    assert r.status is Status.TIME_LIMIT and r.mechanism is None and r.time_s < 5.0
