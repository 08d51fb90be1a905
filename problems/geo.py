"""Location privacy (Bordenabe, Chatzikokolakis and Palamidessi, CCS 2014): a channel design on places.

The inputs are n locations (:class:`~mechopt.geo.places.Places`: a grid, a line, or points with a
Euclidean or haversine distance), the outputs the reportable locations (the same by default), the
loss the distance between the true and the reported location (to a power), and the notion
geo-indistinguishability (``metric-ldp``: Q[x, y] ≤ e^{ε d(x, x')} Q[x', y]), or ``graph-ldp`` on
the grid's neighbour graph, ``ldp`` or ``lip``:

    minimise  Σ_{x,y} P(x) Q[x, y] d(x, y)^power   s.t.   Q a channel satisfying the notion at ε.

Examples
--------
>>> prob = GeoDesign.from_params(coords="grid:3x3", eps=0.5, prior="counts:5,1,1,1,1,1,1,1,1")
>>> prob.prior.round(3).tolist()[:2], prob.notion.name, prob.utility.name, prob.places.n
([0.385, 0.077], 'metric-ldp', 'loss', 9)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from mechopt import settings
from mechopt.errors import ProblemError
from mechopt.geo.loss import ExpectedLoss
from mechopt.geo.places import Places, parse_places, prior_from_counts
from mechopt.model.priors import parse_prior, validate_prior
from mechopt.notions import make_notion
from mechopt.problems.design import ChannelDesign
from mechopt.results.result import Result, Status

__all__ = ["GeoDesign", "PROBLEMS", "grid_graph"]

NOTIONS = ("metric-ldp", "graph-ldp", "ldp", "lip")


@dataclass(frozen=True, eq=False)
class GeoDesign(ChannelDesign):
    """A channel design whose inputs (and outputs) are places; see the module docstring."""

    places: Places | None = field(default=None)
    id: ClassVar[str] = "geo"
    paper: ClassVar[str] = ""

    @classmethod
    def from_params(  # type: ignore[override]
        cls,
        *,
        coords: Any,
        eps: Any,
        prior: Any = "uniform",
        notion: str = "metric-ldp",
        utility: str = "loss",
        norm: str | None = None,
        power: Any = 1.0,
        outputs: Any = None,
        graph: Any = None,
        **extra: Any,
    ) -> "GeoDesign":
        """Build from CLI-style parameters.

        ``coords``: ``grid:KxK``, ``line:N``, a coordinates file or array; ``prior``: ``uniform``,
        ``counts:FILE`` or ``counts:3,1,...`` (check-in counts per location), or a prior as in
        ``--prior``; ``outputs``: the reportable locations (same syntax as ``coords``, same norm).
        """
        if extra:
            raise ProblemError(
                f"parameter(s) {sorted(extra)} do not apply to a design on places; known: coords, eps, prior, "
                "notion, utility, norm, power, outputs, graph"
            )
        if str(utility).lower() != "loss":
            raise ProblemError(
                f"a design on places (--coords) uses --utility loss (the distance to the reported location), "
                f"not {utility!r}; for mae on numbers drop --coords and give --values"
            )
        key = str(notion).lower()
        if key not in NOTIONS:
            raise ProblemError(f"notion {notion!r} does not apply to places; use one of {', '.join(NOTIONS)}")
        try:
            places = parse_places(coords, norm)
        except (TypeError, ValueError, OverflowError) as exc:  # numpy's words for malformed coordinates
            raise ProblemError(
                f"coords {str(coords)[:60]!r} are not places: give grid:KxK, line:N, a coordinates file or an "
                f"n x 2 array of finite numbers ({type(exc).__name__}: {str(exc)[:80]})"
            ) from None
        out = None if outputs is None else parse_places(outputs, places.norm)
        P = _prior(prior, places.n)
        try:
            pw = float(power)
        except (TypeError, ValueError):
            raise ProblemError(f"power must be a number > 0, got {power!r}") from None
        if graph is not None and key != "graph-ldp":
            raise ProblemError(f"--graph goes with notion graph-ldp, not {key}")
        kw: dict[str, Any] = {}
        if key == "metric-ldp":
            kw = {"dist": places.distances(), "source": places.describe()}
        elif key == "graph-ldp":
            kw = {"graph": graph if graph is not None else grid_graph(places)}
        return cls(
            prior=P,
            notion=make_notion(key, eps, **kw),
            utility=ExpectedLoss.from_places(places, out, pw),
            places=places,
        )

    def params(self) -> dict[str, Any]:
        return {"prior": self.prior.tolist(), **self.notion.params(), **self.utility.params()}

    def baselines(self) -> dict[str, Result]:
        """The baselines at this problem's ε, audited under its notion, with its loss (not optimal).

        Planar Laplace snapped to the grid (Euclidean grids and lines) or the exponential
        mechanism (other places), each alone and followed by Bayesian remapping
        (:mod:`mechopt.geo.baselines`). Status ``feasible`` when private within tolerance, else
        ``infeasible_point`` (e.g. planar Laplace audited under a stricter notion than geo-indistinguishability).

        >>> prob = GeoDesign.from_params(coords="grid:4x4", eps=0.5)
        >>> {k: r.status.value for k, r in prob.baselines().items()}
        {'planar-laplace': 'feasible', 'planar-laplace+remap': 'feasible'}
        """
        from mechopt.geo import baselines as B

        eps, pl = self.notion.eps, self.places
        if pl is None or self.utility.L.shape[1] != pl.n:
            raise ProblemError("baselines report the input locations: build the design without other outputs")
        planar = pl.shape is not None and pl.norm == "euclidean"
        name = "planar-laplace" if planar else "exponential"
        Q = B.planar_laplace(pl, eps) if planar else B.exponential_mechanism(pl, eps)
        out = {}
        for key, M in ((name, Q), (f"{name}+remap", B.remap(Q, self.prior, self.utility.L))):
            aud = self.audit_channel(M)
            ok = aud.violation is not None and aud.violation <= settings.tolerance("privacy")
            out[key] = Result(
                status=Status.FEASIBLE if ok else Status.INFEASIBLE_POINT,
                value=aud.value,
                sense="min",
                objective=self.objective,
                mechanism=M,
                solver=f"baseline:{key}",
                violation=aud.violation,
                eps_audited=aud.eps_audited,
                notion=aud.notion,
                eps=aud.eps,
                unit=self.unit,
                message=f"baseline {key} at eps={eps:g}: audited, not optimal",
            )
        return out


def _prior(prior: Any, n: int) -> np.ndarray:
    """``uniform``, ``counts:...`` (counts file or list, normalised), or a prior vector / ``--prior`` text."""
    if isinstance(prior, str):
        s = prior.strip()
        if s.lower() == "uniform":
            return np.full(n, 1.0 / n)
        if s.lower().startswith("counts:"):
            body = s.split(":", 1)[1]
            if "," in body:
                try:
                    counts = np.array([float(v) for v in body.split(",") if v.strip()])
                except ValueError:
                    raise ProblemError(f"bad counts {body!r}: give comma-separated numbers") from None
            else:
                counts = parse_prior_counts(body)
            P = prior_from_counts(counts)
        else:
            P = parse_prior(s)
    else:
        P = validate_prior(prior)
    if P.size != n:
        raise ProblemError(f"the prior has {P.size} entries but there are {n} locations")
    return P


def parse_prior_counts(path: str) -> np.ndarray:
    """Counts from a .npy/.txt file (one number per location, any total)."""
    from mechopt.io.files import read_input_text

    text = read_input_text(path, "counts file", 64 * 1024 * 1024)
    try:
        return np.array([float(v) for v in text.replace(",", " ").split() if not v.startswith("#")])
    except ValueError:
        raise ProblemError(f"{path}: counts must be numbers, one per location") from None


def grid_graph(places: Places) -> Any:
    """The neighbour graph of a grid (edges between points one step apart, weight = the step).

    >>> from mechopt.geo import grid
    >>> sorted(grid_graph(grid(2)).edges(data="weight"))
    [(0, 1, 1.0), (0, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)]
    """
    import networkx as nx

    if places.shape is None:
        raise ProblemError("graph-ldp on places needs a grid (grid:KxK, line:N) or a --graph file")
    r, c = places.shape
    G = nx.Graph()
    G.add_nodes_from(range(places.n))
    for i in range(r):
        for j in range(c):
            a = i * c + j
            if j + 1 < c:
                G.add_edge(a, a + 1, weight=places.spacing)
            if i + 1 < r:
                G.add_edge(a, a + c, weight=places.spacing)
    return G


PROBLEMS = {"geo": GeoDesign}
