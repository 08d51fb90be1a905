"""ε-local differential privacy, on the complete graph or a policy graph.

ε-LDP: Q[x, y] ≤ e^ε Q[x', y] for all inputs x, x' and outputs y. On a
policy graph G (networkx) only adjacent x ~ x' are constrained, with e^{ε w}
for an edge of weight w; ``metric=True`` uses e^{ε dist_G(x, x')} for all
pairs (metric / geo-indistinguishability privacy).

Examples
--------
>>> import numpy as np
>>> from mechopt.notions import LDP
>>> p = 0.2; d = 4   # k-RR keeps the input with prob 1 - p
>>> Q = np.full((d, d), p / (d - 1)); np.fill_diagonal(Q, 1 - p)
>>> bool(np.isclose(LDP(1.0).audit(Q).eps, np.log((1 - p) * (d - 1) / p)))
True
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.notions.base import PrivacyNotion

if TYPE_CHECKING:  # networkx is imported by the policy-graph code only (cold start of the CLI)
    import networkx as nx

__all__ = ["LDP", "GraphLDP"]


class LDP(PrivacyNotion):
    """ε-LDP on the complete graph (context-free: the prior is not used)."""

    name = "ldp"
    needs_prior = False

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        hi = Q.max(axis=0)
        lo = Q.min(axis=0)
        used = hi > 0
        if np.any(lo[used] <= 0):
            return math.inf
        if not np.any(used):
            return 0.0
        return float(np.max(np.log(hi[used]) - np.log(lo[used])))

    def pair_weights(self, d: int) -> np.ndarray:
        """W[x, x'] = multiplier of ε for the pair (inf: unconstrained)."""
        W = np.ones((d, d))
        np.fill_diagonal(W, 0.0)
        return W

    def cone(self, prior: np.ndarray) -> np.ndarray:
        """Rows e^{εW[x,x']} c_{x'}/P_{x'} − c_x/P_x ≥ 0 for constrained pairs."""
        p = np.asarray(prior, dtype=float)
        W = self.pair_weights(p.size)
        xs, xps = np.nonzero(np.isfinite(W) & ~np.eye(p.size, dtype=bool))
        A = np.zeros((xs.size, p.size))
        A[np.arange(xs.size), xps] = np.exp(self.eps * W[xs, xps]) / p[xps]
        A[np.arange(xs.size), xs] -= 1.0 / p[xs]
        return A

    def cvxpy_constraints(self, Q: Any, prior: np.ndarray) -> list:
        W = self.pair_weights(Q.shape[0])
        cons = []
        for x, xp in zip(*np.nonzero(np.isfinite(W) & ~np.eye(Q.shape[0], dtype=bool))):
            cons.append(Q[x, :] <= math.exp(self.eps * W[x, xp]) * Q[xp, :])
        return cons


def _weight(u: Any, v: Any, w: Any) -> float:
    """An edge weight as a float: any real number type (numpy scalars, Decimal, Fraction), finite and > 0.

    >>> from decimal import Decimal
    >>> _weight(0, 1, np.float32(2)), _weight(0, 1, Decimal(2))
    (2.0, 2.0)
    """
    import numbers
    from decimal import Decimal

    if isinstance(w, (bool, np.bool_)) or not isinstance(w, (numbers.Real, Decimal)):
        raise ProblemError(
            f"edge ({u}, {v}) has weight {w!r}, a {type(w).__name__}, not a real number; weights must be finite and > 0"
        )
    val = float(w)
    if not (val > 0 and math.isfinite(val)):
        raise ProblemError(f"edge ({u}, {v}) has weight {w!r}; weights must be finite and > 0")
    return val


class GraphLDP(LDP):
    """ε-LDP on a policy graph (networkx) over the inputs ``0..d-1``.

    Parameters
    ----------
    eps : float
    graph : networkx.Graph
        Nodes are input indices. Edge attribute ``weight`` (default 1) scales ε.
    metric : bool
        If True constrain every connected pair with e^{ε·dist}, dist the
        weighted shortest-path distance; otherwise only the edges.

    What it protects: only the pairs it constrains (edges, or connected pairs
    when ``metric``). An input without any edge is not protected at all: its
    row may reveal it. Such inputs are listed in ``unprotected``, warned about,
    and named in the message of every result designed under the graph.
    Parallel edges (a multigraph) and weights with ε·w > 700 are refused.

    Examples
    --------
    >>> import networkx as nx, numpy as np
    >>> G = nx.path_graph(3)
    >>> Q = np.array([[0.9, 0.1], [0.5, 0.5], [0.1, 0.9]])
    >>> round(LDP(1.0).audit(Q).eps, 6)          # log 9: rows 0 and 2 compared
    2.197225
    >>> round(GraphLDP(1.0, G).audit(Q).eps, 6)  # only neighbours: log 5
    1.609438
    >>> G2 = nx.Graph([(0, 1), (1, 2), (0, 2, {"weight": 4.0})])
    >>> round(GraphLDP(1.0, G2, metric=True).audit(Q).eps, 6)  # d(0,2) = 2 hops
    1.609438
    """

    name = "graph-ldp"

    def __init__(self, eps: float, graph: nx.Graph, *, metric: bool = False) -> None:
        import networkx as nx

        super().__init__(eps)
        if not isinstance(graph, nx.Graph):
            raise ProblemError("graph must be a networkx Graph whose nodes are input indices 0..d-1")
        nodes = sorted(graph.nodes)
        if nodes != list(range(len(nodes))):
            raise ProblemError(
                "policy graph nodes must be the integers 0..d-1 (relabel with nx.convert_node_labels_to_integers)"
            )
        if graph.is_multigraph():
            twice = next(((u, v) for u, v in graph.edges() if graph.number_of_edges(u, v) > 1), None)
            if twice is not None:
                raise ProblemError(
                    f"policy graph has parallel edges between {twice[0]} and {twice[1]}; "
                    "give one edge per pair, with the weight you mean"
                )
        odd = any(type(w) not in (int, float) for _, _, w in graph.edges(data="weight", default=1.0))
        if odd:  # numpy scalars, Decimal, Fraction: a copy with float weights (sums of mixed types fail)
            graph = graph.copy()
            for u, v, data in graph.edges(data=True):
                if "weight" in data:
                    data["weight"] = _weight(u, v, data["weight"])
        for u, v, w in graph.edges(data="weight", default=1.0):
            w = _weight(u, v, w)
            if self.eps * w > 700:  # e^(eps w) overflows: the LP would get inf coefficients
                raise ProblemError(
                    f"edge ({u}, {v}) has weight {w:g}: eps * weight = {self.eps * w:g} > 700 "
                    "overflows e^(eps weight); drop the edge to leave that pair unconstrained"
                )
        #: Inputs without any edge: graph-LDP puts no constraint on them (their rows may reveal them).
        self.unprotected = tuple(int(n) for n in nodes if graph.degree(n) == 0)
        if self.unprotected:
            warnings.warn(
                f"policy graph: inputs {list(self.unprotected)} have no edge, so graph-LDP does not protect them",
                UserWarning,
                stacklevel=2,
            )
        self.graph = graph
        self.metric = bool(metric)
        if self.metric:
            self.name = "metric-ldp"

    def pair_weights(self, d: int) -> np.ndarray:
        if d != self.graph.number_of_nodes():
            raise ProblemError(f"policy graph has {self.graph.number_of_nodes()} nodes but there are {d} inputs")
        W = np.full((d, d), np.inf)
        if self.metric:
            import networkx as nx

            dist = dict(nx.all_pairs_dijkstra_path_length(self.graph, weight="weight"))
            for u, row in dist.items():
                for v, val in row.items():
                    W[u, v] = val
        else:
            for u, v, w in self.graph.edges(data="weight", default=1.0):
                W[u, v] = W[v, u] = w
        np.fill_diagonal(W, 0.0)
        return W

    def epsilon(self, Q: np.ndarray, prior: np.ndarray | None) -> float:
        W = self.pair_weights(Q.shape[0])
        worst = 0.0
        for x, xp in zip(*np.nonzero(np.isfinite(W) & (W > 0))):
            a, b = Q[x], Q[xp]
            live = (a > 0) | (b > 0)
            if np.any(live & ((a <= 0) | (b <= 0))):
                return math.inf
            if np.any(live):
                ratio = np.max(np.abs(np.log(a[live]) - np.log(b[live])))
                worst = max(worst, float(ratio / W[x, xp]))
        return worst

    def params(self) -> dict[str, Any]:
        import networkx as nx

        return {"notion": self.name, "eps": self.eps, "graph": nx.node_link_data(self.graph, edges="edges")}
