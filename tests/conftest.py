"""Fixtures shared across test folders."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings as _hypothesis_settings

# Property tests draw the same examples on every run and machine (a CI result is reproducible); set
# MECHOPT_HYPOTHESIS_RANDOM=1 to explore new ones (the `-m slow` twins always do). No per-example deadline: a
# loaded machine must not fail a property (speed is measured in benchmarks/, never asserted by a test).
_hypothesis_settings.register_profile(
    "mechopt-default", derandomize=not os.environ.get("MECHOPT_HYPOTHESIS_RANDOM"), deadline=None
)
_hypothesis_settings.load_profile("mechopt-default")

_SWEEP = """
problem = "design"
solvers = ["sqp"]
[fixed]
notion = "lip"
utility = "histogram"
[grid]
prior = {priors}
eps = {eps}
[options.sqp]
n_starts = {n}
"""


@pytest.fixture
def sweep_spec(tmp_path: Path) -> Callable[..., Path | str]:
    """``sweep_spec(priors, eps, n_starts=3, write=True)``: a small LIP-histogram SQP sweep spec.

    Written to ``tmp_path / "spec.toml"`` (the path is returned), or with
    ``write=False`` returned as TOML text.
    """

    def make(priors: Sequence[str], eps: Sequence[float], n_starts: int = 3, write: bool = True) -> Path | str:
        text = _SWEEP.format(priors=json.dumps(list(priors)), eps=json.dumps(list(eps)), n=n_starts)
        if not write:
            return text
        path = tmp_path / "spec.toml"
        path.write_text(text)
        return path

    return make


@dataclass
class Run:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def cli(capsys):
    """``cli(*argv)`` → Run(code, out, err): ``mechopt.cli.main`` run in-process with its streams captured."""
    from mechopt.cli import main

    def run(*argv: str) -> Run:
        code = main([str(a) for a in argv])
        cap = capsys.readouterr()
        return Run(code, cap.out, cap.err)

    return run
