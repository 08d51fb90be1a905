"""The exact solver against closed forms, local solvers and its own certificate."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

import mechopt
from mechopt.errors import ParamError, TooLargeError
from mechopt.notions import GraphLDP
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status
from mechopt.utilities import SumMSE


def I_k(d: int, k: int, eps: float) -> float:
    """k-subset mutual information, uniform prior (k-subset paper, the formula of I_k after Theorem 2.1)."""
    if k <= 0 or k >= d:
        return 0.0
    E = math.exp(eps)
    den = k * E + d - k
    return (k * E * math.log(d * E / den) + (d - k) * math.log(d / den)) / den


def best_k(d: int, eps: float) -> tuple[int, float]:
    """Theorem 2.1: the optimum is I_k at k = floor(β) or ceil(β), β = (εe^ε − e^ε + 1)d/(e^ε − 1)²."""
    E = math.exp(eps)
    beta = (eps * E - E + 1) * d / (E - 1) ** 2
    ks = {min(max(int(math.floor(beta)), 0), d), min(max(int(math.ceil(beta)), 0), d)}
    k = max(ks, key=lambda k: I_k(d, k, eps))
    return k, I_k(d, k, eps)


def ldp_mi(prior, eps: float) -> ChannelDesign:
    return ChannelDesign.from_params(prior=prior, notion="ldp", utility="mi", eps=eps)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.0, 5.0])
def test_uniform_ldp_mi_equals_k_subset(eps: float) -> None:
    for d in range(2, 65):
        r = mechopt.solve(ldp_mi(np.full(d, 1.0 / d), eps), solver="exact")
        assert r.status is Status.OPTIMAL
        assert abs(r.value - best_k(d, eps)[1]) <= 1e-9, d
        assert r.certificate.gap <= 1e-9


def test_uniform_large_d_returns_orbit_description() -> None:
    d, eps = 100_000, 1.0
    r = mechopt.solve(ldp_mi(f"uniform:{d}", eps), solver="exact")
    assert r.status is Status.OPTIMAL and r.mechanism is None  # d × d doubles exceed max_memory
    assert r.violation is not None and r.violation <= 1e-9 and r.extras["plan"].n_outputs <= d
    assert abs(r.value - best_k(d, eps)[1]) <= 1e-9
    (orbit,) = r.extras["orbits"]
    assert orbit["counts_per_class"]["high"] == [best_k(d, eps)[0]]
    assert "not materialised" in r.message


@pytest.mark.parametrize("d,eps", [(4, 1.0), (5, 0.5), (6, 1.5), (7, 0.8), (8, 0.4)])
def test_k_subset_mechanism_recovered(d: int, eps: float) -> None:
    k, _ = best_k(d, eps)
    E = math.exp(eps)
    if abs(I_k(d, k, eps) - max(I_k(d, k - 1, eps), I_k(d, k + 1, eps))) < 1e-12:
        pytest.skip("two subset sizes tie")
    r = mechopt.solve(ldp_mi(np.full(d, 1.0 / d), eps), solver="exact", outputs="orbits")
    subsets = list(itertools.combinations(range(d), k))
    norm = math.comb(d - 1, k - 1) * E + math.comb(d - 1, k)
    ref = np.array([[(E if x in S else 1.0) / norm for S in subsets] for x in range(d)])
    assert r.Q.shape == ref.shape
    got = sorted(map(tuple, np.round(r.Q.T, 12)))
    want = sorted(map(tuple, np.round(ref.T, 12)))
    assert np.allclose(got, want, atol=1e-10)


PRIORS = ["0.1,0.2,0.3,0.4", "0.05,0.15,0.3,0.5", "0.5,0.3,0.1,0.06,0.04"]


@pytest.mark.parametrize("prior", PRIORS)
@pytest.mark.parametrize(
    "notion,utility",
    [("ldp", "mi"), ("ldp", "histogram"), ("ldp", "mse"), ("lip", "mi"), ("lip", "histogram"), ("lip", "mse")],
)
def test_exact_beats_sqp_with_certificate(prior: str, notion: str, utility: str) -> None:
    prob = ChannelDesign.from_params(prior=prior, notion=notion, utility=utility, eps=1.0)
    r = mechopt.solve(prob, solver="exact")
    s = mechopt.solve(prob, solver="sqp", n_starts=4, seed=1)
    assert r.status is Status.OPTIMAL and r.certificate.gap <= 1e-9
    assert r.violation <= 1e-7
    # SQP's answers may violate privacy by up to its feasibility tolerance, and gain that much
    slack = 1e-9 + 10 * (s.violation or 0.0)
    assert not s.better_than(r.value + (slack if r.sense == "max" else -slack))
    assert r.Q.shape[1] <= prob.prior.size


@pytest.mark.parametrize("notion,utility", [("ldp", "mi"), ("ldp", "histogram"), ("lip", "mse"), ("lip", "mi")])
def test_methods_agree(notion: str, utility: str) -> None:
    prob = ChannelDesign.from_params(prior="0.1,0.1,0.2,0.2,0.2,0.2", notion=notion, utility=utility, eps=0.8)
    vals = {}
    for method in ("enumerate", "symmetry", "colgen"):
        r = mechopt.solve(prob, solver="exact", method=method)
        assert r.status is Status.OPTIMAL, (method, r.message)
        vals[method] = r.value
    assert max(vals.values()) - min(vals.values()) <= 1e-9


@pytest.mark.parametrize("utility", ["mi", "histogram", "mse"])
def test_milp_pricing_matches_enumeration(utility: str) -> None:
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(9))
    prob = ChannelDesign.from_params(prior=P, notion="ldp", utility=utility, eps=1.2)
    ref = mechopt.solve(prob, solver="exact", method="enumerate")
    r = mechopt.solve(prob, solver="exact", method="colgen", enum_max_d=1, pricing="milp")
    assert "MILP" in r.extras["pricing"]
    assert r.status is Status.OPTIMAL and r.extras["milp_calls"] >= 1
    assert abs(r.value - ref.value) <= 1e-9 and r.certificate.gap <= 1e-9


def test_lip_theorem3_channel_where_feasible() -> None:
    """LIP paper, Theorem 3: Q[m, m] = 1 − (1 − P_m)e^{-ε}, Q[m, k] = P_k e^{-ε}."""
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(30):
        d = int(rng.integers(2, 6))
        P, eps = rng.dirichlet(np.ones(d)), float(rng.uniform(0.5, 4.0))
        E = math.exp(eps)
        Q = np.tile(P / E, (d, 1))
        np.fill_diagonal(Q, 1 - (1 - P) / E)
        prob = ChannelDesign.from_params(prior=P, notion="lip", utility="mse", eps=eps, values=np.arange(d))
        if prob.audit_channel(Q).violation > 1e-12:
            continue
        r = mechopt.solve(prob, solver="exact")
        assert r.status is Status.OPTIMAL
        assert abs(r.value - prob.evaluate(Q)) <= 1e-9
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("notion", ["ldp", "lip"])
def test_zero_mass_symbols_restored(notion: str) -> None:
    prob = ChannelDesign.from_params(prior="0.2,0,0.3,0.5", notion=notion, utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="exact")
    assert r.status is Status.OPTIMAL and r.Q.shape[0] == 4 and r.violation <= 1e-7
    assert np.allclose(r.Q[1], np.array([0.2, 0.3, 0.5]) @ r.Q[[0, 2, 3]])
    full = mechopt.solve(
        ChannelDesign.from_params(prior="0.2,0.3,0.5", notion=notion, utility="mi", eps=1.0), solver="exact"
    )
    assert abs(full.value - r.value) <= 1e-12


def test_eps_zero_gives_no_information() -> None:
    # design entry points reject ε ≤ 0; the notion object itself allows the limit ε = 0
    P = np.array([0.3, 0.7])
    prob = ChannelDesign(prior=P, notion=mechopt.notions.LDP(0.0), utility=mechopt.utilities.MutualInfo(P))
    r = mechopt.solve(prob, solver="exact")
    assert r.status is Status.OPTIMAL and abs(r.value) <= 1e-12


def test_too_large_names_the_alternative() -> None:
    with pytest.raises(TooLargeError, match="colgen"):
        mechopt.solve(ldp_mi(np.random.default_rng(0).dirichlet(np.ones(40)), 1.0), solver="exact", method="enumerate")
    lip = ChannelDesign.from_params(
        prior=np.random.default_rng(1).dirichlet(np.ones(40)), notion="lip", utility="histogram", eps=1.0
    )
    with pytest.raises(TooLargeError, match="sqp"):  # the generic pricing; the default is structured B&B
        mechopt.solve(lip, solver="exact", pricing="enumerate")


def test_time_limit_is_a_status() -> None:
    P = np.random.default_rng(2).dirichlet(np.ones(14))
    r = mechopt.solve(ldp_mi(P, 1.0), solver="exact", method="colgen", time_limit=1e-6)
    assert r.status is Status.TIME_LIMIT


def test_bad_options() -> None:
    with pytest.raises(ParamError, match="method"):
        mechopt.solve(ldp_mi("0.5,0.5", 1.0), solver="exact", method="magic")
    with pytest.raises(ParamError, match="max_memory"):
        mechopt.solve(ldp_mi("0.5,0.5", 1.0), solver="exact", max_memory=-1)
    with pytest.raises(ParamError, match="symmetry"):
        mechopt.solve(
            ChannelDesign(
                prior=np.full(3, 1 / 3), notion=GraphLDP(1.0, nx.path_graph(3)), utility=SumMSE(np.arange(3.0))
            ),
            solver="exact",
            method="symmetry",
        )


@pytest.mark.parametrize("utility", ["mse", "histogram", "mi"])
def test_certificate_direction_from_a_suboptimal_master(utility: str) -> None:
    """Duals of a master over half the rays still bound the optimum, on the correct side in the problem's units."""
    from mechopt.solvers.exact.lp import dual_bound, solve_master
    from mechopt.solvers.exact.rays import ldp_rays

    prob = ChannelDesign.from_params(prior="0.1,0.15,0.2,0.25,0.3", notion="ldp", utility=utility, eps=1.5)
    cp = prob.column_program()
    R = ldp_rays(cp.prior, 1.5)
    mu = cp.gain(R)
    sub = np.r_[0, np.arange(1, R.shape[1], 3)]
    m = solve_master(R[:, sub], mu[sub], cp.prior)
    bound, weak = cp.value_of(dual_bound(m.nu, cp.prior, R, mu)), cp.value_of(m.value)
    opt = mechopt.solve(prob, solver="exact").value
    lo, hi = (bound, weak) if prob.sense == "min" else (weak, bound)
    assert lo - 1e-12 <= opt <= hi + 1e-12
    assert hi - lo > 1e-6  # the restricted master really was suboptimal


def test_compact_symmetric_solution_has_at_most_d_outputs() -> None:
    prob = ldp_mi(np.full(7, 1 / 7), 1.0)
    sym = mechopt.solve(prob, solver="exact", outputs="orbits")
    small = mechopt.solve(prob, solver="exact", compact=True)
    assert sym.Q.shape[1] > 7 >= small.Q.shape[1]
    assert mechopt.solve(prob, solver="exact").Q.shape == small.Q.shape  # basic is the default
    assert small.status is Status.OPTIMAL and abs(small.value - sym.value) <= 1e-12 and small.violation <= 1e-7


def test_cip_with_underflowing_binomial_tail_is_private_and_honest() -> None:
    # P(S = s) spans 1e-26 .. 0.12 at N = 50: the master LP is solved in mechanism scale so no
    # row is lost; the dual is ill-conditioned there, and the status must say so if the gap is open.
    from mechopt.model.priors import binomial_prior
    from mechopt.notions import CIP
    from mechopt.utilities import SumMSE

    N = 50
    prob = ChannelDesign(
        prior=binomial_prior(N, 0.3), notion=CIP.binomial(1.0, N, 0.3), utility=SumMSE(np.arange(N + 1.0))
    )
    r = mechopt.solve(prob, solver="exact")
    assert r.violation <= 1e-7 and np.all(np.isfinite(r.Q))
    assert 0.0 <= r.value <= N * 0.3 * 0.7
    assert r.status is Status.OPTIMAL or "certificate gap" in r.message
