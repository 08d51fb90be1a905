"""Policy-graph files for ``design``, ``sweep`` specs and catalogs: an edge list, GraphML, GML or node-link JSON.

A policy graph file is an edge list (``u v`` or ``u v weight`` per line, ``#`` comments), GraphML
(``.graphml``), GML (``.gml``) or networkx node-link JSON (``.json``); nodes are the input indices
``0..d-1``. The file is read through :func:`mechopt.io.files.read_input_text` (regular files only, size
checked first) and its content is never echoed in an error.

Examples
--------
>>> from mechopt.cli.graph_file import resolve_graph
>>> sorted(resolve_graph({"prior": "uniform:3", "graph": [[0, 1]]})["graph"].nodes)
[0, 1, 2]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.io.jsontext import loads_strict
from mechopt.model.numbers import NotDecimal, ascii_float, ascii_int

__all__ = ["MAX_GRAPH_BYTES", "read_graph", "resolve_graph"]

#: Largest policy-graph file read.
MAX_GRAPH_BYTES = 64 * 1024 * 1024


def read_graph(path: str | Path, d: int | None = None) -> Any:
    """Read a policy graph; nodes relabelled to ints, nodes ``0..d-1`` added when ``d`` is given.

    Examples
    --------
    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "path.edgelist")
    >>> _ = open(path, "w").write("0 1\\n1 2 2.5\\n")
    >>> sorted(read_graph(path, d=4).edges(data="weight")), read_graph(path, d=4).number_of_nodes()
    ([(0, 1, 1.0), (1, 2, 2.5)], 4)
    """
    import networkx as nx

    p = Path(path)
    if not p.exists():
        raise ProblemError(
            f"graph file {str(p)!r} does not exist: give an edge list (one 'u v' pair of input indices per line, "
            "e.g. printf '0 1\\n1 2\\n' > edges.txt), or a .graphml, .gml or node-link .json file"
        )
    if p.is_dir():
        raise ProblemError(f"graph file {str(p)!r} is a directory: give an edge list, .graphml, .gml or .json file")
    from mechopt.io.files import read_input_text

    text = read_input_text(p, "graph file", MAX_GRAPH_BYTES)
    suffix = p.suffix.lower()  # G.GRAPHML is GraphML too
    try:
        if suffix == ".graphml":
            G = _parse_graphml(text)
        elif suffix == ".gml":
            G = nx.parse_gml(text, label="id")
        elif suffix == ".json":
            doc = loads_strict(text, "it", error=ValueError)
            _check_size(doc, d)
            G = _node_link(doc)
        else:
            G = _read_edgelist(text, d)
    except (
        OSError,
        ValueError,
        KeyError,
        TypeError,
        AttributeError,
        IndexError,
        SyntaxError,
        RecursionError,
        nx.NetworkXError,
    ) as exc:  # SyntaxError: xml.etree's ParseError on broken GraphML
        msg = " ".join(str(exc).split())[:200]
        raise ProblemError(f"cannot read graph file {str(p)!r} ({p.suffix or 'edge list'}): {msg}") from None
    _one_edge_per_pair(G, p)
    G = nx.Graph(G)
    try:
        G = nx.relabel_nodes(G, {n: ascii_int(n) if isinstance(n, str) else _node(n) for n in G.nodes})
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"graph {str(p)!r}: nodes must be the input indices 0..d-1 (digits 0-9)") from None
    for u, v, w in list(G.edges(data="weight")):
        if w is not None:
            try:
                G[u][v]["weight"] = ascii_float(w)
            except NotDecimal as exc:
                raise ProblemError(
                    f"graph {str(p)!r}: edge ({u}, {v}) has a weight that is not a plain decimal number; {exc.reason}"
                ) from None
            except (TypeError, ValueError, OverflowError):
                raise ProblemError(
                    f"graph {str(p)!r}: edge ({u}, {v}) has a non-numeric weight, a {type(w).__name__}"
                ) from None
    if d is not None:
        G.add_nodes_from(range(d))
    return G


def _check_size(doc: Any, d: int | None) -> None:
    """Refuse a node-link document with more edges than ``d`` inputs can have, before building the graph."""
    if d is None or not isinstance(doc, dict):
        return
    edges = doc.get("edges", doc.get("links"))
    most = d * (d + 1) // 2  # every pair once, self-loops included
    if isinstance(edges, list) and len(edges) > most:
        raise ValueError(f"{len(edges)} edges, more than the {most} a graph on {d} inputs can have")


def _node(n: Any) -> int:
    """A node id that is a number: an integer (1.0 counts, 1.5 and True do not)."""
    if isinstance(n, bool):
        raise ValueError("a boolean node")
    return ascii_int(n)


def _parse_graphml(text: str) -> Any:
    """``networkx.parse_graphml`` with its numeric attribute types read strictly (ASCII decimals)."""
    import networkx as nx
    from networkx.readwrite.graphml import GraphMLReader

    reader = GraphMLReader()
    strict = {"float": ascii_float, "double": ascii_float, "int": ascii_int, "integer": ascii_int, "long": ascii_int}
    reader.python_type = {**reader.python_type, **strict}
    graphs = list(reader(string=text))
    if not graphs:
        raise nx.NetworkXError("file not successfully read as graphml")
    return graphs[0]


def _node_link(doc: Any) -> Any:
    """A node-link document as a graph; an edge listed twice is an error (networkx keeps the last)."""
    import networkx as nx

    if not isinstance(doc, dict):
        raise ValueError("a node-link graph is a JSON object with 'nodes' and 'edges'")
    key = "edges" if "edges" in doc else "links"
    G = nx.node_link_graph(doc, edges=key)
    listed = doc.get(key)
    if isinstance(listed, list) and len(listed) > G.number_of_edges():
        seen: set = set()
        for e in listed:
            pair = frozenset((e.get("source"), e.get("target"))) if isinstance(e, dict) else None
            if pair in seen:
                u, v = sorted(pair, key=str) if len(pair) == 2 else (next(iter(pair)),) * 2
                raise ValueError(f"edge ({u}, {v}) is listed twice; give each pair once, with the weight you mean")
            seen.add(pair)
    return G


def _one_edge_per_pair(G: Any, p: Path) -> None:
    """Refuse parallel edges (a multigraph) and both directions of a pair: one weight per pair."""
    if not (G.is_multigraph() or G.is_directed()):
        return
    seen: set = set()
    for u, v in G.edges():
        pair = frozenset((u, v))
        if pair in seen:
            how = "parallel edges" if G.is_multigraph() else "edges in both directions"
            raise ProblemError(
                f"graph {str(p)!r}: policy graph has {how} between {u} and {v}; "
                "give one edge per pair, with the weight you mean"
            )
        seen.add(pair)


def _read_edgelist(text: str, d: int | None = None) -> Any:
    """The graph of an edge list; with ``d``, a node outside 0..d-1 stops the reading at its line
    (a 2,000,000-edge file against 3 inputs is refused at line 3, not after building the graph)."""
    import networkx as nx

    G = nx.Graph()
    for n, line in enumerate(text.splitlines(), 1):
        tok = line.split("#", 1)[0].replace(",", " ").split()
        if not tok:
            continue
        if len(tok) not in (2, 3):
            raise ValueError(f"line {n}: expected 'u v' or 'u v weight', got {len(tok)} fields")  # never echo the file
        try:
            u, v = ascii_int(tok[0]), ascii_int(tok[1])
            w = ascii_float(tok[2]) if len(tok) == 3 else 1.0
        except NotDecimal as exc:
            raise ValueError(f"line {n}: a node or weight is not a plain decimal number; {exc.reason}") from None
        except ValueError:
            raise ValueError(f"line {n}: nodes must be integers and the weight a number") from None
        if d is not None and not (0 <= u < d and 0 <= v < d):
            bad = u if not 0 <= u < d else v
            raise ValueError(f"line {n}: node {bad} is not an input: nodes must be the integers 0..d-1 (d = {d})")
        if G.has_edge(u, v):
            raise ValueError(
                f"line {n}: edge ({u}, {v}) is listed twice; give each pair once, with the weight you mean"
            )
        G.add_edge(u, v, weight=w)
    return G


def _prior_size(prior: Any) -> int | None:
    from mechopt.model.priors import parse_prior

    try:
        return int(parse_prior(prior).size) if isinstance(prior, str) else int(np.asarray(prior).size)
    except ProblemError:
        return None


def resolve_graph(params: dict[str, Any], base: Path | None = None) -> dict[str, Any]:
    """``params`` with its ``graph`` (an edge list, or a file name relative to ``base``) read as a networkx graph."""
    g = params.get("graph")
    if isinstance(g, list):
        from mechopt.io.catalog import graph_from_edges

        G = graph_from_edges(g)
        n = _prior_size(params.get("prior"))
        if n is not None:
            G.add_nodes_from(range(n))
        return {**params, "graph": G}
    if isinstance(g, str) and g:
        path = Path(g) if base is None or Path(g).is_absolute() else base / g
        params = {**params, "graph": read_graph(path, _prior_size(params.get("prior")))}
    return params
