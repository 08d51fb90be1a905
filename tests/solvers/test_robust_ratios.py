"""The robust-mse ratio branch and bound: exact against every pattern, a broken bound caught, certified end to end."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import certcheck
from mechopt.problems.robust import RobustDesign
from mechopt.solvers.robust.ratios import RatioBranchBound


def _case(seed: int, n: int, k: int):
    """(branch and bound, λ, μ, ρ of all 2^n patterns): random priors (some row of zero mass), values, ε, duals;
    μ scaled so that max ρ sits near 0 (where the pricing's question is hard)."""
    rng = np.random.default_rng(seed)
    V = rng.dirichlet(np.ones(n), size=k)
    if seed % 3 == 0:
        V[:, rng.integers(n)] = 0.0
        V /= V.sum(axis=1, keepdims=True)
    a = rng.normal(size=n)
    a -= (a.max() + a.min()) / 2
    bb = RatioBranchBound(V, a, float(rng.uniform(0.2, 3.0)))
    lam = rng.dirichlet(np.ones(k))
    if seed % 4 == 0:
        lam[0] = 0.0
    Z = np.array(list(itertools.product([0.0, 1.0], repeat=n)))
    mu0 = rng.uniform(0.0, 1.0, n)
    mu = mu0 * bb.rho(Z, lam, 0 * mu0).max() / mu0.sum() * rng.uniform(0.8, 1.2)
    return bb, lam, mu, bb.rho(Z, lam, mu)


def _wrong(bb, lam, mu, every, stop=1.0, target=0.0) -> str | None:
    """What is wrong with the search against all patterns (None: the bound holds and the best pattern is found)."""
    Z, ub = bb.solve(lam, mu, stop=stop, target=target)
    top = float(every.max())
    if ub is None or ub < top - 1e-12 * max(1.0, abs(top)):
        return f"bound {ub} below the maximum {top}"
    if stop == 1.0 and ub > max(top, target) + 2 * bb.tol:
        return f"bound {ub} far above max(max ρ, target) = {max(top, target)}"
    got = float(bb.rho(Z[:1], lam, mu)[0])
    if stop == 1.0 and top > target + bb.tol and got < top - 1e-9 * abs(top):
        return f"best pattern found {got}, the maximum is {top}"
    return None


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("target", [0.0, -math.inf])
def test_bound_and_argmax_equal_every_pattern(seed, target):
    """The pricing's question (target 0: is there ρ > 0?) and the plain maximum (target −∞: the bound is max ρ)."""
    n, k = 2 + seed % 11, 1 + seed % 3
    assert _wrong(*_case(seed, n, k), target=target) is None


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10**6), st.integers(2, 12), st.integers(1, 4), st.sampled_from([0.5, 1.0]),
       st.sampled_from([0.0, -math.inf]))  # fmt: skip
def test_the_bound_holds_for_any_instance_and_stop(seed, n, k, stop, target):
    assert _wrong(*_case(seed, n, k), stop=stop, target=target) is None


def test_a_bound_without_the_open_coordinates_is_caught(monkeypatch):
    """Mutation: drop Σ_open w̄_x from the box bound (the open coordinates' share): boxes are closed too early,
    and the check against every pattern reports it."""
    real = RatioBranchBound._bounds

    def broken(self, L, H, lam, mu):
        bound, sure, open_, spread, s = real(self, L, H, lam, mu)
        wmax = self._phi(np.clip(self.a[None, None, :], L[:, :, None], H[:, :, None]), lam).sum(axis=1)
        wmax = np.maximum(wmax, np.maximum(self._phi(L, lam), self._phi(H, lam)).sum(axis=1)) - self.E * mu
        return bound - np.where(open_, wmax, 0.0).sum(axis=1), sure, open_ & False, spread, s

    monkeypatch.setattr(RatioBranchBound, "_bounds", broken)
    caught = [s for s in range(40) if _wrong(*_case(s, 2 + s % 11, 1 + s % 3), target=-math.inf) is not None]
    assert len(caught) >= 10, caught


def test_the_box_bound_covers_every_point_of_the_box():
    """For random boxes, the bound is at least Φ(s) = max_z L(z, s) at random points s of the box (g(s) = −1ᵀμ −
    Σ_i λ_i Σ_x P_ix (a_x − s_i)²: the errors' frame)."""
    bb, lam, mu, _ = _case(7, 9, 3)
    rng = np.random.default_rng(0)
    for _ in range(20):
        L = np.sort(rng.uniform(bb.lo, bb.hi, size=(2, 3)), axis=0)
        B, *_ = bb._bounds(L[:1], L[1:], lam, mu)
        s = rng.uniform(L[0], L[1], size=(50, 3))
        w = bb._phi(s, lam).sum(axis=1) - bb.E * mu
        g = -mu.sum() - (lam * ((bb.a[None, None, :] - s[:, :, None]) ** 2 * bb.V[None]).sum(axis=2)).sum(axis=1)
        assert np.all(g + np.clip(w, 0, None).sum(axis=1) <= B[0] + 1e-12)


def _robust(V, values=None, **opts):
    prob = RobustDesign.from_params(prior_set=V, notion="ldp", utility="mse", eps=1.0, values=values)
    return mechopt.solve(prob, solver="robust-rays", **opts)


def test_certified_and_equal_to_enumeration():
    V = np.random.default_rng(3).dirichlet(np.ones(10), size=3)
    a = _robust(V)  # every pattern (enumeration)
    b = _robust(V, enumerate_max=4)  # the ratio branch and bound
    assert a.status.value == b.status.value == "optimal" and b.proof == "certificate"
    assert "ratios" in b.extras["pricing"] and b.value == pytest.approx(a.value, rel=1e-9)
    assert b.certificate.bound <= b.value and b.extras["relative_gap"] <= 1e-7


def test_unit_free():
    V = np.random.default_rng(5).dirichlet(np.ones(9), size=3)
    vals = np.random.default_rng(6).normal(size=9)
    out = [_robust(V, values=",".join(repr(float(v * s)) for v in vals), enumerate_max=4) for s in (1e-9, 1.0, 1e9)]
    assert all(r.status.value == "optimal" for r in out)
    assert out[0].value / 1e-18 == pytest.approx(out[1].value, rel=1e-9)
    assert out[2].value / 1e18 == pytest.approx(out[1].value, rel=1e-9)


def test_the_certificate_file_verifies(tmp_path):
    V = np.random.default_rng(2).dirichlet(np.ones(7), size=3)
    r = _robust(V, enumerate_max=4)
    assert r.status.value == "optimal" and "ratios" in r.extras["pricing"]
    r.save_certificate(str(tmp_path / "c.json"))
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert out["gap"] <= 1e-7 and out["value"] == pytest.approx(r.value, rel=1e-9)


def test_mse_pricer_milp_keeps_the_former_path_and_a_bad_name_is_refused():
    V = np.random.default_rng(4).dirichlet(np.ones(8), size=2)
    r = _robust(V, enumerate_max=4, mse_pricer="milp")
    assert "MILP" in r.extras["pricing"]
    with pytest.raises(mechopt.errors.ParamError, match="mse_pricer"):
        _robust(V, enumerate_max=4, mse_pricer="tree")
    for bad in ("half", 1.5, True):  # smoothing's default is None (the pricer's): its kind is checked here
        with pytest.raises(mechopt.errors.ParamError, match="smoothing"):
            _robust(V, enumerate_max=4, smoothing=bad)
    assert math.isfinite(r.value)


@pytest.mark.parametrize(
    ("utility", "opts"),
    [
        ("mi", {"mse_pricer": "foo"}),
        ("mse", {"mse_pricer": "foo"}),
        ("mse", {"mi_pricer": "foo"}),
        ("mi", {"cone_pricer": "foo"}),
    ],  # fmt: skip
)
def test_a_bad_pricer_word_is_refused_on_every_route(utility, opts):
    """Hostile pass 2026-11-26: mse_pricer / mi_pricer / cone_pricer = 'foo' were accepted silently off their route."""
    prob = RobustDesign.from_params(prior_set="0.2,0.3,0.5;0.5,0.3,0.2", notion="ldp", utility=utility, eps=1.0)
    with pytest.raises(mechopt.errors.ParamError, match=next(iter(opts))):
        mechopt.solve(prob, solver="robust-rays", **opts)
