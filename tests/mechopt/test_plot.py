"""mechopt.plot, Result.Q / unit / _repr_html_ / plot, and the one iteration-limit name ``max_iter``."""

from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.figure import Figure

import mechopt
from mechopt.errors import NoChannelError, ParamError
from mechopt.plot import log_spaced, plot_channel, plot_tradeoff
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Result


@pytest.fixture
def user_backend():
    """A backend the user chose (pdf); the plot functions must leave it set. Restored afterwards."""
    old = matplotlib.get_backend()
    matplotlib.use("pdf")
    yield "pdf"
    matplotlib.use(old)


@pytest.fixture(scope="module")
def mi_result():
    return mechopt.design(prior="0.2,0.3,0.5", notion="ldp", utility="mi", eps=1.0, solver="exact")


def test_plot_channel_into_callers_axes(user_backend, mi_result):
    fig = Figure()
    ax = fig.subplots()
    out = plot_channel(mi_result, prior=[0.2, 0.3, 0.5], ax=ax)
    assert out is ax and isinstance(out, Axes) and out.figure is fig
    assert matplotlib.get_backend() == user_backend
    labels = [a.get_ylabel() for a in fig.axes]
    assert "P(Y=y | X=x)" in labels and "P(X=x | Y=y)" in labels  # both colourbars labelled
    assert ax.get_title() == "Q[x, y] = P(Y=y | X=x)" and "nats" in fig.get_suptitle()
    shown = ax.get_images()[0].get_array()
    assert np.allclose(shown, mi_result.Q)  # the heatmap is Q, rows are inputs
    post = fig.axes[3].get_images()[0].get_array()
    assert np.allclose(post.sum(axis=0), 1.0)  # posteriors are distributions over x


def test_channel_and_result_plot_methods_return_axes(user_backend, mi_result):
    assert isinstance(mechopt.Channel(mi_result.Q).plot(), Axes)
    ax = mi_result.plot()
    assert isinstance(ax.figure, Figure) and len(ax.figure.axes) == 2  # no prior: heatmap + colourbar
    assert matplotlib.get_backend() == user_backend


def test_plot_tradeoff_log_axis_for_log_grid(user_backend):
    results = [
        mechopt.design(prior="0.3,0.7", notion="ldp", utility="mi", eps=e, solver="exact")
        for e in np.logspace(-1, 1, 4)
    ]
    ax = plot_tradeoff(results)
    assert ax.get_xscale() == "log" and ax.get_ylabel() == "mi (nats; maximised)"
    xs, ys = ax.get_lines()[0].get_data()
    assert np.allclose(xs, np.logspace(-1, 1, 4)) and np.all(np.diff(ys) > 0)  # more ε, more information
    lin = plot_tradeoff({"a": ([0.5, 1.0, 1.5], [3.0, 2.0, 1.0])}, ax=Figure().subplots())
    assert lin.get_xscale() == "linear"
    assert plot_tradeoff({"a": ([0.5, 1.0, 1.5], [3.0, 2.0, 1.0])}, logx=True).get_xscale() == "log"
    assert matplotlib.get_backend() == user_backend


def test_log_spaced():
    assert log_spaced(np.geomspace(0.01, 100, 9)) and not log_spaced(np.linspace(0.1, 10, 9))
    assert not log_spaced([1, 10]) and not log_spaced([-1, 1, 10]) and not log_spaced(["a", "b", "c"])


def test_sweep_figure_log_axis_for_log_grid(user_backend):
    from mechopt.jobs.sweep.run import sweep_figure

    lines = [
        {
            "solver": "exact",
            "point": {"eps": float(e)},
            "status": "optimal",
            "proof": "certificate",
            "value": float(1 - np.exp(-e)),
            "problem": "design",
            "objective": "mi",
            "sense": "max",
            "unit": "nats",
        }
        for e in np.logspace(-2, 1, 5)
    ]
    ax = Figure().subplots()
    fig = sweep_figure(lines, ax=ax)
    assert fig is ax.figure and ax.get_xscale() == "log" and ax.get_ylabel() == "mi (nats; maximised)"
    lines_lin = [{**ln, "point": {"eps": float(i + 1)}} for i, ln in enumerate(lines)]
    assert sweep_figure(lines_lin).axes[0].get_xscale() == "linear"
    assert matplotlib.get_backend() == user_backend


def test_no_matplotlib_use_in_the_package():
    from pathlib import Path

    root = Path(mechopt.__file__).parent
    hits = [
        str(p)
        for p in [
            *root.rglob("*.py"),
            *(root.parent / "solvers").rglob("*.py"),
            *(root.parent / "problems").rglob("*.py"),
        ]
        if "matplotlib.use(" in p.read_text() or "import matplotlib.pyplot" in p.read_text()
    ]
    assert hits == []


def test_result_Q_raises_without_a_channel():
    """Measured by a user: uniform:40 with mi gave an optimal result whose Q was nan (a 0-d array).
    uniform:40 now returns a 40 x 40 Q (issue 16); a Q over the memory budget is a structured plan."""
    assert mechopt.design(prior="uniform:40", notion="ldp", utility="mi", eps=1.0).Q.shape[0] == 40
    r = mechopt.design(prior="uniform:1000", notion="ldp", utility="mi", eps=1.0, solver="exact", max_memory=1e6)
    assert r.status.value == "optimal" and r.mechanism is None and "plan" in r.extras
    with pytest.raises(NoChannelError, match="max_memory"):
        r.Q
    with pytest.raises(NoChannelError, match="use result.mechanism"):
        Result(status="optimal", value=1.0, sense="min", objective="fisher_trace", mechanism={"density": [1]}).Q
    with pytest.raises(NoChannelError, match="has no mechanism"):
        Result(status="infeasible", value=None, sense="min", objective="mse").Q
    html = r._repr_html_()
    assert "optimal" in html and "nats" in html and "certificate" in html and "<td>" not in html.split("</table>")[1]


def test_repr_html_shows_small_Q_and_units(mi_result):
    html = mi_result._repr_html_()
    assert f"{mi_result.value:.10g} nats" in html and "audited ε" in html
    assert html.count("<td>") == mi_result.Q.size  # every entry of a d ≤ 16 channel


@pytest.mark.parametrize(
    "utility,unit",
    [("mi", "nats"), ("mse", "squared units of the values"), ("histogram", "unitless (squared probability)")],
)
def test_every_result_carries_its_unit(utility, unit):
    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility=utility, eps=1.0)
    r = mechopt.solve(prob, solver="sqp", n_starts=2)
    assert r.unit == unit == prob.unit and r.to_dict()["unit"] == unit
    assert (
        ChannelDesign.from_params(prior="0.3,0.7", notion="ldp", utility="mae", eps=1.0).unit == "units of the values"
    )


def test_fisher_unit():
    prob = mechopt.registry.get_problem("fisher-interval").from_params(a=-1, b=1, n=63)
    assert mechopt.solve(prob, solver="spectral", n=63).unit.startswith("1/units²")


@pytest.mark.filterwarnings("ignore:Solution may be inaccurate")  # cvxpy's word for Clarabel stopped at 1 iteration
@pytest.mark.parametrize(
    "solver,problem,opts",
    [
        ("sqp", "design", {"n_starts": 1}),
        ("exact", "design", {"method": "colgen"}),
        ("gd-penalty", "gauss", {}),
        ("greedy", "gauss", {}),
        ("conic", "fisher", {}),
    ],
)
def test_max_iter_accepted_everywhere(solver, problem, opts):
    prob = _problem(problem)
    r = mechopt.solve(prob, solver=solver, max_iter=1, **opts)
    assert r.status.value == "iteration_limit", (solver, r.status, r.message)  # one iteration stops every method
    assert "deprecated" not in r.message


def test_maxiter_is_deprecated_spelling_with_a_note():
    prob = _problem("design")
    new = mechopt.solve(prob, solver="sqp", n_starts=2, max_iter=1)
    old = mechopt.solve(prob, solver="sqp", n_starts=2, maxiter=1)
    assert old.value == new.value and old.status is new.status
    assert "option 'maxiter' is deprecated: use 'max_iter'" in old.message
    with pytest.raises(ParamError, match="give only 'max_iter'"):
        mechopt.solve(prob, solver="sqp", maxiter=1, max_iter=2)
    with pytest.raises(ParamError, match="same limit"):
        mechopt.solve(_problem("fisher"), solver="conic", max_iter=3, backend_options={"max_iter": 3})


def _problem(kind: str):
    from mechopt.registry import get_problem

    if kind == "design":
        return ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="lip", utility="mse", eps=0.5)
    if kind == "fisher":
        return get_problem("fisher-interval").from_params(a=-1, b=1, n=63)
    return get_problem("gauss-dataset1").from_params()
