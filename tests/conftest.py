"""Fixtures shared across test folders."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

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
