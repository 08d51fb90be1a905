"""robust-rays: mi / mse / histogram over a prior set, an LP over extreme rays, certified; checked independently."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

import mechopt
from mechopt.errors import MechoptError, TooLargeError
from mechopt.model.info import mutual_information
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import RobustDesign

NOTIONS = {"ldp": {}, "lip": {}, "pml": {}, "alip": {"eps_lower": 0.5}}


def _robust(V, notion, utility, eps=1.0, **opts):
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility=utility, eps=eps, **NOTIONS[notion])
    return prob, mechopt.solve(prob, solver="robust-rays", **opts)


def _single(P, notion, utility, eps=1.0):
    prob = ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=eps, **NOTIONS[notion])
    return mechopt.solve(prob, solver="exact")


def _audit(prob, r):
    """Row-stochastic, private at every vertex, and the value recomputed from Q independently."""
    Q = r.Q
    assert np.all(Q >= 0) and np.allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert float(prob.levels(Q).max()) <= prob.notion.eps + 1e-9
    V = prob.prior_set.vertices
    if prob.utility.name == "mi":
        own = min(mutual_information(P, Q) for P in V)
    else:
        own = max(prob.utility.value(Q, P) for P in V)
    assert r.value == pytest.approx(own, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("notion", list(NOTIONS))
@pytest.mark.parametrize("utility", ["mi", "mse", "histogram"])
def test_one_prior_equals_the_single_prior_certified_optimum(notion, utility):
    P = np.random.default_rng(7).dirichlet(np.ones(5))
    prob, r = _robust([P], notion, utility)
    e = _single(P, notion, utility)
    assert r.status.value == e.status.value == "optimal" and r.proof == "certificate"
    assert r.value == pytest.approx(e.value, rel=1e-9)
    _audit(prob, r)


@pytest.mark.parametrize("notion", ["ldp", "lip", "pml"])
@pytest.mark.parametrize("utility", ["mi", "mse"])
def test_the_robust_value_is_no_better_than_any_single_prior(notion, utility):
    V = np.random.default_rng(3).dirichlet(np.ones(5), size=3)
    prob, r = _robust(V, notion, utility)
    assert r.status.value == "optimal"
    _audit(prob, r)
    for P in V:
        single = _single(P, notion, utility).value
        assert (r.value <= single + 1e-12) if utility == "mi" else (r.value >= single - 1e-12)


def _ray_gain(utility, P, r, a):
    """f(r) at prior P from the definitions (not mechopt's gains): MI contribution, or MSE's (Σ P a r)²/(P·r)."""
    c = P * r
    t = c.sum()
    if utility == "mi":
        m = c > 0
        return float(np.sum(c[m] * np.log(r[m] / t)))
    return float((a @ c) ** 2 / t) if utility == "mse" else float((c**2).sum() / t)


def _full_lp(V, rays, utility, a):
    """max t, t ≤ Σ_r w_r f_i(r) + c_i, Σ w_r r = 1, w ≥ 0 over every ray at once (one HiGHS call)."""
    F = np.array([[_ray_gain(utility, P, r, a) for r in rays.T] for P in V])
    c = np.zeros(len(V)) if utility == "mi" else -np.array([P @ a**2 if utility == "mse" else 1.0 for P in V])
    k, N = F.shape
    res = linprog(np.r_[np.zeros(N), -1.0], A_ub=np.c_[-F, np.ones(k)], b_ub=c, A_eq=np.c_[rays, np.zeros(len(rays))],
                  b_eq=np.ones(len(rays)), bounds=[(0, None)] * N + [(None, None)], method="highs")  # fmt: skip
    assert res.status == 0
    return -res.fun if utility == "mi" else res.fun


def _slice_vertices(V, lo, hi):
    """Vertices of {q ≥ 0, Σ q = 1, lo P_v·q ≤ q_x ≤ hi P_v·q} by brute force over active sets (tiny d only)."""
    d = V.shape[1]
    A = [-np.eye(d)] + [np.eye(d) - hi * P for P in V] + ([lo * P - np.eye(d) for P in V] if lo > 0 else [])
    A = np.vstack(A)
    out = []
    for rows in itertools.combinations(range(len(A)), d - 1):
        M = np.vstack([A[list(rows)], np.ones(d)])
        if abs(np.linalg.det(M)) < 1e-12:
            continue
        q = np.linalg.solve(M, np.r_[np.zeros(d - 1), 1.0])
        if np.all(A @ q <= 1e-12):
            out.append(q)
    return np.unique(np.round(np.array(out), 12), axis=0).T


@pytest.mark.parametrize("utility", ["mi", "mse", "histogram"])
def test_ldp_equals_an_independent_lp_over_every_pattern(utility):
    d, eps = 7, 0.9
    V = np.random.default_rng(11).dirichlet(np.ones(d), size=3)
    _, r = _robust(V, "ldp", utility, eps=eps)
    rays = np.array([1 + math.expm1(eps) * np.array(z) for z in itertools.product((0, 1), repeat=d)]).T
    ref = _full_lp(V, rays, utility, np.arange(d, dtype=float))
    assert r.status.value == "optimal" and r.value == pytest.approx(ref, rel=1e-9)


@pytest.mark.parametrize("notion", ["lip", "pml"])
@pytest.mark.parametrize("utility", ["mi", "mse"])
def test_lip_pml_equal_an_independent_lp_over_the_slice_vertices(notion, utility):
    d, eps = 4, 0.8
    V = np.random.default_rng(5).dirichlet(np.ones(d), size=3)
    prob, r = _robust(V, notion, utility, eps=eps)
    lo, hi = (math.exp(-eps), math.exp(eps)) if notion == "lip" else (0.0, math.exp(eps))
    ref = _full_lp(V, _slice_vertices(V, lo, hi), utility, np.arange(d, dtype=float))
    assert r.status.value == "optimal" and r.value == pytest.approx(ref, rel=1e-9)
    for w in np.random.default_rng(0).dirichlet(np.ones(3), size=50):  # private over the hull
        assert prob.notion.epsilon(r.Q, w @ V) <= eps + 1e-9


def test_mi_worst_prior_of_the_hull_is_a_vertex():
    V = np.random.default_rng(2).dirichlet(np.ones(6), size=3)
    _, r = _robust(V, "ldp", "mi")
    for w in np.random.default_rng(1).dirichlet(np.ones(3), size=200):  # I(P; Q) concave in P
        assert mutual_information(w @ V, r.Q) >= r.value - 1e-12


def test_mse_is_certified_over_the_vertices_only():
    prob, r = _robust(np.eye(3), "ldp", "mse")  # prior-free: every point mass has MSE 0
    assert r.status.value == "optimal" and r.value == 0.0 and "vertices given" in r.message
    assert prob.utility.value(r.Q, np.full(3, 1 / 3)) > 0.1  # an interior prior is worse: not the hull's answer


def test_milp_pricing_equals_enumeration():
    V = np.random.default_rng(4).dirichlet(np.ones(9), size=2)
    _, a = _robust(V, "ldp", "mi")
    _, b = _robust(V, "ldp", "mi", enumerate_max=4, mi_pricer="milp")
    assert a.status.value == b.status.value == "optimal"
    assert "MILP" in b.extras["pricing"] and b.value == pytest.approx(a.value, rel=1e-9)


@pytest.mark.parametrize("utility", ["mse", "histogram"])
def test_quotient_milp_pricing_equals_enumeration(utility):
    V = np.random.default_rng(4).dirichlet(np.ones(8), size=3)
    _, a = _robust(V, "ldp", utility)
    _, b = _robust(V, "ldp", utility, enumerate_max=3, mse_pricer="milp")
    assert a.status.value == b.status.value == "optimal"
    assert "MILP" in b.extras["pricing"] and b.value == pytest.approx(a.value, rel=1e-9)


def test_heuristic_pricing_is_not_called_optimal():
    V = np.random.default_rng(4).dirichlet(np.ones(8), size=2)
    _, a = _robust(V, "ldp", "mse")
    _, b = _robust(V, "ldp", "mse", enumerate_max=4, milp_max=4, mse_pricer="milp")
    assert b.status.value == "feasible" and b.certificate is None and b.proof is None
    # no design beats the certified bound (a's value itself is within the gap tolerance of it)
    assert b.value >= a.certificate.bound - 1e-12 * abs(a.value) and b.violation <= 1e-9


def test_answers_are_unit_free():
    V = np.random.default_rng(8).dirichlet(np.ones(5), size=2)
    vals = []
    for s in (1e-6, 1.0, 1e6):
        prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mse", eps=1.0, values=np.arange(5) * s)
        r = mechopt.solve(prob, solver="robust-rays")
        assert r.status.value == "optimal"
        vals.append(r.value / s**2)
    assert vals[0] == pytest.approx(vals[1], rel=1e-9) and vals[2] == pytest.approx(vals[1], rel=1e-9)


def test_too_many_rays_and_wrong_solver_are_typed_errors():
    V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
    with pytest.raises(TooLargeError, match="extreme rays"):
        _robust(V, "lip", "mi", max_rays=5)
    with pytest.raises(TooLargeError, match="hist_box_max=4"):
        _robust(V, "pml", "histogram", cone_max=4, hist_box_max=4)
    prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mi", eps=1.0)
    with pytest.raises(MechoptError):
        mechopt.solve(prob, solver="robust-lp")


@pytest.mark.parametrize("d", [3, 4])
def test_prior_free_histogram_over_the_hull_is_certified_and_is_k_rr(d):
    prob = RobustDesign.from_params(prior_set=np.eye(d), notion="ldp", utility="histogram", eps=1.0, hull=True)
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.status.value == "optimal" and r.certificate.bound <= r.value and "hull" in r.message
    krr = (math.e * np.eye(d) + 1 - np.eye(d)) / (math.e + d - 1)
    assert r.value == pytest.approx(prob.utility.value(krr, np.full(d, 1 / d)), rel=1e-9)
    for P in np.random.default_rng(0).dirichlet(np.ones(d), size=500):  # no prior of the simplex is worse
        assert prob.utility.value(r.Q, P) <= r.value + 1e-12


def test_mse_over_the_hull_of_three_lip_priors():
    V = np.random.default_rng(0).dirichlet(np.ones(5), size=3)
    _, at_vertices = _robust(V, "lip", "mse")
    prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mse", eps=1.0, hull=True)
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.status.value == "optimal" and r.violation <= 1e-9
    assert r.certificate.bound >= at_vertices.value - 1e-9  # the hull's minimax is at least the vertices'
    for w in np.random.default_rng(1).dirichlet(np.ones(3), size=500):
        assert prob.utility.value(r.Q, w @ V) <= r.value + 1e-12


def test_hull_changes_nothing_for_mi():
    V = np.random.default_rng(6).dirichlet(np.ones(4), size=2)
    _, a = _robust(V, "ldp", "mi")
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0, hull=True)
    b = mechopt.solve(prob, solver="robust-rays")
    assert not prob.hull_mse and b.value == pytest.approx(a.value, rel=1e-12)


@pytest.mark.parametrize("notion, eps", [("lip", 1e-3), ("ldp", 1e-3), ("pml", 5.0), ("ldp", 5.0)])
@pytest.mark.parametrize("utility", ["mi", "mse"])
def test_small_and_large_eps_are_certified(notion, eps, utility):
    V = np.random.default_rng(3).dirichlet(np.ones(6), size=3)
    prob, r = _robust(V, notion, utility, eps=eps)
    assert r.status.value == "optimal" and r.violation <= 1e-9  # pml at ε = 5 identifies X: MSE 0, bound 0
    _audit(prob, r)


@pytest.mark.parametrize("notion", ["lip", "pml", "alip"])
@pytest.mark.parametrize("utility", ["mi", "mse"])
def test_prior_free_box_notions_are_ldp_and_equal_the_brute_force_lp(notion, utility):
    d, eps = 4, 0.8
    V = np.vstack([np.eye(d), [0.1, 0.2, 0.3, 0.4]])  # every point mass (so the hull is the simplex) and one more
    prob, r = _robust(V, notion, utility, eps=eps)
    assert r.status.value == "optimal" and "patterns" in r.extras["pricing"]
    assert (r.value > 0.1) if utility == "mse" else (r.value == 0.0)  # a point mass carries no information
    lo, hi = prob.notion.factors() if notion != "lip" else (math.exp(-eps), math.exp(eps))
    ref = _full_lp(V, _slice_vertices(V, lo, hi), utility, np.arange(d, dtype=float))
    assert r.value == pytest.approx(ref, rel=1e-9)
    _audit(prob, r)
    for P in np.random.default_rng(0).dirichlet(np.ones(d), size=50):  # private at every prior
        assert prob.notion.epsilon(r.Q, P) <= prob.notion.eps + 1e-9


def test_a_time_limit_returns_the_last_master_channel():
    V = np.random.default_rng(9).dirichlet(np.ones(10), size=3)
    prob, r = _robust(V, "ldp", "mi", enumerate_max=4, max_iter=3, seed_near=0)  # stops after columns were added
    assert r.status.value == "iteration_limit" and r.violation <= 1e-9 and "iteration limit after 3" in r.message
    _audit(prob, r)


def test_a_pricer_returning_only_master_columns_does_not_end_optimal(monkeypatch):
    """PML d = 32, 3 priors: the box pricer returned one column the master held (reduced cost 1.1e-11) and the
    ray LP ended "optimal" with its proven bound 1.7e-2 above the master (result optimal_inaccurate, stopped early).
    A pricer that only ever returns master columns must end the loop ``stalled``, never ``optimal``."""
    import mechopt.solvers.robust.rays as rays_mod
    from mechopt.solvers.robust import raylp
    from mechopt.solvers.robust.answer import RayPricing

    real = rays_mod.choose_pricer

    class Repeats:  # the real pricer's proven bound, but only the seed's columns as "new" ones
        def __init__(self, inner, seed):
            self.inner, self.seed, self.calls = inner, seed, 0

        def __getattr__(self, name):
            return getattr(self.inner, name)

        def price(self, lam, mu, deadline=None):
            self.calls += 1
            pr = self.inner.price(lam, mu, deadline)
            return RayPricing(self.seed[:, :1], pr.bound, "repeats")

    seen = {}

    def stubborn(problem, G, cone, opts, cache, deadline):
        pricer, seed, how = real(problem, G, cone, opts, cache, deadline)
        seen["p"] = Repeats(pricer, seed)
        return seen["p"], seed[:, :2], how

    monkeypatch.setattr(rays_mod, "choose_pricer", stubborn)
    V = np.random.default_rng(6).dirichlet(np.ones(6), size=3)
    prob, r = _robust(V, "lip", "mi")
    assert r.status.value != "optimal"
    assert "stalled" in r.message
    assert seen["p"].calls > raylp.STALL_RETRIES  # it searched on before giving up
    _audit(prob, r)


def test_a_zero_optimum_with_a_rounding_sized_bound_is_optimal():
    """ALIP with ε_l = 0 allows only constant channels: information 0, bound 2.5e-33 from the duals' rounding. The gap
    of a 0 value is judged against 1e-3 × the objective's size (H(P) here), as the checker does: it read
    "optimal_inaccurate, gap 1"; a positive value keeps its relative gap, unless it is the rounding residue of a 0 at
    the objective's scale ((2^-50)² of it: 1e-32 next to H(P) = 1.28 is judged as 0 is)."""
    from mechopt.model.problem import value_gap

    prob = RobustDesign.from_params(prior_set="0.1,0.2,0.3,0.4;0.4,0.3,0.2,0.1", notion="alip", utility="mi", eps=1.0,
                                    eps_lower=0.0)  # fmt: skip
    r = mechopt.solve(prob, solver="robust-rays")
    assert r.value == 0.0 and 0 <= r.certificate.bound <= 1e-20
    assert r.status.value == "optimal" and r.certificate.gap <= 1e-7
    assert value_gap(prob, r.Q, 1e-9, 2e-9) == 0.5 and value_gap(prob, r.Q, 0.0, 0.01) == 1.0
    assert value_gap(prob, r.Q, 1e-32, 2e-32) < 1e-20 and value_gap(prob, r.Q, 1e-29, 2e-29) == 0.5
