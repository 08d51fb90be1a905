"""robust-lp over a ball by its inequalities: the vertex form's optimum at small d, certified beyond d = 10."""

from __future__ import annotations

import numpy as np
import pytest

import mechopt
from mechopt.problems.robust import BallDesign, BallSet, EmpiricalPrior, RobustDesign

NOTIONS = [("pml", {}), ("lip", {}), ("alip", {"eps_lower": 0.5}), ("ldp", {})]


@pytest.mark.parametrize("bound", ["weissman", "hoeffding"])
@pytest.mark.parametrize(("notion", "kw"), NOTIONS)
def test_the_ball_lp_has_the_vertex_form_optimum(bound, notion, kw):
    E = EmpiricalPrior.from_counts("30,25,20,15,10", 1e-3, bound)
    a = mechopt.solve(RobustDesign.from_params(prior_set=E, notion=notion, utility="mae", eps=0.8, **kw),
                      solver="robust-lp")  # fmt: skip
    b = mechopt.solve(BallDesign.from_params(prior_set=E, notion=notion, eps=0.8, **kw), solver="robust-lp")
    assert a.status.value == b.status.value == "optimal" and b.proof == "certificate"
    assert b.value == pytest.approx(a.value, rel=1e-9) and b.violation <= 1e-9
    assert b.extras["relative_gap"] <= 1e-9 and b.extras["vertices"] is None


def _counts(d: int) -> str:
    return ",".join(str(50 * (d - i)) for i in range(d))


def test_a_zero_radius_ball_at_d16_is_the_single_prior_design():
    """Radius 0: the ball is its centre, and the vertex form with that one prior (a 1-vertex LP) is the reference."""
    c = np.array([float(v) for v in _counts(16).split(",")])
    c /= c.sum()
    b = mechopt.solve(BallDesign.from_params(prior_set=BallSet(c, 0.0), notion="pml", eps=1.0), solver="robust-lp")
    a = mechopt.solve(RobustDesign.from_params(prior_set=c[None], notion="pml", utility="mae", eps=1.0),
                      solver="robust-lp")  # fmt: skip
    assert b.status.value == "optimal" and b.value == pytest.approx(a.value, rel=1e-9)


@pytest.mark.parametrize("d", [16, 32])
def test_beyond_ten_symbols_the_design_is_certified_and_monotone_in_delta(d):
    """More confidence (smaller δ) is a larger ball: a worst loss at least as high; both certified and private."""
    out = []
    for delta in (1e-1, 1e-6):
        E = EmpiricalPrior.from_counts(_counts(d), delta)
        r = mechopt.solve(BallDesign.from_params(prior_set=E, notion="pml", eps=1.0), solver="robust-lp")
        assert r.status.value == "optimal" and r.proof == "certificate" and r.violation <= 1e-9, r.message
        assert r.certificate.bound <= r.value <= r.certificate.bound * (1 + 1e-9)
        out.append(r.value)
    assert out[0] <= out[1] * (1 + 1e-9) and out[0] < out[1]


def test_the_ball_design_is_unit_free_and_its_certificate_files_verify(tmp_path):
    """Values ×2^-40: the same design rescaled, and both certificate files (robust-ball) verify exactly."""
    from mechopt import certball

    E = EmpiricalPrior.from_counts(_counts(12), 1e-3, "hoeffding")
    vals = ",".join(str(v) for v in range(12))
    small = ",".join(str(v * 2.0**-40) for v in range(12))
    a = mechopt.solve(BallDesign.from_params(prior_set=E, notion="lip", eps=1.0, values=vals), solver="robust-lp")
    b = mechopt.solve(BallDesign.from_params(prior_set=E, notion="lip", eps=1.0, values=small), solver="robust-lp")
    assert a.status.value == b.status.value == "optimal" and b.value == pytest.approx(a.value * 2.0**-40, rel=1e-9)
    for name, r in (("a", a), ("b", b)):
        r.save_certificate(str(tmp_path / f"{name}.json"))
        code, out = certball.run(str(tmp_path / f"{name}.json"))
        assert code == 0 and out["value"] == pytest.approx(r.value, rel=1e-12), out
