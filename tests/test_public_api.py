"""The public API's import paths (issue 24): the same before and after the layout move.

The public API is what the README, the docs and the entry points name: the front doors exported by
``mechopt``; the public modules ``mechopt.errors``, ``settings``, ``utilities``, ``notions``,
``registry``, ``plot``, ``testing`` and ``oracles``; each solver backend ``mechopt.solvers.NAME``;
each problem family's front door ``mechopt.problems.FAMILY``; the catalog ids of the registered
solvers and problems. Private modules (``mechopt.results.result``, ``mechopt.solvers.exact.lp`` ...)
may move; these may not. The list below was written against the tree before the move (71f94da),
where every path resolved too.
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "mechopt": [
        "solve",
        "design",
        "audit_result",
        "audit",
        "compare",
        "sweep",
        "verify",
        "dominates",
        "Dominance",
        "Channel",
        "Result",
        "Status",
        "Certificate",
        "MechoptError",
        "ProblemError",
        "ParamError",
        "SolverError",
        "SolverNotFound",
        "TooLargeError",
        "errors",
        "notions",
        "settings",
        "utilities",
        "__version__",
    ],
    "mechopt.errors": [
        "MechoptError",
        "ProblemError",
        "ParamError",
        "SolverNotFound",
        "SolverError",
        "TooLargeError",
        "InputFileError",
        "MissingDependency",
        "NoChannelError",
    ],
    "mechopt.settings": ["Tolerances", "DEFAULTS", "tolerance", "override", "current", "resolve"],
    "mechopt.utilities": [
        "Utility",
        "SumMSE",
        "HistogramMSE",
        "MutualInfo",
        "MAE",
        "FrequencyVariance",
        "make_utility",
        "UTILITIES",
        "DESIGNED_BY",
    ],
    "mechopt.notions": [
        "Audit",
        "PrivacyNotion",
        "LDP",
        "GraphLDP",
        "LIP",
        "CIP",
        "MIP",
        "PosteriorStatNotion",
        "make_notion",
        "NOTIONS",
        "audit_all",
        "check_eps",
    ],
    "mechopt.registry": [
        "solver_names",
        "get_solver",
        "register_solver",
        "solvers_for",
        "default_solver",
        "split_options",
        "problem_ids",
        "get_problem",
        "register_problem",
        "claims",
        "figures",
    ],
    "mechopt.plot": ["plot_channel", "plot_tradeoff", "log_spaced", "new_axes", "value_label"],
    "mechopt.testing": ["priors", "channels", "eps_values", "prior_and_channel"],
    "mechopt.oracles": [
        "PureOracle",
        "KSubset",
        "GRR",
        "BRR",
        "OUE",
        "UnaryEncoding",
        "project_simplex",
        "regression_estimator",
    ],
    "mechopt.oracles.frequency": ["GRR", "KSubset", "regression_estimator"],
    "mechopt.cli": ["main"],
    "mechopt.solvers.exact": ["ExactSolver"],
    "mechopt.solvers.conic": ["ConicSolver"],
    "mechopt.solvers.sqp": ["SQPSolver"],
    "mechopt.solvers.greedy": ["GreedySolver"],
    "mechopt.solvers.spectral": ["SpectralSolver"],
    "mechopt.solvers.search": ["SearchSolver"],
    "mechopt.solvers.baselines": ["GDPenaltySolver", "AnnealSolver"],
    "mechopt.solvers.closed_form": ["ClosedFormSolver"],
    "mechopt.problems.design": ["ChannelDesign"],
    "mechopt.problems.lip": ["LIPBinary", "LIPMimo", "LIPWeightedSum", "LIPHistogram"],
    "mechopt.problems.kss": ["KssMI", "KSubsetMechanism", "ksubset_mi", "best_ksubset"],
    "mechopt.problems.fisher": ["FisherInterval", "FisherBox", "FisherOutput"],
    "mechopt.problems.gauss": ["GaussProblem", "GaussDataset1", "GaussDataset2"],
}

CATALOG_IDS = {
    "solvers": ["exact", "spectral", "lp", "conic", "greedy", "sqp", "search", "gd-penalty", "anneal", "closed-form"],
    "problems": [
        "design", "geo", "lip-binary", "lip-mimo", "lip-weighted-sum", "lip-histogram", "cip-binomial", "kss-mi",
        "kss-l2",
        "fisher-interval", "fisher-box", "fisher-output", "fisher-weighted", "fisher-gaussian", "fisher-lti",
        "gauss-tradeoff", "gauss-dataset1", "gauss-dataset2",
    ],
}  # fmt: skip


@pytest.mark.parametrize(("module", "names"), sorted(PUBLIC.items()))
def test_public_names_import_from_their_documented_paths(module: str, names: list[str]) -> None:
    mod = importlib.import_module(module)
    missing = [n for n in names if not hasattr(mod, n)]
    assert not missing, f"{module} lost public names {missing}"


def test_the_front_doors_are_in_mechopt_all() -> None:
    import mechopt

    assert set(PUBLIC["mechopt"]) - {"__version__"} <= set(mechopt.__all__)


def test_catalog_ids_resolve_to_the_family_classes() -> None:
    from mechopt import registry
    from mechopt.problems.lip import CIPBinomial, LIPBinary

    assert registry.solver_names()[: len(CATALOG_IDS["solvers"])] == CATALOG_IDS["solvers"]
    assert set(CATALOG_IDS["problems"]) <= set(registry.problem_ids())
    assert registry.get_problem("lip-binary") is LIPBinary
    assert registry.get_problem("cip-binomial") is CIPBinomial
    for pid in CATALOG_IDS["problems"]:
        assert registry.get_problem(pid).id == pid


def test_no_family_is_named_by_prefix_and_no_folder_is_crowded() -> None:
    """No folder holds more than 15 modules, and no four modules of one folder share a name prefix."""
    from collections import Counter
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    for top in ("mechopt", "solvers", "problems"):
        for folder in [root / top, *(p for p in (root / top).rglob("*") if p.is_dir() and p.name != "__pycache__")]:
            mods = [p.stem for p in folder.glob("*.py") if p.stem not in ("__init__", "__main__")]
            assert len(mods) <= 15, f"{folder.relative_to(root)} holds {len(mods)} modules"
            prefixes = Counter(m.lstrip("_").split("_")[0] for m in mods if "_" in m.lstrip("_"))
            crowded = {p: n for p, n in prefixes.items() if n >= 3}
            assert not crowded, f"{folder.relative_to(root)}: a family named by prefix {crowded}"
