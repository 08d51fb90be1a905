"""mechopt.geo: places, distances, priors from counts, baselines (audited, never better than the optimum), the map."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import dblquad

import mechopt
from mechopt.errors import ProblemError
from mechopt.geo import bin_points, grid, parse_places, points, prior_from_counts, prior_from_density
from mechopt.geo.baselines import exponential_mechanism, planar_laplace, remap
from mechopt.notions import MetricLDP
from mechopt.problems.geo import GeoDesign
from mechopt.results.result import Status


def test_haversine_distance_is_the_great_circle():
    # one degree of latitude is 2πR/360 km; Paris–London 343.5 km (mean Earth radius)
    pl = points([[0.0, 0.0], [1.0, 0.0], [48.8566, 2.3522], [51.5074, -0.1278]], norm="haversine")
    D = pl.distances()
    assert D[0, 1] == pytest.approx(2 * np.pi * 6371.0088 / 360, rel=1e-12)
    assert D[2, 3] == pytest.approx(343.56, abs=0.05)
    assert np.array_equal(D, D.T) and np.all(np.diag(D) == 0)


def test_places_refuse_bad_input():
    for bad, kw in (([[1.0, np.nan], [0, 0]], {}), ([[91.0, 0.0], [0, 0]], {"norm": "haversine"}), ([[0, 0]], {})):
        with pytest.raises(ProblemError):
            points(bad, **kw).distances()
    with pytest.raises(ProblemError, match="unknown norm"):
        parse_places("grid:3", "chebyshev")


def test_coordinates_file(tmp_path):
    f = tmp_path / "pts.csv"
    f.write_text("# lat, lon\n48.85, 2.35\n48.86, 2.36\n48.87,2.30\n")
    pl = parse_places(str(f), "haversine")
    assert pl.n == 3 and pl.norm == "haversine"
    (tmp_path / "bad.csv").write_text("1, 2\n3\n")
    with pytest.raises(ProblemError, match="same number"):
        parse_places(str(tmp_path / "bad.csv"))


def test_priors_from_counts_density_and_points():
    g = grid(3)
    assert prior_from_counts(bin_points(g, [[0, 0], [0.2, 0.1], [2, 2]])).tolist() == [2 / 3] + [0.0] * 7 + [1 / 3]
    P = prior_from_density(g, lambda xy: np.exp(-((xy - 1) ** 2).sum(axis=1)))
    assert P.argmax() == 4 and P.sum() == pytest.approx(1.0)
    with pytest.raises(ProblemError):
        prior_from_counts([0, 0, 0])


@pytest.mark.parametrize("k,eps", [(3, 1.0), (5, 0.3), (6, 2.0)])
def test_planar_laplace_is_exactly_private_and_matches_quadrature(k, eps):
    g = grid(k)
    Q = planar_laplace(g, eps)
    assert np.allclose(Q.sum(axis=1), 1.0, atol=1e-12)
    assert MetricLDP(eps, g.distances()).epsilon(Q, None) <= eps + 1e-9
    f = lambda z2, z1: eps**2 / (2 * np.pi) * np.exp(-eps * np.hypot(z1, z2))  # noqa: E731
    x, y = 0, k + 1  # (0, 0) to (1, 1): an interior cell for k ≥ 3
    xi, xj, yi, yj = 0, 0, 1, 1
    v, _ = dblquad(f, yi - 0.5 - xi, yi + 0.5 - xi, yj - 0.5 - xj, yj + 0.5 - xj, epsabs=1e-14, epsrel=1e-12)
    assert Q[x, y] == pytest.approx(v, rel=1e-9)


def test_exponential_mechanism_and_remap_are_private_for_any_metric():
    rng = np.random.default_rng(3)
    pl = points(rng.uniform(0, 5, size=(9, 2)))
    Q = exponential_mechanism(pl, 0.8)
    notion = MetricLDP(0.8, pl.distances())
    P = rng.dirichlet(np.ones(9))
    R = remap(Q, P, pl.distances())
    assert notion.epsilon(Q, None) <= 0.8 + 1e-12 and notion.epsilon(R, None) <= 0.8 + 1e-12
    loss = lambda M: float(np.sum(P[:, None] * M * pl.distances()))  # noqa: E731
    assert loss(R) <= loss(Q) + 1e-12  # the Bayes remap never hurts


@pytest.mark.parametrize("coords,eps", [("grid:5x5", 0.4), ("line:15", 0.3)])
def test_baselines_are_feasible_and_never_beat_the_certified_optimum(coords, eps):
    rng = np.random.default_rng(0)
    n = parse_places(coords).n
    prob = GeoDesign.from_params(coords=coords, eps=eps, prior=rng.dirichlet(np.ones(n)))
    r = mechopt.solve(prob)
    assert r.status is Status.OPTIMAL
    base = prob.baselines()
    assert set(base) == {"planar-laplace", "planar-laplace+remap"}
    for b in base.values():
        assert b.status is Status.FEASIBLE and b.violation <= 1e-7 and "not optimal" in b.message
        assert b.value >= r.certificate.bound - 1e-12
    assert base["planar-laplace+remap"].value <= base["planar-laplace"].value + 1e-12


def test_geo_problem_rejects_what_does_not_apply():
    with pytest.raises(ProblemError, match="loss"):
        GeoDesign.from_params(coords="grid:3", eps=1.0, utility="mse")
    with pytest.raises(ProblemError, match="9 locations"):
        GeoDesign.from_params(coords="grid:3", eps=1.0, prior="uniform:4")
    with pytest.raises(ProblemError, match="mip"):
        GeoDesign.from_params(coords="grid:3", eps=1.0, notion="mip")
    with pytest.raises(ProblemError, match="graph-ldp on places needs a grid"):
        GeoDesign.from_params(coords=[[0, 0], [1, 3], [2, 2]], eps=1.0, notion="graph-ldp")


def test_other_outputs_and_a_squared_loss():
    prob = GeoDesign.from_params(coords="grid:3", eps=0.7, outputs="grid:2", power=2.0)
    r = mechopt.solve(prob)
    assert r.status is Status.OPTIMAL and r.Q.shape == (9, 4) and r.violation <= 1e-7


def test_plot_map_draws_into_the_given_axes():
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from mechopt.geo.plot import plot_map

    pl = grid(4)
    r = mechopt.solve(GeoDesign.from_params(coords=pl, eps=0.5))
    ax = Figure().subplots()
    assert plot_map(r, pl, prior=np.full(16, 1 / 16), ax=ax) is ax
    assert len(ax.collections) >= 2  # the discs, the points and the arrows
    with pytest.raises(ProblemError, match="source"):
        plot_map(r, pl, source=99)
    hav = points([[48.85, 2.35], [48.86, 2.36], [48.87, 2.30]], norm="haversine")
    ax2 = plot_map(np.eye(3), hav)
    assert ax2.get_xlabel() == "longitude"
