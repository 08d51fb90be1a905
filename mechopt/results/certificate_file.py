"""Certificates anyone can check: the exact and robust solvers' dual evidence written as a versioned JSON file.

The format (``mechopt-certificate``, version 1) is documented in ``docs/howto/certificates.rst`` and read by the
standalone checker :mod:`mechopt.certcheck` (``mechopt check FILE``, or ``python certcheck.py FILE`` with only
the standard library). Every number is written as the exact rational value of its binary64 float, ``"p/q"``
(``str(fractions.Fraction(x))``), so the file round-trips bit for bit.

Examples
--------
>>> import json, mechopt, tempfile, os
>>> from mechopt.problems.design import ChannelDesign
>>> prob = ChannelDesign.from_params(prior="0.1,0.2,0.3,0.4", notion="ldp", utility="mi", eps=1.0)
>>> r = mechopt.solve(prob, solver="exact")
>>> path = os.path.join(tempfile.mkdtemp(), "cert.json")
>>> r.save_certificate(path)
>>> doc = json.load(open(path))
>>> doc["format"], doc["version"], doc["problem"]["notion"], doc["claim"]["status"]
('mechopt-certificate', 1, {'name': 'ldp', 'eps': '1'}, 'optimal')
>>> from mechopt.certcheck import main
>>> main([path, "--json"]) == 0   # doctest: +ELLIPSIS
{"file": ..., "verdict": "verified", ...}
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from mechopt.errors import CertificateError

if TYPE_CHECKING:
    from mechopt.model.forms import ColumnProgram

__all__ = [
    "FORMAT",
    "VERSION",
    "DualEvidence",
    "RobustEvidence",
    "CertificateError",
    "check_checker_size",
    "exact",
    "centred_squares",
    "certificate_document",
    "write_certificate",
]

FORMAT, VERSION = "mechopt-certificate", 1


def check_checker_size(d: int) -> None:
    """Raise a CertificateError when ``d`` inputs of positive mass are beyond the standalone checker's reach.

    >>> check_checker_size(8)
    """
    from mechopt.certcheck import MAX_D

    if d > MAX_D:
        raise CertificateError(
            f"{d} inputs of positive mass: the standalone checker enumerates the extreme rays of at most {MAX_D}, "
            "so no certificate file is written; drop --certificate (the result's own certificate stands)"
        )


@dataclass(frozen=True, eq=False)
class DualEvidence:
    """What the exact solver proved, in the units of its column program (prior on the support).

    For every normalised extreme ray r of the column cone, μ(r) − νᵀr ≤ ``gain_bound`` − νᵀP, so every
    mechanism has Σ_y μ(c_y) ≤ ``gain_bound`` (math.md §1); ``Q`` holds the support rows of the mechanism.
    """

    program: ColumnProgram
    Q: np.ndarray
    nu: np.ndarray
    gain_bound: float
    method: str = ""

    def save(
        self, path: str, *, bound: float, gap: float, status: str | None = None, value: float | None = None, **prov: Any
    ) -> None:
        """Write the certificate (:meth:`Certificate.save <mechopt.results.certificate.Certificate.save>` calls this).

        The claims default to the evidence's own: the value of its mechanism and ``optimal`` when ``gap``
        is within the ``gap`` tolerance.
        """
        from mechopt import settings

        cp = self.program
        check_checker_size(cp.d)
        if value is None:
            value = cp.value_of(float(np.sum(cp.gain(cp.prior[:, None] * self.Q))))
        if status is None:
            status = "optimal" if gap <= settings.tolerance("gap") else "optimal_inaccurate"
        write_certificate(path, self, status=status, value=float(value), bound=float(bound), method=self.method, **prov)


@dataclass(frozen=True, eq=False)
class RobustEvidence:
    """What a robust solver proved for a design over a prior set: weights w ≥ 0 on the vertices and ν.

    robust-lp (a linear loss L): per output y multipliers ``mu`` μ_y ≥ 0 of the rows a_k of the private cone with
    P_w ∘ L[:, y] − ν ≈ Σ_k μ_yk a_k + (≥ 0), so (P_w ∘ L[:, y] − ν)·q ≥ 0 for every private column q
    (P_w = Σ_v w_v P_v / Σ w) and every private channel has worst loss ≥ Σ_x P_w(x) Σ_y Q[x, y] L[x, y] ≥ 1ᵀν
    (weak duality; the checker bounds the residual). robust-rays (mi, mse, histogram; ``mu`` None): the checker
    enumerates the rays r of the private cone and proves the bound Σ_v λ_v offset_v + sign·(1ᵀν + d·max_r
    (Σ_v λ_v μ_v(P_v ∘ r) − νᵀr) / 1ᵀr), λ = w / Σ w, the column gains μ_v of an MSE taken at ``centre``."""

    problem: Any
    Q: np.ndarray
    weights: np.ndarray
    nu: np.ndarray
    mu: np.ndarray | None
    method: str = ""
    centre: float = 0.0

    def save(
        self, path: str, *, bound: float, gap: float, status: str | None = None, value: float | None = None, **prov: Any
    ) -> None:
        """Write the robust certificate (``"kind": "robust"``) that :mod:`mechopt.certcheck` verifies."""
        import json

        from mechopt import settings
        from mechopt.io.writer import write_text
        from mechopt.model.problem import value_gap

        self._check_size()
        value = self.problem.evaluate(self.Q) if value is None else value
        status = status or ("optimal" if gap <= settings.tolerance("gap") else "optimal_inaccurate")
        claim = self._claimable(bound)
        if status == "optimal" and value_gap(self.problem, self.Q, value, claim) > settings.tolerance("gap"):
            status = "optimal_inaccurate"  # the file claims only what its duals prove
        doc = {
            "format": FORMAT,
            "version": VERSION,
            "problem": self._problem_doc(),
            "mechanism": {"Q": [_vector(row) for row in np.asarray(self.Q, float)]},
            "dual": self._dual_doc(),
            "claim": {"status": status, "value": exact(value), "bound": exact(claim)},
            "tolerances": {k: settings.tolerance(k) for k in ("row_sum", "privacy", "gap")},
            "provenance": {"mechopt": _version(), "method": self.method, **prov},
        }
        write_text(path, json.dumps(doc, indent=1) + "\n")

    def _check_size(self) -> None:
        from mechopt.certcheck import MAX_D

        if self.problem.prior_set.d > MAX_D:
            raise CertificateError(f"{self.problem.prior_set.d} inputs: the standalone checker takes at most {MAX_D}")

    def _claimable(self, bound: float) -> float:
        """The bound the file claims: the result's, or (robust-lp) the lower bound its duals prove in the checker's
        exact arithmetic when that is lower (a float rounded down), so a written claim always verifies."""
        if self.mu is None:
            return bound
        return min(bound, proven_loss_bound(self.problem, self.weights, self.nu, self.mu))

    def _problem_doc(self) -> dict[str, Any]:
        prob = self.problem
        return {
            "kind": "robust",
            "prior_set": [_vector(v) for v in prob.prior_set.vertices],
            "notion": notion_data(prob.notion),
            **(_loss_data(prob) if self.mu is not None else {"utility": self._gain_data()}),
            "sense": prob.sense,
            "objective": prob.objective,
            "source": prob.prior_set.source,
        }

    def _dual_doc(self) -> dict[str, Any]:
        dual = {"weights": _vector(self.weights), "nu": _vector(self.nu)}
        return dual | ({} if self.mu is None else {"mu": [_vector(m) for m in self.mu]})

    def _gain_data(self) -> dict[str, Any]:
        """A gain utility (robust-rays) as the checker reads it: mse with its values and the gains' centre."""
        u = self.problem.utility
        values = {"values": _vector(u.a), "centre": exact(self.centre)} if u.name == "mse" else {}
        return {"name": u.name, **values}


def proven_loss_bound(problem: Any, weights: Any, nu: Any, mu: Any) -> float:
    """The lower bound 1ᵀν + Σ_x min_y R[y][x] that the standalone checker proves from robust-lp's duals (its own
    :func:`mechopt.certcheck.robust_rows` and exact rationals), rounded down to a float.

    >>> from mechopt.problems.robust import RobustDesign
    >>> prob = RobustDesign.from_params(prior_set="0.5,0.5", notion="ldp", utility="mae", eps=1.0)
    >>> proven_loss_bound(prob, [1.0], [0.0, 0.0], np.zeros((2, 2)))    # ν = 0, μ = 0: the least loss, 0
    0.0
    """
    import math

    from mechopt import certcheck as cc

    V = [[Fraction(float(p)) for p in v] for v in problem.prior_set.vertices]
    notion = notion_data(problem.notion)
    c = {"notion": notion["name"], "eps": Fraction(notion["eps"]), "P": [Fraction(1)] * len(V[0]), "edges": []}
    c.update(V=[[p / sum(v) for p in v] for v in V], eps_l=Fraction(notion.get("eps_lower", 0)))
    c["eps_l"] = c["eps_l"] if "eps_lower" in notion else None
    L = [[Fraction(t) for t in row] for row in _loss_data(problem)["loss"]]
    mu = [[Fraction(float(t)) for t in row] for row in np.asarray(mu, float)]
    bound = cc.loss_bound(c["V"], [Fraction(float(t)) for t in weights], L, [Fraction(float(t)) for t in nu], mu,
                          cc.robust_rows(c, c["eps"], 1))[0]  # fmt: skip
    return math.nextafter(float(bound), -math.inf) if Fraction(float(bound)) > bound else float(bound)


def _loss_data(prob: Any) -> dict[str, Any]:
    """The loss L[x, y] exactly; for an MAE its values and outputs too, and L = |a_x − b_y| as exact rationals."""
    from mechopt.utilities import MAE

    u = prob.utility
    if type(u) is MAE:
        a, b = [Fraction(float(v)) for v in u.a], [Fraction(float(v)) for v in u.b]
        loss = [[str(abs(x - y)) for y in b] for x in a]
        return {"utility": {"name": u.name, "values": _vector(u.a), "outputs": _vector(u.b)}, "loss": loss}
    return {"utility": {"name": u.name}, "loss": [_vector(r) for r in prob.loss_matrix()]}


def exact(x: float | Fraction) -> str:
    """The exact rational value of a binary64 number (or of a ``Fraction``), as ``"p/q"`` (or an integer).

    >>> exact(0.1), exact(2.0), exact(-0.75), exact(Fraction(1, 3))
    ('3602879701896397/36028797018963968', '2', '-3/4', '1/3')
    """
    return str(x if isinstance(x, Fraction) else Fraction(float(x)))


def _vector(v: Any) -> list[str]:
    """Exact rationals of the entries (an object array of ``Fraction`` is written as it is, not rounded)."""
    v = np.asarray(v)
    return [exact(x) for x in np.ravel(v if v.dtype == object else v.astype(float))]


def notion_data(notion: Any) -> dict[str, Any]:
    """The notion as the checker reads it: name, ε and its data (policy graph edges, CIP user priors)."""
    from mechopt.notions import ALIP, CIP, LDP, LIP, PML, GraphLDP

    out: dict[str, Any] = {"name": notion.name, "eps": exact(notion.eps)}
    if type(notion) is ALIP:
        out["eps_lower"] = exact(notion.eps_lower)
    elif isinstance(notion, GraphLDP) and type(notion) is GraphLDP:
        edges = notion.graph.edges(data="weight", default=1.0)
        out["edges"] = [[int(u), int(v), exact(w)] for u, v, w in sorted(edges, key=lambda e: (e[0], e[1]))]
    elif type(notion) is CIP:
        out["p"] = _vector(notion.p)
    elif type(notion) not in (LDP, LIP, PML):
        raise CertificateError(
            f"no checkable certificate for notion {notion.name!r}: the checker knows ldp, lip, pml, alip, "
            "graph-ldp, metric-ldp and cip"
        )
    return out


def utility_data(utility: Any, prior: np.ndarray) -> dict[str, Any]:
    """The utility as the checker reads it; an MSE carries its values and the centre its gains use."""
    from mechopt.utilities import HistogramMSE, MutualInfo, SumMSE

    if type(utility) is SumMSE:
        return {"name": "mse", "values": _vector(utility.a), "centre": exact(utility.centre)}
    if type(utility) is HistogramMSE:
        return {"name": "histogram"}
    if type(utility) is MutualInfo and utility.prior is not None and np.allclose(utility.prior, prior, 0, 1e-15):
        return {"name": "mi"}
    raise CertificateError(
        f"no checkable certificate for utility {utility.name!r}: the checker knows mse, histogram and mi"
    )


def certificate_document(ev: DualEvidence, *, status: str, value: float, bound: float, **provenance: Any) -> dict:
    """The JSON document of a certificate (see the module docstring and docs/howto/certificates.rst).

    ν is shifted by (bound − νᵀP) / 1ᵀP, so the file's claim reads: μ(r) ≤ νᵀr for every normalised
    extreme ray r, hence Σ_y μ(c_y) ≤ νᵀP, the claimed bound (in the column program's gain units).
    """
    cp = ev.program
    P = np.asarray(cp.prior, float)
    # the program is unit-free (values normalised, gain = μ − linear part): the file states the utility's own μ
    utility, nu, gain_bound = _exact_duals(cp, P, ev.nu, ev.gain_bound)
    from mechopt import settings

    return {
        "format": FORMAT,
        "version": VERSION,
        "problem": {
            "prior": _vector(P),
            "notion": notion_data(cp.notion),
            "utility": utility_data(utility, P),
            "sense": cp.sense,
            "objective": cp.objective or cp.utility.name,
            "inputs": None if cp.index is None else [int(i) for i in cp.index],
        },
        "mechanism": {"Q": [_vector(row) for row in np.asarray(ev.Q, float)]},
        "dual": {"nu": _vector(nu), "gain_bound": exact(gain_bound)},
        "claim": {"status": status, "value": exact(value), "bound": exact(bound)},
        "tolerances": {k: settings.tolerance(k) for k in ("row_sum", "privacy", "gap")},
        "provenance": {"mechopt": _version(), **provenance},
    }


def _exact_duals(cp: Any, P: np.ndarray, nu: np.ndarray, gain_bound: float) -> tuple[Any, np.ndarray, Fraction]:
    """ν' = scale·(ν + shift), shifted so that ν'ᵀP is the bound, in exact rationals: (utility, ν', bound').

    The shift is E[ã²]-sized for an mse (ã² per input, ã the values less the centre as the checker reads them) and
    1 for a histogram; added in doubles it rounds at ulps of that size, which an optimum far below it cannot
    afford (exact ldp mse, ε = 30, 5 inputs: the file's duals proved the MSE of 1.4e-12 only to 9.1e-5 of it,
    where mechopt's own bound holds to 1.5e-14). Added exactly, the file proves what the solver proved.
    """
    utility, _, _ = cp.problem_duals(nu, gain_bound)
    S, sign = Fraction(float(cp.scale)), int(cp.utility.sign)
    if utility.name == "mse":
        shift = [-sign * t for t in centred_squares(utility)]
    else:
        shift = [S * Fraction(float(t)) for t in cp.shift]
    Pq = [Fraction(float(p)) for p in P]
    out = [S * Fraction(float(v)) + t for v, t in zip(nu, shift)]
    bound = S * Fraction(float(gain_bound)) + sum(t * p for t, p in zip(shift, Pq))
    move = (bound - sum(v * p for v, p in zip(out, Pq))) / sum(Pq)
    return utility, np.array([v + move for v in out], dtype=object), bound


def centred_squares(utility: Any) -> list[Fraction]:
    """(a_x − centre)² of an mse utility in exact rationals, the values and the centre as the checker reads them.

    >>> from mechopt.utilities import SumMSE
    >>> [str(t) for t in centred_squares(SumMSE([0.0, 1.0, 4.0]))]
    ['4', '1', '4']
    """
    centre = Fraction(float(utility.centre))
    return [(Fraction(float(a)) - centre) ** 2 for a in utility.a]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mechopt")
    except PackageNotFoundError:  # pragma: no cover - a source tree
        return "unknown"


def write_certificate(
    path: str, ev: DualEvidence, *, status: str, value: float, bound: float, **provenance: Any
) -> None:
    """Write :func:`certificate_document` to ``path`` with :func:`mechopt.io.writer.write_text`
    (nothing half-written on failure; a device or FIFO written through, never replaced)."""
    import json

    from mechopt.io.writer import write_text

    doc = certificate_document(ev, status=status, value=value, bound=bound, **provenance)
    write_text(path, json.dumps(doc, indent=1) + "\n")
