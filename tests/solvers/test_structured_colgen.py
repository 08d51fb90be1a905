"""Column generation with structured pricing: same certified optimum as the old paths; warm starts."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Status


def _prior(kind: str, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    P = rng.permutation(1.0 / np.arange(1, d + 1) ** 1.1) if kind == "zipf" else rng.dirichlet(np.ones(d))
    return P / P.sum()


@pytest.mark.parametrize("d,kind,eps", [(12, "dirichlet", 1.0), (16, "zipf", 0.5), (16, "dirichlet", 3.0)])
def test_ldp_mi_knapsack_matches_subset_sum_enumeration(d: int, kind: str, eps: float) -> None:
    prob = ChannelDesign.from_params(prior=_prior(kind, d, d), notion="ldp", utility="mi", eps=eps)
    new = mechopt.solve(prob, solver="exact", method="colgen")
    old = mechopt.solve(prob, solver="exact", method="colgen", pricing="enumerate")
    assert new.extras["pricing"] == "knapsack branch and bound"
    assert old.extras["pricing"] == "subset-sum enumeration"
    for r in (new, old):
        assert r.status is Status.OPTIMAL and r.proof == "certificate" and r.certificate.gap <= 1e-9
    assert abs(new.value - old.value) <= 1e-9


@pytest.mark.parametrize("utility,d", [("mse", 12), ("histogram", 10)])
def test_lip_structured_matches_enumeration(utility: str, d: int) -> None:
    prob = ChannelDesign.from_params(prior=_prior("dirichlet", d, 3), notion="lip", utility=utility, eps=1.0)
    new = mechopt.solve(prob, solver="exact", method="colgen")
    old = mechopt.solve(prob, solver="exact", method="enumerate")
    assert "LIP" in new.extras["pricing"]
    assert new.status is Status.OPTIMAL and new.certificate.gap <= 1e-9
    assert abs(new.value - old.value) <= 1e-9


def test_auto_picks_structured_pricing() -> None:
    prob = ChannelDesign.from_params(prior=_prior("dirichlet", 14, 1), notion="ldp", utility="mi", eps=1.0)
    r = mechopt.solve(prob, solver="exact")
    assert r.extras["method"] == "colgen" and r.extras["pricing"] == "knapsack branch and bound"


@pytest.mark.parametrize("notion,utility", [("ldp", "mi"), ("lip", "mse")])
def test_warm_start_reuses_columns_across_eps(notion: str, utility: str) -> None:
    P = _prior("dirichlet", 12, 5)
    first = mechopt.solve(
        ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=1.0), solver="exact", method="colgen"
    )
    prob = ChannelDesign.from_params(prior=P, notion=notion, utility=utility, eps=1.2)
    warm = mechopt.solve(prob, solver="exact", method="colgen", warm_start=first)
    cold = mechopt.solve(prob, solver="exact", method="colgen")
    assert warm.extras["warm_columns"] >= 1
    assert warm.status is Status.OPTIMAL and abs(warm.value - cold.value) <= 1e-9
    again = mechopt.solve(prob, solver="exact", method="colgen", warm_start=warm.extras["warm_start"])
    assert again.status is Status.OPTIMAL and abs(again.value - cold.value) <= 1e-9


def test_warm_start_of_the_wrong_kind_is_a_param_error() -> None:
    from mechopt.errors import ParamError

    P = _prior("dirichlet", 12, 5)
    first = mechopt.solve(
        ChannelDesign.from_params(prior=P, notion="lip", utility="mse", eps=1.0), solver="exact", method="colgen"
    )
    with pytest.raises(ParamError, match="warm_start"):
        mechopt.solve(
            ChannelDesign.from_params(prior=P, notion="ldp", utility="mi", eps=1.0),
            solver="exact",
            method="colgen",
            warm_start=first,
        )
    with pytest.raises(ParamError, match="warm_start"):
        mechopt.solve(
            ChannelDesign.from_params(prior=P, notion="ldp", utility="mi", eps=1.0),
            solver="exact",
            method="colgen",
            warm_start={"kind": "nope"},
        )


def test_ldp_mi_eps3_d32_certifies() -> None:
    """The benchmark's d = 32, ε = 3 Dirichlet row cycled on a column the master already held (its duals left
    4e-11 reduced cost on it, HiGHS's tolerance): it must now end certified."""
    P = np.random.default_rng(32).dirichlet(np.ones(32))
    r = mechopt.solve(
        ChannelDesign.from_params(prior=P / P.sum(), notion="ldp", utility="mi", eps=3.0),
        solver="exact",
        method="colgen",
        time_limit=120,
    )
    assert r.status is Status.OPTIMAL and r.proof == "certificate" and r.certificate.gap <= 1e-9
    assert r.iterations < 200


@pytest.mark.parametrize("kind", ["dirichlet", "zipf"])
def test_ldp_mi_eps3_d24_certified(kind: str) -> None:
    """d = 24, ε = 3 (arbitrary priors): certified by the knapsack pricing in the default suite (< 1 s alone)."""
    prob = ChannelDesign.from_params(prior=_prior(kind, 24, 24), notion="ldp", utility="mi", eps=3.0)
    r = mechopt.solve(prob, solver="exact", method="colgen")
    assert r.status is Status.OPTIMAL and r.certificate.gap <= 1e-9
    assert r.extras["pricing"] == "knapsack branch and bound"
    assert r.certificate.bound - r.value <= 1e-9


class _Stuck:
    """A pricer that only ever returns columns the master holds (as a master with inexact duals sees it)."""

    def __init__(self, R: np.ndarray, bound: float) -> None:
        self.R, self.bound, self.early, self.exact_calls = R, bound, True, 0

    def price(self, nu, deadline=None):
        from mechopt.solvers.exact.pricing.base import Pricing

        if self.early:
            return Pricing(self.R[:, :2].copy(), None, "heuristic")
        self.exact_calls += 1
        return Pricing(self.R[:, :2].copy(), self.bound, "exact")


@pytest.mark.parametrize("bound,status", [(0.0, "optimal"), (0.5, "stalled")])
def test_colgen_stops_instead_of_cycling_on_held_columns(bound: float, status: str) -> None:
    from mechopt.solvers.exact.colgen import column_generation
    from mechopt.solvers.exact.pricing.base import ldp_seed
    from mechopt.utilities import MutualInfo

    P = _prior("dirichlet", 6, 2)
    R0 = ldp_seed(P, 1.0)
    pricer = _Stuck(R0, bound)
    out = column_generation(P, MutualInfo(P).gain, pricer, R0, max_iter=50)
    assert out.status == status and out.R.shape[1] == R0.shape[1]
    assert pricer.early is True and pricer.exact_calls >= 1  # an exact pass was made, the switch restored
    assert out.iterations <= 2  # one cost scaling (to the cap), then a verdict
    if status == "stalled":
        assert "stalled" in out.notes[-1] and out.bound == pytest.approx(out.master.nu @ P + bound)


def test_warm_master_cost_scaling_keeps_the_answer() -> None:
    from mechopt.solvers.exact.lp import cost_unit
    from mechopt.solvers.exact.master import WarmMaster
    from mechopt.solvers.exact.pricing.base import ldp_seed
    from mechopt.utilities import MutualInfo

    P = _prior("zipf", 8, 4)
    R = ldp_seed(P, 1.0)
    m = WarmMaster(P, R, MutualInfo(P).gain(R))
    a = m.solve()
    base = m.cost_scale  # 100 over the seed gains' power-of-two unit (unit-free costs)
    assert base == 100.0 / cost_unit(m.mu) and m.tighten() and m.cost_scale == 100 * base
    b = m.solve()
    assert abs(a.value - b.value) <= 1e-12 and np.allclose(a.nu, b.nu, atol=1e-9)
    assert not m.tighten() and m.cost_scale == 100 * base  # capped


def test_lip_mse_sweep_refuses_d_above_its_limit_with_a_typed_error() -> None:
    """The O(d³)-per-round sweep says so up front instead of running for hours (uniform:10000 did)."""
    from mechopt.errors import TooLargeError
    from mechopt.solvers.exact.pricing.lip import SWEEP_MAX_D

    prob = ChannelDesign.from_params(prior=f"uniform:{SWEEP_MAX_D + 1}", notion="lip", utility="mse", eps=1.0)
    with pytest.raises(TooLargeError, match=rf"d ≤ {SWEEP_MAX_D}; got d = {SWEEP_MAX_D + 1}: use solver='sqp'"):
        mechopt.solve(prob, solver="exact", method="colgen")


@pytest.mark.parametrize("utility", ["histogram", "mi"])
def test_lip_enumeration_refusal_names_column_generation(utility: str) -> None:
    """A refused LIP vertex enumeration (d = 28: ~170 GB) points to the method that scales for this program."""
    from mechopt.errors import TooLargeError

    P = np.random.default_rng(28).dirichlet(np.ones(28))
    prob = ChannelDesign.from_params(prior=P, notion="lip", utility=utility, eps=1.0)
    with pytest.raises(TooLargeError, match=r"needs ~1\.7e\+02 GB") as err:
        mechopt.solve(prob, solver="exact", method="enumerate")
    assert "use method='colgen' (exact pricing) or method='symmetry'" in str(err.value)
