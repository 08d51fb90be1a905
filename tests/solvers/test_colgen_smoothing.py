"""Wentges dual smoothing in column generation: every bound is a Lagrangian bound proven by an exact
pricing pass at the duals it was priced at, and the certified optimum is the enumerated LP's."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import linprog

from mechopt.solvers.exact.colgen import column_generation
from mechopt.solvers.exact.pricing.lip import LIPHistogramPricer
from mechopt.solvers.exact.rays import lip_vertices


def _gain(R: np.ndarray) -> np.ndarray:
    return (R * R).sum(axis=0)


class _Recorder:
    """An exact LIP-histogram pricer that remembers every ν it was asked to price and its bound."""

    def __init__(self, P: np.ndarray, eps: float) -> None:
        self.inner = LIPHistogramPricer(P, eps, early=False, target=-np.inf)
        self.calls: list[tuple[np.ndarray, float]] = []

    def price(self, nu, deadline=None):
        out = self.inner.price(nu, deadline)
        self.calls.append((np.array(nu, float), out.bound))
        return out


def _full_lp(P: np.ndarray, eps: float) -> tuple[float, np.ndarray]:
    V = lip_vertices(P, eps)
    res = linprog(-_gain(V), A_eq=V, b_eq=P, bounds=(0, None), method="highs")
    return -res.fun, V


@pytest.mark.parametrize("d,eps,alpha", [(8, 1.0, 0.5), (10, 0.5, 0.8), (9, 3.0, 0.3)])
def test_smoothed_bounds_are_lagrangian_bounds_checked_by_enumeration(d: int, eps: float, alpha: float) -> None:
    rng = np.random.default_rng(d)
    P = rng.dirichlet(np.ones(d))
    opt, V = _full_lp(P, eps)
    rec = _Recorder(P, eps)
    out = column_generation(P, _gain, rec, P[:, None].copy(), smoothing=alpha, max_iter=300)
    assert out.status == "optimal" and out.proven
    assert abs(out.master.value - opt) <= 1e-9 and out.bound >= opt - 1e-12
    lagrange = []
    for nu, b in rec.calls:
        exact = float((_gain(V) - nu @ V).max())  # the pricing pass against enumeration
        assert b == pytest.approx(exact, abs=1e-12)
        lagrange.append(float(nu @ P) + exact)
        assert lagrange[-1] >= opt - 1e-12  # a bound at any ν, smoothed or not
    assert out.bound == pytest.approx(min(lagrange), abs=1e-15)  # nothing but these bounds is reported
    assert any(not np.allclose(nu, rec.calls[0][0]) for nu, _ in rec.calls[1:])


def test_smoothing_prices_off_the_master_duals_and_recovers_from_misprices() -> None:
    rng = np.random.default_rng(3)
    P = rng.dirichlet(np.ones(8))
    plain, smooth = _Recorder(P, 1.0), _Recorder(P, 1.0)
    a = column_generation(P, _gain, plain, P[:, None].copy(), max_iter=300)
    b = column_generation(P, _gain, smooth, P[:, None].copy(), smoothing=0.9, max_iter=300)
    assert a.status == b.status == "optimal"
    assert abs(a.master.value - b.master.value) <= 1e-9
    # with α = 0.9 the priced duals differ from the first run's sequence
    assert [tuple(np.round(nu, 12)) for nu, _ in plain.calls] != [tuple(np.round(nu, 12)) for nu, _ in smooth.calls]


@pytest.mark.parametrize("alpha", [-0.1, 1.0])
def test_smoothing_outside_unit_interval_is_refused(alpha: float) -> None:
    P = np.full(4, 0.25)
    with pytest.raises(ValueError, match="smoothing"):
        column_generation(P, _gain, _Recorder(P, 1.0), P[:, None].copy(), smoothing=alpha)
