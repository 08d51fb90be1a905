"""``mechopt design``.

``design`` builds a problem in one of three ways and solves it:

* flags: ``--notion N --utility U --prior P --eps E [--values a,b,..] [--outputs b,..] [--graph FILE]
  [--eps-lower L]`` (``--notion alip --eps-upper U --eps-lower L``; ``--eps-upper`` is ``--eps``)
  (a :class:`~mechopt.problems.design.ChannelDesign`), or on places ``--coords FILE|grid:KxK [--norm N]
  --utility loss`` (a :class:`~mechopt.problems.geo.GeoDesign`; ``--outputs`` then names the reportable locations);
* a catalog problem: ``--problem ID --set key=value ...`` (strings passed to
  ``ProblemClass.from_params``);
* a TOML spec ``--spec FILE.toml``::

      problem = "design"          # optional, default "design"
      solver = "sqp"              # optional; --solver NAME wins (the options of another solver are then dropped)
      time_limit = 30             # optional, wall-clock seconds (default none)
      [params]                    # ProblemClass.from_params(**params)
      prior = "0.1,0.2,0.7"
      notion = "graph-ldp"
      utility = "mse"
      eps = 1.0
      graph = "line.edgelist"     # a policy-graph file, relative to the spec
      [options]                   # solver options
      n_starts = 8

A policy graph file is an edge list (``u v`` or ``u v weight`` per line,
``#`` comments), GraphML (``.graphml``), GML (``.gml``) or networkx
node-link JSON (``.json``); nodes are the input indices ``0..d-1``.

Examples
--------
>>> from mechopt.cli.design import parse_assignments
>>> parse_assignments(["eps=1", "prior=0.2,0.8"])
{'eps': '1', 'prior': '0.2,0.8'}
"""

from __future__ import annotations

from mechopt.cli.design.command import PROGRESS_DELAY, problem_table, run_design
from mechopt.cli.design.flags import DESIGN_EPILOG, register, utility_help
from mechopt.cli.design_problem import build_problem, parse_assignments, parse_options
from mechopt.cli.graph_file import read_graph

__all__ = [
    "register",
    "parse_assignments",
    "parse_options",
    "read_graph",
    "build_problem",
    "run_design",
    "problem_table",
    "utility_help",
    "PROGRESS_DELAY",
    "DESIGN_EPILOG",
]
