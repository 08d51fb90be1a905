"""The block-tree (meet in the middle) robust-mi pricer: its bound against every pattern, and in robust-rays."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog

import mechopt
from mechopt.errors import ParamError
from mechopt.model.info import mutual_information
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.tree import BlockTree, SubsetTrees


def _all_patterns(n: int) -> np.ndarray:
    return ((np.arange(2**n)[:, None] >> np.arange(n)) & 1).astype(float)


@settings(deadline=None, max_examples=60)  # no timing assertion
@given(st.integers(2, 10), st.integers(1, 3), st.floats(0.1, 3.0), st.integers(0, 2**31 - 1),
       st.floats(-0.5, 1.0), st.integers(1, 6), st.integers(1, 5), st.booleans())  # fmt: skip
def test_bound_covers_every_pattern_and_finds_the_best(n, k, eps, seed, shift, block, leaf, zero):
    """Over all 2^n patterns: max ρ ≤ the bound ≤ max(max ρ, 0) + 1e-9, and the best pattern returned attains
    max ρ when it is positive (any blocks, leaves, a vertex of weight 0)."""
    rng = np.random.default_rng(seed)
    V = rng.dirichlet(np.ones(n), size=k)
    lam = rng.dirichlet(np.ones(k))
    if zero and k > 1:
        lam[0] = 0.0
        lam /= lam.sum()
    tree = SubsetTrees(V, eps, block=block, leaf=leaf)
    Z = _all_patterns(n)
    mu = rng.uniform(0.0, 1.0, n) * eps
    top = max(tree.rho(z, lam, mu) for z in Z)
    mu = mu + (top - shift * abs(top)) / n  # the maximum moved near 0, either side
    vals = np.array([tree.rho(z, lam, mu) for z in Z])
    P, ub = tree.solve(lam, mu)
    assert vals.max() - 1e-12 <= ub <= max(vals.max(), 0.0) + 1e-9
    if vals.max() > 1e-9:
        assert math.isclose(tree.rho(P[0], lam, mu), vals.max(), rel_tol=0, abs_tol=1e-12)
        assert all(tree.rho(z, lam, mu) > 0 for z in P)


@pytest.mark.parametrize("seed", range(3))
def test_block_tree_nodes_cover_their_patterns_and_boxes_hold_their_sums(seed):
    V = np.random.default_rng(seed).dirichlet(np.ones(7), size=3)
    t = BlockTree(V, leaf=3)
    assert np.allclose(t.U, t.Z @ V.T, rtol=0, atol=0)
    assert sorted(map(tuple, t.Z.astype(int))) == sorted(map(tuple, _all_patterns(7).astype(int)))
    for j in range(t.start.size):
        U = t.U[t.start[j] : t.end[j]]
        assert np.all(t.lo[j] <= U) and np.all(U <= t.hi[j])
        if t.left[j] >= 0:  # the children split the node's range in two
            l, r = t.left[j], t.right[j]
            assert (t.start[l], t.end[l], t.start[r], t.end[r]) == (t.start[j], t.start[r], t.end[l], t.end[j])
        else:
            assert t.end[j] - t.start[j] <= 3


def test_a_spent_budget_gives_no_bound_but_true_patterns():
    V = np.random.default_rng(5).dirichlet(np.ones(12), size=3)
    tree = SubsetTrees(V, 1.0, block=6, leaf=2)
    lam, mu = np.full(3, 1 / 3), np.full(12, 0.01)
    P, ub = tree.solve(lam, mu, budget=1)
    assert ub is None and P.shape[1] == 12 and set(np.unique(P)) <= {0.0, 1.0}


def _mi_gain(P: np.ndarray, s: np.ndarray) -> float:
    """Σ_x P(x) s_x log(s_x / Σ_x' P(x') s_x'): the MI contribution of a column ∝ s (definitions only)."""
    c = P * s
    return float(np.sum(c * np.log(s / c.sum())))


def test_certified_robust_value_equals_an_lp_over_every_extreme_ray():
    """d = 11, 3 priors, pricing by the trees (enumeration turned off): the certified value equals the LP over all
    2^11 − 1 ε-LDP patterns solved at once (gains from the definitions), and the channel's worst MI."""
    d, eps = 11, 1.0
    V = np.random.default_rng(21).dirichlet(np.ones(d), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=eps)
    r = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, mi_pricer="tree")
    assert r.status.value == "optimal" and r.proof == "certificate" and "meet in the middle" in r.extras["pricing"]
    S = 1.0 + math.expm1(eps) * _all_patterns(d)[:-1].T  # all-ones z is the same ray as z = 0
    F = np.array([[_mi_gain(P, s) for s in S.T] for P in V])
    N = S.shape[1]
    lp = linprog(np.r_[np.zeros(N), -1.0], A_ub=np.hstack([-F, np.ones((3, 1))]), b_ub=np.zeros(3),
                 A_eq=np.hstack([S, np.zeros((d, 1))]), b_eq=np.ones(d), bounds=[(0, None)] * N + [(None, None)],
                 method="highs")  # fmt: skip
    assert lp.status == 0
    assert math.isclose(r.value, -lp.fun, rel_tol=1e-7)
    assert r.certificate.gap <= 1e-7 and r.certificate.bound >= -lp.fun - 1e-12
    assert math.isclose(min(mutual_information(P, r.Q) for P in V), r.value, rel_tol=1e-12)


def test_auto_prices_d24_by_the_trees_certified_and_repeatable():
    """Above enumeration (d = 24, 3 priors) the default pricer is the trees: certified, the same value twice."""
    V = np.random.default_rng(24).dirichlet(np.ones(24), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    r1, r2 = (mechopt.solve(prob, solver="robust-rays") for _ in range(2))
    assert r1.status.value == "optimal" and r1.certificate.gap <= 1e-7 and "meet in the middle" in r1.extras["pricing"]
    assert r1.value == r2.value and np.array_equal(r1.Q, r2.Q)
    assert r1.value <= min(mechopt.design(prior=P, notion="ldp", utility="mi", eps=1.0).certificate.bound for P in V)


def test_tree_above_its_limit_is_a_param_error():
    V = np.random.default_rng(1).dirichlet(np.ones(41), size=2)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    with pytest.raises(ParamError, match="tree"):
        mechopt.solve(prob, solver="robust-rays", mi_pricer="tree")


@pytest.mark.parametrize("seed", range(4))
def test_every_tuple_bound_covers_its_patterns_for_any_multipliers(seed):
    """For random tuples of nodes (one per block) and random multipliers a, the bound is ≥ ρ of every pattern
    the tuple covers (the patterns of one node from each block, enumerated)."""
    rng = np.random.default_rng(seed)
    n, k = 9, 3
    V = rng.dirichlet(np.ones(n), size=k)
    tree = SubsetTrees(V, float(rng.uniform(0.2, 3.0)), block=3, leaf=2)
    lam, mu = rng.dirichlet(np.ones(k)), rng.uniform(0.0, 0.5, n)
    T = np.array([[rng.integers(tr.start.size) for tr in tree.trees] for _ in range(40)])
    for a in (None, rng.normal(0.0, 2.0, k)):
        B = tree.bounds(lam, mu, T, a)
        for row, b in zip(T, B):
            parts = [tr.Z[tr.start[j] : tr.end[j]] for tr, j in zip(tree.trees, row)]
            best = -np.inf
            for combo in itertools.product(*parts):
                z = np.zeros(n)
                for idx, zb in zip(tree.blocks, combo):
                    z[idx] = zb
                best = max(best, tree.rho(z, lam, mu))
            assert best <= b + 1e-12
            assert best >= b - 10.0  # a bound, not a constant: within the scale of ρ


def test_a_tree_priced_design_has_a_certificate_mechopt_check_verifies(tmp_path):
    """d = 9, 3 priors priced by the trees: the certificate file re-proves the bound with the checker's own
    enumeration of every pattern (certcheck.check_rays), and a ν moved down no longer proves it."""
    import json
    from fractions import Fraction

    from mechopt import certcheck

    V = np.random.default_rng(13).dirichlet(np.ones(9), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="robust-rays", enumerate_max=4, mi_pricer="tree")
    assert r.status.value == "optimal" and "meet in the middle" in r.extras["pricing"]
    path = tmp_path / "c.json"
    r.save_certificate(str(path))
    code, out = certcheck.run(str(path))
    assert code == 0, out
    assert out["gap"] <= 1e-7 and out["value"] == pytest.approx(r.value, rel=1e-9)
    doc = json.loads(path.read_text())
    nu = [Fraction(v) for v in doc["dual"]["nu"]]
    nu[0] -= Fraction(1, 100) * abs(Fraction(doc["claim"]["bound"]))  # 1% of the claim off one coordinate
    doc["dual"]["nu"] = [str(v) for v in nu]
    path.write_text(json.dumps(doc))
    code, out = certcheck.run(str(path))
    assert code == 1 and "do not prove the claimed bound" in out["reason"], out
