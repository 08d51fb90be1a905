"""The central (ε, δ) of a finite local randomizer Q after its reports are shuffled among n users.

A local randomizer's amplification parameters are read exactly from Q
(:func:`randomizer_params`): ε₀ (the worst log ratio in a column; infinite when a
column has a zero next to a positive entry), the blanket mass γ = Σ_y min_x Q[x, y]
(Balle, Bell, Gascón and Nissim, CRYPTO 2019), and the variation-ratio parameters
p = e^ε₀, β = max pairwise total variation, q (Wang et al., VLDB 2024).
:func:`central_guarantee` turns them into an *upper bound* on the central ε at a
given δ by one named published bound:

- ``"clone"`` — Feldman, McMillan and Talwar, "Hiding Among the Clones" (FOCS 2021),
  the numerical bound of apple/ml-shuffling-amplification (depends on ε₀ only);
- ``"clone-closed"`` — the same paper's closed form (Theorem 3.1), valid when
  ε₀ ≤ log(n / (16 log(4/δ))), else ε₀;
- ``"stronger-clone"`` — Feldman, McMillan and Talwar, SODA 2023 (ε₀ only);
- ``"variation-ratio"`` (default) — Wang, Peng, Li et al., "Privacy Amplification via
  Shuffling: Unified, Simplified, and Tightened" (VLDB 2024), which also uses β.

Each is an upper bound: a smaller true ε may hold. The result names the bound.

Examples
--------
>>> from mechopt.oracles import GRR
>>> g = central_guarantee(GRR(d=4, eps=2.0), n=10**4, delta=1e-6)
>>> g.bound, round(g.eps, 3), round(g.params["beta"], 3)
('variation-ratio', 0.102, 0.615)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from mechopt.deploy import _amplify
from mechopt.errors import ParamError, ProblemError, TooLargeError

__all__ = ["BOUNDS", "ShuffleGuarantee", "randomizer_params", "central_guarantee", "clone_closed_form", "MAX_USERS"]

MAX_USERS = 10**10  # the sums run over a window of O(sqrt(n)) counts: about 10^6 points at this n
BOUNDS: dict[str, str] = {
    "variation-ratio": "Wang, Peng, Li et al., Privacy Amplification via Shuffling: Unified, Simplified, and "
    "Tightened, VLDB 2024 (numerical bound, parameters p, beta, q)",
    "stronger-clone": "Feldman, McMillan and Talwar, Stronger Privacy Amplification by Shuffling for Renyi and "
    "Approximate Differential Privacy, SODA 2023 (numerical, eps0 only)",
    "clone": "Feldman, McMillan and Talwar, Hiding Among the Clones, FOCS 2021 (numerical, eps0 only; "
    "apple/ml-shuffling-amplification)",
    "clone-closed": "Feldman, McMillan and Talwar, Hiding Among the Clones, FOCS 2021, Theorem 3.1 (closed form)",
}


@dataclass(frozen=True)
class ShuffleGuarantee:
    """An upper bound (eps, delta) on the central privacy of n shuffled reports, and the bound it relies on.

    Examples
    --------
    >>> g = central_guarantee([[0.75, 0.25], [0.25, 0.75]], n=10**4, delta=1e-6, bound="clone")
    >>> g.to_dict()["bound"], g.eps < g.params["eps0"]
    ('clone', True)
    """

    eps: float
    delta: float
    n: int
    bound: str
    params: dict[str, Any]
    note: str = ""
    reference: str = field(default="")

    def statement(self) -> str:
        """One line saying what is guaranteed and by which bound (never "the" ε)."""
        eps = "inf" if math.isinf(self.eps) else f"{self.eps:.6g}"
        return (
            f"after shuffling n={self.n} reports: ({eps}, {self.delta:.3g})-DP by the {self.bound} bound "
            f"(an upper bound on the central eps; local eps0={self.params['eps0']:.6g})"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: infinities become ``None``."""

        def clean(v: Any) -> Any:
            return None if isinstance(v, float) and not math.isfinite(v) else v

        return {
            "eps": clean(self.eps),
            "delta": self.delta,
            "n": self.n,
            "bound": self.bound,
            "upper_bound": True,
            "reference": self.reference,
            "params": {k: clean(v) for k, v in self.params.items()},
            "note": self.note,
            "statement": self.statement(),
        }


def _matrix(mech: Any) -> np.ndarray:
    Q = getattr(mech, "Q", None)
    if isinstance(Q, np.ndarray):  # a Mechanism: already validated
        return Q
    from mechopt.mechanism.convert import matrix_and_labels

    return matrix_and_labels(mech)[0]


def _eps0(Q: np.ndarray) -> tuple[float, tuple[int, int]]:
    """max over columns of log(max_x Q / min_x Q), its (x, x') pair; inf for a zero next to a positive."""
    used = Q.max(axis=0) > 0
    hi, lo = Q[:, used].max(axis=0), Q[:, used].min(axis=0)
    if np.any(lo <= 0):
        y = int(np.flatnonzero(lo <= 0)[0])
        col = Q[:, used][:, y]
        return math.inf, (int(np.argmax(col)), int(np.argmin(col)))
    ratio = np.log(hi) - np.log(lo)
    y = int(np.argmax(ratio))
    col = Q[:, used][:, y]
    return float(ratio[y]), (int(np.argmax(col)), int(np.argmin(col)))


def _max_tv(Q: np.ndarray) -> tuple[float, tuple[int, int]]:
    """max over input pairs of the total variation ½ Σ_y |Q[x] − Q[x']| and its pair (one row at a time)."""
    best, pair = 0.0, (0, 0)
    for x in range(Q.shape[0] - 1):
        tv = 0.5 * np.abs(Q[x + 1 :] - Q[x]).sum(axis=1)
        j = int(np.argmax(tv))
        if tv[j] > best:
            best, pair = float(tv[j]), (x, x + 1 + j)
    return best, pair


def randomizer_params(mech: Any) -> dict[str, Any]:
    """The amplification parameters of a finite randomizer, read exactly from its Q.

    ``eps0`` (ε₀) and ``eps0_pair``; ``blanket_mass`` γ = Σ_y min_x Q[x, y]; ``beta`` (β, the largest
    total variation between two rows) and ``beta_pair``; ``p`` = e^ε₀ and ``q`` = e^ε₀ (Wang et al.'s
    ratio bounds: over one finite input set both are the worst column ratio). ``beta`` ≤ (p − 1)/(p + 1).

    Examples
    --------
    >>> prm = randomizer_params([[0.5, 0.25, 0.25], [0.25, 0.5, 0.25], [0.25, 0.25, 0.5]])
    >>> round(prm["eps0"], 6), prm["blanket_mass"], prm["beta"]
    (0.693147, 0.75, 0.25)
    """
    Q = _matrix(mech)
    eps0, e_pair = _eps0(Q)
    beta, b_pair = _max_tv(Q)
    p = math.exp(eps0) if eps0 < 709 else math.inf
    return {
        "eps0": eps0,
        "eps0_pair": list(e_pair),
        "blanket_mass": float(Q.min(axis=0).sum()),
        "beta": beta,
        "beta_pair": list(b_pair),
        "p": p,
        "q": p,
        "d": int(Q.shape[0]),
        "k": int(Q.shape[1]),
    }


def _check(n: Any, delta: Any, bound: str) -> tuple[int, float]:
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ProblemError(f"n (the number of shuffled users) must be an integer >= 1, got {n!r}")
    if n > MAX_USERS:
        say = n if n < 10**12 else f"~1e{len(str(n)) - 1}"  # not hundreds of digits
        raise TooLargeError(f"n={say} users is more than this accountant handles; pass n <= {MAX_USERS:.0e}")
    try:
        d = float(delta)
    except (TypeError, ValueError):
        d = math.nan
    if not 0.0 < d < 1.0:
        raise ProblemError(f"delta must be a number in (0, 1), e.g. 1e-6; got {delta!r}")
    if d < 1e-300:  # the binomial windows' tail (1e-6 δ) would underflow to 0
        raise ProblemError(f"delta {d:g} is below 1e-300, where doubles cannot follow it; give delta >= 1e-300")
    if bound not in BOUNDS:
        raise ParamError(f"unknown amplification bound {bound!r}; known: {', '.join(BOUNDS)}")
    return int(n), d


def clone_closed_form(eps0: float, n: int, delta: float) -> float | None:
    """Theorem 3.1 of "Hiding Among the Clones": the closed-form ε, or None outside its regime.

    ε ≤ log(1 + (1 − e^−ε₀)/(1 + e^−(ε₀+ε′)) · (a + c)) with a = 8 √(e^ε₀ log(4/δ)) / √n, c = 8 e^ε₀ / n,
    ε′ = log(1 + a + c), for ε₀ ≤ log(n / (16 log(4/δ))).

    Examples
    --------
    >>> round(clone_closed_form(4.0, 10**5, 1e-6), 10)  # apple/ml-shuffling-amplification prints 0.5378040242374512
    0.5378040242
    """
    if eps0 > math.log(n / (16.0 * math.log(4.0 / delta))):
        return None
    a = 8.0 * math.sqrt(math.exp(eps0) * math.log(4.0 / delta) / n)
    c = 8.0 * math.exp(eps0) / n
    eps_prime = math.log(1.0 + a + c)
    return math.log(1.0 + (1.0 - math.exp(-eps0)) / (1.0 + math.exp(-eps0 - eps_prime)) * (a + c))


def _pair(bound: str, prm: dict[str, Any]) -> dict[str, float]:
    """The dominating pair (p, α, r₀, r₁) of a numerical bound (see :mod:`mechopt.deploy._amplify`)."""
    p = prm["p"]
    if bound == "clone":  # C ~ Bin(n − 1, e^−ε₀), the victim tips A or B with odds e^ε₀ : 1
        return {"p": p, "alpha": 1.0 / (p + 1.0), "r0": 0.5 / p, "r1": 0.5 / p}
    if bound == "stronger-clone":  # C ~ Bin(n − 1, 2/(e^ε₀ + 1))
        return {"p": p, "alpha": 1.0 / (p + 1.0), "r0": 1.0 / (p + 1.0), "r1": 1.0 / (p + 1.0)}
    alpha = prm["beta"] / (p - 1.0)  # variation-ratio: α = β/(p − 1), r = α p / q
    r = alpha * p / prm["q"]
    return {"p": p, "alpha": alpha, "r0": r, "r1": r}


def central_guarantee(mech_or_Q: Any, n: int, delta: float, bound: str = "variation-ratio") -> ShuffleGuarantee:
    """An upper bound on the central ε at ``delta`` after shuffling ``n`` reports of one randomizer, by ``bound``.

    Parameters
    ----------
    mech_or_Q : Mechanism, oracle or array_like (d, k)
        The local randomizer ``Q[x, y] = P(Y=y | X=x)``.
    n : int
        Number of users whose reports are shuffled together (n ≥ 1).
    delta : float
        The central δ, in (0, 1).
    bound : str
        One of :data:`BOUNDS`.

    Returns
    -------
    ShuffleGuarantee
        ``eps`` (≤ ε₀ always: shuffling ε₀-LDP reports is ε₀-DP), ``delta``, ``bound``, ``params``.

    Examples
    --------
    >>> g = central_guarantee([[0.9, 0.1], [0.1, 0.9]], n=10**5, delta=1e-6, bound="stronger-clone")
    >>> round(g.eps, 4), g.bound
    (0.0385, 'stronger-clone')
    """
    n, delta = _check(n, delta, bound)
    prm = randomizer_params(mech_or_Q)
    eps0, ref = prm["eps0"], BOUNDS[bound]
    if eps0 == 0.0:
        return ShuffleGuarantee(0.0, delta, n, bound, prm, "every row of Q is the same: the reports say nothing", ref)
    if math.isinf(eps0):
        note = (
            f"Q is not eps0-LDP for any finite eps0 (inputs {prm['eps0_pair']} give an output probability 0 next to a "
            "positive one): no finite central eps from these bounds"
        )
        return ShuffleGuarantee(math.inf, delta, n, bound, prm, note, ref)
    if bound == "clone-closed":
        eps = clone_closed_form(eps0, n, delta)
        note = "" if eps is not None else "outside Theorem 3.1's regime eps0 <= log(n/(16 log(4/delta))): eps0 returned"
        return ShuffleGuarantee(eps0 if eps is None else min(eps, eps0), delta, n, bound, prm, note, ref)
    pair = _pair(bound, prm)
    eps = _amplify.smallest_eps(delta, eps0, n=n, **pair)
    return ShuffleGuarantee(eps, delta, n, bound, {**prm, **{k: pair[k] for k in ("alpha", "r0")}}, "", ref)
