"""Policy-graph ε-LDP with mutual information on trees (issue 16, w16j): tree pricing versus enumeration.

``ours`` is ``mechopt.solve(prob, solver="exact")`` with the default method: above d = 10 on a
forest of essential edges that is column generation with the exact tree pricing
(:mod:`mechopt.solvers.exact.pricing.tree`). ``naive`` is today's path, ``method="enumerate"``: every
one of the 2^(d−1) rays by double description in log space, one HiGHS LP (refused above
``dd_max_d`` = 14). Prior Dirichlet(1), seed d (the same prior as ``dir{d}.txt`` in the report).
Shapes: ``path`` (networkx ``path_graph``), ``tree`` (``random_labeled_tree(d, seed=7)``),
``metric`` (metric-LDP on the path: every pair weighted by |x − y|, essential edges = the path).

Run ``python benchmarks/bench_graph_tree.py SHAPE D EPS [--naive]``; one markdown row.
"""

from __future__ import annotations

import argparse
import os
import time

import networkx as nx
import numpy as np

import mechopt
from mechopt.problems.design import ChannelDesign


def problem(shape: str, d: int, eps: float) -> ChannelDesign:
    P = np.random.default_rng(d).dirichlet(np.ones(d))
    G = nx.random_labeled_tree(d, seed=7) if shape == "tree" else nx.path_graph(d)
    notion = "metric-ldp" if shape == "metric" else "graph-ldp"
    return ChannelDesign.from_params(prior=P, notion=notion, graph=G, utility="mi", eps=eps)


def run(prob: ChannelDesign, **opts) -> tuple[mechopt.Result, float]:
    t = time.perf_counter()
    r = mechopt.solve(prob, solver="exact", **opts)
    return r, time.perf_counter() - t


# A standalone script (run it with python; see the module docstring): `mechopt bench` runs no case of it.
CASES: list = []


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("shape", choices=["path", "tree", "metric"])
    ap.add_argument("d", type=int)
    ap.add_argument("eps", type=float)
    ap.add_argument("--naive", action="store_true")
    a = ap.parse_args()
    load = os.getloadavg()[0]
    run(problem("path", 3, 1.0))  # warm-up: imports and HiGHS load outside the timings
    prob = problem(a.shape, a.d, a.eps)
    r, s = run(prob)
    gap = r.certificate.gap if r.certificate is not None else float("nan")
    naive_s, ratio, same = "–", "–", "–"
    if a.naive:
        n, ns = run(prob, method="enumerate")
        naive_s = f"{ns:.3g}"
        ratio = f"{s / ns:.2g}"
        same = str(abs(n.value - r.value) <= 1e-9) + f" (|Δ| = {abs(n.value - r.value):.1e})"
    outputs = r.Q.shape[1] if r.Q is not None else "–"
    print(
        f"| {a.shape} d={a.d} eps={a.eps:g} | {r.status.value} | {r.value:.12g} | {gap:.1e} | {outputs} | "
        f"{r.extras['method']} | {s:.3g} | {r.iterations} | {r.extras.get('pricing_nodes', '–')} | "
        f"{naive_s} | {ratio} | {same} | {load:.1f} |"
    )


if __name__ == "__main__":
    main()
