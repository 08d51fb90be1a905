"""Sphinx configuration for the mechopt documentation.

Build (warning-free, no network), with the Python where mechopt is installed:

    python -m sphinx -W --keep-going -b html docs docs/_build/html

(``sphinx-build ...`` is the same command when the ``sphinx-build`` on PATH belongs to
that Python.)

Pages that depend on the code are generated at build time: the API reference by
``sphinx.ext.autosummary`` (stubs under ``api/generated/``, templates in ``_templates/``), the
command reference by ``sphinx-argparse`` (from ``mechopt.cli.build_parser``), and the verdict
tables, figure reproductions and command outputs by the local extension
``_ext/mechopt_docs``. An import error in any of them is a warning, so ``-W`` fails the build.

Cost: the gallery re-runs an example only when its md5 changes (sphinx-gallery), and the
extension keeps the claims, figures and command outputs in ``docs/_build/.mechopt-cache``
keyed on the mechopt version and a hash of mechopt/, problems/ and solvers/; an unchanged
rebuild re-runs nothing. Environment switches:

- ``MECHOPT_DOCS_FAST=1``  skip the claims, figures, command runs and gallery execution (each
  page says so): a quick build for editing prose;
- ``MECHOPT_DOCS_REFRESH=1``  ignore the results cache and recompute (then store) everything;
- ``MECHOPT_DOCS_CACHE=DIR``  keep the results cache elsewhere;
- ``MECHOPT_DOCS_VERIFY=0``  skip running the theorem claims (tables say so);
- ``MECHOPT_DOCS_VERDICTS=FILE.json``  read the verdicts from a saved
  ``mechopt verify --json`` report instead of running the claims;
- ``MECHOPT_DOCS_FIGURES=quick|off``  run the figure reproductions in quick
  mode and show them (the default), or only list them;
- ``MECHOPT_DOCS_GALLERY=0``  do not execute the gallery examples;
- ``MECHOPT_DOCS_RUN=0``  do not run the command-line examples;
- ``MECHOPT_REPO_ROOT``  the repository root (default: the parent of docs/).
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

try:
    import mechopt  # noqa: E402  (installed: pip install -e ".[docs]")
except ModuleNotFoundError as exc:  # e.g. a `sphinx-build` script of another Python on PATH
    raise RuntimeError(
        f"mechopt is not importable by {sys.executable}; build with the Python where it is installed: "
        "python -m sphinx -W --keep-going -b html docs docs/_build/html"
    ) from exc

project = "mechopt"
author = "the mechopt authors"
copyright = "2026, the mechopt authors"
release = mechopt.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "sphinxarg.ext",
    "mechopt_docs",
    "myst_parser",  # performance.md includes benchmarks/RESULTS.md
]
MYST = True

source_suffix = {".rst": "restructuredtext"}
if MYST:
    source_suffix[".md"] = "markdown"
    myst_enable_extensions = ["dollarmath"]
    myst_heading_anchors = 3

root_doc = "index"
exclude_patterns = [
    "_build",
    "_generated/**",
    "Thumbs.db",
    ".DS_Store",
    "**/README.rst",
    "examples/**",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
    "auto_examples/*.codeobj.json",
]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["mechopt.css"]
nitpicky = False

# -- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = f"mechopt {release}"
html_theme_options = {"sidebar_hide_name": False, "navigation_with_keys": True}
pygments_style = "sphinx"
pygments_dark_style = "monokai"

# -- autodoc / autosummary / numpydoc -------------------------------------------
autodoc_default_options = {"member-order": "bysource", "show-inheritance": True}
autodoc_typehints = "none"  # numpydoc sections carry the types
autodoc_preserve_defaults = True
autosummary_generate = True  # one stub page per module, from _templates/autosummary/module.rst
autosummary_ignore_module_all = False  # a module's __all__ says what is public, re-exported names included
autosummary_imported_members = True  # names re-exported through __all__ are documented where users import them
numpydoc_show_class_members = False  # autodoc lists members; avoids duplicate stubs
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False
add_module_names = False
python_use_unqualified_type_names = True

# No network: intersphinx is deliberately not enabled.

# -- math ---------------------------------------------------------------------
mathjax3_config = {
    "tex": {
        "macros": {
            "e": r"\mathrm{e}",
            "R": r"\mathbb{R}",
            "tr": r"\operatorname{tr}",
            "argmax": r"\operatorname*{arg\,max}",
        }
    }
}

# -- sphinx-gallery -----------------------------------------------------------
_fast = os.environ.get("MECHOPT_DOCS_FAST", "").strip().lower() in ("1", "true", "yes", "on")
_run_gallery = os.environ.get("MECHOPT_DOCS_GALLERY", "1") != "0" and not _fast
sphinx_gallery_conf = {
    "examples_dirs": ["examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "plot_gallery": "True" if _run_gallery else "False",
    "run_stale_examples": False,  # md5 cache: an example re-runs only when its file changed
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "write_computation_times": True,
    "reference_url": {},
    "backreferences_dir": None,
    "capture_repr": ("_repr_html_", "__repr__"),
}

# Silence third-party deprecation chatter that is not ours to fix (it would not
# fail -W, which only concerns Sphinx's own warnings, but keeps the log clean).
warnings.filterwarnings("ignore", category=DeprecationWarning)
warnings.filterwarnings("ignore", category=FutureWarning, module="cvxpy")
