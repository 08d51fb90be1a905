"""Safety (issue 11, part 7): files are data, and the CLI writes only where it is told.

* Static: no module of the package calls ``pickle``/``marshal``/``shelve``
  loaders, ``eval``/``exec``, ``yaml.load``, ``joblib.load``, and every
  ``np.load`` passes ``allow_pickle=False`` explicitly. The only code the
  package imports dynamically is its own registry modules (constant names) and,
  for ``mechopt bench``, the ``bench_*.py`` files of a source checkout.
* Dynamic: loading spec, catalog, mechanism, prior and covariance files with
  ``eval``/``exec`` on strings and every unpickler booby-trapped succeeds.
* Output: ``design``/``sweep``/``reproduce``/``compare``/``bench`` run in a
  watched working directory create files only under the ``--out``/``--plot``
  path they were given, and names that come from spec or catalog files (an
  instance called ``../../escape``, a figure id ``../x``) cannot escape it.
"""

from __future__ import annotations

import ast
import builtins
import json
import os
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

import mechopt
from mechopt.cli import main

ROOT = Path(mechopt.__file__).resolve().parent.parent
PACKAGE_DIRS = [ROOT / "mechopt", ROOT / "problems", ROOT / "solvers"]
FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__"}
FORBIDDEN_ATTRS = {
    ("pickle", "load"),
    ("pickle", "loads"),
    ("pickle", "Unpickler"),
    ("marshal", "load"),
    ("marshal", "loads"),
    ("shelve", "open"),
    ("yaml", "load"),
    ("yaml", "unsafe_load"),
    ("joblib", "load"),
    ("dill", "load"),
    ("dill", "loads"),
    ("cloudpickle", "loads"),
    ("pd", "read_pickle"),
    ("pandas", "read_pickle"),
    ("torch", "load"),
}
# dynamic imports allowed: constant module names of the registry (and the installed entry points), the
# benchmark files of `mechopt bench`, and optional.require (every caller passes a literal module name)
DYNAMIC_IMPORT_OK = {
    "mechopt/registry.py",
    "mechopt/entry_points.py",
    "mechopt/__init__.py",
    "problems/design.py",
    "mechopt/jobs/bench.py",
    "mechopt/runtime/optional.py",
}


def _sources() -> list[Path]:
    files = [p for d in PACKAGE_DIRS for p in d.rglob("*.py")]
    assert len(files) > 50
    return files


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node


def _name(func: ast.expr) -> tuple[str | None, str | None]:
    if isinstance(func, ast.Name):
        return None, func.id
    if isinstance(func, ast.Attribute):
        base = func.value
        return (
            base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else None,
            func.attr,
        )
    return None, None


def test_no_code_execution_or_unpickling_in_the_package():
    found = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                if any(m.split(".")[0] in ("pickle", "marshal", "shelve", "yaml", "dill", "cloudpickle") for m in mods):
                    found.append(f"{rel}:{node.lineno}: imports {mods}")
        for call in _calls(tree):
            base, attr = _name(call.func)
            if base is None and attr in FORBIDDEN_CALLS:
                found.append(f"{rel}:{call.lineno}: {attr}()")
            if (base, attr) in FORBIDDEN_ATTRS:
                found.append(f"{rel}:{call.lineno}: {base}.{attr}()")
            if attr in ("import_module", "spec_from_file_location", "exec_module") and rel not in DYNAMIC_IMPORT_OK:
                found.append(f"{rel}:{call.lineno}: dynamic import {attr}()")
    assert not found, "code execution / unpickling of loaded data:\n" + "\n".join(found)


def test_every_np_load_forbids_pickles():
    loads = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        for call in _calls(ast.parse(path.read_text(encoding="utf-8"))):
            base, attr = _name(call.func)
            if (base, attr) in (("np", "load"), ("numpy", "load")):
                kw = {k.arg: k.value for k in call.keywords}
                ok = isinstance(kw.get("allow_pickle"), ast.Constant) and kw["allow_pickle"].value is False
                loads.append((f"{rel}:{call.lineno}", ok))
    assert all(ok for _, ok in loads), [where for where, ok in loads if not ok]
    readers = [p.relative_to(ROOT).as_posix() for p in _sources() if "read_npy(" in p.read_text(encoding="utf-8")]
    # the .npy readers parse the header themselves (mechopt.io.files.read_npy: object dtypes refused, never
    # unpickled; the claimed shape checked against the file's size before allocating)
    expected = {
        "mechopt/io/mechfile.py",
        "mechopt/io/priorfile.py",
        "problems/gauss/params.py",
        "mechopt/geo/places.py",
    }
    assert expected <= set(readers), readers


def test_dynamic_imports_use_constant_or_registry_names():
    """registry/import_module only ever receives names built from the package's own module lists."""
    from mechopt import entry_points, registry

    for module in (registry, entry_points):  # claims and figures; the entry points' classes
        src = Path(module.__file__).read_text(encoding="utf-8")
        assert "import_module" in src
        for name in ("spec_from_file_location", "exec_module"):
            assert name not in src


# ---- dynamic: loaders run with eval/exec and unpickling booby-trapped --------------------------------


TRAP = "__import__('os').system('false')  # MECHOPT_TRAP"


@pytest.fixture
def trapped(monkeypatch):
    """eval/exec of text holding the files' marker ``TRAP`` and every unpickler raise.

    (The standard library itself execs generated text, e.g. dataclass methods,
    so the trap fires on file content only; the static test above covers the rest.)
    """
    real_eval, real_exec = builtins.eval, builtins.exec

    def guard(real):
        def inner(src, globals=None, locals=None, *a, **k):
            text = src.decode("latin-1") if isinstance(src, bytes) else src
            if isinstance(text, str) and TRAP in text:
                raise AssertionError(f"{real.__name__} called on file content: {text[:60]!r}")
            if globals is None:  # run in the caller's namespace, as the builtin would
                frame = sys._getframe(1)
                globals, locals = frame.f_globals, frame.f_locals if locals is None else locals
            return real(src, globals, locals, *a, **k)

        return inner

    def boom(*a, **k):
        raise AssertionError("unpickling called")

    monkeypatch.setattr(builtins, "eval", guard(real_eval))
    monkeypatch.setattr(builtins, "exec", guard(real_exec))
    monkeypatch.setattr(pickle, "load", boom)
    monkeypatch.setattr(pickle, "loads", boom)
    monkeypatch.setattr(pickle, "Unpickler", boom)


def test_loaders_parse_files_as_data(trapped, tmp_path):
    from mechopt.io.catalog import load_catalog
    from mechopt.io.mechfile import read_mechanism
    from mechopt.jobs.sweep.run import load_spec
    from mechopt.model.priors import parse_prior
    from mechopt.registry import get_problem, problem_ids

    (tmp_path / "m.json").write_text(
        json.dumps({"Q": [[0.75, 0.25], [0.25, 0.75]], "prior": [0.5, 0.5], "notion": TRAP, "solver": TRAP})
    )
    assert read_mechanism(tmp_path / "m.json")["Q"].shape == (2, 2)
    np.save(tmp_path / "p.npy", np.array([0.25, 0.75]))
    assert parse_prior(str(tmp_path / "p.npy")).tolist() == [0.25, 0.75]
    np.save(tmp_path / "cov.npy", np.array([[2.0, 1.0], [1.0, 1.0]]))
    g = get_problem("gauss-tradeoff").from_params(cov_p=str(tmp_path / "cov.npy"), cov_u="2,0.5;0.5,1", n="1")
    assert g.cov_p.tolist() == [[2.0, 1.0], [1.0, 1.0]]
    (tmp_path / "s.toml").write_text(
        'problem = "design"\nsolvers = ["sqp"]\n[fixed]\nnotion = "lip"\n'
        'utility = "histogram"\nprior = ' + json.dumps(TRAP) + "\n[grid]\neps = [1.0]\n"
    )
    with pytest.raises(mechopt.errors.MechoptError, match="prior"):  # the string is a (bad) prior, never code
        load_spec(tmp_path / "s.toml")
    (tmp_path / "c.toml").write_text(
        '[[instance]]\nproblem = "lip-binary"\nname = '
        + json.dumps(TRAP)
        + "\nparams = { p1 = 0.3, eps = 1.0 }\nnote = "
        + json.dumps(TRAP)
        + "\n"
    )
    [inst] = load_catalog(tmp_path / "c.toml", known=problem_ids())
    assert inst.build().p1 == pytest.approx(0.3)


def test_pickled_npy_is_refused_not_loaded(trapped, tmp_path):
    from mechopt.errors import ProblemError
    from mechopt.model.priors import parse_prior

    with open(tmp_path / "evil.npy", "wb") as fh:  # a real pickle payload inside an object array
        np.lib.format.write_array(fh, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    with pytest.raises(ProblemError, match="holds Python objects"):
        parse_prior(str(tmp_path / "evil.npy"))


# ---- output confinement ---------------------------------------------------------------------------------


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            p = Path(dirpath) / f
            st = p.stat()
            out[p.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return out


def test_cli_writes_only_under_the_output_path(tmp_path, monkeypatch, capsys):
    cwd = tmp_path / "cwd"
    inputs = tmp_path / "inputs"
    cwd.mkdir()
    inputs.mkdir()
    monkeypatch.chdir(cwd)
    (cwd / "keep.txt").write_text("untouched")
    (inputs / "sweep.toml").write_text(
        'problem = "design"\nsolvers = ["sqp"]\ndescription = "../../escape"\n'
        '[fixed]\nnotion = "lip"\nutility = "histogram"\nprior = "0.3,0.7"\n'
        "[grid]\neps = [1.0]\n[options.sqp]\nn_starts = 1\n"
    )
    (inputs / "cat.toml").write_text(
        '[[instance]]\nproblem = "lip-binary"\nname = "../../../escape/x"\n'
        'params = { p1 = 0.3, eps = 1.0 }\nsolvers = ["closed-form", "exact"]\n'
    )
    (inputs / "spec.toml").write_text('problem = "lip-binary"\nsolver = "closed-form"\n[params]\np1 = 0.3\neps = 1.0\n')
    before_cwd, before_tmp = _snapshot(cwd), _snapshot(tmp_path)
    runs = [
        ["design", "--spec", str(inputs / "spec.toml"), "--out", "out/design/m.json", "--json"],
        [
            "design",
            "--notion",
            "ldp",
            "--utility",
            "mi",
            "--prior",
            "0.5,0.5",
            "--eps",
            "1",
            "--solver",
            "exact",
            "--out",
            "out/design/m2.json",
        ],
        ["sweep", str(inputs / "sweep.toml"), "--out", "out/sweep/s.jsonl", "--plot", "out/sweep/s.png"],
        ["reproduce", "fisher-fig-densities", "--quick", "--out", "out/figs"],
        ["compare", "--catalog", str(inputs / "cat.toml"), "--plot", "out/plots", "--no-isolate", "--json"],
        ["bench", "--quick", "--select", "oracles", "--out", "out/bench/b.md"],
        ["audit", "out/design/m2.json", "--json"],
        ["verify", "--claim", "lip.thm2", "--json"],
    ]
    (cwd / "out" / "design").mkdir(parents=True)
    (cwd / "out" / "sweep").mkdir()
    (cwd / "out" / "bench").mkdir()
    for argv in runs:
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 0, (argv, err)
    after_cwd, after_tmp = _snapshot(cwd), _snapshot(tmp_path)
    changed = {k for k in after_cwd if before_cwd.get(k) != after_cwd[k]}
    assert all(k.startswith("out/") for k in changed), sorted(k for k in changed if not k.startswith("out/"))
    assert after_cwd["keep.txt"] == before_cwd["keep.txt"]
    outside = {k for k in after_tmp if not k.startswith("cwd/") and before_tmp.get(k) != after_tmp[k]}
    assert not outside, sorted(outside)
    assert not (tmp_path / "escape").exists() and not (tmp_path.parent / "escape").exists()
    assert {
        "out/design/m.json",
        "out/design/m2.json",
        "out/sweep/s.jsonl",
        "out/sweep/s.png",
        "out/bench/b.md",
    } <= changed
    assert any(k.startswith("out/figs/fisher-fig-densities") for k in changed)
    assert any(k.startswith("out/plots/compare_lip-binary") for k in changed)
    assert not any(Path(k).name.startswith(".") for k in after_cwd)  # no temporaries or locks left
    for k in changed:  # files written through mkstemp get the usual mode, not 0600
        assert (cwd / k).stat().st_mode & 0o044 == 0o044 & ~_umask(), k


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_figure_ids_cannot_name_paths(tmp_path, capsys):
    for fid in ("../escape", "/etc/passwd", "figs/../../x"):
        assert main(["reproduce", fid, "--out", str(tmp_path / "figs")]) == 2
        assert "unknown figure id" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
