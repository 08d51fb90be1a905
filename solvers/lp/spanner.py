"""A greedy δ-spanner of a metric: few pairs whose constraints at ε/δ imply ε-geo-indistinguishability.

Bordenabe, Chatzikokolakis and Palamidessi (CCS 2014) shrink the geo-indistinguishability LP by
constraining only the edges of a δ-spanner G of the metric d (d_G ≤ δ·d for every pair) at ε/δ:
along a shortest path of G, q_x ≤ e^{(ε/δ) d_G(x, x')} q_x' ≤ e^{ε d(x, x')} q_x', so every
mechanism of the smaller LP is ε-geo-indistinguishable. Every (ε/δ)-geo-indistinguishable
mechanism satisfies the edge constraints (each edge is a shortest path of G, d_G(e) = d(e)), so

    OPT(ε) ≤ OPT_G ≤ OPT(ε/δ):

the spanner's optimum is private at ε and no worse than the best mechanism at ε/δ — the ε loss of
the reduction, stated in the result (``extras["spanner"]``), never the optimum at ε.

The greedy spanner (Althöfer et al. 1993) scans the pairs by increasing distance and keeps a pair
when the kept edges do not already join it within δ·d; the all-pairs distances of the kept graph
are updated in O(n²) per edge.

Examples
--------
>>> import numpy as np
>>> D = np.abs(np.subtract.outer(np.arange(4.0), np.arange(4.0)))        # a line: its neighbours suffice
>>> edges, DG = greedy_spanner(D, 1.5)
>>> edges.tolist(), bool(np.all(DG <= 1.5 * D + 1e-12))
([[0, 1], [1, 2], [2, 3]], True)
"""

from __future__ import annotations

import math

import numpy as np

from mechopt.errors import ParamError

__all__ = ["greedy_spanner", "check_dilation"]


def check_dilation(value: object) -> float:
    """The spanner dilation δ as a float > 1, or a ParamError saying what to give.

    >>> check_dilation(1.5)
    1.5
    """
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool)
    if not ok or not math.isfinite(float(value)) or float(value) <= 1.0:  # type: ignore[arg-type]
        raise ParamError(
            f"option spanner is the dilation δ of the spanner, a finite number > 1 (e.g. 1.5), got {value!r}; "
            "leave it out for the exact problem"
        )
    return float(value)  # type: ignore[arg-type]


def greedy_spanner(D: np.ndarray, dilation: float) -> tuple[np.ndarray, np.ndarray]:
    """The edges (k, 2) of the greedy ``dilation``-spanner of the metric D and the spanner's distances d_G.

    Pairs with infinite distance are unconstrained and never joined; d_G ≤ dilation·D on every pair.
    """
    D = np.asarray(D, float)
    n = D.shape[0]
    iu, ju = np.triu_indices(n, 1)
    d = D[iu, ju]
    order = np.argsort(d, kind="stable")
    G = np.full((n, n), np.inf)
    np.fill_diagonal(G, 0.0)
    edges: list[tuple[int, int]] = []
    for k in order:
        a, b, w = int(iu[k]), int(ju[k]), float(d[k])
        if not math.isfinite(w):
            break
        if G[a, b] <= dilation * w:
            continue
        edges.append((a, b))
        via_ab = G[:, a, None] + w + G[None, b, :]  # x → a — b → x'
        np.minimum(G, np.minimum(via_ab, via_ab.T), out=G)
    return np.array(edges, int).reshape(-1, 2), G
