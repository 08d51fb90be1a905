"""ε-PML and ALIP: audits from the definitions, cones, the implication graph checked on random channels."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mechopt.errors import ProblemError
from mechopt.notions import ALIP, LDP, LIP, PML, make_notion
from mechopt.notions.relations import IMPLICATIONS, implied_levels
from mechopt.solvers.exact.rays import box_vertices, dd_rays


def _random(rng, d, m, zeros=False):
    P = rng.dirichlet(np.ones(d))
    Q = rng.dirichlet(np.ones(m), size=d)
    if zeros:
        Q[rng.random((d, m)) < 0.3] = 0.0
        Q[:, 0] += 1e-3  # every row keeps some mass
        Q /= Q.sum(axis=1, keepdims=True)
    return P, Q


def _density(P, Q):
    """log P(x | y) / P(x) for every x and used y, by Bayes' rule written out (no shared code with the audits)."""
    J = P[:, None] * Q
    lam = J.sum(axis=0)
    used = lam > 0
    post = J[:, used] / lam[used]
    with np.errstate(divide="ignore"):
        return np.log(post) - np.log(P)[:, None]


def test_audits_are_the_information_density_bounds():
    rng = np.random.default_rng(0)
    for trial in range(40):
        P, Q = _random(rng, int(rng.integers(2, 7)), int(rng.integers(1, 6)), zeros=trial % 2 == 1)
        i = _density(P, Q)
        up, low = float(i.max()), float(-i.min())
        assert PML(1.0).audit(Q, P).eps == pytest.approx(up, abs=1e-12)
        got_u, got_l = ALIP(1.0, eps_lower=2.0).levels(Q, P)
        assert got_u == pytest.approx(up, abs=1e-12)
        assert (got_l == math.inf) if math.isinf(low) else got_l == pytest.approx(low, abs=1e-12)
        a = ALIP(1.0, eps_lower=2.0).audit(Q, P)
        assert a.violation == pytest.approx(max(0.0, up - 1.0, low - 2.0), abs=1e-12) or math.isinf(low)


def test_alip_with_equal_levels_is_lip_and_pml_allows_zeros():
    rng = np.random.default_rng(1)
    P, Q = _random(rng, 5, 4)
    assert ALIP(0.7, eps_lower=0.7).audit(Q, P).eps == pytest.approx(LIP(0.7).audit(Q, P).eps, abs=1e-12)
    Z = np.array([[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]])
    P3 = np.array([0.3, 0.4, 0.3])
    assert math.isfinite(PML(1.0).audit(Z, P3).eps)
    assert LIP(1.0).audit(Z, P3).eps == math.inf and LDP(1.0).audit(Z).eps == math.inf


def test_cone_rows_hold_on_the_box_vertices_and_fail_outside():
    rng = np.random.default_rng(2)
    for notion in (PML(0.8), ALIP(0.8, eps_lower=0.3)):
        P = rng.dirichlet(np.ones(6))
        A = notion.cone(P)
        V = box_vertices(P, *notion.deviations(P))  # the box's vertices are admissible columns (c = λ p)
        assert V.shape[1] >= 2 and np.all(A @ V >= -1e-12)
        j = int(np.argmax(P))
        out = np.zeros_like(P)
        out[j] = 1.0  # δ_j: posterior 1 > e^ε P(j) unless e^ε P(j) ≥ 1
        if math.exp(notion.eps) * P[j] < 1:
            assert np.min(A @ out) < 0


def test_make_notion_and_bad_input():
    assert isinstance(make_notion("pml", 1.0), PML)
    n = make_notion("alip", "1.5", eps_lower="0.25")
    assert (n.eps, n.eps_lower) == (1.5, 0.25) and n.params() == {"notion": "alip", "eps": 1.5, "eps_lower": 0.25}
    with pytest.raises(ProblemError, match="--eps-lower"):
        make_notion("alip", 1.0)
    with pytest.raises(ProblemError, match="belongs to notion alip"):
        make_notion("lip", 1.0, eps_lower=0.5)
    with pytest.raises(ProblemError, match="use --notion pml"):
        ALIP(1.0, eps_lower=math.inf)
    with pytest.raises(ProblemError):
        make_notion("alip", 1.0, eps_lower=-1)


def test_every_implication_holds_on_random_channels():
    """Each edge of the graph: the target's audited level is at most the edge's bound of the source's levels."""
    rng = np.random.default_rng(3)
    checked = 0
    for trial in range(200):
        P, Q = _random(rng, int(rng.integers(2, 6)), int(rng.integers(2, 6)))
        u, low = ALIP(1.0, eps_lower=1.0).levels(Q, P)
        levels = {
            "ldp": (LDP(0.0).audit(Q).eps,) * 2,
            "lip": (LIP(0.0).audit(Q, P).eps,) * 2,
            "alip": (u, low),
            "pml": (PML(0.0).audit(Q, P).eps, math.inf),
        }
        audited = {"ldp": levels["ldp"][0], "lip": levels["lip"][0], "pml": levels["pml"][0]}
        for e in IMPLICATIONS:
            src = levels[e.source]
            bound = e.bound(*src)
            if e.target == "alip":  # (ε, ε)-ALIP: both levels within the bound
                assert max(u, low) <= bound + 1e-12
            else:
                assert audited[e.target] <= bound + 1e-12, (e, trial)
            checked += 1
    assert checked == 200 * len(IMPLICATIONS)


def test_lip_to_ldp_factor_two_is_attained_in_the_limit():
    """ε-LIP ⇒ 2ε-LDP is tight as ε → 0: a channel whose LDP level is 1.99 times its LIP level."""
    t = 0.01
    P = np.array([0.5 - 1e-6, 2e-6, 0.5 - 1e-6])
    Q = np.array([[math.exp(t), math.exp(-t)], [1.0, 1.0], [math.exp(-t), math.exp(t)]])
    Q /= Q.sum(axis=1, keepdims=True)
    ratio = LDP(0.0).audit(Q).eps / LIP(0.0).audit(Q, P).eps
    assert 1.98 < ratio <= 2.0 + 1e-12


def test_implied_levels_and_nothing_leaves_pml():
    assert implied_levels("lip", 0.5) == {"ldp": 1.0, "alip": 0.5, "pml": 0.5}
    assert implied_levels("alip", 1.0, eps_lower=0.25) == {"ldp": 1.25, "lip": 1.0, "pml": 1.0}
    assert all(v == math.inf for v in implied_levels("pml", 1.0).values())
    with pytest.raises(ProblemError):
        implied_levels("mip", 1.0)


@pytest.mark.parametrize("d", [3, 5, 7])
def test_box_vertices_are_the_cone_extreme_rays(d):
    """The vertex formula (all coordinates at a bound but one) against double description of the cone rows."""
    rng = np.random.default_rng(d)
    for notion in (PML(0.6), ALIP(0.9, eps_lower=0.4), ALIP(0.2, eps_lower=1.5)):
        P = rng.dirichlet(np.ones(d))
        V = box_vertices(P, *notion.deviations(P))
        R = dd_rays(notion.cone(P))
        R = R / R.sum(axis=0)
        key = lambda M: sorted(tuple(np.round(c, 9)) for c in M.T)  # noqa: E731
        assert key(V) == key(R)


@pytest.mark.parametrize("eps_lower", [30.0, 100.0, 700.0])
def test_alip_with_a_far_lower_level_is_certified_and_private(eps_lower):
    """e^{−ε_l} P far below P: the box's lower corner is taken as it is, not as P + P·expm1(−ε_l) (which at
    ε_l = 30 came out 4e-4 off relative, a privacy violation of 4e-4 nats; at 40 and above, zeros)."""
    import mechopt

    P = np.array([0.2, 0.3, 0.5])
    alip = mechopt.design(prior=P, notion="alip", eps=1.0, eps_lower=eps_lower, utility="mi")
    pml = mechopt.design(prior=P, notion="pml", eps=1.0, utility="mi")
    assert alip.status.value == "optimal" and alip.violation <= 1e-12, (alip.status, alip.message)
    Q = np.asarray(alip.mechanism)
    up, low = ALIP(1.0, eps_lower).levels(Q, P)
    assert up <= 1.0 + 1e-12 and low <= eps_lower + 1e-12 and np.all(Q > 0)
    assert pml.value - 1e-9 <= alip.value <= pml.value + 1e-12  # the two boxes differ by e^{-30} P at most


def test_alip_floor_below_double_range_is_refused_with_the_largest_usable_level():
    """e^{-700}·1e-100 underflows: the design came back infeasible_point (an exact zero); now a one-line error."""
    import mechopt

    with pytest.raises(ProblemError, match=r"give eps_lower <= 478\.1"):
        mechopt.design(prior=[1e-100, 0.3, 0.7], notion="alip", eps=1.0, eps_lower=700.0, utility="mi")
    res = mechopt.design(prior=[1e-100, 0.3, 0.7], notion="alip", eps=1.0, eps_lower=460.0, utility="mi")
    assert res.status.value == "optimal" and res.violation <= 1e-12


def test_alip_floor_below_double_range_is_refused_over_prior_sets_too():
    """The floor check lives in the notion: a prior set with a 1e-100 entry at eps_lower = 700 was accepted."""
    from mechopt.problems.robust import RobustDesign

    sets = "1e-100,0.3,0.7;0.2,0.3,0.5"
    with pytest.raises(ProblemError, match=r"give eps_lower <= 478\.1"):
        RobustDesign.from_params(prior_set=sets, notion="alip", utility="mae", eps=1.0, eps_lower=700.0)
    prob = RobustDesign.from_params(prior_set=sets, notion="alip", utility="mae", eps=1.0, eps_lower=460.0)
    assert prob.notion.eps_lower == 460.0
