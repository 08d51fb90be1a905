"""The package layout has no import cycles (issue #18, point 10).

Every module of the distribution is parsed with :mod:`ast` (``mechopt/`` plus the
top-level ``solvers/`` and ``problems/`` folders, which pyproject maps to
``mechopt.solvers`` and ``mechopt.problems``). Every import of a package module
counts, wherever it is written: at module level, inside a function or class body,
or under ``if TYPE_CHECKING:`` -- a deferred import still is a dependency. An edge
``a -> b`` means module ``a`` imports module ``b``; ``from pkg import name`` points
at the submodule ``pkg.name`` when that is a module, else at ``pkg`` itself. Parent
packages are not implied (importing ``mechopt.results.result`` runs ``mechopt/__init__``,
but that is Python's loading order, not a dependency one writes).
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"mechopt": ROOT / "mechopt", "mechopt.solvers": ROOT / "solvers", "mechopt.problems": ROOT / "problems"}


def _modules() -> dict[str, Path]:
    """Dotted module name -> source file, for every module of the distribution."""
    found: dict[str, Path] = {}
    for package, folder in FOLDERS.items():
        for path in sorted(folder.rglob("*.py")):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join([package, *parts])] = path
    return found


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> set[str]:
    """Package modules that one import statement of ``module`` depends on."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)]
        source = ".".join(base + ([node.module] if node.module else []))
    else:
        source = node.module or ""
    out = set()
    for alias in node.names:
        sub = f"{source}.{alias.name}"
        if sub in known:
            out.add(sub)
        elif source in known:
            out.add(source)
    return out


def import_graph() -> nx.DiGraph:
    """The intra-package import graph (module- and function-level imports alike)."""
    modules = _modules()
    known = set(modules)
    graph = nx.DiGraph()
    graph.add_nodes_from(known)
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, name, path.name == "__init__.py", known):
                    if target != name:
                        graph.add_edge(name, target)
    return graph


def test_graph_sees_the_package() -> None:
    graph = import_graph()
    # The walk reaches all three folders and both kinds of import.
    assert {
        "mechopt.results.result",
        "mechopt.solvers.exact.solver",
        "mechopt.problems.lip.problems",
        "mechopt.cli",
    } <= set(graph)
    assert graph.has_edge("mechopt.solvers.exact.solver", "mechopt.results.result")
    assert graph.number_of_edges() > 300


def test_no_import_cycles() -> None:
    cycles = list(nx.simple_cycles(import_graph()))
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join([*c, c[0]]) for c in cycles)
