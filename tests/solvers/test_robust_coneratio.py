"""The ratio branch and bound over the cone (robust mse under LIP / PML / ALIP past the rays), against the rays."""

from __future__ import annotations

import math

import numpy as np
import pytest

import mechopt
from mechopt.errors import ParamError, TooLargeError
from mechopt.problems.robust import RobustDesign
from mechopt.problems.robust.gains import VertexGains
from mechopt.solvers.robust.cone.ratio import ConeMSEPricer
from mechopt.utilities import SumMSE
from tests.solvers.test_robust_boxprice import NOTIONS, _cone, rays_and_box  # _cone: rays normalised P̄·r = 1


def _exhaustive(pr: ConeMSEPricer) -> ConeMSEPricer:
    pr.target, pr.stop, pr.slack = -math.inf, 1.0, 1e-10  # searched to the maximum itself
    return pr


def _duals(seed, k, d, R, F):
    """λ random in the simplex, μ random then shifted so that the best ray's ρ is about ±0.05 (both signs occur)."""
    rng = np.random.default_rng(seed)
    lam, mu = rng.dirichlet(np.ones(k)), rng.normal(0.0, 0.3, d)
    shift = ((lam @ F - mu @ R).max() - (0.05 if seed % 2 else -0.05)) / float(R.sum(axis=0).mean())
    return lam, mu + shift


@pytest.mark.parametrize("notion", list(NOTIONS))
@pytest.mark.parametrize("d", [4, 5])
def test_the_proven_bound_is_the_maximum_over_every_enumerated_ray(notion, d):
    V, lo, hi, R = _cone(notion, d, seed=d)
    a = np.random.default_rng(d + 10).normal(size=d)
    G = VertexGains(np.vstack([V, V.mean(axis=0)]), SumMSE(a))  # one gains prior inside the set (a hull round)
    F = G.gains(R)
    for s in range(3):
        lam, mu = _duals(s, len(G.vertices), d, R, F)
        rc = lam @ F - mu @ R
        pr = _exhaustive(ConeMSEPricer(G, V, lo, hi))
        assert np.allclose(pr.rho(R, lam, mu), rc, atol=1e-12)  # ρ in closed form = the gains' own
        out = pr.price(lam, mu)
        assert rc.max() - 1e-12 <= out.bound <= rc.max() + 1e-8  # proven, and tight
        if rc.max() <= 0.0:
            assert out.rays.shape[1] == 0
            continue
        assert pr.rho(out.rays, lam, mu).max() == pytest.approx(rc.max(), abs=1e-9)
        t = V @ out.rays  # every column is in the cone, normalised P̄·q = 1
        assert np.all(out.rays <= hi * t.min(axis=0) * (1 + 1e-12))
        assert np.all(out.rays >= lo * t.max(axis=0) * (1 - 1e-12))
        assert np.allclose(V.mean(axis=0) @ out.rays, 1.0)


def test_a_box_bound_below_its_chord_is_caught(monkeypatch):
    """Mutation: the chord of s² over a box taken from its lower end alone (the tangent there, below s² on the box);
    the 'bound' then falls below the best ray for some duals, which the check above would catch."""
    V, lo, hi, R = _cone("lip", 5, seed=1)
    G = VertexGains(V, SumMSE(np.arange(5.0)))
    F = G.gains(R)
    chord = ConeMSEPricer._chord
    monkeypatch.setattr(ConeMSEPricer, "_chord", lambda self, L, H, lam, mu: chord(self, L, L, lam, mu))
    misses = []
    for s in range(4):
        lam, mu = _duals(s, 3, 5, R, F)
        misses.append((lam @ F - mu @ R).max() - _exhaustive(ConeMSEPricer(G, V, lo, hi)).price(lam, mu).bound)
    assert max(misses) > 1e-6


@pytest.mark.parametrize(("notion", "d"), [("lip", 5), ("pml", 6), ("alip", 5)])
def test_the_cone_route_equals_the_enumerated_rays_optimum(notion, d):
    prob, rays, box = rays_and_box(notion, d, "mse", values=np.random.default_rng(1).normal(size=d))
    assert box.value == pytest.approx(rays.value, rel=1e-7) and "ratio branch and bound over the cone" in box.message
    assert box.certificate.bound <= rays.value + 1e-12  # an MSE: the bound is below


def test_the_cone_route_is_unit_free():
    """Values × 1e-9 and × 1e9: the certified MSE scales by 1e-18 and 1e18, to the gap tolerance."""
    V = np.random.default_rng(3).dirichlet(np.ones(5), size=3)
    vals = np.random.default_rng(2).normal(size=5)
    out = []
    for s in (1.0, 1e-9, 1e9):
        prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mse", eps=1.0, values=vals * s)
        r = mechopt.solve(prob, solver="robust-rays", cone_pricer="box")
        assert r.status.value == "optimal" and r.proof == "certificate"
        out.append(r.value / s**2)
    assert out[1] == pytest.approx(out[0], rel=1e-6) and out[2] == pytest.approx(out[0], rel=1e-6)


def test_the_refusal_names_the_limits_and_a_hull_histogram_keeps_the_rays():
    V = np.random.default_rng(0).dirichlet(np.ones(7), size=2)
    hist = RobustDesign.from_params(prior_set=V, notion="lip", utility="histogram", eps=1.0)
    with pytest.raises(TooLargeError, match="hist_box_max=6") as err:
        mechopt.solve(hist, solver="robust-rays", cone_max=4, hist_box_max=6)
    assert "\n" not in str(err.value) and "mi to box_max=32, mse to mse_box_max=64" in str(err.value)
    hull = RobustDesign.from_params(prior_set=V, notion="lip", utility="histogram", eps=1.0, hull=True)
    with pytest.raises(ParamError, match="not histogram over the priors of a hull round"):
        mechopt.solve(hull, solver="robust-rays", cone_pricer="box")
    mse = RobustDesign.from_params(prior_set=V, notion="lip", utility="mse", eps=1.0)
    with pytest.raises(TooLargeError, match="mse_box_max=6"):
        mechopt.solve(mse, solver="robust-rays", cone_max=4, mse_box_max=6)


@pytest.mark.parametrize(("notion", "utility"), [("lip", "mse"), ("pml", "mse"), ("lip", "histogram")])
def test_the_certificate_file_of_the_cone_route_verifies(notion, utility, tmp_path):
    """ν = μ + ρ·P̄ (rays normalised P̄·r = 1): the standalone checker re-enumerates the cone's rays and agrees (mse:
    the ratio branch and bound; histogram: :mod:`mechopt.solvers.robust.cone.hist`)."""
    from mechopt import certcheck

    V = np.random.default_rng(2).dirichlet(np.ones(4), size=2)
    vals = [0.0, 1.0, 3.0, 2.0] if utility == "mse" else None
    prob = RobustDesign.from_params(prior_set=V, notion=notion, utility=utility, eps=1.0, values=vals)
    r = mechopt.solve(prob, solver="robust-rays", cone_pricer="box")
    assert r.status.value == "optimal" and "branch and bound over" in r.message
    r.save_certificate(str(tmp_path / "c.json"))
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0, out
    assert out["value"] == pytest.approx(r.value, rel=1e-9)


def test_the_hull_rounds_price_priors_inside_the_cone():
    """With ``hull=True`` the worst prior of each design joins the gains (not the cone): the cone route prices
    them and ends at the enumerated rays' hull value."""
    V = np.random.default_rng(6).dirichlet(np.ones(5), size=3)
    prob = RobustDesign.from_params(prior_set=V, notion="lip", utility="mse", eps=1.0, values=np.arange(5.0), hull=True)
    rays = mechopt.solve(prob, solver="robust-rays", cone_pricer="rays")
    box = mechopt.solve(prob, solver="robust-rays", cone_pricer="box")
    assert box.status.value == rays.status.value == "optimal" and box.extras["hull_rounds"] >= 2
    assert box.extras["hull_priors"]  # priors of the gains that are not vertices of the cone
    assert box.value == pytest.approx(rays.value, rel=1e-6)


def test_the_cli_refuses_histogram_above_hist_box_max_in_one_line_with_exit_2(cli, tmp_path):
    import json

    V = np.random.default_rng(0).dirichlet(np.ones(40), size=3)
    (tmp_path / "set.json").write_text(json.dumps(V.tolist()))
    run = cli("design", "--notion", "pml", "--eps", "1", "--utility", "histogram", "--prior-set",
              tmp_path / "set.json", "--solver", "robust-rays")  # fmt: skip
    assert run.code == 2 and "hist_box_max=20" in run.err and "mse_box_max=64" in run.err and "Traceback" not in run.err
    assert len(run.err.strip().splitlines()) == 1


@pytest.mark.parametrize("scale", [1e-9, 1.0, 1e9])
def test_a_tiny_mse_is_certified_by_the_cone_branch_and_bound(scale, tmp_path):
    """PML ε = 5: the MSE is 1.3e-5 of E[a²]. Priced as E[a²] − Σ gains the search ended optimal_inaccurate at gap
    2e-6 (the LP's chord costs of order E[a²], a rounding allowance of 64·cols ulp of them: 2e-12 against a pricing
    bound of 1e-12); with the chord written on the errors and the allowance per column it is certified (measured
    2.9e-8), equal to the enumerated rays, unit-free, and its certificate verifies at the MSE's own scale."""
    from mechopt import certcheck

    V = np.random.default_rng(5).dirichlet(np.ones(6), size=3)
    vals = np.random.default_rng(1).normal(size=6) * scale
    prob = RobustDesign.from_params(prior_set=V, notion="pml", utility="mse", eps=5.0, values=vals)
    rays = mechopt.solve(prob, solver="robust-rays", cone_pricer="rays")
    box = mechopt.solve(prob, solver="robust-rays", cone_pricer="box", time_limit=300)
    assert rays.status.value == box.status.value == "optimal" and box.extras["relative_gap"] <= 1e-7
    assert box.value == pytest.approx(rays.value, rel=1e-9) and box.certificate.bound <= rays.value * (1 + 1e-12)
    assert box.value / scale**2 == pytest.approx(1.1604416073e-05, rel=1e-9)
    box.save_certificate(str(tmp_path / "c.json"))
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert code == 0 and out["gap"] <= 1e-7, out
