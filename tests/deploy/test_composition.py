"""Accounting for repeated use: closed forms (RR, GRR), brute force over Y^k, the accountant's pessimism, bad input."""

from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mechopt import Mechanism
from mechopt.deploy import compose, compose_parallel
from mechopt.deploy.privacy_loss import accountant_delta, exact_delta, pair_loss, pair_losses
from mechopt.errors import ParamError, ProblemError, TooLargeError
from mechopt.oracles import GRR

mpmath.mp.dps = 50


def rr_closed_form(eps0: float, k: int, eps: float) -> mpmath.mpf:
    """δ_k(ε) of RR: Σ_i C(k, i) (p^{k−i} q^i − e^ε p^i q^{k−i})_+ (binomial hockey-stick sum), 50 digits."""
    e0 = mpmath.mpf(eps0)
    p, q = mpmath.e**e0 / (1 + mpmath.e**e0), 1 / (1 + mpmath.e**e0)
    c = mpmath.e ** mpmath.mpf(eps)
    return mpmath.fsum(
        max(0, mpmath.binomial(k, i) * (p ** (k - i) * q**i - c * p**i * q ** (k - i))) for i in range(k + 1)
    )


def kov(eps0: float, k: int, i: int) -> mpmath.mpf:
    """Kairouz–Oh–Viswanath 2015, Thm 3.3: δ at ε = (k − 2i) ε₀ after k uses of ε₀-RR."""
    e = mpmath.e ** mpmath.mpf(eps0)
    return mpmath.fsum(mpmath.binomial(k, l) * (e ** (k - l) - e ** (k - 2 * i + l)) for l in range(i)) / (1 + e) ** k


def grr_closed_form(d: int, eps0: float, k: int, eps: float) -> mpmath.mpf:
    """GRR: the binomial mixture over the j informative reports of RR compositions at ε₀."""
    e = mpmath.e ** mpmath.mpf(eps0)
    inf = (e + 1) / (e + d - 1)  # p + q: a report that is x or x'
    return mpmath.fsum(
        mpmath.binomial(k, j) * inf**j * (1 - inf) ** (k - j) * (rr_closed_form(eps0, j, eps) if j else 0)
        for j in range(k + 1)
    )


def rr(eps0: float) -> np.ndarray:
    p = math.exp(eps0) / (1 + math.exp(eps0))
    return np.array([[p, 1 - p], [1 - p, p]])


@pytest.mark.parametrize("eps0", [0.1, 1.0, 3.0])
@pytest.mark.parametrize("k", [1, 2, 5, 20, 60])
def test_rr_equals_the_binomial_closed_form(eps0: float, k: int) -> None:
    grid = np.linspace(0.0, k * eps0 * 1.1, 13)
    c = compose(rr(eps0), uses=k, eps=grid)
    assert c.method == ("exact",)
    for j, e in enumerate(grid):
        want = float(rr_closed_form(eps0, k, e))
        assert c.delta[0, j] == pytest.approx(want, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("eps0", "k"), [(0.5, 7), (1.0, 10), (2.0, 25)])
def test_rr_meets_kairouz_oh_viswanath_at_its_grid(eps0: float, k: int) -> None:
    grid = [(k - 2 * i) * eps0 for i in range(k // 2 + 1)]
    c = compose(rr(eps0), uses=k, eps=grid)
    for j, i in enumerate(range(k // 2 + 1)):
        # at i = 0 (ε = kε₀) δ is 0 for the real RR; the float channel's ε₀ is off by an ulp, its δ ~1e-17
        assert c.delta[0, j] == pytest.approx(float(kov(eps0, k, i)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("d", "eps0", "k"), [(3, 1.0, 4), (5, 0.7, 15), (8, 2.0, 9)])
def test_grr_equals_the_binomial_mixture(d: int, eps0: float, k: int) -> None:
    grid = np.linspace(0.0, k * eps0, 9)[:-1]  # at kε₀ itself δ is 0 up to the float channel's ulp in ε₀
    c = compose(GRR(d, eps0), uses=k, eps=grid)
    for j, e in enumerate(grid):
        assert c.delta[0, j] == pytest.approx(float(grr_closed_form(d, eps0, k, e)), rel=1e-12, abs=1e-300)


def brute_force(Q: np.ndarray, k: int, eps: float) -> tuple[float, tuple[int, int]]:
    """max over ordered pairs of Σ_{z ∈ Y^k} (P_k(z) − e^ε Q_k(z))_+, by listing every z."""
    best, arg = -1.0, (0, 0)
    for x, x2 in itertools.permutations(range(Q.shape[0]), 2):
        s = math.fsum(
            max(0.0, math.prod(Q[x, y] for y in z) - math.exp(eps) * math.prod(Q[x2, y] for y in z))
            for z in itertools.product(range(Q.shape[1]), repeat=k)
        )
        if s > best:
            best, arg = s, (x, x2)
    return best, arg


def test_exact_equals_brute_force_and_names_the_worst_pair() -> None:
    Q = np.array([[0.6, 0.3, 0.1, 0.0], [0.2, 0.2, 0.3, 0.3], [0.05, 0.15, 0.3, 0.5]])
    m = Mechanism(Q, inputs=["low", "mid", "high"])
    for k, eps in [(1, 0.3), (3, 1.0), (4, 2.5)]:
        want, (x, x2) = brute_force(Q, k, eps)
        c = compose(m, uses=k, eps=eps)
        assert c.delta[0, 0] == pytest.approx(want, rel=1e-12)
        assert c.worst[0][0] == (m.inputs[x], m.inputs[x2])


def test_infinite_loss_counts_at_every_eps() -> None:
    Q = np.array([[0.5, 0.3, 0.2], [0.0, 0.5, 0.5]])  # output 0 singles out input 0 (mass 0.5)
    pl = pair_loss(Q, 0, 1)
    assert pl.infinite == 0.5 and pl.max_loss == math.inf
    for k in (1, 3, 8):
        d = exact_delta(pl, k, [50.0])
        assert d[0] == pytest.approx(1 - 0.5**k, rel=1e-14)
    assert compose(np.eye(3), uses=2, eps=[0.0, 100.0]).delta.tolist() == [[1.0, 1.0]]
    assert math.isinf(compose(Q, uses=1, eps=1.0).eps_ldp) and compose(Q, uses=1, eps=1.0).to_dict()["eps_ldp"] is None


@given(
    st.integers(2, 4),
    st.integers(2, 4),
    st.integers(1, 6),
    st.lists(st.floats(0.05, 1.0), min_size=16, max_size=16),
    st.lists(st.booleans(), min_size=16, max_size=16),
)
@settings(max_examples=25, deadline=None)
def test_accountant_is_never_optimistic(d: int, m: int, k: int, raw: list[float], zero: list[bool]) -> None:
    Q = np.array(raw[: d * m]).reshape(d, m) * ~np.array(zero[: d * m]).reshape(d, m)
    Q[:, 0] += 0.01  # every row has mass
    Q /= Q.sum(axis=1, keepdims=True)
    h = 1e-3
    grid = np.linspace(0.0, 3.0, 7)
    for group in pair_losses(Q):
        pl = group[0]
        exact = exact_delta(pl, k, grid)
        acc = accountant_delta(pl, k, grid, discretization=h)
        assert np.all(acc >= exact), (acc - exact).min()
        # rounding losses up by at most h per use moves ε by at most k·h: never looser than that
        assert np.all(acc <= exact_delta(pl, k, grid - k * h) + 1e-12)


@pytest.mark.parametrize("k", [1, 3, 10])
@pytest.mark.parametrize("method", ["exact", "accountant"])
def test_pure_ldp_gives_zero_delta_at_k_eps0(k: int, method: str) -> None:
    Q = np.array([[0.5, 0.3, 0.2], [0.25, 0.45, 0.3], [0.3, 0.3, 0.4]])
    eps0 = compose(Q, uses=1, eps=0.0).eps_ldp
    c = compose(Q, uses=k, eps=[k * eps0, k * eps0 + 1.0, 0.9 * k * eps0], method=method)
    assert c.delta[0, :2].tolist() == [0.0, 0.0]
    assert c.worst[0][0] is None and c.delta[0, 2] > 0


def test_curve_is_monotone_and_the_accountant_takes_over_past_the_exact_limit() -> None:
    grid = np.linspace(0, 6, 13)
    c = compose(GRR(4, 1.0), uses=[1, 2, 5, 10], eps=grid)
    assert np.all(np.diff(c.delta, axis=1) <= 0) and np.all(np.diff(c.delta, axis=0) >= -1e-15)
    auto = compose(GRR(4, 1.0), uses=12, eps=[2.0, 5.0], limit=50)  # 3 losses: C(14, 2) = 91 > 50 terms
    exact = compose(GRR(4, 1.0), uses=12, eps=[2.0, 5.0])
    assert auto.method == ("dp_accounting pessimistic",) and exact.method == ("exact",)
    assert np.all(auto.delta >= exact.delta) and np.all(auto.delta <= exact.delta + 5e-3)
    with pytest.raises(TooLargeError, match="k <= 10 here"):
        compose(GRR(4, 1.0), uses=12, eps=1.0, method="exact", limit=70)


def test_parallel_composition_is_the_worst_part() -> None:
    parts = {"smoker": rr(1.0), "region": GRR(5, 1.5)}
    grid = [0.0, 1.0, 2.0]
    c = compose_parallel(parts, uses=3, eps=grid)
    each = np.stack([compose(q, uses=3, eps=grid).delta for q in parts.values()])
    assert np.array_equal(c.delta, each.max(axis=0))
    assert c.worst[0][1][0] == ["smoker", "region"][int(each[:, 0, 1].argmax())]
    assert c.parts == ("smoker", "region")
    with pytest.raises(ParamError, match="another uses/eps grid"):
        compose_parallel({"a": compose(rr(1.0), uses=2, eps=grid)}, uses=3, eps=grid)
    with pytest.raises(ParamError):
        compose_parallel({}, uses=1, eps=1.0)


def test_table_dict_and_plot() -> None:
    c = compose(Mechanism(rr(1.0), inputs=["no", "yes"]), uses=[1, 4], eps=[0.0, 2.0])
    assert "no vs yes" in c.table()
    doc = c.to_dict()
    assert doc["uses"] == [1, 4] and len(doc["rows"]) == 4 and doc["rows"][1]["worst"] is None
    assert doc["rows"][2]["worst"] == ["no", "yes"] and doc["discretization"] is None
    ax = c.plot()
    assert len(ax.get_lines()) == 2


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"mech": [[0.5, 0.6], [0.5, 0.5]]}, ProblemError, "row"),
        ({"mech": [[1.0]]}, ProblemError, "one row per input value, at least 2"),
        ({"uses": 0}, ParamError, "uses must be integers >= 1"),
        ({"uses": -3}, ParamError, "uses must be"),
        ({"uses": 2.5}, ParamError, "uses must be"),
        ({"uses": True}, ParamError, "uses must be"),
        ({"eps": float("nan")}, ParamError, "finite numbers >= 0"),
        ({"eps": -1.0}, ParamError, "finite numbers >= 0"),
        ({"eps": []}, ParamError, "finite numbers"),
        ({"eps": "abc"}, ParamError, "eps must be numbers"),
        ({"method": "fast"}, ParamError, "method must be one of"),
        ({"method": "accountant", "discretization": 0.0}, ParamError, "discretization"),
    ],
)
def test_bad_input_raises_typed_errors(kwargs: dict, error: type, match: str) -> None:
    args = {"mech": rr(1.0), "uses": 2, "eps": 1.0, **kwargs}
    with pytest.raises(error, match=match):
        compose(args.pop("mech"), **args)


def test_accountant_without_dp_accounting_names_the_extra(monkeypatch) -> None:
    import sys

    from mechopt.errors import MissingDependency

    for name in [m for m in sys.modules if m == "dp_accounting" or m.startswith("dp_accounting.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "dp_accounting", None)  # import now fails as if not installed
    with pytest.raises(MissingDependency, match=r"pip install 'mechopt\[accounting\]'"):
        compose(rr(1.0), uses=3, eps=1.0, method="accountant")
    assert compose(rr(1.0), uses=3, eps=1.0).method == ("exact",)  # the exact path needs no extra


@pytest.mark.parametrize("seed", [0, 1])
def test_pair_groups_cover_every_pair_and_share_their_distribution(seed: int) -> None:
    rng = np.random.default_rng(seed)
    base = rng.dirichlet(np.ones(4), size=3)
    Q = np.vstack([base, base[::-1, ::-1], GRR(4, 1.0).matrix()])  # repeated and permuted rows, a symmetric block
    Q[0, 1] = 0.0
    Q[0] /= Q[0].sum()
    groups = pair_losses(Q)
    pairs = [p for _, ps in groups for p in ps]
    assert sorted(pairs) == list(itertools.permutations(range(Q.shape[0]), 2))
    for pl, ps in groups:
        assert all(pair_loss(Q, *p).key() == pl.key() for p in ps)
    assert len({pl.key() for pl, _ in groups}) == len(groups) < len(pairs)


def test_auto_is_exact_for_the_pairs_within_the_limit() -> None:
    # pair (0, 1) has 2 distinct losses, pair (1, 0) too; rows 0 and 2 differ in 4 outputs: 4 losses
    Q = np.array([[0.4, 0.2, 0.2, 0.2], [0.1, 0.3, 0.3, 0.3], [0.1, 0.2, 0.3, 0.4]])
    grid = [0.5, 1.0]
    mixed = compose(Q, uses=6, eps=grid, limit=40)  # C(7, 1) = 7 <= 40 < C(9, 3) = 84 terms
    assert mixed.method == ("dp_accounting pessimistic + exact",) and mixed.discretization == 1e-4
    exact = compose(Q, uses=6, eps=grid)
    assert np.all(mixed.delta >= exact.delta) and np.all(mixed.delta <= exact.delta + 1e-3)


def test_an_accountant_grid_too_fine_to_compute_is_refused_at_once() -> None:
    """Hostile-five: ``account g2.json --uses 10 --eps 3 --method accountant --discretization 1e-12`` ran past 240 s
    (a grid of 2.2e12 points); a channel with masses 1e-300 (losses ±691 nats) took 180 s at the default 1e-4."""
    pytest.importorskip("dp_accounting")
    from mechopt.deploy.privacy_loss import ACCOUNTANT_MAX_POINTS

    Q = [[0.75, 0.25], [0.25, 0.75]]
    with pytest.raises(TooLargeError, match=r"2\.2e\+12 points .* discretization >= 1\.1e-06 or method 'exact'"):
        compose(Q, uses=10, eps=3.0, method="accountant", discretization=1e-12)
    tiny = [[1 - 1e-300, 1e-300], [1e-300, 1 - 1e-300]]
    with pytest.raises(TooLargeError, match="1.38e\\+07 points"):
        compose(tiny, uses=10, eps=3.0, method="accountant")
    assert compose(tiny, uses=10, eps=3.0, method="exact").delta[0, 0] == pytest.approx(1.0)
    fine = 2 * np.log(3) / ACCOUNTANT_MAX_POINTS * 1.01  # just inside the limit: computed, never below exact
    ok = compose(Q, uses=2, eps=0.5, method="accountant", discretization=fine).delta[0, 0]
    assert ok >= compose(Q, uses=2, eps=0.5, method="exact").delta[0, 0]
