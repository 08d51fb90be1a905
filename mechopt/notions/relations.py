"""The implication graph between ε-LDP, ε-LIP, (ε_u, ε_l)-ALIP and ε-PML for a fixed prior, and its figure.

Every edge is an implication that holds for every channel and every prior with full support, with
the level it gives: the target's level as a function of the source's. Reasons, with
λ_y = Σ_x P(x) Q[x, y] (a convex combination of the column's entries):

- ε-LDP ⇒ ε-LIP: each Q[x, y] is within e^{±ε} of every entry of its column, so of λ_y;
- ε-LIP ⇒ 2ε-LDP: Q[x, y] / Q[x', y] = (Q[x, y] / λ_y) / (Q[x', y] / λ_y) ≤ e^ε / e^{−ε};
- ε-LIP ⇔ (ε, ε)-ALIP: the same condition;
- (ε_u, ε_l)-ALIP ⇒ max(ε_u, ε_l)-LIP, ⇒ ε_u-PML (drop the lower bound) and ⇒ (ε_u + ε_l)-LDP;
- ε-LIP ⇒ ε-PML, ε-LDP ⇒ ε-PML (through LIP).

No edge leaves PML: an ε-PML channel may have zeros (Q[x, y] = 0 < e^{−ε_l} λ_y), so it satisfies no
finite LDP, LIP or ALIP level. :func:`implied_levels` evaluates the edges; the tests check each on
random channels against the audits.

Examples
--------
>>> [(e.source, e.target, e.level) for e in IMPLICATIONS][:2]
[('ldp', 'lip', 'ε'), ('lip', 'ldp', '2ε')]
>>> implied_levels("alip", 1.0, eps_lower=0.5)["ldp"]
1.5
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from mechopt.errors import ProblemError

__all__ = ["Implication", "IMPLICATIONS", "implied_levels", "draw_implications"]


@dataclass(frozen=True)
class Implication:
    """``source`` at its level ⇒ ``target`` at ``level`` (a formula), computed by ``bound(ε_u, ε_l)``."""

    source: str
    target: str
    level: str
    bound: Callable[[float, float], float]


def _same(u: float, low: float) -> float:
    return u


IMPLICATIONS: tuple[Implication, ...] = (
    Implication("ldp", "lip", "ε", _same),
    Implication("lip", "ldp", "2ε", lambda u, low: 2.0 * u),
    Implication("lip", "alip", "(ε, ε)", _same),
    Implication("alip", "lip", "max(ε_u, ε_l)", max),
    Implication("alip", "pml", "ε_u", _same),
    Implication("alip", "ldp", "ε_u + ε_l", lambda u, low: u + low),
    Implication("lip", "pml", "ε", _same),
    Implication("ldp", "pml", "ε", _same),
)


def implied_levels(notion: str, eps: float, eps_lower: float | None = None) -> dict[str, float]:
    """The level each other notion is guaranteed at, from one edge of :data:`IMPLICATIONS` (``inf``: none).

    ``eps_lower`` is ALIP's ε_l (ignored otherwise; LIP's is ε). Direct edges only: every
    implication that follows by chaining is also listed as an edge.
    """
    key = str(notion).lower()
    if key not in ("ldp", "lip", "alip", "pml"):
        raise ProblemError(f"implied_levels knows ldp, lip, alip and pml, not {notion!r}")
    if key == "alip" and eps_lower is None:
        raise ProblemError("alip needs eps_lower")
    low = eps_lower if key == "alip" else eps
    out = {n: math.inf for n in ("ldp", "lip", "alip", "pml") if n != key}
    for e in IMPLICATIONS:
        if e.source == key:
            out[e.target] = e.bound(eps, low)
    return out


def draw_implications(path: str | Path | None = None):
    """The implication graph as a matplotlib figure (networkx layout), saved to ``path`` if given.

    >>> fig = draw_implications()
    >>> len(fig.axes[0].texts) >= len(IMPLICATIONS)
    True
    """
    import networkx as nx

    from mechopt.plot import new_axes

    G = nx.DiGraph()
    for e in IMPLICATIONS:
        G.add_edge(e.source.upper(), e.target.upper(), label=e.level)
    pos = {"LDP": (0.0, 0.0), "LIP": (1.0, 0.0), "ALIP": (2.0, 0.6), "PML": (2.0, -0.6)}
    ax = new_axes(figsize=(7.0, 3.6), layout=None)
    fig = ax.figure
    nx.draw_networkx_nodes(G, pos, ax=ax, node_size=1800, node_color="#dbe9f6", edgecolors="#1f4e79")
    nx.draw_networkx_labels(G, pos, ax=ax, font_size=11)
    nx.draw_networkx_edges(G, pos, ax=ax, arrowsize=16, node_size=1800, connectionstyle="arc3,rad=0.18")
    labels = nx.get_edge_attributes(G, "label")
    nx.draw_networkx_edge_labels(G, pos, edge_labels=labels, ax=ax, font_size=8, connectionstyle="arc3,rad=0.18")
    ax.set_title("A ⇒ B at the level on the arrow (fixed prior with full support; nothing leaves PML)", fontsize=9)
    ax.set_axis_off()
    fig.tight_layout()
    if path is not None:
        fig.savefig(path, dpi=150)
    return fig
