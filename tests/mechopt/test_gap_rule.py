"""One rule for every certificate gap (relative_gap): the solvers, mechopt.solve's check and the standalone checker.

A hostile tester's case: pml mse with --hull at ε = 20 over 3 priors, values 0,1,2,3.5, read ``feasible`` (value
3.7e-33, bound 0, gap 1) in these units and ``optimal`` (value 0.0) with the values ×1e-12 or ×1e12: the word
depended on the units at rounding level. A value within the rounding residue of a 0 at the objective's scale
((2^-50)² of it: ROUNDING) is now judged as 0 is (against 1e-3 × the scale), by every solver, by solve's check and by
``mechopt check``; a tiny real optimum (far above that residue) keeps a gap relative to itself.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechopt
from mechopt import certcheck, registry
from mechopt.api import audit_result
from mechopt.model.problem import objective_scale, value_gap
from mechopt.problems.design import ChannelDesign
from mechopt.problems.robust import RobustDesign
from mechopt.results.certificate import ROUNDING, ZERO_FLOOR, Certificate, relative_gap

PRIOR = "0.1,0.2,0.3,0.4"
PRIORS = "0.1,0.2,0.3,0.4;0.25,0.25,0.25,0.25;0.4,0.3,0.2,0.1"
SCALES = (1e-12, 1.0, 1e12)


def _values(s: float) -> str:
    return ",".join(repr(v * s) for v in (0.0, 1.0, 2.0, 3.5))


def _hull(s: float) -> RobustDesign:
    return RobustDesign.from_params(prior_set=PRIORS, notion="pml", utility="mse", eps=20, values=_values(s), hull=True)


def test_the_hull_symptom_has_one_status_at_every_unit():
    """Measured before: feasible (3.7e-33 against 0, gap 1, 50 hull rounds) at ×1; optimal (0.0) at ×1e-12, ×1e12."""
    out = [mechopt.solve(_hull(s), solver="robust-rays") for s in SCALES]
    assert [r.status.value for r in out] == ["optimal"] * 3, [r.message for r in out]
    for s, r in zip(SCALES, out):
        S = objective_scale(_hull(s), r.Q)
        assert r.certificate.bound == 0.0 and 0.0 <= r.value <= ROUNDING * S, (s, r.value)
        assert r.certificate.gap <= 1e-7 and r.extras["hull_rounds"] == 1
        assert S / s**2 == pytest.approx(objective_scale(_hull(1.0), r.Q), rel=1e-9)  # an MSE: ×s² with values ×s


def test_a_too_weak_bound_is_still_rejected():
    """The floor counts only for a value of 0 at the objective's scale, and then only to 1e-3 of it: a bound 1e-6 of
    the scale below a 0 value, or a bound of 0 under a value 1e-9 of the scale, is no proof."""
    prob = _hull(1.0)
    r = mechopt.solve(prob, solver="robust-rays")
    S = objective_scale(prob, r.Q)
    weak = audit_result(prob, r.replace(certificate=Certificate(bound=-1e-6 * S, gap=0.0)))
    assert weak.status.value == "optimal_inaccurate" and weak.certificate.gap == pytest.approx(1e-3)
    above = audit_result(prob, r.replace(value=1e-9 * S, certificate=Certificate(bound=0.0, gap=0.0)))
    assert above.status.value != "optimal" and above.certificate.gap == 1.0


def _raw(name: str, prob, **opts):
    """The solver's own result (no audit by mechopt.solve, which re-judges the gap)."""
    return registry.get_solver(name).solve(prob, **opts)


@pytest.mark.parametrize("s", SCALES)
def test_every_formerly_private_gap_site_follows_the_rule(s):
    """Each solver that judged its gap with its own formula (exact, robust-lp, robust-rays, lp, conic) now reports
    the gap of the one rule, at the objective's scale, and says optimal exactly when it is within tolerance."""
    v = _values(s)
    cases = [
        ("exact", ChannelDesign.from_params(prior=PRIOR, notion="pml", utility="mse", eps=20.0, values=v)),
        ("exact", ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="mse", eps=20.0, values=v)),
        ("robust-rays", _hull(s)),
        ("robust-lp", RobustDesign.from_params(prior_set=PRIORS, notion="ldp", utility="mae", eps=2.0, values=v)),
        ("robust-lp", RobustDesign.from_params(prior_set=PRIORS, notion="pml", utility="mae", eps=30.0, values=v)),
        ("conic", ChannelDesign.from_params(prior=PRIOR, notion="pml", utility="mae", eps=1.0, values=v)),
    ]
    for name, prob in cases:
        r = _raw(name, prob)
        S = objective_scale(prob, r.Q)
        gap = relative_gap(r.value, r.certificate.bound, S)
        assert r.certificate.gap == pytest.approx(gap, rel=1e-12, abs=1e-300), (name, r.value, r.certificate)
        assert r.certificate.gap == pytest.approx(value_gap(prob, r.Q, r.value, r.certificate.bound), abs=1e-300)
        if "relative_gap" in r.extras and name != "lp":
            sign = 1.0 if prob.sense == "max" else -1.0
            assert r.extras["relative_gap"] == pytest.approx(relative_gap(r.value, r.certificate.bound, S, sign))
        assert (r.status.value == "optimal") == (r.certificate.gap <= 1e-7), (name, r.status, r.certificate)
    prob = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="mae", eps=2.0, values=v)
    lp = _raw("lp", prob)
    x = lp.extras  # judged on the loss normalised to [0, 1]: its scale is 1
    assert x["relative_gap"] == relative_gap(x["normalised_value"], x["normalised_bound"], 1.0)
    assert lp.status.value == "optimal"
    assert lp.certificate.gap == pytest.approx(value_gap(prob, lp.Q, lp.value, lp.certificate.bound), abs=1e-300)


ZEROS = [
    ("pml", "mse", 20.0, {}),
    ("pml", "histogram", 20.0, {}),
    ("alip", "mi", 1.0, {"eps_lower": 0.0}),
    ("lip", "mi", 1e-12, {}),
]  # MSE 0, 0, information 0 (constant channels), 0 against a bound of 5e-25


@pytest.mark.parametrize("s", SCALES)
@pytest.mark.parametrize(("notion", "utility", "eps", "kw"), ZEROS, ids=["pml-mse", "pml-hist", "alip-mi", "lip-mi"])
def test_the_solver_solve_and_check_judge_a_zero_alike(tmp_path, s, notion, utility, eps, kw):
    """A 0 optimum: the exact solver, mechopt.solve and the checker all say optimal, at every unit (LIP mi at
    ε = 1e-12: value 0, bound 5e-25; the checker judged mi against 1e-40 nats and rejected the file)."""
    values = {"values": _values(s)} if utility == "mse" else {}
    prob = ChannelDesign.from_params(prior=PRIOR, notion=notion, utility=utility, eps=eps, **kw, **values)
    raw, r = _raw("exact", prob), mechopt.solve(prob, solver="exact")
    assert raw.status.value == r.status.value == "optimal" and abs(r.value) <= ROUNDING * objective_scale(prob, r.Q)
    r.save_certificate(str(tmp_path / "c.json"))
    code, out = certcheck.run(str(tmp_path / "c.json"))
    assert (code, out["verdict"]) == (0, "verified") and out["gap_of"].startswith("floor"), out


def _mutated(tmp_path, r, bound: float, status: str = "optimal") -> dict:
    """The checker's report on r's certificate file with its claimed bound replaced."""
    import json

    r.save_certificate(str(tmp_path / "c.json"))
    doc = json.loads((tmp_path / "c.json").read_text())
    doc["claim"].update(bound=str(Fraction(bound)), status=status)
    (tmp_path / "c.json").write_text(json.dumps(doc))
    return certcheck.run(str(tmp_path / "c.json"))[1]


def test_a_weak_bound_is_rejected_by_the_checker_and_by_solve(tmp_path):
    """A 0 value (LIP mi, ε = 1e-12) with a claimed bound 1e-6 of H(P) above it: rejected (gap 1e-3 of the floor) by
    the checker and by solve's check. A tiny real optimum (LDP mse at ε = 40: 5.9e-17, far above the residue of a 0)
    keeps its own size: a claimed bound of 0 under it is rejected (gap 1), by both."""
    prob = ChannelDesign.from_params(prior=PRIOR, notion="lip", utility="mi", eps=1e-12)
    r = mechopt.solve(prob, solver="exact")
    H = objective_scale(prob, r.Q)
    out = _mutated(tmp_path, r, 1e-6 * H)
    assert out["verdict"] == "rejected" and "not optimal" in out["reason"], out
    weak = audit_result(prob, r.replace(certificate=Certificate(bound=1e-6 * H, gap=0.0)))
    assert weak.status.value == "optimal_inaccurate" and weak.certificate.gap == pytest.approx(1e-3)
    prob = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="mse", eps=40.0, values=_values(1))
    r = mechopt.solve(prob, solver="exact")
    assert r.status.value == "optimal" and ROUNDING * objective_scale(prob, r.Q) < r.value < 1e-15
    out = _mutated(tmp_path, r, 0.0)
    assert out["verdict"] == "rejected" and "not optimal" in out["reason"], out
    weak = audit_result(prob, r.replace(certificate=Certificate(bound=0.0, gap=0.0)))
    assert weak.status.value == "feasible" and weak.certificate.gap == 1.0


def test_the_checker_and_mechopt_share_the_constants():
    assert certcheck.ROUNDING == Fraction(ROUNDING) and certcheck.TOLERANCES["floor"] == ZERO_FLOOR


MAGNITUDES = st.sampled_from([0.0, 5e-324, 1e-300, 3.7e-33, 1e-17, 1e-9, 1e-3, 0.5, 1.0, 3.5, 1e12, 1e300])
NUMBERS = st.one_of(MAGNITUDES, st.floats(-1e300, 1e300, allow_nan=False), MAGNITUDES.map(lambda x: -x))
SCALE = st.one_of(MAGNITUDES, st.floats(0, 1e300, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(value=NUMBERS, bound=NUMBERS, scale=SCALE, sign=st.sampled_from([-1, 1]))
def test_the_checker_computes_the_same_gap_as_relative_gap(value, bound, scale, sign):
    """The checker's verdict (exact rationals) and relative_gap (doubles) agree on every value, bound and scale:
    0, subnormal, rounding-sized, huge; so the solver and `mechopt check` judge a file alike."""
    c = {"value": Fraction(value), "bound": Fraction(bound), "status": "optimal_inaccurate"}
    out = certcheck.verdict(c, certcheck.tolerances(None), c["value"], c["bound"], sign, Fraction(scale), "", {})
    assert out["gap"] == pytest.approx(relative_gap(value, bound, scale), rel=1e-12, abs=0)
    assert out["gap_of"].startswith("floor") == (abs(value) <= ROUNDING * scale)


@settings(max_examples=300, deadline=None)
@given(value=NUMBERS, bound=NUMBERS, scale=SCALE, k=st.integers(-60, 60))
def test_the_gap_does_not_depend_on_the_units(value, bound, scale, k):
    """Values, bound and scale in other units (×2^k: exact in doubles) give the same gap, bit for bit; the floor
    only ever lowers the plain relative gap, and only for a value of 0 at the scale."""
    u = 2.0**k
    if all(math.isfinite(x * u) and (x == 0 or 1e-290 < abs(x * u)) for x in (value, bound, scale)):
        assert relative_gap(value * u, bound * u, scale * u) == relative_gap(value, bound, scale)
    plain = relative_gap(value, bound)
    assert relative_gap(value, bound, scale) <= plain
    if abs(value) > ROUNDING * scale:
        assert relative_gap(value, bound, scale) == plain
    assert relative_gap(value, bound, scale, 1) == (0.0 if bound < value else relative_gap(value, bound, scale))
    assert relative_gap(value, bound, scale, -1) == (0.0 if bound > value else relative_gap(value, bound, scale))


def test_objective_scale_sizes_each_utility_by_its_trivial_channels():
    """Var(a) for an mse (the constant channel), H(P) for mi (the identity), 1 − ΣP² for a histogram; ×s² with
    the values ×s; 0 without a channel."""
    P = np.array([0.1, 0.2, 0.3, 0.4])
    a = np.array([0.0, 1.0, 2.0, 3.5])
    for s in SCALES:
        mse = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="mse", eps=1.0, values=_values(s))
        assert objective_scale(mse, np.eye(4)) == pytest.approx(s * s * float(P @ a**2 - (P @ a) ** 2), rel=1e-12)
    mi = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="mi", eps=1.0)
    hist = ChannelDesign.from_params(prior=PRIOR, notion="ldp", utility="histogram", eps=1.0)
    assert objective_scale(mi, np.eye(4)) == pytest.approx(float(-(P * np.log(P)).sum()))
    assert objective_scale(hist, np.eye(4)) == pytest.approx(1 - float(P @ P))
    assert objective_scale(mi, None) == 0.0
