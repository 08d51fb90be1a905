"""Run every docstring example of the package (the docs promise they run)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import mechopt


def _modules() -> list[str]:
    names = ["mechopt", "_mechopt_entry"]  # the console script's entry module sits beside the package
    for info in pkgutil.walk_packages(mechopt.__path__, "mechopt."):
        names.append(info.name)
    for sub in ("mechopt.solvers", "mechopt.problems"):
        pkg = importlib.import_module(sub)
        names += [sub] + [i.name for i in pkgutil.walk_packages(pkg.__path__, sub + ".")]
    return sorted(set(names))


MODULES = _modules()


def test_every_module_is_collected() -> None:
    assert {"mechopt.model.channel", "mechopt.solvers.sqp", "mechopt.problems.design"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(module, name):
        runner.run(test)
    res = runner.summarize(verbose=False)
    assert res.failed == 0, f"{res.failed} doctest failure(s) in {name}"
