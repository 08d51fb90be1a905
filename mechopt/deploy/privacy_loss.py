"""Privacy-loss distributions of a finite channel, and their k-fold composition (exact, or by dp_accounting).

For an ordered input pair (x, x') of a channel Q, the privacy loss of an output y is
L(y) = log(Q[x, y] / Q[x', y]), drawn with probability Q[x, y]. The loss is atomic: one
atom per distinct ratio (equal losses merged, masses added), plus an infinite atom of mass
Σ_{y: Q[x',y]=0} Q[x, y] (outputs that single out x; they count in δ at every ε). Outputs with
Q[x, y] = 0 carry no mass. After k uses by one user the loss is the sum of k independent
draws, and the hockey-stick divergence is

    δ_k(ε) = E_{Q[x]^⊗k}[(1 − e^{ε − L_k})_+] = Σ_z max(0, P_k(z) − e^ε Q_k(z)),

computed here either exactly (:func:`exact_delta`: a sum over the multinomial count vectors
of the finite atoms, in log space) or through Google's ``dp_accounting`` privacy-loss
distributions with pessimistic rounding (:func:`accountant_delta`).

Examples
--------
>>> import numpy as np
>>> rr = np.array([[0.75, 0.25], [0.25, 0.75]])
>>> pl = pair_loss(rr, 0, 1)
>>> pl.losses.round(6).tolist(), pl.masses.tolist(), pl.infinite
([-1.098612, 1.098612], [0.25, 0.75], 0.0)
>>> float(exact_delta(pl, 1, [0.0])[0])                       # total variation of the rows
0.5
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from scipy.special import gammaln

from mechopt.errors import ParamError, TooLargeError

if TYPE_CHECKING:
    from numpy.typing import ArrayLike
from mechopt.runtime.optional import require

__all__ = ["PairLoss", "pair_loss", "pair_losses", "exact_terms", "exact_delta", "accountant_delta", "max_exact_uses"]

EXACT_MAX_TERMS = 1_000_000  # count vectors the exact sum enumerates at most (memory ~ terms x atoms x 8 bytes)
# Added to dp_accounting's δ: its FFT composition rounds both ways (measured at most 2.2e-16 below the exact
# value over 60 random channels, d <= 4, k <= 6); 1e-13 keeps the accountant pessimistic with a wide margin.
ACCOUNTANT_MARGIN = 1e-13
#: Points of one pair's loss grid the accountant is given at most (the losses' span / discretization): dp_accounting
#: took 180 s at 1.4e7 (losses ±691 nats at 1e-4) and had not finished in 240 s at 2.2e12 (±1.1 at 1e-12).
ACCOUNTANT_MAX_POINTS = 2_000_000


@dataclass(frozen=True)
class PairLoss:
    """The atomic privacy-loss distribution of the ordered pair (x, x'): losses, their masses under Q[x], and the
    infinite atom's mass.

    Examples
    --------
    >>> pl = pair_loss(np.array([[0.5, 0.5, 0.0], [0.25, 0.25, 0.5]]), 0, 1)
    >>> pl.losses.round(6).tolist(), pl.masses.tolist(), pl.infinite, round(pl.max_loss, 6)
    ([0.693147], [1.0], 0.0, 0.693147)
    """

    x: int
    x2: int
    losses: np.ndarray  # sorted, distinct, finite
    masses: np.ndarray  # P-mass of each loss (> 0)
    infinite: float  # P-mass of the outputs with Q[x', y] = 0 < Q[x, y]

    @property
    def max_loss(self) -> float:
        """The largest loss (+inf with an infinite atom): the pair's pure-ε level."""
        return math.inf if self.infinite > 0 else float(self.losses.max(initial=0.0))

    def key(self) -> tuple[Any, ...]:
        """Equal keys, equal distributions (pairs of a symmetric channel share one)."""
        return (self.losses.tobytes(), self.masses.tobytes(), self.infinite)


def pair_loss(Q: np.ndarray, x: int, x2: int) -> PairLoss:
    """The privacy-loss distribution of outputs of row ``x`` against row ``x2`` of a validated channel ``Q``.

    Examples
    --------
    >>> pair_loss(np.eye(2), 0, 1).infinite
    1.0
    """
    p, q = Q[x], Q[x2]
    both = (p > 0) & (q > 0)
    infinite = math.fsum(p[(p > 0) & (q == 0)].tolist())
    loss = np.log(p[both]) - np.log(q[both])  # log of each entry: no overflow of the ratio
    values, inverse = np.unique(loss, return_inverse=True)
    masses = np.bincount(inverse.ravel(), weights=p[both], minlength=values.size)
    return PairLoss(x, x2, values, masses, infinite)


def pair_losses(Q: np.ndarray) -> list[tuple[PairLoss, list[tuple[int, int]]]]:
    """The distinct privacy-loss distributions over ordered pairs x ≠ x', each with the pairs that share it.

    Pairs whose (loss, mass) atoms are the same multiset before merging are found for one x at a time
    (one sort of the d × m loss matrix), so a symmetric channel (GRR over d values: d(d − 1) pairs)
    builds one distribution, not d(d − 1).

    Examples
    --------
    >>> [len(pairs) for pl, pairs in pair_losses(np.array([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]]))]
    [6]
    """
    d = Q.shape[0]
    with np.errstate(divide="ignore"):
        logQ = np.log(Q)
    raw: dict[bytes, list[tuple[int, int]]] = {}
    for x in range(d):
        with np.errstate(invalid="ignore"):
            loss = np.where(Q[x] > 0, logQ[x] - logQ, 0.0)  # +inf where only x can produce y; no mass: 0
        mass = np.broadcast_to(Q[x], loss.shape)
        order = np.lexsort((mass, loss), axis=-1)
        atoms = np.hstack([np.take_along_axis(loss, order, -1), np.take_along_axis(mass, order, -1)])
        for x2 in range(d):
            if x2 != x:
                raw.setdefault(atoms[x2].tobytes(), []).append((x, x2))
    groups: dict[tuple[Any, ...], tuple[PairLoss, list[tuple[int, int]]]] = {}
    for pairs in raw.values():
        pl = pair_loss(Q, *pairs[0])
        groups.setdefault(pl.key(), (pl, []))[1].extend(pairs)
    return list(groups.values())


def exact_terms(m: int, k: int) -> int:
    """The number of count vectors of k draws from m atoms, C(k + m − 1, m − 1).

    >>> exact_terms(2, 10), exact_terms(3, 2000)
    (11, 2003001)
    """
    return math.comb(k + m - 1, m - 1) if m > 0 else 1


def max_exact_uses(m: int, limit: int = EXACT_MAX_TERMS) -> int:
    """The largest k whose exact sum over m finite atoms stays within ``limit`` count vectors.

    >>> max_exact_uses(2), max_exact_uses(3)
    (999999, 1412)
    """
    if m <= 1:
        return limit
    lo, hi = 1, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if exact_terms(m, mid) <= limit else (lo, mid - 1)
    return lo


@functools.lru_cache(maxsize=4)
def _count_vectors(m: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """All (n_1, …, n_m) ≥ 0 with Σ n_i = k, by stars and bars (one row each), and the log multinomial
    coefficients log k!/(n_1! … n_m!) (cached: the pairs of one channel share m and k)."""
    t = exact_terms(m, k)
    if m == 1:
        n = np.array([[k]])
    else:
        flat = itertools.chain.from_iterable(itertools.combinations(range(k + m - 1), m - 1))
        bars = np.fromiter(flat, dtype=np.int64, count=t * (m - 1)).reshape(t, m - 1)
        n = np.diff(np.hstack([np.full((t, 1), -1), bars, np.full((t, 1), k + m - 1)]), axis=1) - 1
    log_coef = gammaln(k + 1) - gammaln(n + 1).sum(axis=1)
    n.flags.writeable = False
    log_coef.flags.writeable = False
    return n, log_coef


def _check(k: int, eps: ArrayLike) -> np.ndarray:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ParamError(f"the number of uses must be an integer >= 1, got {k!r}")
    e = np.atleast_1d(np.asarray(eps, dtype=float))
    if e.ndim != 1 or e.size == 0 or not np.all(np.isfinite(e)):
        raise ParamError(f"eps must be finite numbers, got {eps!r}: give e.g. eps=1.0 or a grid")
    return e


def _clip(pl: PairLoss, k: int, e: np.ndarray, delta: np.ndarray) -> np.ndarray:
    """δ = 0 where ε ≥ k·L_max (the pair is L_max-pure: k uses are k·L_max-pure); δ ≤ 1.

    L_max is the computed log-ratio, the ε₀ the LDP audit reports for the float channel (its exact value
    may differ by an ulp; δ there is then ~1e-17, below what any accountant resolves).
    """
    bound = k * pl.max_loss
    if math.isfinite(bound):
        delta = np.where(e >= bound, 0.0, delta)
    return np.clip(delta, 0.0, 1.0)


def exact_delta(pl: PairLoss, k: int, eps: ArrayLike, limit: int = EXACT_MAX_TERMS) -> np.ndarray:
    """δ_k(ε) of one pair, exactly: a sum over count vectors n of the finite atoms (Σ n_i = k),

    δ_k(ε) = 1 − (1 − p_∞)^k + Σ_n (k; n) Π p_i^{n_i} · (1 − e^{ε − Σ n_i L_i})_+ ,

    each term from its logarithm (scipy's ``gammaln`` for the multinomial coefficient,
    ``expm1`` for the factor) and the sum by :func:`math.fsum`, so no term underflows to a
    wrong value or cancels. The sum has C(k + m − 1, m − 1) terms for m distinct finite
    losses; above ``limit`` it raises :class:`~mechopt.errors.TooLargeError` (use the
    accountant then).

    Examples
    --------
    >>> pl = pair_loss(np.array([[0.75, 0.25], [0.25, 0.75]]), 0, 1)
    >>> exact_delta(pl, 2, [0.0, math.log(3), 2 * math.log(3)]).round(12).tolist()   # 9/16·(1 − 3/9) at log 3
    [0.5, 0.375, 0.0]
    """
    e = _check(k, eps)
    m = pl.losses.size
    terms = exact_terms(m, k)
    if terms > limit:
        raise TooLargeError(
            f"exact composition of {k} uses needs {terms:,} terms (a pair has {m} distinct losses; the exact limit "
            f"is {limit:,} terms, k <= {max_exact_uses(m, limit):,} here): use method='accountant' "
            "(CLI: --method accountant; pip install 'mechopt[accounting]') or fewer uses"
        )
    inf_part = -math.expm1(k * math.log1p(-pl.infinite)) if pl.infinite < 1 else 1.0
    if m == 0:
        return _clip(pl, k, e, np.full(e.size, inf_part))
    n, log_coef = _count_vectors(m, k)
    log_p = log_coef + n @ np.log(pl.masses)
    total = n @ pl.losses
    out = np.empty(e.size)
    for i, ei in enumerate(e):
        live = total > ei
        parts = np.exp(log_p[live]) * -np.expm1(ei - total[live])
        out[i] = math.fsum(parts.tolist() + [inf_part])
    return _clip(pl, k, e, out)


def accountant_delta(pl: PairLoss, k: int, eps: ArrayLike, discretization: float = 1e-4) -> np.ndarray:
    """δ_k(ε) of one pair from ``dp_accounting``: the pair's PLD with losses rounded *up* to multiples of
    ``discretization`` (``pessimistic_estimate=True``), self-composed k times (truncated tails go to the
    infinite atom), plus :data:`ACCOUNTANT_MARGIN` for the FFT's rounding: never below the exact value;
    then clipped to 0 at ε ≥ k·L_max like the exact one.

    Examples
    --------
    >>> pl = pair_loss(np.array([[0.75, 0.25], [0.25, 0.75]]), 0, 1)
    >>> d = accountant_delta(pl, 2, [0.0, 0.5])
    >>> bool(np.all(d >= exact_delta(pl, 2, [0.0, 0.5]))), d.round(3).tolist()
    (True, [0.5, 0.459])
    """
    e = _check(k, eps)
    if not (math.isfinite(discretization) and 0 < discretization <= 1):
        raise ParamError(f"discretization must be in (0, 1] (nats), got {discretization!r}")
    span = float(pl.losses.max(initial=0.0) - pl.losses.min(initial=0.0))
    if span / discretization > ACCOUNTANT_MAX_POINTS:
        raise TooLargeError(
            f"the accountant's loss grid would have {span / discretization:.3g} points (losses spanning {span:.4g} "
            f"nats at discretization {discretization:g}), more than {ACCOUNTANT_MAX_POINTS:.0e}: give a discretization "
            f">= {span / ACCOUNTANT_MAX_POINTS:.2g} or method 'exact'"
        )
    require("dp_accounting", "accounting", "accountant compositions (method='accountant')")
    from dp_accounting.pld import privacy_loss_distribution as pld

    # One outcome per atom: the upper distribution's log-mass and the lower's (mass·e^{-L}); the infinite atom
    # is an outcome the lower distribution lacks.
    upper: dict[Any, float] = {i: math.log(p) for i, p in enumerate(pl.masses)}
    lower = {i: math.log(p) - loss for i, (p, loss) in enumerate(zip(pl.masses, pl.losses, strict=True))}
    if pl.infinite > 0:
        upper["inf"] = math.log(pl.infinite)
    one = pld.from_two_probability_mass_functions(
        lower, upper, pessimistic_estimate=True, value_discretization_interval=discretization
    )
    composed = one.self_compose(k) if k > 1 else one
    order = np.argsort(e, kind="stable")  # dp_accounting wants the grid ascending
    delta = np.empty(e.size)
    delta[order] = np.atleast_1d(np.asarray(composed.get_delta_for_epsilon(e[order].tolist()), dtype=float))
    return _clip(pl, k, e, delta + ACCOUNTANT_MARGIN)
