"""Entry-point registry, lazy imports (cold start) and lean extras (issue 18, points 1 and 7)."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

import mechopt
from mechopt import registry
from mechopt.errors import MissingDependency, ProblemError, SolverNotFound
from mechopt.problems.design import ChannelDesign

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("cvxpy", "matplotlib", "networkx", "hypothesis", "numba", "pandas")
PROBE = """
import contextlib, io, json, sys
argv = {argv!r}
out = io.StringIO()
if argv is None:
    import mechopt
    code = 0
else:
    from mechopt.cli import main
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
print(json.dumps({{"code": code, "out": out.getvalue(), "heavy": [m for m in {heavy!r} if m in sys.modules]}}))
"""


def _probe(argv: list[str] | None) -> dict:
    """Run ``argv`` (None: ``import mechopt``) in a fresh interpreter; its exit code, stdout and heavy imports."""
    got = subprocess.run(
        [sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=str(ROOT),
    )
    assert got.returncode == 0, got.stderr
    return json.loads(got.stdout.strip().splitlines()[-1])


# -- cold start: nothing heavy is imported unless needed ------------------------------------
def test_import_mechopt_imports_no_heavy_module() -> None:
    assert _probe(None)["heavy"] == []


def test_cli_help_imports_no_heavy_module() -> None:
    got = _probe(["--help"])
    assert got["code"] == 0 and "design" in got["out"]
    assert got["heavy"] == []


def test_small_exact_design_imports_no_heavy_module() -> None:
    got = _probe(["design", "--notion", "ldp", "--utility", "mi", "--prior", "0.2,0.3,0.5", "--eps", "1", "--json"])
    doc = json.loads(got["out"])
    assert got["code"] == 0 and doc["solver"] == "exact" and doc["status"] == "optimal"
    # 3-ary ε-LDP with ε = 1: the optimum is the 3-RR channel, I = 0.1141204685 nats (also certified)
    assert doc["value"] == pytest.approx(0.1141204685, abs=1e-9)
    assert got["heavy"] == []


def test_conic_solver_loads_without_cvxpy_and_imports_it_to_solve() -> None:
    code = (
        "import sys\nfrom mechopt import registry\nregistry.get_solver('conic')\n"
        "before = 'cvxpy' in sys.modules\nimport mechopt\n"
        "p = registry.get_problem('fisher-interval').from_params(a='-1', b='1', n='40')\n"
        "r = mechopt.solve(p, solver='conic')\nprint(before, 'cvxpy' in sys.modules, r.status.value)"
    )
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=str(ROOT))
    assert got.stdout.split() == ["False", "True", "optimal"], got.stderr


def test_pre_check_skips_solvers_whose_form_the_problem_lacks() -> None:
    from mechopt.solvers.conic import ConicSolver
    from mechopt.solvers.exact.solver import ExactSolver
    from mechopt.solvers.spectral import SpectralSolver

    prob = ChannelDesign.from_params(prior="0.3,0.7", notion="lip", utility="mse", eps=1.0)
    assert ExactSolver.may_apply(prob) and not SpectralSolver.may_apply(prob)
    # ChannelDesign offers a conic form (utilities linear in Q, e.g. mae) and declines it for mse, building nothing
    assert ConicSolver.may_apply(prob) and prob.conic_form() is None and not ConicSolver().can_solve(prob)
    fisher = registry.get_problem("fisher-interval").from_params(a="-1", b="1", n="40")
    assert ConicSolver.may_apply(fisher) and SpectralSolver.may_apply(fisher) and not ExactSolver.may_apply(fisher)
    assert registry.default_solver(prob) == "exact" == registry.solvers_for(prob)[0]


def test_conic_status_strings_are_cvxpys() -> None:
    import cvxpy as cp

    from mechopt.solvers.conic import CVXPY_STATUS

    names = (
        "OPTIMAL",
        "OPTIMAL_INACCURATE",
        "INFEASIBLE",
        "INFEASIBLE_INACCURATE",
        "UNBOUNDED",
        "UNBOUNDED_INACCURATE",
        "USER_LIMIT",
        "SOLVER_ERROR",
    )
    assert sorted(CVXPY_STATUS) == sorted(getattr(cp, n) for n in names)


# -- the registry reads entry points -------------------------------------------------------------
def _entry_points_of_pyproject() -> dict[str, dict[str, str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["entry-points"]


def test_pyproject_declares_the_builtins_in_order() -> None:
    eps = _entry_points_of_pyproject()
    assert list(eps[registry.SOLVER_GROUP].items()) == list(registry.BUILTIN_SOLVERS.items())
    assert list(eps[registry.PROBLEM_GROUP].items()) == list(registry.BUILTIN_PROBLEMS.items())
    assert registry.solver_names()[: len(registry.BUILTIN_SOLVERS)] == list(registry.BUILTIN_SOLVERS)


def test_installed_metadata_declares_the_builtins() -> None:
    ours = {
        ep.name: ep.value
        for ep in importlib.metadata.entry_points(group=registry.SOLVER_GROUP)
        if ep.dist is not None and ep.dist.name == "mechopt"
    }
    if not ours:
        pytest.skip("installed metadata predates the entry points: pip install -e . refreshes it")
    assert ours == registry.BUILTIN_SOLVERS


def test_every_builtin_entry_point_loads_its_class() -> None:
    for name in registry.BUILTIN_SOLVERS:
        assert type(registry.get_solver(name)).name == name
    for pid in registry.BUILTIN_PROBLEMS:
        assert isinstance(registry.get_problem(pid), type)


@pytest.fixture
def plugin_dir(tmp_path, monkeypatch):
    """A third-party distribution on sys.path: a dist-info with entry points and its module."""

    def make(dist: str, module: str, source: str, solvers: dict[str, str]) -> None:
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        info = tmp_path / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
        lines = "".join(f"{k} = {v}\n" for k, v in solvers.items())
        (info / "entry_points.txt").write_text(f"[{registry.SOLVER_GROUP}]\n{lines}", encoding="utf-8")

    monkeypatch.syspath_prepend(str(tmp_path))
    registry.refresh()
    yield make
    monkeypatch.undo()
    for mod in [m for m in sys.modules if m.startswith("mechopt_") and m.endswith("_plugin")]:
        del sys.modules[mod]
    registry.refresh()


PLUGIN = """
from mechopt.solvers.exact.solver import ExactSolver

class TwinSolver(ExactSolver):
    name = "twin-exact"
"""


def test_third_party_entry_point_registers_a_solver_lazily(plugin_dir) -> None:
    plugin_dir(
        "mechopt-twin",
        "mechopt_twin_plugin",
        PLUGIN,
        {"twin-exact": "mechopt_twin_plugin:TwinSolver", "exact": "mechopt_twin_plugin:TwinSolver"},
    )
    registry.refresh()
    names = registry.solver_names()
    assert names[: len(registry.BUILTIN_SOLVERS)] == list(registry.BUILTIN_SOLVERS)  # built-ins keep their order
    assert names[len(registry.BUILTIN_SOLVERS)] == "twin-exact"  # the plugin comes after
    assert "mechopt_twin_plugin" not in sys.modules  # listed, not imported
    assert type(registry.get_solver("exact")).__name__ == "ExactSolver"  # a plugin cannot take a built-in name
    prob = ChannelDesign.from_params(prior="0.2,0.3,0.5", notion="ldp", utility="mi", eps=1.0)
    twin, exact = mechopt.solve(prob, solver="twin-exact"), mechopt.solve(prob, solver="exact")
    assert type(registry.get_solver("twin-exact")).__module__ == "mechopt_twin_plugin"  # imported on demand
    assert twin.status.value == "optimal" and twin.value == pytest.approx(exact.value, abs=1e-12)
    assert "twin-exact" in registry.solvers_for(prob) and registry.default_solver(prob) == "exact"


def test_broken_third_party_entry_point_is_named_and_skipped(plugin_dir) -> None:
    plugin_dir(
        "mechopt-broken",
        "mechopt_broken_plugin",
        "import no_such_module_q7\n",
        {"broken": "mechopt_broken_plugin:Nope"},
    )
    registry.refresh()
    with pytest.raises(SolverNotFound, match=r"solver 'broken' .*package mechopt-broken.*no_such_module_q7"):
        registry.get_solver("broken")
    prob = ChannelDesign.from_params(prior="0.5,0.5", notion="ldp", utility="mi", eps=1.0)
    with pytest.warns(UserWarning, match="mechopt-broken"):
        names = registry.solvers_for(prob)
    assert names[0] == "exact" and "broken" not in names


def test_unknown_problem_and_register_problem() -> None:
    with pytest.raises(ProblemError, match="unknown problem 'nope'; known: design, "):
        registry.get_problem("nope")
    registry.register_problem("design-copy", ChannelDesign)
    try:
        assert registry.problem_ids()[-1] == "design-copy" and registry.get_problem("design-copy") is ChannelDesign
    finally:
        registry._extra_problems.pop("design-copy")


# -- lean extras ------------------------------------------------------------------------------------
# The heavy peers (numba/llvmlite alone are ~150 MB). pandas is not one of them any more: the `data` extra and
# the tests of labelled reports (pandas Series in, Series out) need it, so the test extra declares it.
PEERS = {"statsmodels", "scikit-learn", "pure-ldp", "multi-freq-ldpy"}  # numba is our own extra too (fast)


def _requirements(extra: str | None) -> set[str]:
    """Distribution names the installed metadata requires for ``extra`` (None: the core)."""
    out = set()
    for req in importlib.metadata.requires("mechopt") or []:
        name = re.match(r"[A-Za-z0-9._-]+", req).group(0).lower()
        marker = re.search(r"""extra\s*==\s*['"]([^'"]+)['"]""", req)
        if (marker.group(1) if marker else None) == extra:
            out.add(name)
    return out


def test_test_extra_is_lean_and_peers_are_declared() -> None:
    if not _requirements("peers"):
        pytest.skip("installed metadata predates the peers extra: pip install -e . refreshes it")
    test, core = _requirements("test"), _requirements(None)
    assert not test & PEERS and not core & PEERS, (test & PEERS, core & PEERS)
    assert {"pytest", "hypothesis", "pytest-timeout", "joblib", "matplotlib", "pandas"} <= test
    assert {"numba", "pure-ldp", "multi-freq-ldpy", "scikit-learn", "statsmodels"} <= _requirements("peers")
    assert {"numba"} <= _requirements("fast") and "numba" in test  # the compiled samplers are tested in CI
    assert "matplotlib" not in core and "matplotlib" in _requirements("plot")
    assert {"cvxpy", "numpy", "scipy", "networkx"} <= core


# -- optional dependencies say which extra installs them -----------------------------------------
def test_plots_without_matplotlib_name_the_plot_extra(monkeypatch, tmp_path, capsys) -> None:
    from mechopt.cli import main
    from mechopt.jobs.reproduce import reproduce
    from mechopt.jobs.sweep.run import sweep_figure
    from mechopt.runtime.optional import require_matplotlib

    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")] + ["matplotlib"]:
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(MissingDependency, match=r"pip install 'mechopt\[plot\]'"):
        require_matplotlib()
    with pytest.raises(MissingDependency, match=r"mechopt\[plot\]"):
        sweep_figure([{"solver": "sqp", "point": {"eps": 1.0}, "status": "optimal", "value": 0.1}])
    with pytest.raises(MissingDependency, match=r"mechopt\[plot\]"):
        reproduce(["fisher-fig2"], tmp_path / "figs")
    assert not (tmp_path / "figs").exists()
    assert main(["compare", "--problem", "lip-binary", "--plot", str(tmp_path / "plots")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install 'mechopt[plot]'" in err
    assert not list(tmp_path.rglob("*.png"))


def test_testing_strategies_without_hypothesis_name_the_test_extra(monkeypatch) -> None:
    import mechopt.testing as mt

    for mod in [m for m in sys.modules if m == "hypothesis" or m.startswith("hypothesis.")] + ["hypothesis"]:
        monkeypatch.setitem(sys.modules, mod, None)
    with pytest.raises(MissingDependency, match=r"pip install 'mechopt\[test\]'"):
        mt.priors()


def test_missing_peer_names_the_peers_extra(monkeypatch) -> None:
    from mechopt.oracles import peers

    monkeypatch.setattr(peers, "available", lambda lib: False)
    with pytest.raises(MissingDependency, match=r"pure-ldp .*pip install 'mechopt\[peers\]'"):
        peers.client("pure-ldp", "DE", 4, 1.0)


def test_bench_cold_is_discovered_and_probes_heavy_imports() -> None:
    from mechopt.jobs.bench import discover, load_cases

    path = [p for p in discover() if p.name == "bench_cold.py"][0]
    cases = load_cases(path)
    assert [c.__name__ for c in cases] == ["cold_start"]
    mod = sys.modules["mechopt_bench_bench_cold"]
    assert mod.command(["--help"])[-3:] == ["-m", "mechopt", "--help"]
    assert mod.heavy_imports(None) == [] and "cvxpy" in mod.HEAVY
