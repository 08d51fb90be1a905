"""The wheel ships every module and data file of the tree (pyproject's package list is explicit).

A package missing from ``[tool.setuptools] packages`` still imports from an editable install, so
only a real wheel shows it: this builds one (no network, no isolation) and compares its contents
with the source tree mapped as pyproject maps it (``solvers/`` → ``mechopt/solvers``, ``problems/``
→ ``mechopt/problems``).
"""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
MAPPED = {"mechopt": "mechopt", "solvers": "mechopt/solvers", "problems": "mechopt/problems"}


def _tree_files() -> set[str]:
    """Every file a user of the package needs: the modules, the data tables and the PEP 561 marker."""
    out = set()
    for src, dst in MAPPED.items():
        for f in (ROOT / src).rglob("*"):
            if f.is_file() and "__pycache__" not in f.parts and f.suffix in (".py", ".toml", ".typed"):
                out.add(f"{dst}/{f.relative_to(ROOT / src).as_posix()}")
    return out


@pytest.fixture(scope="module")
def wheel_names(tmp_path_factory) -> set[str]:
    src, out = tmp_path_factory.mktemp("src"), tmp_path_factory.mktemp("wheel")
    for name in ("pyproject.toml", "README.md", "_mechopt_entry.py"):  # a clean copy: no stale build/ to ship from
        shutil.copy2(ROOT / name, src / name)
    for name in MAPPED:
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    cmd = [sys.executable, "-m", "pip", "wheel", str(src), "--no-deps", "--no-build-isolation", "-q", "-w", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    (whl,) = out.glob("mechopt-*.whl")
    with zipfile.ZipFile(whl) as z:
        return set(z.namelist())


def test_the_wheel_ships_every_module_and_data_file(wheel_names):
    missing = sorted(_tree_files() - wheel_names)
    assert not missing, f"not in the wheel (add their packages to pyproject's list): {missing[:10]}"


def test_the_wheel_is_typed_and_has_its_entry(wheel_names):
    assert "mechopt/py.typed" in wheel_names  # PEP 561: the public signatures are typed
    assert "_mechopt_entry.py" in wheel_names  # the console script's stdlib-only entry
