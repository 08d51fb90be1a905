"""Accounting for repeated use: the (ε, δ) guarantee of any finite channel after each user reports k times.

A user who reports k times through the channel Q (the same value each time, fresh
randomness) is protected by the hockey-stick curve

    δ_k(ε) = max_{x ≠ x'} Σ_{z ∈ Y^k} max(0, Q[x]^⊗k(z) − e^ε Q[x']^⊗k(z)),

the smallest δ for which the k reports are (ε, δ)-LDP. :func:`compose` computes it for every
ordered input pair's privacy-loss distribution (:mod:`mechopt.deploy.privacy_loss`), exactly
while the multinomial sum is small and through Google's ``dp_accounting`` (losses rounded up,
pessimistic) above it, and names the worst pair. It is never looser than the pure bound
(δ = 0 at ε ≥ k·ε₀ for an ε₀-LDP channel) and never optimistic. :func:`compose_parallel` takes
the maximum over parts of a record randomized separately (disjoint attributes).

For randomized response with p = e^{ε₀}/(1 + e^{ε₀}) the curve is the binomial sum

    δ_k(ε) = Σ_{i=0}^{k} C(k, i) (p^{k−i} (1−p)^i − e^ε p^i (1−p)^{k−i})_+ ,

which at ε = (k − 2i) ε₀ is the optimal composition bound of Kairouz, Oh and Viswanath, "The
composition theorem for differential privacy", ICML 2015 (Theorem 3.3: k uses of any ε₀-DP
mechanism are as private as k uses of RR, and no more). For generalized RR over d values the
losses are ±ε₀ (masses p, q = 1/(e^{ε₀} + d − 1)) and 0 (mass (d − 2) q), so δ_k is the
binomial mixture Σ_j C(k, j) (p+q)^j ((d−2)q)^{k−j} δ^{RR}_j(ε) over the j informative reports.

Examples
--------
>>> import numpy as np
>>> from mechopt.deploy.composition import compose
>>> rr = [[0.75, 0.25], [0.25, 0.75]]                     # ε₀ = log 3
>>> c = compose(rr, uses=[1, 3], eps=[0.0, 1.0, 3 * np.log(3)])
>>> c.delta.round(6).tolist()
[[0.5, 0.07043, 0.0], [0.6875, 0.419018, 0.0]]
>>> c.method, c.worst[1][0]
(('exact', 'exact'), (0, 1))
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from mechopt.deploy.privacy_loss import (
    EXACT_MAX_TERMS,
    PairLoss,
    accountant_delta,
    exact_delta,
    exact_terms,
    pair_losses,
)
from mechopt.errors import ParamError, ProblemError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = ["Composition", "compose", "compose_parallel", "METHODS"]

METHODS = ("auto", "exact", "accountant")
ACCOUNTANT = "dp_accounting pessimistic"


@dataclass(frozen=True)
class Composition:
    """δ(ε) after k uses, for each k in ``uses`` (rows of ``delta``) and each ε in ``eps`` (columns).

    ``worst[i][j]`` is the ordered input pair (x, x') — by label, prefixed by the part's name after
    :func:`compose_parallel` — that attains ``delta[i, j]``; ``method[i]`` says how row i was computed
    (``exact`` or ``dp_accounting pessimistic``); ``eps_ldp`` is the single-use pure level ε₀.

    Examples
    --------
    >>> c = compose([[0.75, 0.25], [0.25, 0.75]], uses=2, eps=0.5)
    >>> print(c.table())
    uses   eps   delta      worst pair   method
    -------------------------------------------
    2      0.5   0.459455   0 vs 1       exact
    >>> round(c.to_dict()["rows"][0]["delta"], 12)
    0.459454920581
    """

    uses: tuple[int, ...]
    eps: np.ndarray
    delta: np.ndarray
    worst: tuple[tuple[tuple[Any, ...] | None, ...], ...]
    method: tuple[str, ...]
    eps_ldp: float
    discretization: float | None = None
    parts: tuple[str, ...] = field(default_factory=tuple)

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (k, ε): uses, eps, delta, worst (the pair, or None without one), method."""
        return [
            {
                "uses": k,
                "eps": float(self.eps[j]),
                "delta": float(self.delta[i, j]),
                "worst": _listed(self.worst[i][j]),
                "method": self.method[i],
            }
            for i, k in enumerate(self.uses)
            for j in range(self.eps.size)
        ]

    def table(self) -> str:
        """The curve as an aligned text table (one row per k and ε)."""
        from mechopt.cli._common import table

        body = [
            [
                r["uses"],
                r["eps"],
                r["delta"],
                "-" if r["worst"] is None else " vs ".join(map(str, r["worst"])),
                r["method"],
            ]
            for r in self.rows()
        ]
        return table(["uses", "eps", "delta", "worst pair", "method"], body)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the grid, the rows, ε₀ (None when infinite) and the accountant's discretization."""
        return {
            "uses": list(self.uses),
            "eps": self.eps.tolist(),
            "eps_ldp": self.eps_ldp if math.isfinite(self.eps_ldp) else None,
            "discretization": self.discretization,
            "parts": list(self.parts),
            "rows": self.rows(),
        }

    def plot(self, ax: Any = None) -> Any:
        """δ(ε) for each k on a log δ axis (matplotlib; the ``plot`` extra); returns the Axes.

        >>> ax = compose([[0.75, 0.25], [0.25, 0.75]], uses=[1, 4], eps=np.linspace(0, 4, 9)).plot()
        >>> [t.get_text() for t in ax.get_legend().get_texts()]
        ['k = 1', 'k = 4']
        """
        from mechopt.plot import new_axes

        ax = new_axes(ax, figsize=(5.0, 3.5))
        for i, k in enumerate(self.uses):
            ax.semilogy(self.eps, np.where(self.delta[i] > 0, self.delta[i], np.nan), marker=".", label=f"k = {k}")
        ax.set_xlabel("ε (nats)")
        ax.set_ylabel("δ(ε)")
        ax.set_title("privacy after k uses" + (f" (ε₀ = {self.eps_ldp:.3g})" if math.isfinite(self.eps_ldp) else ""))
        ax.legend()
        return ax


def _listed(pair: tuple[Any, ...] | None) -> list[Any] | None:
    return None if pair is None else list(pair)


def _matrix(mech: Any) -> tuple[np.ndarray, tuple[Any, ...]]:
    """Q and the input labels of a Mechanism, a Channel, an oracle or an array."""
    from mechopt.mechanism import Mechanism
    from mechopt.mechanism.convert import matrix_and_labels

    if isinstance(mech, Mechanism):
        return mech.Q, mech.inputs
    Q, inputs, _ = matrix_and_labels(mech)
    return Q, tuple(inputs) if inputs is not None else tuple(range(Q.shape[0]))


def _grid(uses: int | Sequence[int], eps: ArrayLike) -> tuple[tuple[int, ...], np.ndarray]:
    ks: list[Any] = [uses] if np.ndim(uses) == 0 else list(uses)  # type: ignore[arg-type]
    if not ks or any(isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1 for k in ks):
        raise ParamError(f"uses must be integers >= 1 (the number of reports per user), got {uses!r}")
    try:
        e = np.atleast_1d(np.asarray(eps, dtype=float))
    except (TypeError, ValueError):
        raise ParamError(f"eps must be numbers, got {eps!r}") from None
    if e.ndim != 1 or e.size == 0 or not np.all(np.isfinite(e)) or np.any(e < 0):
        raise ParamError(f"eps must be finite numbers >= 0 (nats), got {eps!r}")
    return tuple(int(k) for k in ks), e


def _one_k(
    groups: list[tuple[PairLoss, list[tuple[int, int]]]], k: int, e: np.ndarray, method: str, h: float, limit: int
) -> tuple[Any, str]:
    """δ of every distinct pair distribution after k uses (rows: groups), and the method(s) used: under
    ``auto`` each pair is exact within the limit and goes to the accountant above it."""
    rows, used = [], set()
    for pl, _ in groups:
        exact = method == "exact" or (method == "auto" and exact_terms(pl.losses.size, k) <= limit)
        rows.append(exact_delta(pl, k, e, limit) if exact else accountant_delta(pl, k, e, h))
        used.add("exact" if exact else ACCOUNTANT)
    return np.array(rows), " + ".join(sorted(used))


def compose(
    mech: Any,
    uses: int | Sequence[int],
    eps: ArrayLike,
    method: str = "auto",
    discretization: float = 1e-4,
    limit: int = EXACT_MAX_TERMS,
) -> Composition:
    """The hockey-stick curve δ(ε) of a channel after k uses, for each k in ``uses``, and its worst pair.

    Parameters
    ----------
    mech : Mechanism, Channel, oracle or array_like, shape (d, m)
        The channel Q (rows are inputs, row-stochastic); a Mechanism's input labels name the pairs.
    uses : int or sequence of int
        Reports per user, each ≥ 1.
    eps : float or sequence of float
        Privacy levels ε ≥ 0 (nats) at which δ is computed.
    method : {"auto", "exact", "accountant"}
        ``exact``: the multinomial sum of :func:`~mechopt.deploy.privacy_loss.exact_delta`, at most
        ``limit`` terms per pair (C(k + m − 1, m − 1) for m distinct losses: k ≤ 999 999 for RR,
        k ≤ 1412 for GRR), else :class:`~mechopt.errors.TooLargeError`. ``accountant``: dp_accounting's
        PLD with losses rounded up to ``discretization`` (the ``accounting`` extra; a pair's loss span over
        ``discretization`` at most ``ACCOUNTANT_MAX_POINTS``, else TooLargeError). ``auto``: each pair
        exact when within the limit, through the accountant above it (``method`` then names both).

    Returns
    -------
    Composition
        ``delta[i, j]`` is δ at ``eps[j]`` after ``uses[i]`` reports, with the worst pair and the method.

    Examples
    --------
    >>> from mechopt.oracles import GRR
    >>> c = compose(GRR(4, 1.0), uses=10, eps=[5.0, 10.0])
    >>> c.delta.round(6).tolist(), round(c.eps_ldp, 12)
    ([[0.109197, 0.0]], 1.0)
    """
    if method not in METHODS:
        raise ParamError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    ks, e = _grid(uses, eps)
    Q, labels = _matrix(mech)
    groups = pair_losses(Q)
    if not groups:
        raise ProblemError(
            f"the mechanism has one input (Q is {Q.shape[0]} x {Q.shape[1]}): privacy compares what two inputs reveal, "
            "so there is nothing to account or report; Q needs one row per input value, at least 2 (rows are inputs, "
            "Q[x][y] = P(y | x)): write every row, or transpose a Q written with outputs as rows"
        )
    eps_ldp = max(g[0].max_loss for g in groups)
    delta = np.empty((len(ks), e.size))
    worst: list[tuple[tuple[Any, ...] | None, ...]] = []
    used = []
    for i, k in enumerate(ks):
        per, how = _one_k(groups, k, e, method, discretization, limit)
        delta[i] = per.max(axis=0)
        arg = per.argmax(axis=0)
        worst.append(
            tuple(
                (labels[groups[g][0].x], labels[groups[g][0].x2]) if delta[i, j] > 0 else None
                for j, g in enumerate(arg)
            )
        )
        used.append(how)
    return Composition(
        ks,
        e,
        delta,
        tuple(worst),
        tuple(used),
        float(eps_ldp),
        discretization if any(ACCOUNTANT in u for u in used) else None,
    )


def _named(name: str, pair: tuple[Any, ...] | None) -> tuple[Any, ...] | None:
    return None if pair is None else (name, *pair)


def compose_parallel(
    parts: Mapping[str, Any], uses: int | Sequence[int], eps: ArrayLike, **options: Any
) -> Composition:
    """Parallel composition over disjoint attributes: δ(ε) = max over parts of each part's δ(ε).

    Each part of a record (an attribute) is randomized by its own channel; when the protected
    change touches one part only (attribute-level neighbours, or users split into groups that
    each report one attribute), the guarantee is the worst part's. A change that may touch
    every attribute is sequential composition instead (the parts' losses add up), not this.

    Parameters
    ----------
    parts : mapping of name to Mechanism, array or :class:`Composition`
        A Composition given here must be on the same ``uses`` and ``eps`` grid.
    uses, eps, **options
        As for :func:`compose`.

    Examples
    --------
    >>> c = compose_parallel({"smoker": [[0.75, 0.25], [0.25, 0.75]], "age": np.full((3, 2), 0.5)}, uses=2, eps=0.5)
    >>> c.delta.round(6).tolist(), c.worst[0][0]
    ([[0.459455]], ('smoker', 0, 1))
    """
    if not parts:
        raise ParamError("compose_parallel needs at least one part: {'name': mechanism, ...}")
    ks, e = _grid(uses, eps)
    done = {}
    for name, part in parts.items():
        c = part if isinstance(part, Composition) else compose(part, ks, e, **options)
        if c.uses != ks or c.eps.shape != e.shape or not np.array_equal(c.eps, e):
            raise ParamError(
                f"part {name!r} was composed on another uses/eps grid: compose it on uses={ks}, eps={e.tolist()}"
            )
        done[str(name)] = c
    names = list(done)
    stack = np.stack([done[n].delta for n in names])  # (parts, uses, eps)
    best = stack.argmax(axis=0)
    worst = tuple(
        tuple(_named(names[p], done[names[p]].worst[i][j]) for j, p in enumerate(row)) for i, row in enumerate(best)
    )
    methods = tuple(
        " + ".join(sorted({m for n in names for m in done[n].method[i].split(" + ")})) for i in range(len(ks))
    )
    hs = [c.discretization for c in done.values() if c.discretization is not None]
    return Composition(
        ks,
        e,
        stack.max(axis=0),
        worst,
        methods,
        max(c.eps_ldp for c in done.values()),
        max(hs) if hs else None,
        tuple(names),
    )
