"""(ε, δ)-PML from an empirical prior: a set of priors that holds the true one with probability ≥ 1 − δ.

From n i.i.d. samples of X on d symbols with counts N_x and empirical prior p̂ = N / n, a
concentration bound gives a radius r(n, d, δ) such that, with probability ≥ 1 − δ over the samples,
the true prior p lies in the ball {P ∈ Δ : dist(P, p̂) ≤ r}. Two bounds are offered:

- ``"weissman"`` (L1; Weissman, Ordentlich, Seroussi, Verdú, Weinberger, "Inequalities for the L1
  deviation of the empirical distribution", HP Labs HPL-2003-97, Thm 2.1 with φ(π_P) ≥ 2):
  P(‖p − p̂‖₁ ≥ r) ≤ (2^d − 2) e^{−n r² / 2}, so r = sqrt(2 ln((2^d − 2)/δ) / n);
  the set is the total-variation ball of radius r / 2 (TV = L1 / 2).
- ``"hoeffding"`` (L∞; Hoeffding per symbol and a union bound over the d symbols):
  P(max_x |p_x − p̂_x| ≥ t) ≤ 2d e^{−2 n t²}, so t = sqrt(ln(2d/δ) / (2n)); the set is a box.

Either ball intersected with the simplex is a polytope, and
:meth:`PriorSet.ball <mechopt.problems.robust.PriorSet.ball>` holds it exactly by its vertices
(Qhull; no outer approximation: the only error is the vertices' rounding, checked ≤ 1e-9 against the
ball's inequalities). A channel that is ε-PML at every vertex is ε-PML at every prior of the set (the
constraint Q[x, y] ≤ e^ε Σ_x' P(x') Q[x', y] is linear in P), hence **ε-PML for the true prior with
probability ≥ 1 − δ over the samples** — the (ε, δ)-PML of Grosse, Saeidian, Skoglund, Oechtering,
"Privacy Mechanism Design based on Empirical Distributions" (arXiv 2509.22428; they use large-deviation
bounds of this kind). The paper's own text was not at hand: its definition and bound are **recalled,
not checked against the paper's text**; the construction here is sound on its own (the derivation
above). The sample size needed for a target radius solves the bound for n (:func:`sample_size`).

Examples
--------
>>> E = EmpiricalPrior.from_counts([120, 80, 40], delta=1e-3)
>>> E.n, E.p_hat.round(4).tolist(), round(E.radius, 4)
(240, [0.5, 0.3333, 0.1667], 0.2693)
>>> S = E.prior_set()
>>> S.source, len(S.vertices)
('empirical:weissman:n=240:delta=0.001:L1<=0.2693', 6)
>>> sample_size(0.1, 3, 1e-3)             # samples for an L1 radius of 0.1 on 3 symbols
1740
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from mechopt.errors import ProblemError
from mechopt.problems.robust.ballset import BallSet
from mechopt.problems.robust.priorsets import MAX_BALL_SYMBOLS, PriorSet

__all__ = ["BOUNDS", "EmpiricalPrior", "empirical_radius", "sample_size"]

#: The concentration bounds: their name -> (the distance they bound, the kind of PriorSet.ball).
BOUNDS = {"weissman": ("L1", "tv"), "hoeffding": ("Linf", "linf")}


def check_delta(delta: Any) -> float:
    try:
        v = float(delta)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"delta must be a number in (0, 1), got {delta!r}") from None
    if not (0.0 < v < 1.0):
        raise ProblemError(f"delta must be in (0, 1) (the probability the set misses the prior), got {delta!r}")
    return v


def check_bound(bound: Any) -> str:
    key = str(bound).strip().lower()
    if key not in BOUNDS:
        raise ProblemError(f"concentration bound {bound!r} is not known; use one of {', '.join(BOUNDS)}")
    return key


def whole_number(v: Any, name: str, least: int) -> int:
    try:
        f = float(v)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"{name} must be a whole number >= {least}, got {v!r}") from None
    if not math.isfinite(f) or f != int(f) or f < least:
        raise ProblemError(f"{name} must be a whole number >= {least}, got {v!r}")
    return int(f)


def _log_numerator(d: int, bound: str) -> float:
    """ln((2^d − 2)/1) for Weissman (−inf at d = 1: the set is a point), ln(2d) for Hoeffding; overflow-free."""
    if bound == "hoeffding":
        return math.log(2 * d)
    return -math.inf if d == 1 else d * math.log(2.0) + math.log1p(-(2.0 ** (1 - d)))


def empirical_radius(n: int, d: int, delta: float, bound: str = "weissman") -> float:
    """The radius r with P(dist(p, p̂_n) ≥ r) ≤ δ after n samples on d symbols (L1 or L∞, per ``bound``).

    Weissman et al. (2003): r = sqrt(2 ln((2^d − 2)/δ) / n) in L1; Hoeffding and a union bound:
    r = sqrt(ln(2d/δ) / (2n)) in L∞. It shrinks like 1/sqrt(n); 0 when d = 1.

    >>> round(empirical_radius(1000, 4, 0.01), 6), round(empirical_radius(4000, 4, 0.01), 6)
    (0.120368, 0.060184)
    >>> round(empirical_radius(1000, 4, 0.01, "hoeffding"), 6)
    0.057813
    """
    key, dv, nv = (
        check_bound(bound),
        whole_number(d, "the number of symbols d", 1),
        whole_number(n, "the sample size n", 1),
    )
    a = _log_numerator(dv, key) - math.log(check_delta(delta))
    if a == -math.inf:
        return 0.0
    return math.sqrt(2.0 * a / nv) if key == "weissman" else math.sqrt(a / (2.0 * nv))


_EXACT_N = 2.0**52  # above this, n and n + 1 round to one float


def sample_size(radius: float, d: int, delta: float, bound: str = "weissman") -> int:
    """The least n with :func:`empirical_radius` (n, d, δ) ≤ ``radius``: the bound solved for n.

    Weissman: n = ⌈2 ln((2^d − 2)/δ) / r²⌉; Hoeffding: n = ⌈ln(2d/δ) / (2 r²)⌉ (then adjusted by one
    if the float radius at that n lands on the other side).

    >>> n = sample_size(0.05, 4, 1e-3)
    >>> n, empirical_radius(n, 4, 1e-3) <= 0.05 < empirical_radius(n - 1, 4, 1e-3)
    (7638, True)
    """
    key, dv = check_bound(bound), whole_number(d, "the number of symbols d", 1)
    try:
        r = float(radius)
    except (TypeError, ValueError, OverflowError):
        raise ProblemError(f"the target radius must be a number > 0, got {radius!r}") from None
    if not (r > 0.0 and math.isfinite(r)):
        raise ProblemError(f"the target radius must be a finite number > 0, got {radius!r}")
    a = _log_numerator(dv, key) - math.log(check_delta(delta))
    if a == -math.inf:
        return 1
    x = (2.0 * a if key == "weissman" else a / 2.0) / r / r
    if not x < _EXACT_N:
        # beyond 2^52 float n and n ± 1 are one number: the radius cannot tell them apart
        about = f"about {x:.3g}" if math.isfinite(x) else "more than 1.8e+308"  # never "about inf"
        symbols = dv if dv < 10**9 else f"~1e{len(str(dv)) - 1}"
        raise ProblemError(
            f"the target radius {radius!r} needs {about} samples on {symbols} symbols, beyond {_EXACT_N:.3g} "
            "(where float radii cannot tell n from n + 1): give a larger radius or fewer symbols"
        )
    n = max(1, math.ceil(x))
    while empirical_radius(n, dv, delta, key) > r:
        n += 1
    while n > 1 and empirical_radius(n - 1, dv, delta, key) <= r:
        n -= 1
    return n


@dataclass(frozen=True, eq=False)
class EmpiricalPrior:
    """Counts of n samples, δ and a bound: the empirical prior p̂ and the set that holds p w.p. ≥ 1 − δ."""

    counts: np.ndarray
    delta: float
    bound: str = "weissman"

    def __post_init__(self) -> None:
        c = np.asarray(self.counts, dtype=float).ravel()
        if c.size == 0 or not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c != np.floor(c)):
            raise ProblemError("prior counts must be whole numbers >= 0 (how often each symbol was seen)")
        if c.sum() < 1:
            raise ProblemError("prior counts must have at least one sample (their sum is 0)")
        if not c.sum() < _EXACT_N:  # 1e300 printed n as the 301 digits of the float sum, not the count given
            raise ProblemError(
                f"prior counts sum to {c.sum():.3g} samples, beyond {_EXACT_N:.3g}, where counts are no longer exact "
                "integers (n and n + 1 are one float): give the empirical prior itself with --prior"
            )
        c.flags.writeable = False
        object.__setattr__(self, "counts", c)
        object.__setattr__(self, "delta", check_delta(self.delta))
        object.__setattr__(self, "bound", check_bound(self.bound))

    @classmethod
    def from_counts(cls, counts: Any, delta: Any, bound: str = "weissman") -> "EmpiricalPrior":
        """From counts as a list or ``"120,80,40"``."""
        if isinstance(counts, str):
            try:
                counts = [float(v) for v in counts.split(",") if v.strip()]
            except ValueError:
                raise ProblemError(f"prior counts {counts[:60]!r} are not numbers separated by ','") from None
        if not isinstance(counts, np.ndarray):
            try:
                counts = np.asarray(counts, dtype=float)
            except (TypeError, ValueError, OverflowError):  # nested, non-numeric or huge
                raise ProblemError(
                    f"prior counts {str(counts)[:60]!r} must be a flat list of non-negative numbers"
                ) from None
        return cls(counts, delta, bound)

    @property
    def n(self) -> int:
        """The number of samples."""
        return int(self.counts.sum())

    @property
    def d(self) -> int:
        """The number of symbols."""
        return int(self.counts.size)

    @property
    def p_hat(self) -> np.ndarray:
        """The empirical prior N / n."""
        return self.counts / self.counts.sum()

    @property
    def radius(self) -> float:
        """The bound's radius (L1 for Weissman, L∞ for Hoeffding) at this n, d and δ."""
        return empirical_radius(self.n, self.d, self.delta, self.bound)

    def prior_set(self) -> PriorSet:
        """{P ∈ Δ : dist(P, p̂) ≤ radius}, exactly by its vertices (a TV ball of radius r/2 for the L1 bound)."""
        kind = BOUNDS[self.bound][1]
        if self.d > MAX_BALL_SYMBOLS:
            raise ProblemError(
                f"an empirical prior set on {self.d} symbols is above {MAX_BALL_SYMBOLS}: the set is held by its "
                "vertices, which grow as 2^d; use EmpiricalPrior.ball() (BallDesign, utility mae: any d), merge "
                "rare symbols, or give a set by its vertices (--prior-set)"
            )
        r = min(1.0, self.radius / 2.0 if kind == "tv" else self.radius)
        S = PriorSet.ball(self.p_hat, r, kind)
        return PriorSet(S.vertices, self._source())

    def ball(self) -> Any:
        """The same set held by its inequalities (:class:`~mechopt.problems.robust.ballset.BallSet`): any d.

        >>> B = EmpiricalPrior.from_counts([120, 80, 40], delta=1e-3).ball()
        >>> B.kind, round(B.radius, 4), B.source
        ('tv', 0.1346, 'empirical:weissman:n=240:delta=0.001:L1<=0.2693')
        """
        kind = BOUNDS[self.bound][1]
        r = min(1.0, self.radius / 2.0 if kind == "tv" else self.radius)
        return BallSet(self.p_hat, r, kind, self._source(), self)

    def _source(self) -> str:
        return f"empirical:{self.bound}:n={self.n}:delta={self.delta:g}:{BOUNDS[self.bound][0]}<={self.radius:.4g}"

    def guarantee(self, notion: str, eps: Any) -> str:
        """What a design private at every prior of :meth:`prior_set` earns, in words.

        >>> print(EmpiricalPrior.from_counts([120, 80, 40], 1e-3).guarantee("pml", 1))
        (eps, delta) guarantee: a channel private at every prior of the set is pml eps = 1 for the true prior with \
probability >= 1 - 0.001 over the 240 samples (weissman bound: L1 distance to the empirical prior <= 0.2693)
        """
        return (
            f"(eps, delta) guarantee: a channel private at every prior of the set is {notion} eps = {eps} for the true "
            f"prior with probability >= 1 - {self.delta:g} over the {self.n} samples ({self.bound} bound: "
            f"{BOUNDS[self.bound][0]} distance to the empirical prior <= {self.radius:.4g})"
        )
